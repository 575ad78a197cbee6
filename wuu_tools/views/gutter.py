"""A numbered listing's padded gutter, shown compact: ``12 text`` for ``    12→text`` or ``    12\\ttext``.

``cat -n`` and ``nl`` right-align each line's number in six columns, and a coding agent's own
file read (Claude Code's ``Read``) does the same before an arrow. The padding and the arrow carry
nothing the number does not, and they cost a token or more on every line: a 200-line file read
pays some 600 tokens for them. A command's first view of such a listing that does not fit the
budget as printed shows each line after its number and one space (a blank line as its number
alone), so more of the file's own lines fit (an output that fits is shown as printed). One space,
not a tab: the space joins the line's first word in one token, so a line costs a token less
(measured on the recorded runs' numbered listings: 299,956 tokens with a space, 311,757 with a
tab, 318,937 with a colon). The saved output keeps the bytes as printed.

``read_saved`` numbers every line it shows with the saved output's own line number (``22\\t``):
a listing's padded number after it said the same again (``22\\t    22\\ttext``). Its pages show a
line whose printed number is that line number once, ``22\\ttext`` (:func:`fold_gutter`), and
another printed number compact after it (``22\\t251 text``: a listing cut by ``| tail`` or an
``nl`` listing past a blank line, whose numbers are the file's, not the output's); ``raw=True``
pages the bytes as printed.

>>> compact_gutter("   116→## Session: 2025-11-30")
'116 ## Session: 2025-11-30'
>>> compact_gutter("     7\\tdef f():")
'7 def f():'
>>> compact_gutter("     8→")
'8'
>>> compact_gutter("12 apples")
'12 apples'
>>> fold_gutter(22, "    22\\tdef f():")
'def f():'
>>> fold_gutter(22, "   251\\tdef f():")
'251 def f():'
>>> padded_gutter(["     1→# Title", "     2→", "     3→text"])
True
>>> padded_gutter(["1\\tplain", "2\\tnumbered"])
False
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..core.lines import LineFile, decode_line

__all__ = ["PROBE_LINES", "compact_gutter", "fold_gutter", "has_padded_gutter", "padded_gutter"]

_PADDED = re.compile(r"^ +(\d+)(?:→|\t)")
PROBE_LINES = 3
"""A listing's first lines that must all carry a padded gutter for the view to compact it."""


def compact_gutter(line: str) -> str:
    """``line`` with a padded gutter (``    12→``, ``    12\\t``) written ``12 ``; any other line as it is."""
    m = _PADDED.match(line)
    if m is None:
        return line
    rest = line[m.end() :]
    return f"{m.group(1)} {rest}" if rest else m.group(1)


def padded_gutter(first_lines: Iterable[str]) -> bool:
    """Whether the first lines of an output (at least one, :data:`PROBE_LINES` at most) each carry a padded gutter."""
    probe = [line for _, line in zip(range(PROBE_LINES), first_lines, strict=False)]
    return bool(probe) and all(_PADDED.match(line) for line in probe)


def fold_gutter(number: int, line: str) -> str:
    """``line`` as shown after a view's own ``number``: without its padded gutter when that says ``number``,
    with it compact when it says another number; any other line as it is."""
    m = _PADDED.match(line)
    if m is None:
        return line
    return line[m.end() :] if int(m.group(1)) == number else compact_gutter(line)


def has_padded_gutter(lf: LineFile) -> bool:
    """Whether a saved output is a numbered listing with a padded gutter (:func:`padded_gutter` of its first lines)."""
    if not lf.total_lines:
        return False
    raws, _ = lf.read_forward(1, min(PROBE_LINES, lf.total_lines), 4096)
    return padded_gutter(decode_line(raw)[0] for raw in raws)
