"""A numbered listing's padded gutter, shown as ``read_file`` numbers lines: ``12\\t`` for ``    12→`` or ``    12\\t``.

``cat -n`` and ``nl`` right-align each line's number in six columns, and a coding agent's own
file read (Claude Code's ``Read``) does the same before an arrow. The padding and the arrow carry
nothing the number does not, and they cost a token or more on every line: a 200-line file read
pays some 600 tokens for them. A command's first view of such a listing that does not fit the
budget as printed shows the number and a tab before each line, as ``read_file`` does, so more of
the file's own lines fit (an output that fits is shown as printed); the saved output keeps the
bytes as printed, and ``read_saved`` reads them.

>>> compact_gutter("   116→## Session: 2025-11-30")
'116\\t## Session: 2025-11-30'
>>> compact_gutter("     7\\tdef f():")
'7\\tdef f():'
>>> compact_gutter("12 apples")
'12 apples'
>>> padded_gutter(["     1→# Title", "     2→", "     3→text"])
True
>>> padded_gutter(["1\\tplain", "2\\tnumbered"])
False
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["PROBE_LINES", "compact_gutter", "padded_gutter"]

_PADDED = re.compile(r"^ +(\d+)(?:→|\t)")
PROBE_LINES = 3
"""A listing's first lines that must all carry a padded gutter for the view to compact it."""


def compact_gutter(line: str) -> str:
    """``line`` with a padded gutter (``    12→``, ``    12\\t``) written ``12\\t``; any other line as it is."""
    return _PADDED.sub(r"\1\t", line, count=1)


def padded_gutter(first_lines: Iterable[str]) -> bool:
    """Whether the first lines of an output (at least one, :data:`PROBE_LINES` at most) each carry a padded gutter."""
    probe = [line for _, line in zip(range(PROBE_LINES), first_lines, strict=False)]
    return bool(probe) and all(_PADDED.match(line) for line in probe)
