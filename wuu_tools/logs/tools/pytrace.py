"""Python tracebacks in any output: the middle of a long one, runs of library frames and ``^^^^`` markers folded.

A traceback (``Traceback (most recent call last):``, alone or after a label such as ``Stderr: ``, then
``File "…", line N, in name`` frames, then the exception) is evidence at both ends: the frames
where the program entered (the script, the test) and the frames where it raised. Between them, a
deep call path repeats what the function names already say, and frames inside the interpreter or
installed packages (``<frozen importlib._bootstrap>``, ``…/lib/python3.11/…``, ``site-packages/…``)
are rarely what the agent reads next. So, for every traceback in an output:

- a traceback of more than :data:`LONG` frames keeps its first :data:`KEEP_FIRST` and its last
  :data:`KEEP_LAST` frames of the project (library frames among them are not counted); the frames
  between are folded into one line naming each project frame's function and line, in call order,
  library frames counted (``[… 9 frames (7 in libraries): populate:116, import_models:269: lines 7-20]``);
- of the frames kept, each run of two or more library frames that does not hold the frame that
  raised is folded into one line naming where they are (``[… 5 library frames in
  importlib/__init__.py, <frozen importlib._bootstrap>: lines 4-12]``);
- the marker lines Python 3.11+ prints under a kept frame's source line (``    ^^^^^^^^``,
  ``~~~~^^^``), which point into the line just shown, are left out without a line of their own:
  the view's last line counts them with the call that reads them back.

Every other line, the exception and its message included, is shown as printed. These folds are
added to any rule's plan (:func:`~wuu_tools.logs.tools.plan_for`) where they overlap none of its own.

>>> lines = ["Traceback (most recent call last):", '  File "/app/run.py", line 3, in <module>', "    main()",
...          "    ~~~~^^", "ValueError: bad"]
>>> traceback_folds(lines)
[Fold(start=4, end=4, label='')]
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import Fold

__all__ = ["KEEP_FIRST", "KEEP_LAST", "LONG", "MARKER_LABEL", "merge_folds", "traceback_folds"]

LONG = 8
"""A traceback of more than this many frames has its middle folded."""
KEEP_FIRST = 2
"""Frames kept at the start of a long traceback: where the program entered."""
KEEP_LAST = 4
"""Frames kept at the end of a long traceback: where it raised."""
MAX_NAMES = 12
"""A fold of a traceback's middle names at most this many functions (the first and the last ones)."""
MARKER_LABEL = ""
"""The label of a fold that has no line of its own: a marker line, counted in the view's last line."""

_HEAD = re.compile(r"^(?:\S.*?: )?(\s*)Traceback \(most recent call last\):\s*$")
"""A traceback's header, alone on its line or after a label a program printed (``Stderr: Traceback …``)."""
_FRAME = re.compile(r'^(\s*)File "([^"]+)", line (\d+)(?:, in (.+?))?\s*$')
_MARKER = re.compile(r"^[ ~^]*\^[ ~^]*$")
_LIBRARY = re.compile(r"^<frozen |[/\\](?:site|dist)-packages[/\\]|[/\\]lib[/\\]python\d[\d.]*[/\\]", re.I)
_INSTALLED = re.compile(r"^.*?[/\\](?:(?:site|dist)-packages|lib[/\\]python\d[\d.]*)[/\\]", re.I)


@dataclass
class _Frame:
    start: int  # 0-based index of the ``File`` line
    end: int  # one past its last line
    path: str
    line: str
    name: str
    markers: list[int]
    library: bool  # in the interpreter or an installed package (:data:`_LIBRARY`)


def _frames(lines: Sequence[str], head: int) -> list[_Frame]:
    """The frames of the traceback whose header is at ``head``, in order."""
    indent = len(_HEAD.match(lines[head]).group(1))  # type: ignore[union-attr]
    out: list[_Frame] = []
    i = head + 1
    while i < len(lines):
        m = _FRAME.match(lines[i])
        if m is None or len(m.group(1)) <= indent:
            break
        inner = " " * (len(m.group(1)) + 1)
        j, markers = i + 1, []
        while j < len(lines) and lines[j].startswith(inner) and lines[j].strip() and not _FRAME.match(lines[j]):
            if j > i + 1 and _MARKER.match(lines[j]):
                markers.append(j)
            j += 1
        path = m.group(2)
        out.append(_Frame(i, j, path, m.group(3), m.group(4) or "?", markers, bool(_LIBRARY.search(path))))
        i = j
    return out


