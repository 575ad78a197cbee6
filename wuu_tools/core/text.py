r"""Shared text shaping: terminal clean-up, numbers and sizes in words, numbered lines, ranges.

>>> clean_terminal("\x1b[31mred\x1b[0m")
'red'
>>> clean_terminal("\x1b]2;title\x07ok \x9b2Jdone \x1bP+q544e\x1b\\")
'ok done '
>>> clean_terminal("10%\r50%\r100%")
'100%'
>>> mark_carriage_returns("first\rsecond")
'first␍second'
>>> human_size(845_312)
'825.5 KiB'
>>> visible("bell\x07 and \x9b31m")
'bell\\u0007 and \\u009b31m'
>>> ranges([1, 2, 3, 7, 9, 10])
[[1, 3], [7, 7], [9, 10]]
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "CR_MARK",
    "clean_line",
    "clean_terminal",
    "complement",
    "escape_char",
    "human_size",
    "mark_carriage_returns",
    "number_line",
    "plural",
    "ranges",
    "strip_ansi",
    "thousands",
    "visible",
]

# What a terminal consumes without showing it, in its 7-bit (ESC …) and 8-bit (C1 control) forms:
# CSI sequences (colours, cursor moves); OSC (titles, hyperlinks, clipboard writes) up to BEL or
# ST; DCS, SOS, PM and APC strings with their bodies, up to ST; other escape sequences (charset
# selections such as ``ESC ( B``, what ``tput sgr0`` emits; ``ESC 7``; ``ESC =``); and any C1
# control left alone. Each alternative stops at the next ESC, so a search stays linear.
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)"
    r"|\x1b[ -/]*[0-~]"
    r"|[\x80-\x9f]"
)
_HAS_ANSI = re.compile("[\x1b\x80-\x9f]")


_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f", '"': '\\"', "\\": "\\\\"}


def escape_char(c: str) -> str:
    """One character as a JSON-style escape: ``\\n``, ``\\t``, ``\\\\``, else ``\\uXXXX``."""
    short = _SHORT.get(c)
    if short is not None:
        return short
    code = ord(c)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells a character past the BMP as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible(text: str) -> str:
    """``text`` with every character that is not printable (controls, lone surrogates, …) escaped as ``\\uXXXX``.

    For text shown as is (an error's path): printable characters, backslashes and quotes stay.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else escape_char(c) for c in text)


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences and C1 controls (ESC-led or 8-bit), with the bodies of OSC and DCS strings."""
    return _ANSI.sub("", text) if _HAS_ANSI.search(text) else text


def clean_terminal(line: str) -> str:
    """One log line as a person saw it: colours removed, carriage-return redraws collapsed to the last one."""
    line = strip_ansi(line)
    if "\r" in line:
        line = line.rstrip("\r")
        if "\r" in line:
            parts = [p for p in line.split("\r") if p]
            line = parts[-1] if parts else ""
    return line


# Character-set designations (ESC ( B) that tput sgr0 emits, should a redraw leave one behind.
_CHARSET = re.compile(r"\x1b[()*+][0-9A-Za-z]")


def clean_line(line: str) -> str:
    """A log line as a person saw it: :func:`clean_terminal` plus character-set escapes removed."""
    line = clean_terminal(line)
    return _CHARSET.sub("", line) if "\x1b" in line else line


CR_MARK = "\u240d"
"""How a file view shows a carriage return inside a line (U+240D SYMBOL FOR CARRIAGE RETURN, ``␍``).

Only ``"\n"`` ends a line (as for ``grep -n`` and ``sed -n``), and the CR of a CRLF ending is
dropped, so a carriage return left inside a line is one a terminal would redraw over; shown raw,
it hides the text before it. File views show the raw content, so it is marked; views of saved
command output show the line as the terminal left it instead (:func:`clean_terminal`).
"""


def mark_carriage_returns(line: str) -> str:
    """``line`` with each carriage return shown as :data:`CR_MARK` (one character for one: offsets hold)."""
    return line.replace("\r", CR_MARK) if "\r" in line else line


def thousands(n: int) -> str:
    """``12345`` -> ``"12,345"``."""
    return f"{n:,}"


def plural(n: int, word: str, words: str | None = None) -> str:
    """``plural(1, "line")`` -> ``"1 line"``; ``plural(3, "line")`` -> ``"3 lines"``."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def human_size(n: int) -> str:
    """Bytes in binary units, one decimal: ``"512 B"``, ``"825.5 KiB"``, ``"1.0 GiB"``."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def number_line(n: int, text: str, width: int) -> str:
    """A view line: the 1-based number right-aligned to ``width``, a tab, the text (as ``cat -n``)."""
    return f"{n:>{width}}\t{text}"


def complement(shown: list[list[int]], total: int) -> list[list[int]]:
    """The ranges of lines ``1..total`` outside the sorted inclusive ranges ``shown``.

    >>> complement([[3, 4], [8, 8]], 10)
    [[1, 2], [5, 7], [9, 10]]
    """
    out: list[list[int]] = []
    nxt = 1
    for a, b in shown:
        if a > nxt:
            out.append([nxt, a - 1])
        nxt = max(nxt, b + 1)
    if nxt <= total:
        out.append([nxt, total])
    return out


def ranges(numbers: Iterable[int]) -> list[list[int]]:
    """Sorted line numbers folded into inclusive ``[first, last]`` ranges."""
    out: list[list[int]] = []
    for n in sorted(set(numbers)):
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out
