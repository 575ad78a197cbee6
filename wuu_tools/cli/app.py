"""The typer app of ``wuu``, built from the commands' declarations (:mod:`.params`): help, usage errors, the rest.

:func:`build_app` imports every command module, so it costs what typer and pydantic cost to
load (~0.1 s); ``wuu`` builds it only for what :mod:`.parse` leaves to it (``--help``,
``--version``, an error, an unusual spelling). Each command function is handed to typer with
its :class:`~.params.Param` defaults turned into ``typer.Option`` / ``typer.Argument``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Iterable
from typing import Any

import typer

from .. import __version__
from .params import COMMANDS, GROUPS, Command, Param

__all__ = ["build_app", "typer_function"]

HELP = "Projections of files, directories, commands, transcripts and tool results for coding agents."


def typer_function(fn: Callable[..., Any], call: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """``fn`` (or ``call`` in its place) with the signature typer reads: each Param as typer's own declaration."""
    signature = inspect.signature(fn)
    params = []
    for p in signature.parameters.values():
        d: Param = p.default
        if d.argument:
            default = typer.Argument(d.default, help=d.help, metavar=d.metavar)
        else:
            default = typer.Option(d.default, *d.decls, help=d.help)
        params.append(p.replace(default=default))

    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> Any:
        return (call or fn)(**kwargs)

    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper


def build_app(modules: Iterable[str], call: Callable[[Command], Callable[..., Any]] | None = None) -> typer.Typer:
    """The app with the commands of ``modules`` (``wuu_tools.cli`` submodules), in that order.

    ``call`` gives, for a command, the function typer calls in its place (the tests record
    what typer would pass); by default the command itself runs.
    """
    names = [f"{__package__}.{name}" for name in modules]
    for name in names:
        importlib.import_module(name)
    app = typer.Typer(
        name="wuu",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )

    def _version(value: bool) -> None:
        if value:
            typer.echo(f"wuu-tools {__version__}")
            raise typer.Exit()

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ) -> None:
        """Projections of files, directories, commands, transcripts and tool results for coding agents."""

    groups: dict[str, typer.Typer] = {}
    # In the modules' order, whichever was imported first (the help lists commands as registered).
    ordered = sorted(COMMANDS.items(), key=lambda item: names.index(item[1].fn.__module__))
    for path, cmd in ordered:
        target = app
        if len(path) == 2:
            if path[0] not in groups:
                groups[path[0]] = typer.Typer(name=path[0], help=GROUPS[path[0]].help, no_args_is_help=True)
                app.add_typer(groups[path[0]])
            target = groups[path[0]]
        fn = typer_function(cmd.fn, call(cmd) if call else None)
        target.command(path[-1], context_settings=cmd.context_settings or None)(fn)
    return app
