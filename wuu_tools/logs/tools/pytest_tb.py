"""pytest's failure blocks and warnings summary: the frames between the test and the raise, folded.

In the FAILURES and ERRORS sections, each block (``____ test_name ____``) is a traceback: the test's
own frame first, the frame that raised last, and between them the frames it went through (pytest
separates long frames with ``_ _ _ _`` lines; ``--tb=short`` and collection errors print each frame
as ``path:12: in name`` and its line). Kept as printed, in file order: the block's title, every ``E``
line (a chained exception's too) and ``During handling…`` sentence, the statement that raised before
each run of ``E`` lines (its ``>`` line; in ``--tb=short``, its frame's place and line) and the raising
frame's place after it (``app/db.py:57: ValueError``), and the block's ``Captured …`` sections (the
test's own prints and logs). Each run of two printed lines or more between them is folded into one
counted line: frames counted and the last one placed (``[… 5 traceback frames, the last at
app/db.py:12: lines 20-41]``), or a frame's source lines (``[… 8 lines of test_update: lines 12-19]``).

The warnings summary is folded when every warning in it is a ``DeprecationWarning`` or
``PendingDeprecationWarning`` (a library's notice, not the behaviour under test); a summary with
any other warning is kept as printed. The closing line still counts the warnings.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from . import Fold

__all__ = ["failure_folds", "warnings_fold", "warnings_spans"]

_RULE = re.compile(r"^=+ .+ =+$")
_START = re.compile(r"^=+ test session starts =+$")
_CUT = re.compile(r"^\.\.\. \[[\d,]+ (characters|lines) truncated\] \.\.\.$|^\[[\d,]+ (characters|lines) truncated\]$")
_FAILURES = re.compile(r"^=+ (FAILURES|ERRORS) =+$")
_SEPARATOR = re.compile(r"^_( _)+\s*$")
_TITLE = re.compile(r"^_+ \S.* _+$")
_CAPTURED = re.compile(r"^-+ Captured .+ -+$")
_SHORT_FRAME = re.compile(r"^\S+:\d+: in \S+$")
# A frame's place (group 1): "tests/base.py:18: in name" (--tb=short), or a long frame's last line "tests/base.py:18: "
_WHERE = re.compile(r"^(\S+:\d+):(?: in \S+| (?:\w+(?:\.\w+)*)?\s*)$")
_KEEP = re.compile(r"^(E\s|During handling of the above exception|The above exception was the direct cause)")
_RAISE = re.compile(r"^>")
_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)")
_WARNINGS = re.compile(r"^=+ warnings summary( \(final\))? =+$")
_CATEGORY = re.compile(r":\d+: (\w*Warning)\b")
NAMED_FRAMES = 1
"""How many folded frames' places a fold's line names; past that, only the last one's (chosen on DEV: 2.71x
rtk's tokens naming 1, 2.74x naming 2, 2.86x naming 6; no item lost on either split)."""
QUIET_WARNINGS = frozenset({"DeprecationWarning", "PendingDeprecationWarning"})
"""The warning classes a warnings summary may be folded for (every warning in it of one of these)."""


def _blocks(lines: Sequence[str]) -> list[tuple[int, int]]:
    """The traceback part of each failure block: (first, last) 0-based indexes, the title excluded."""
    out: list[tuple[int, int]] = []
    at = next((i for i, line in enumerate(lines) if _RULE.match(line)), None)
    # A cut head (``| tail``) starts inside a failure block when a traceback's lines come before the first
    # rule line and that rule does not open the failures: else the lines before it are the run's progress.
    inside = (
        at is not None
        and not _START.match(lines[at])
        and not _FAILURES.match(lines[at])
        and any(_RAISE.match(line) or _WHERE.match(line) or _SEPARATOR.match(line) for line in lines[:at])
    )
    start: int | None = 0 if inside else None

    def close(end: int) -> None:
        nonlocal start
        if start is not None and end >= start:
            out.append((start, end))
        start = None

    for i, line in enumerate(lines):
        if _RULE.match(line):
            close(i - 1)
            inside = bool(_FAILURES.match(line))
        elif _CUT.match(line):  # (the middle was cut: what follows may be a failure's end)
            close(i - 1)
            inside, start = True, i + 1
        elif _TITLE.match(line) and not _SEPARATOR.match(line):
            inside = True  # (pytest prints such titles only in its FAILURES and ERRORS sections)
            close(i - 1)
            start = i + 1
        elif not inside:
            continue
        elif _CAPTURED.match(line):
            close(i - 1)
    close(len(lines) - 1)
    return out


def _library(place: str) -> bool:
    """Whether a frame's place is an installed library's or the interpreter's, not the project's."""
    return place.startswith("/") or "site-packages/" in place or "dist-packages/" in place


