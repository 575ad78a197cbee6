"""How the CLI shows a ToolResult: rich on a terminal, the exact text when piped, JSON on request."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar

import typer

from .._errors import InvalidArgument, WuuError
from .._result import ToolResult

__all__ = ["emit", "fail", "run_tool"]

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
        typer.echo(result.to_json(indent=2))
    elif sys.stdout.isatty():
        (render or _rich)(result)
    else:
        sys.stdout.write(result.text)
        if not result.text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code``."""
    typer.echo(f"wuu: {message}", err=True)
    raise typer.Exit(code)


def run_tool(fn: Callable[[], ToolResult], as_json: bool, render: Renderer | None = None) -> ToolResult:
    """Call a tool and print its result; bad arguments exit 2, unreadable sources exit 1, both with one line."""
    try:
        result = fn()
    except InvalidArgument as exc:
        fail(exc.message, 2)
    except WuuError as exc:
        if as_json:
            emit(ToolResult.from_error(exc), True)
            raise typer.Exit(1) from None
        fail(exc.message, 1)
    emit(result, as_json, render)
    return result
