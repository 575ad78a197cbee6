"""The ``wuu`` command line: a thin client of the library, one file per command group.

The typer app is built on first use (``wuu_tools.cli.app``, PEP 562): ``wuu run`` parses
its few options itself (:func:`.runfast.run_fast`), so the command starts without typer and
pydantic being loaded, and falls back to the app for anything else (``--help``, errors).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

__all__ = ["app", "main"]


def _build_app() -> typer.Typer:
    import typer

    from .. import __version__
    from . import call, conv, ls, project, read, saved
    from . import mcp as mcp_commands
    from . import run as run_commands

    app = typer.Typer(
        name="wuu",
        help="Projections of files, directories, commands, transcripts and tool results for coding agents.",
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

    read.register(app)
    saved.register(app)
    ls.register(app)
    run_commands.register(app)
    conv.register(app)
    project.register(app)
    call.register(app)
    mcp_commands.register(app)
    return app


def __getattr__(name: str) -> Any:
    if name == "app":
        app = globals()["app"] = _build_app()
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point."""
    if sys.argv[1:2] == ["run"]:
        from .runfast import run_fast

        run_fast(sys.argv[2:])  # returns only when the arguments need the full parser
    app = globals().get("app") or __getattr__("app")
    app()
