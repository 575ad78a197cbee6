"""How the CLI shows a ToolResult: rich on a terminal, the exact text when piped, JSON on request.

Nothing here loads typer until a command exits through it, so ``wuu run``'s own parser
(:mod:`.runfast`) shows results and errors with the same code as every typer command.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn, TypeVar

from ..core.errors import InvalidArgument, WuuError
from ..core.result import ToolResult

if TYPE_CHECKING:
    import typer  # noqa: F401

__all__ = ["call_tool", "emit", "fail", "run_tool"]

T = TypeVar("T")

_LINE = re.compile(r"^(\s*\d+)(\t)(.*)$")


def _rich(result: ToolResult) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)
    for line in result.text.split("\n"):
        m = _LINE.match(line)
        if m:
            out = Text(m.group(1), style="dim")
            out.append(" ")
            out.append(m.group(3))
            console.print(out)
        elif (line.startswith("[") and line.endswith("]")) or line.startswith("…"):
            console.print(Text(line, style="bold cyan" if line.startswith("[") else "yellow"))
        elif line.startswith("error:"):
            console.print(Text(line, style="bold red"))
        else:
            console.print(Text(line))


Renderer = Callable[[ToolResult], None]


def emit(result: ToolResult, as_json: bool, render: Renderer | None = None) -> None:
    """Print ``result``: the JSON envelope, a rich view on a terminal (``render``, if given), or the exact text."""
    if as_json:
        print(result.to_json(indent=2), flush=True)
    elif sys.stdout.isatty():
        (render or _rich)(result)
    else:
        sys.stdout.write(result.text)
        if not result.text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()


def _error(message: str) -> None:
    print(f"wuu: {message}", file=sys.stderr, flush=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code``."""
    import typer

    _error(message)
    raise typer.Exit(code)


def call_tool(
    fn: Callable[[], ToolResult], as_json: bool, render: Renderer | None = None
) -> tuple[ToolResult | None, int]:
    """Call a tool and print its result, or its error (one line, or the JSON envelope with ``as_json``).

    Returns ``(result, 0)``, or ``(None, code)`` after an error: 2 for bad arguments, 1 for a
    source that cannot be read.
    """
    try:
        result = fn()
    except InvalidArgument as exc:
        _error(exc.message)
        return None, 2
    except WuuError as exc:
        if as_json:
            emit(ToolResult.from_error(exc), True)
        else:
            _error(exc.message)
        return None, 1
    emit(result, as_json, render)
    return result, 0


def run_tool(fn: Callable[[], ToolResult], as_json: bool, render: Renderer | None = None) -> ToolResult:
    """Call a tool and print its result; bad arguments exit 2, unreadable sources exit 1, both with one line."""
    result, code = call_tool(fn, as_json, render)
    if result is None:
        import typer

        raise typer.Exit(code)
    return result
