r"""The colour a tool printed a line in: red for a failure, green for a pass.

Test runners, compilers and CI systems colour their output by one convention whatever the
toolchain: red (or bright red) for what failed, green for what passed. A log saved with its
terminal codes keeps that judgement, so a line's colour is evidence that needs no rule for
its format: a red line is a failure the tool itself pointed at, a green one is not evidence
whatever words it holds (``✓ returns an error``, ``[+] fails when …``).

:func:`tone` reads the SGR sequences (``ESC [ … m``) of one raw line and says which colour
its visible text was printed in; a colour left open at the end of a line carries into the
next (the state is returned and passed back in).

>>> tone("\x1b[31mFAILED\x1b[0m something")[0]
'red'
>>> tone("\x1b[32m  ok returns an error\x1b[39m")[0]
'green'
>>> tone("plain text")[0]
''
"""

from __future__ import annotations

import re

__all__ = ["GREEN", "RED", "tone"]

RED = "red"
GREEN = "green"

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_OTHER = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[()*+].|.)?|[\x00-\x1f\x7f]")  # other escapes, controls
_RED_256 = frozenset({"1", "9", "52", "88", "124", "160", "196", "197"})
_GREEN_256 = frozenset({"2", "10", "22", "28", "34", "40", "46", "70", "76", "82"})


def _apply(codes: str, fg: str) -> str:
    """The foreground colour after one SGR sequence's ``codes`` (``red``, ``green`` or ``""``: another)."""
    parts = codes.replace(":", ";").split(";") if codes else ["0"]
    i = 0
    while i < len(parts):
        c = parts[i]
        if c in ("", "0", "39"):
            fg = ""
        elif c in ("31", "91"):
            fg = RED
        elif c in ("32", "92"):
            fg = GREEN
        elif c in ("30", "33", "34", "35", "36", "37", "90", "93", "94", "95", "96", "97"):
            fg = ""
        elif c == "38" and i + 2 < len(parts) and parts[i + 1] == "5":
            n = parts[i + 2]
            fg = RED if n in _RED_256 else GREEN if n in _GREEN_256 else ""
            i += 2
        elif c == "38" and i + 4 < len(parts) and parts[i + 1] == "2":
            i += 4
            fg = ""
        i += 1
    return fg


def tone(raw: str, fg: str = "") -> tuple[str, str]:
    """The colour of ``raw``'s visible text and the colour open at its end (``fg``: the one open before it).

    ``red`` when some visible (non-blank) text is red; else ``green`` when some is green; else ``""``.
    """
    if "\x1b" not in raw:
        return (fg if raw.strip() else ""), fg
    seen_red = seen_green = False
    pos = 0
    for m in _SGR.finditer(raw):
        if _visible(raw[pos : m.start()]):
            seen_red |= fg == RED
            seen_green |= fg == GREEN
        fg = _apply(m.group(1), fg)
        pos = m.end()
    if _visible(raw[pos:]):
        seen_red |= fg == RED
        seen_green |= fg == GREEN
    return (RED if seen_red else GREEN if seen_green else ""), fg


def _visible(text: str) -> bool:
    return bool(text.strip()) and bool(_OTHER.sub("", text).strip())
