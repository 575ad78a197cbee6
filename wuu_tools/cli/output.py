"""How the CLI shows a ToolResult: rich on a terminal, the exact text when piped, JSON on request.

Content never drives the terminal. Whatever goes to a terminal — a view, ``--raw`` bytes, the
JSON envelope, an error line, with or without ``NO_COLOR`` — has its control characters shown
(:func:`for_terminal`): ESC as ``␛``, every other C0 control but tab and newline as its control
picture (``␇``, ``␈``, ``␍``), DEL as ``␡``, and the C1 controls (U+0080-U+009F, which many
terminals take for ESC sequences: U+009B is CSI, U+009D is OSC) as ``<U+009B>``. In JSON they
are ``\u009b`` escapes, so it stays valid JSON. The colours rich adds are the only escape
sequences the CLI writes. Piped or redirected, the text is exact.

Nothing here loads typer: a command runs the same whether :mod:`.parse` or typer parsed its line.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar

from ..core.errors import InvalidArgument, WuuError
from ..core.result import ToolResult

__all__ = ["call_tool", "emit", "fail", "for_terminal", "plain_output", "run_tool"]

T = TypeVar("T")

_LINE = re.compile(r"^(\s*\d+)(\t)(.*)$")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _picture(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the control pictures: ␀ … ␛ … ␟
    return "\u2421" if code == 0x7F else f"<U+{code:04X}>"


def for_terminal(text: str) -> str:
    """``text`` with its control characters shown, not obeyed (tab and newline stay).

    >>> for_terminal("ok\x1b]52;c;ZXZpbA==\x07 \x9b2J\tend")
    'ok␛]52;c;ZXZpbA==␇ <U+009B>2J\tend'
    """
    return _CONTROLS.sub(_picture, text)


def _json_for_terminal(text: str) -> str:
    """JSON text (C0 controls already escaped) with DEL and the C1 controls escaped too: still the same JSON."""
    return _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _is_tty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def _rich(result: ToolResult) -> None:
    """A view on a terminal: numbers dim; in a log view the evidence stands out and the rest is dim.

    In the error-evidence section of a command's log, the lines the evidence rules match (and
    the runners' summaries) are bold and their context keeps the terminal's own colour; the
    tail and head around them are dim. A file's lines keep the terminal's own colour.
    """
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)
    section = ""  # "evidence" or "log" in a command's log view, "" elsewhere
    for line in result.text.split("\n"):
        m = _LINE.match(line)
        if m:
            out = Text()
            out.append(m.group(1), style="dim")
            out.append(" ")
            out.append(m.group(3), style=_line_style(section, m.group(3)))
            console.print(out)
            continue
        if line.startswith(("[error evidence", "[summary]")):
            section = "evidence"
        elif section and line.startswith(("[tail:", "[head:")):
            section = "log"
        if (line.startswith("[") and line.endswith("]")) or line.startswith("…"):
            console.print(Text(line, style="bold cyan" if line.startswith("[") else "yellow"))
        elif line.startswith("error:"):
            console.print(Text(line, style="bold red"))
        else:
            console.print(Text(line, style=_line_style(section, line) if section == "log" else ""))


def _line_style(section: str, content: str) -> str:
    if section == "log":
        return "dim"
    if section == "evidence":
        from ..logs.evidence import classify, is_summary, normalize

        plain = normalize(content)
        return "bold" if classify(plain) is not None or is_summary(plain) else ""
    return ""


def plain_output() -> bool:
    """Whether to print the exact text: stdout is not a terminal, or ``NO_COLOR`` / ``TERM=dumb`` asks for it."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return True
    return not sys.stdout.isatty()


Renderer = Callable[[ToolResult], None]


def emit(result: ToolResult, as_json: bool, render: Renderer | None = None) -> None:
    """Print ``result``: the JSON envelope, a rich view on a terminal (``render``, if given), or the exact text."""
    tty = _is_tty(sys.stdout)
    if as_json:
        text = result.to_json(indent=2)
        print(_json_for_terminal(text) if tty else text, flush=True)
        return
    if tty and _CONTROLS.search(result.text):
        result = dataclasses.replace(result, text=for_terminal(result.text))
    if not plain_output():
        (render or _rich)(result)
    else:
        sys.stdout.write(result.text)
        if not result.text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()


def _error(message: str) -> None:
    line = f"wuu: {message}"
    print(for_terminal(line) if _is_tty(sys.stderr) else line, file=sys.stderr, flush=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code``."""
    _error(message)
    sys.exit(code)


def call_tool(
    fn: Callable[[], ToolResult], as_json: bool, render: Renderer | None = None
) -> tuple[ToolResult | None, int]:
    """Call a tool and print its result, or its error (one line, or the JSON envelope with ``as_json``).

    Returns ``(result, 0)``, or ``(None, code)`` after an error: 2 for bad arguments, 1 for a
    source that cannot be read.
    """
    try:
        result = _in_session(fn)
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


def _in_session(fn: Callable[[], ToolResult]) -> ToolResult:
    """``fn()`` in the session ``WUU_SESSION`` names (kept in the store), if it names one."""
    if not os.environ.get("WUU_SESSION"):
        return fn()
    from ..core.session import session_from_env, use_session
    from ..core.store import current_store

    with use_session(session_from_env(current_store().root)):
        return fn()


def run_tool(fn: Callable[[], ToolResult], as_json: bool, render: Renderer | None = None) -> ToolResult:
    """Call a tool and print its result; bad arguments exit 2, unreadable sources exit 1, both with one line."""
    result, code = call_tool(fn, as_json, render)
    if result is None:
        sys.exit(code)
    return result
