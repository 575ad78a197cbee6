r"""The test or step a line of a log belongs to: the label of an evidence group.

The error-evidence section of a log view (:mod:`.view`) shows its places in file order. Places
that sit in one CI step or one test read as one group: the group's header (the step's command, the
test's name) is named once by a label line, unless the header line is itself shown, and the places
inside are separated by the count of lines skipped between them, not by a bare ``…``. The count costs
tokens that the line numbers already say: a view that must leave evidence out to show the counts shows
bare ``…`` instead (``counts=False``, chosen by :mod:`.view`), so grouping never costs a place.

A header is a line that opens a step or a test:

- **steps** (the markers :mod:`.steps` knows): a command echoed by the CI (``$ cmd`` on Travis),
  ``##[group]Run …`` (GitHub Actions), ``::group::…``, a GitLab ``section_start:…:name``; a
  Travis ``The command "…" exited with N.`` closes the step it ends.
- **tests**: a pytest failure block (``____ test_name ____``) or section (``=== FAILURES ===``: not labelled),
  unittest's ``FAIL: test_x (pkg.Case)`` / ``ERROR: …``, go test's ``--- FAIL: TestX``, a jest
  ``● Suite › name`` block. A new step closes the test.

Work is bounded: the lines between two places are read backward at most :data:`GAP_LINES` lines and
:data:`GAP_BYTES` bytes; when the gap is longer and no header is found in its read end, the place's
group is unknown and it is shown as before (after a bare ``…``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..core.lines import LineFile, decode_line
from ..core.text import plural
from .evidence import normalize

__all__ = ["GAP_BYTES", "GAP_LINES", "Header", "grouped", "header", "scan"]

GAP_LINES = 3000
GAP_BYTES = 384 << 10
NAME_CHARS = 60
"""A label names its step or test in this many characters at most."""

_STEP = re.compile(r"^\$ (\S.*)|^##\[group\](.+)|^::group::(.+)|section_start:\d+:([\w.-]+)")
_STEP_END = re.compile(r"^The command \".*\" exited with \d+\.\s*$")
_SECTION = re.compile(r"^={3,} (.+?) ={3,}$")  # pytest: === FAILURES ===: it closes the test before it
_TEST = re.compile(
    r"^_{3,} (.+?) _{3,}$"  # pytest: ____ test_name ____
    r"|^(?:FAIL|ERROR): (\w+ \([\w.]+\))"  # unittest: FAIL: test_x (pkg.Case)
    r"|^\s*--- FAIL: (\S+)"  # go test
    r"|^\s*● (\S.*)"  # jest
)


@dataclass(frozen=True)
class Header:
    """A line that opens a step (``kind`` ``"step"``) or a test (``"test"``) named ``name``;
    ``"end"``: a line that closes the step (no label)."""

    line: int
    kind: str
    name: str

    def label(self) -> str:
        """The label line naming this header once, with its line number."""
        name = self.name if len(self.name) <= NAME_CHARS else self.name[: NAME_CHARS - 1] + "…"
        return f"[{self.kind} {self.line:,}: {name}]"


def header(number: int, text: str) -> Header | None:
    """The header that the (normalized) line ``number`` is, or None."""
    text = text.rstrip()
    if not text:
        return None
    m = _STEP.search(text)
    if m:
        name = next(g for g in m.groups() if g)
        if m.group(1):
            name = "$ " + name
        return Header(number, "step", " ".join(name.split()))
    if _STEP_END.search(text):
        return Header(number, "end", "")
    m = _SECTION.search(text)
    if m:
        return Header(number, "section", " ".join(m.group(1).split()))
    m = _TEST.search(text)
    if m:
        return Header(number, "test", " ".join(next(g for g in m.groups() if g).split()))
    return None


def scan(lf: LineFile, first: int, last: int) -> tuple[list[Header], bool]:
    """The headers among lines ``first..last`` in file order, and whether all of those lines were read
    (the gap is read backward from ``last``, at most :data:`GAP_LINES` lines and :data:`GAP_BYTES` bytes)."""
    if last < first:
        return [], True
    floor = max(first, last - GAP_LINES + 1)
    raws = lf.read_backward(last, GAP_BYTES, floor=floor)
    start = last - len(raws) + 1
    found = []
    for k, raw in enumerate(raws):
        h = header(start + k, normalize(decode_line(raw[:2048])[0]))
        if h is not None:
            found.append(h)
    return found, start <= first


@dataclass(frozen=True)
class _Row:
    """One evidence block as :func:`grouped` shows it: its lines, the labels and separator before it, the step
    open in it, the step its first line ends (``closed``) and whether a line inside it ends a step (``ends``)."""

    first: int
    last: int
    labels: list[Header]
    sep: str
    step: Header | None
    closed: Header | None
    ends: bool


Scans = dict[tuple[int, int], tuple[list[Header], bool]]


def grouped(
    lf: LineFile,
    blocks: list[tuple[int, int]],
    numbered: Callable[[int], str],
    notes: dict[int, str],
    cache: Scans | None = None,
    counts: bool = True,
) -> list[str]:
    """The evidence ``blocks`` (sorted ``(first, last)`` line spans) as view lines, grouped under their step and test.

    Each block's lines are ``numbered``, followed by the ``notes`` of its lines. Between two blocks of one group:
    ``  … N lines`` (the lines skipped inside it); before a block that opens a group: the labels of its step and
    test whose header line is not shown; else a bare ``  …``. A ``  …`` ends the list (more lines follow).
    ``cache`` keeps the gaps' scans from one render of the view to the next. ``counts=False``: a bare ``  …``
    between the blocks of a group too (the labels still name the groups).
    """
    cache = {} if cache is None else cache
    step: Header | None = None
    test: Header | None = None
    shown: set[int] = set()
    prev = 0
    rows: list[_Row] = []
    for first, last in blocks:
        found, whole = _scan(lf, prev + 1, first, cache)
        old = (step, test)
        if not whole:
            step = test = None  # a header may hide in the part of the gap not read: the group is unknown
        step, test = _apply([h for h in found if h.line < first], step, test)
        opening = [h for h in found if h.line == first]
        closed = step if any(h.kind == "end" for h in opening) else None  # the step this block's first line ends
        step, test = _apply(opening, step, test)
        shown.add(first)
        labels = [
            h
            for h, was in ((step, old[0]), (test, old[1]))
            if h and h != was and h.line not in shown and h.kind != "section"
        ]
        within = (
            (step is not None and step == old[0])
            or (test is not None and (step, test) == old)
            or (closed is not None and closed == old[0])
        )
        sep = "" if not prev else f"  … {plural(first - prev - 1, 'line')}" if within and counts else "  …"
        inner = _scan(lf, first + 1, last, cache)[0] if last > first else []
        shown.update(h.line for h in inner)
        rows.append(_Row(first, last, labels, sep, step, closed, any(h.kind == "end" for h in inner)))
        step, test = _apply(inner, step, test)
        prev = last
    out: list[str] = []
    for k, row in enumerate(rows):
        first, last, labels, sep = row.first, row.last, row.labels, row.sep
        # A step whose end line is shown (``The command "…" exited with 1.``) is named there: no label.
        kept = [h.label() for h in labels if h.kind != "step" or not _end_shown(rows, k, h)]
        if kept:
            out.extend(kept)
        elif sep:
            out.append("  …" if labels else sep)
        out.extend(numbered(n) for n in range(first, last + 1))
        out.extend(notes[n] for n in range(first, last + 1) if n in notes)
    out.append("  …")
    return out


def _scan(lf: LineFile, first: int, last: int, cache: Scans) -> tuple[list[Header], bool]:
    if (first, last) not in cache:
        cache[first, last] = scan(lf, first, last)
    return cache[first, last]


def _end_shown(rows: list[_Row], k: int, step: Header) -> bool:
    """True when a block from ``rows[k]`` on shows the line that ends ``step``."""
    for row in rows[k:]:
        if row.closed == step:
            return True
        if row.step != step:
            return False
        if row.ends:
            return True
    return False


def _apply(found: list[Header], step: Header | None, test: Header | None) -> tuple[Header | None, Header | None]:
    """The step and test open after the headers ``found`` (in file order)."""
    for h in found:
        if h.kind == "step":
            step, test = h, None
        elif h.kind == "end":
            step = test = None
        else:
            test = h
    return step, test