def _frames_label(lines: Sequence[str], a: int, b: int) -> str:
    """``2 traceback frames, at app/views.py:40, app/models.py:12``: the count and where each frame is.

    Frames in installed libraries (absolute paths, ``site-packages``) are counted, not named, when the
    project's own frames are among them: their long paths are rarely what the agent reads next.
    """
    at = [m.group(1) for i in range(a, b + 1) if (m := _WHERE.match(lines[i]))]
    n = len(at)
    what = "1 traceback frame" if n == 1 else f"{n} traceback frames" if n else f"{b - a + 1} traceback lines"
    if not at:
        return what
    own = [place for place in at if not _library(place)]
    if own and len(own) < n:
        what += f" ({n - len(own)} in libraries)"
        at = own
    elif not own:
        at = [at[0], at[-1]] if n > 1 else at
    if len(at) <= NAMED_FRAMES:
        return f"{what}, at {', '.join(at)}"
    return f"{what}, the last at {at[-1]}"


_E = re.compile(r"^E\s")


def _kept(lines: Sequence[str], first: int, last: int) -> set[int]:
    """The lines of a failure block shown as printed: what was raised, by which statement, and where.

    Every ``E`` line and ``During handling…`` sentence; before each run of ``E`` lines, the statement
    that raised (the last ``>`` line, or in ``--tb=short``'s frames the last ``path:12: in name`` line
    and its statement); after it, the raising frame's place (``app/db.py:57: ValueError``). A block
    with no ``E`` line keeps its last ``>`` line and its last place.
    """
    keep = {i for i in range(first, last + 1) if _KEEP.match(lines[i])}
    runs: list[tuple[int, int]] = []
    for i in range(first, last + 1):
        if _E.match(lines[i]):
            if runs and runs[-1][1] == i - 1:
                runs[-1] = (runs[-1][0], i)
            else:
                runs.append((i, i))
    if not runs:
        runs = [(last + 1, last)]
    low = first
    for a, b in runs:
        stated = (k for k in range(a - 1, low - 1, -1) if _RAISE.match(lines[k]) or _SHORT_FRAME.match(lines[k]))
        at = next(stated, None)
        if at is not None:
            keep.add(at)
            if _SHORT_FRAME.match(lines[at]) and at + 1 < a and lines[at + 1].startswith(" "):
                keep.add(at + 1)
        after = range(b + 1, last + 1) if b >= a else range(last, low - 1, -1)
        place = next((k for k in after if _WHERE.match(lines[k]) or _E.match(lines[k])), None)
        if place is not None and _WHERE.match(lines[place]) and not _SHORT_FRAME.match(lines[place]):
            keep.add(place)
        low = b + 1
    return keep


def _piece_label(lines: Sequence[str], a: int, b: int) -> str:
    """A folded piece of a block: its frames, counted and placed, or its source lines, counted."""
    if any(_WHERE.match(lines[i]) for i in range(a, b + 1)):
        return _frames_label(lines, a, b)
    name = next((m.group(1) for i in range(b, a - 1, -1) if (m := _DEF.match(lines[i]))), None)
    n = b - a + 1
    return f"{n} lines of {name}" if name else f"{n} source lines"


def failure_folds(lines: Sequence[str]) -> list[Fold]:
    """The folds of each failure block but its kept lines (:func:`_kept`), in line order.

    What is left of a block reads in file order: the test's title, the statements at the ``>`` marks,
    the ``E`` lines and the two places; a run of two printed lines or more between them is one fold.
    """
    folds: list[Fold] = []
    for first, last in _blocks(lines):
        keep = _kept(lines, first, last)
        start: int | None = None
        for i in range(first, last + 2):
            if i <= last and i not in keep:
                if start is None:
                    start = i
                continue
            if start is not None and sum(1 for j in range(start, i) if lines[j].strip()) >= 2:
                folds.append(Fold(start + 1, i, _piece_label(lines, start, i - 1)))
            start = None
    return folds


def warnings_spans(lines: Sequence[str]) -> list[tuple[int, int]]:
    """Each warnings summary's first and last line (0-based, inclusive): its rule line to the line before the
    next rule (its ``-- Docs:`` line included), or to the end."""
    out = []
    for start, line in enumerate(lines):
        if _WARNINGS.match(line):
            end = next((i - 1 for i in range(start + 1, len(lines)) if _RULE.match(lines[i])), len(lines) - 1)
            out.append((start, end))
    return out


def warnings_fold(lines: Sequence[str]) -> Fold | None:
    """The fold of a warnings summary whose warnings are all deprecations; None when there is none such."""
    spans = warnings_spans(lines)
    if not spans:
        return None
    start, end = spans[0]
    kinds: Counter[str] = Counter()
    for i in range(start + 1, end + 1):
        if m := _CATEGORY.search(lines[i]):
            kinds[m.group(1)] += 1
    if not kinds or set(kinds) - QUIET_WARNINGS or end - start < 1:
        return None
    named = ", ".join(f"{n} {k}{'s' if n > 1 else ''}" for k, n in kinds.items())
    return Fold(start + 1, end + 1, f"warnings summary of {named}")
