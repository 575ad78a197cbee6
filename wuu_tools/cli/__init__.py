"""The ``wuu`` command line: a thin client of the library, one file per command group.

Each command is declared once (:mod:`.params`). :func:`main` imports only the module of the
command typed, parses the usual command lines itself (:mod:`.parse`) and runs the command; what
it leaves — ``--help``, ``--version``, usage errors, unusual spellings — goes to the typer app
built from the same declarations (:mod:`.app`; ``wuu_tools.cli.app``, built on first use, PEP 562).
So ``wuu read FILE`` starts without typer and pydantic being loaded.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

__all__ = ["MODULES", "app", "main"]

MODULES = {
    "read": "read",
    "saved": "saved",
    "ls": "ls",
    "run": "run",
    "conv": "conv",
    "project": "project",
    "call": "call",
    "schema": "call",
    "mcp": "mcp",
    "hook": "hook",
    "init": "init",
    "gain": "gain",
    "replay": "replay",
}
"""The module of each top-level command (``wuu schema`` is in ``call.py``), in the order ``wuu --help`` lists them."""


def __getattr__(name: str) -> Any:
    if name == "app":
        from .app import build_app

        app = globals()["app"] = build_app(dict.fromkeys(MODULES.values()))
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _typer_app() -> typer.Typer:
    return globals().get("app") or __getattr__("app")


def main() -> None:
    """Console-script entry point."""
    args = sys.argv[1:]
    if os.environ.get("WUU_CONTINUE_AS"):  # under an agent's hook: continuations as shell commands
        from .continuations import use_shell_continuations

        use_shell_continuations()
    found = _fast(args)
    if found is None:
        _typer_app()()
        return
    fn, kwargs = found
    _invoke(fn, kwargs)


def _fast(args: list[str]) -> tuple[Any, dict[str, Any]] | None:
    """The command function and its arguments, when :mod:`.parse` can parse ``args`` alone."""
    module = MODULES.get(args[0]) if args else None
    if module is None or any(k.endswith("_COMPLETE") for k in os.environ if k.startswith("_WUU")):
        return None
    from .params import COMMANDS
    from .parse import parse

    importlib.import_module(f"{__name__}.{module}")
    depth = 2 if (args[0],) not in COMMANDS and len(args) > 1 else 1
    cmd = COMMANDS.get(tuple(args[:depth]))
    if cmd is None:
        return None
    kwargs = parse(cmd, args[depth:])
    return None if kwargs is None else (cmd.fn, kwargs)


def _invoke(fn: Any, kwargs: dict[str, Any]) -> None:
    """Run a command as typer's standalone mode runs it: the same exits for Ctrl-C, EOF and a closed pipe."""
    try:
        fn(**kwargs)
    except EOFError:
        print(file=sys.stderr)
        print("Aborted!", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # The reader went away (wuu read f | head -1): quiet, exit 1, and no second error at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                os.dup2(devnull, stream.fileno())
        sys.exit(1)