def _place(path: str) -> str:
    """Where a library frame is, short: ``importlib/__init__.py``, ``<frozen importlib._bootstrap>``."""
    return _INSTALLED.sub("", path) if not path.startswith("<") else path


def _names(frames: Sequence[_Frame]) -> str:
    """``resolve:44, technical_404_response:485``: each frame's function and line, in call order."""
    names = [f"{f.name}:{f.line}" for f in frames if f.name != "<module>"]
    if len(names) > MAX_NAMES:
        names = [*names[: MAX_NAMES // 2], "…", *names[-(MAX_NAMES // 2 - 1) :]]
    return ", ".join(names)


def _label(frames: Sequence[_Frame]) -> str:
    n = len(frames)
    if all(f.library for f in frames):
        places = list(dict.fromkeys(_place(f.path) for f in frames))
        where = ", ".join(places[:3]) + (", …" if len(places) > 3 else "")
        return f"{n} library frames in {where}"
    own = [f for f in frames if not f.library]
    libraries = f" ({n - len(own)} in libraries)" if len(own) < n else ""
    names = _names(own)  # (a library frame's name is rarely what the agent reads next: counted, not named)
    return f"{n} frames{libraries}: {names}" if names else f"{n} frames{libraries}"


def _ends(frames: Sequence[_Frame]) -> tuple[int, int]:
    """Where a long traceback's middle starts and ends (``frames[a:b]``): past its first :data:`KEEP_FIRST`
    project frames, before its last :data:`KEEP_LAST` (library frames are not counted: they fold apart)."""
    n = len(frames)
    a = seen = 0
    while a < n and seen < KEEP_FIRST:
        seen += not frames[a].library
        a += 1
    b, seen = n, 0
    while b > a and seen < KEEP_LAST:
        b -= 1
        seen += not frames[b].library
    return a, b


def _one(frames: list[_Frame]) -> list[Fold]:
    """The folds of one traceback's frames."""
    n = len(frames)
    folded = [False] * n
    if n > LONG:
        a, b = _ends(frames)
        if b - a >= 2:
            folded[a:b] = [True] * (b - a)
    k = 0
    while k < n - 1:  # runs of library frames among those kept, the raising frame (the last) never
        if folded[k] or not frames[k].library:
            k += 1
            continue
        j = k
        while j < n - 1 and not folded[j] and frames[j].library:
            j += 1
        if j - k >= 2:
            folded[k:j] = [True] * (j - k)
        k = j
    out: list[Fold] = []
    k = 0
    while k < n:
        if not folded[k]:
            out += [Fold(i + 1, i + 1, MARKER_LABEL) for i in frames[k].markers]
            k += 1
            continue
        j = k
        while j < n and folded[j]:
            j += 1
        run = frames[k:j]
        out.append(Fold(run[0].start + 1, run[-1].end, _label(run)))
        k = j
    return out


def traceback_folds(lines: Sequence[str]) -> list[Fold]:
    """The folds of every Python traceback in ``lines`` (see the module docstring), in line order."""
    out: list[Fold] = []
    for i, line in enumerate(lines):
        if "Traceback (most recent call last)" in line and _HEAD.match(line):
            frames = _frames(lines, i)
            if frames:
                out += _one(frames)
    return out


def merge_folds(own: Sequence[Fold], extra: Sequence[Fold]) -> list[Fold]:
    """``own`` with each fold of ``extra`` that overlaps none of them, in line order."""
    starts = [f.start for f in own]  # (a plan's folds are in order and do not overlap)
    out = list(own)
    for f in extra:
        k = bisect.bisect_right(starts, f.end)  # the own folds starting at or before f's end: the last may overlap
        if k == 0 or own[k - 1].end < f.start:
            out.append(f)
    return sorted(out, key=lambda f: f.start)
