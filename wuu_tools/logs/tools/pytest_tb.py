"""pytest's failure blocks and warnings summary: the frames between the test and the raise, folded.

In the FAILURES and ERRORS sections, each block (``____ test_name ____``) is a traceback: the test's
own frame first, the frame that raised last, and between them the frames it went through (pytest
separates long frames with ``_ _ _ _`` lines; ``--tb=short`` and collection errors print each frame
as ``path:12: in name`` and its line). Kept as printed: the block's title, the test's frame, the
raising frame's ``>`` line, its ``E`` lines and its ``path:50: Error`` line, every line starting
``E`` anywhere (a chained exception's), the ``During handling…`` sentences and the block's
``Captured …`` sections (the test's own prints and logs). Folded, each into one counted line: the
frames between, named by where each is (``[… 2 traceback frames, at app/views.py:40, app/db.py:12:
lines 20-41]``), and the raising frame's source above its ``>`` line but its last two lines
(``[… 12 lines of _setup: lines 44-55]``) when that frame is not the test's and four lines or more go.

The warnings summary is folded when every warning in it is a ``DeprecationWarning`` or
``PendingDeprecationWarning`` (a library's notice, not the behaviour under test); a summary with
any other warning is kept as printed. The closing line still counts the warnings.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from . import Fold

__all__ = ["failure_folds", "warnings_fold"]

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
NAMED_FRAMES = 6
"""How many folded frames' places a fold's line names (the first five and the last, past that)."""
SOURCE_KEPT = 2
"""Lines of a raising frame's source kept above its ``>`` line: the statements that led to the raise."""
SOURCE_FOLDED = 4
"""A raising frame's source is folded only when at least this many lines would go (fewer save nothing)."""
QUIET_WARNINGS = frozenset({"DeprecationWarning", "PendingDeprecationWarning"})
"""The warning classes a warnings summary may be folded for (every warning in it of one of these)."""


def _blocks(lines: Sequence[str]) -> list[tuple[int, int]]:
    """The traceback part of each failure block: (first, last) 0-based indexes, the title excluded."""
    out: list[tuple[int, int]] = []
    first_rule = next((line for line in lines if _RULE.match(line)), None)
    inside = first_rule is not None and not _START.match(first_rule)  # (a cut head: the output starts in a section)
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


def _pieces(lines: Sequence[str], first: int, last: int) -> list[tuple[int, int]]:
    """``first``..``last`` split at the lines always kept: the pieces of two printed lines or more."""
    out: list[tuple[int, int]] = []
    start = None
    for i in range(first, last + 2):
        if i <= last and not _KEEP.match(lines[i]):
            if start is None:
                start = i
            continue
        if start is not None:
            a, b = start, i - 1
            if sum(1 for j in range(a, b + 1) if lines[j].strip()) >= 2:
                out.append((a, b))
        start = None
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
    shown = at if len(at) <= NAMED_FRAMES else [*at[: NAMED_FRAMES - 1], "…", at[-1]]
    return f"{what}, at {', '.join(shown)}"


def _trimmed(lines: Sequence[str], a: int, b: int) -> tuple[int, int] | None:
    """The piece ``a``..``b`` of a frame's source less the lines kept above its ``>`` line; None if too short."""
    b -= SOURCE_KEPT
    return (a, b) if sum(1 for j in range(a, b + 1) if lines[j].strip()) >= SOURCE_FOLDED else None


def _source_folds(lines: Sequence[str], first: int, raised: int) -> list[Fold]:
    """The fold of a long frame's source above its ``>`` line (``raised``), named by the function it is in."""
    name = next((m.group(1) for i in range(raised - 1, first - 1, -1) if (m := _DEF.match(lines[i]))), None)
    what = f"lines of {name}" if name else "source lines"
    pieces = [t for a, b in _pieces(lines, first, raised - 1) if (t := _trimmed(lines, a, b)) is not None]
    return [Fold(a + 1, b + 1, f"{b - a + 1} {what}") for a, b in pieces]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _title_of(lines: Sequence[str], first: int) -> str | None:
    """The test a block belongs to, from its ``____ Class.test_name ____`` title line."""
    if first and _TITLE.match(lines[first - 1]):
        return lines[first - 1].strip("_ ")
    return None


def failure_folds(lines: Sequence[str]) -> list[Fold]:
    """The folds of the failure blocks' middle frames and long frames' source, in line order.

    A block whose raising frame (its last frame, to the ``path:50: Error`` line) is printed as an
    earlier block's was, objects' addresses aside, has that frame folded whole, named by the test
    it repeats: sixteen tests failing on one library call read as one traceback and fifteen names.
    """
    folds: list[Fold] = []
    seen: dict[str, str] = {}
    for first, last in _blocks(lines):
        seps = [i for i in range(first, last + 1) if _SEPARATOR.match(lines[i])]
        frames = [i for i in range(first, last + 1) if _SHORT_FRAME.match(lines[i])]
        if seps:
            middle = (seps[0], seps[-1]) if len(seps) >= 2 else None
            chunks = [(first, seps[0] - 1), (seps[-1] + 1, last)]
        else:
            middle = (frames[1], frames[-1] - 1) if len(frames) >= 3 else None
            chunks = [] if frames else [(first, last)]  # (--tb=short: no source above a line)
        repeated = None
        if seps and last - seps[-1] >= 4:
            key = "\n".join(_ADDRESS.sub("", lines[i]) for i in range(seps[-1] + 1, last + 1)).strip()
            title = _title_of(lines, first)
            if key in seen:
                repeated = Fold(seps[-1] + 2, last + 1, f"{last - seps[-1]} lines: the raising frame as in {seen[key]}")
                chunks = chunks[:1]
            else:
                seen[key] = title or "the failure above"
        for a, b in chunks:
            raised = next((i for i in range(a, b + 1) if _RAISE.match(lines[i])), None)
            if raised is not None:
                folds += _source_folds(lines, a, raised)
        if middle is not None:
            folds += [Fold(a + 1, b + 1, _frames_label(lines, a, b)) for a, b in _pieces(lines, *middle)]
        if repeated is not None:
            folds.append(repeated)
    return sorted(folds, key=lambda f: f.start)


def warnings_fold(lines: Sequence[str]) -> Fold | None:
    """The fold of a warnings summary whose warnings are all deprecations; None when there is none such."""
    start = next((i for i, line in enumerate(lines) if _WARNINGS.match(line)), None)
    if start is None:
        return None
    end = next((i - 1 for i in range(start + 1, len(lines)) if _RULE.match(lines[i])), len(lines) - 1)
    kinds: Counter[str] = Counter()
    for i in range(start + 1, end + 1):
        if m := _CATEGORY.search(lines[i]):
            kinds[m.group(1)] += 1
    if not kinds or set(kinds) - QUIET_WARNINGS or end - start < 1:
        return None
    named = ", ".join(f"{n} {k}{'s' if n > 1 else ''}" for k, n in kinds.items())
    return Fold(start + 1, end + 1, f"warnings summary of {named}")
