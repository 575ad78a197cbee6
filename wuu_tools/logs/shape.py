r"""What a command's output is, guessed from a bounded sample: the choice of its first view.

:func:`detect` reads at most :data:`HEAD_BYTES` from the start and :data:`TAIL_BYTES` from the
end of a saved output (two positioned reads, whatever its size) and names one shape:

* ``failing log`` — the command failed (non-zero exit, signal, timeout), or the sample holds
  a known toolchain's failure summary (a test runner's failed count, a compiler ``error:``,
  a traceback, ``make: ***``): today's error-first view;
* ``search results`` — ``path:line:text``, ``path:line:col:text``, ``grep -c``'s ``path:count``
  and ``rg --heading``'s file lines followed by ``line:text`` lines;
* ``diff`` — a unified diff (``diff --git``, ``---``/``+++`` and ``@@`` hunks; ``git log -p``);
* ``JSON``, ``JSON lines``, ``YAML`` — structured data on stdout;
* ``table`` — ``ls -l``, ``ps``, ``pip list``, ``docker ps``, CSV/TSV: rows under a header;
* ``output`` — anything else.

The choice only orders what the first view shows; every view keeps the saved output whole
and its continuation reads the rest. A non-zero exit is a failing log, with one exception:
exit 1 of a clean unified diff (``diff``, ``git diff --exit-code`` say "files differ" so).

>>> classify(["src/a.py:12:    x = 1", "src/b.py:3:y"], [], exit_code=0).kind
'search results'
>>> classify(["a", "b"], [], exit_code=2).kind
'failing log'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.lines import LineFile
from ..core.text import clean_terminal

__all__ = [
    "FAILURE",
    "HEAD_BYTES",
    "KINDS",
    "SAMPLE_LINES",
    "SEARCH_LINE",
    "TAIL_BYTES",
    "WARNING",
    "Shape",
    "classify",
    "detect",
    "sample_lines",
]

HEAD_BYTES = 64 << 10
TAIL_BYTES = 16 << 10
SAMPLE_LINES = 400
KINDS = ("failing log", "search results", "diff", "JSON", "JSON lines", "YAML", "table", "output")

# A search hit: a path-like name (no blanks, not just digits or a clock), a line number, an optional column.
SEARCH_LINE = re.compile(
    r"^(?!\d{4}-\d\d-\d\d)(?P<path>(?=[^:\s]*[A-Za-z_/.])[^:\s][^:]*?):(?P<line>\d+)(?::(?P<col>\d+))?[:-](?P<text>.*)$"
)
_COUNT_LINE = re.compile(r"^(?=[^:\s]*[A-Za-z_/.])[^:\s][^:]*:\d+$")  # grep -c
_STAMP = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? ?")
_CONTEXT = re.compile(r"-\d+-")
_HEADING_MATCH = re.compile(r"^\d+[:-]")  # rg --heading: the lines under a file name
_PATHISH = re.compile(r"^[\w.@~+-]*[/.][\w./@~+-]*$")
_COMPILER = re.compile(r"^\s*(?:fatal error|error|warning|note|remark)\b", re.IGNORECASE)
FAILURE = re.compile(
    r"^(?:=+ .*\b\d+ (?:failed|errors?)\b.*=+$"  # pytest's summary
    r"|FAILED |ERROR: |Traceback \(most recent call last\):$"
    r"|test result: FAILED|--- FAIL: |FAIL\t|FAIL\s+\S+\s+[\d.]+s$"  # cargo, go
    r"|Tests:\s+.*\d+ failed|\s*\d+ failing$"  # jest, mocha
    r"|npm ERR! |make(?:\[\d+\])?: \*\*\* |error(?:\[E\d+\])?: |fatal: "
    r"|##\[error\]|Done\. Your build exited with [1-9]|The command \".*\" exited with [1-9]"  # CI runners
    r"|(?:[A-Za-z]:)?[\w./\\][\w./\\-]*:\d+(?::\d+)?: (?:fatal )?error\b|[^\s(]+\(\d+,\d+\): error TS\d+:|error TS\d+:)"
)
"""Known toolchains' failure lines, anchored at the line start (so grep hits naming them do not count)."""
WARNING = re.compile(rb"^(?:[^:\s\n][^:\n]*:\d+(?::\d+)?: warning\b|warning(?:\[\w+\])?: )", re.MULTILINE)
"""A compiler's warning line (gcc, clang, rustc): counted, never shown as an error."""
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_LS_ROW = re.compile(r"^[-dlcbpsD][rwxsStT-]{9}[.+@]?\s")
_RULE_ROW = re.compile(r"^-{2,}(?:[ \t]+-{2,})+\s*$")
_HEADER_WORD = re.compile(r"^[A-Z][A-Z0-9_%()/.#-]*(?: [A-Z][A-Z0-9_%()/.#-]*)?$")
_YAML_LINE = re.compile(r"^\s*(?:- |-$|#|[\w\"'./-][\w\"'./ -]{0,60}:(?: |$))")
_YAML_TOP = re.compile(r"^[\w\"'./-][\w\"'./ -]{0,60}:(?: |$)")
_YAML_KEY = re.compile(r"^\s*([\w\"'./-][\w\"'./ -]{0,60}):(?: |$)")


@dataclass(frozen=True)
class Shape:
    """The chosen view and what the sample said about it.

    Attributes:
        kind: One of :data:`KINDS`.
        why: A few words on what decided it (for ``meta`` and tests).
        header_rows: Rows above a table's data (its header, a rule or a ``total`` line).
        delimiter: A CSV/TSV table's delimiter, else "".
        style: How search results name files: ``lines`` (path:line:), ``counts`` (grep -c),
            ``heading`` (rg --heading).
    """

    kind: str
    why: str = ""
    header_rows: int = 0
    delimiter: str = ""
    style: str = ""


def sample_lines(lf: LineFile) -> tuple[list[str], list[str]]:
    """The first whole lines of the first :data:`HEAD_BYTES` and the last whole lines of the last :data:`TAIL_BYTES`.

    At most :data:`SAMPLE_LINES` of each; for a short output the two overlap.
    """
    size = lf.size
    head_raw = lf.pread(0, min(size, HEAD_BYTES))
    head = head_raw.decode("utf-8", "replace").split("\n", SAMPLE_LINES)[:SAMPLE_LINES]
    if len(head_raw) < size and len(head) < SAMPLE_LINES:
        head.pop()  # cut mid-line
    start = max(0, size - TAIL_BYTES)
    tail = lf.pread(start, size - start).decode("utf-8", "replace").split("\n")
    if start:
        tail = tail[1:]  # cut mid-line
    if tail and tail[-1] == "":
        tail.pop()
    if head and head[-1] == "" and len(head_raw) == size and len(head) < SAMPLE_LINES:
        head.pop()
    return [clean_terminal(s) for s in head], [clean_terminal(s) for s in tail[-SAMPLE_LINES:]]


def detect(lf: LineFile, exit_code: int | None, failed: bool = False) -> Shape:
    """The shape of the output in ``lf``; ``failed`` marks a run ended by a signal or a timeout."""
    if failed:
        return Shape("failing log", "ended by a signal or a timeout")
    if lf.size == 0:
        return Shape("output", "empty")
    head, tail = sample_lines(lf)
    return classify(head, tail, exit_code)


def classify(head: Sequence[str], tail: Sequence[str], exit_code: int | None) -> Shape:
    """The shape of an output whose sample lines are ``head`` (from its start) and ``tail`` (from its end).

    A timestamp that starts every line of a CI runner's log is left out first.
    """
    head = [_STAMP.sub("", s, count=1) for s in head]
    tail = [_STAMP.sub("", s, count=1) for s in tail]
    body = [s for s in head if s.strip()]
    if exit_code not in (0, None):
        if exit_code == 1 and _is_diff(head) and not _failure(head, tail):
            return Shape("diff", "exit 1 of a unified diff (files differ)")
        return Shape("failing log", f"exit {exit_code}")
    if _failure(head, tail):
        return Shape("failing log", "a toolchain's failure summary")
    if not body:
        return Shape("output", "blank")
    if _is_diff(head):
        return Shape("diff", "unified diff headers and hunks")
    search = _search_style(body)
    if search:
        return Shape("search results", f"{search} lines", style=search)
    data = _data_kind(body, tail)
    if data:
        return Shape(data, "structured data")
    table = _table(body)
    if table is not None:
        return table
    return Shape("output", "no structure recognised")


def _failure(head: Sequence[str], tail: Sequence[str]) -> bool:
    return any(FAILURE.match(s) for s in (*head, *tail))


def _is_diff(head: Sequence[str]) -> bool:
    files = hunks = 0
    for i, s in enumerate(head):
        if s.startswith("diff --git ") or (
            s.startswith("--- ") and i + 1 < len(head) and head[i + 1].startswith("+++ ")
        ):
            files += 1
        elif _HUNK.match(s):
            hunks += 1
        if files and hunks:
            return True
    return False


def _search_style(body: Sequence[str]) -> str:
    n = len(body)
    found = [m for s in body if (m := SEARCH_LINE.match(s)) is not None]
    hits = len(found)
    paths = {m.group("path") for m in found}
    seps = sum(1 for s in body if s == "--" or _is_context(s, paths))
    if hits and (hits + seps) >= 0.8 * n:
        texts = [m.group("text") for m in found]
        compiler = sum(1 for t in texts if _COMPILER.match(t))
        return "" if compiler >= 0.3 * len(texts) else "lines"
    counts = sum(1 for s in body if _COUNT_LINE.match(s))
    if counts >= 0.9 * n and n >= 2:
        return "counts"
    heads = sum(1 for s in body if _PATHISH.match(s))
    under = sum(1 for s in body if _HEADING_MATCH.match(s))
    if heads and under and heads + under + seps >= 0.9 * n and under >= heads:
        return "heading"
    return ""


def _is_context(line: str, paths: set[str]) -> bool:
    """A ``path-12-text`` context line (``grep -C``) of a file that has hits."""
    return any(line[: m.start()] in paths for m in _CONTEXT.finditer(line))


def _data_kind(body: Sequence[str], tail: Sequence[str]) -> str:
    first = body[0].lstrip()
    last = (tail or body)[-1].rstrip() if (tail or body) else ""
    if first[:1] in "{[" and last[-1:] in "}]":
        if len(body) >= 2 and all(s.lstrip().startswith("{") and s.rstrip().endswith("}") for s in body):
            return "JSON lines"
        return "JSON"
    if first.startswith("---") or (
        sum(1 for s in body if _YAML_LINE.match(s)) >= 0.9 * len(body)
        and any(_YAML_TOP.match(s) for s in body)
        and any(s.startswith((" ", "-")) for s in body)
        and not _numbered(body)
    ):
        return "YAML"
    return ""


def _numbered(body: Sequence[str]) -> bool:
    """Most "keys" are line numbers (``1137:     def distinct(self):``): a numbered listing, not YAML."""
    keys = [m.group(1) for s in body if (m := _YAML_KEY.match(s))]
    return bool(keys) and sum(k.isdigit() for k in keys) * 2 > len(keys)


def _table(body: Sequence[str]) -> Shape | None:
    n = len(body)
    if n < 3:
        return None
    first = 1 if re.match(r"^total \d", body[0]) else 0
    if sum(1 for s in body[first:] if _LS_ROW.match(s)) >= 0.8 * (n - first):
        return Shape("table", "a long listing (ls -l)", header_rows=first)
    if _RULE_ROW.match(body[1]):
        return Shape("table", "a header over a rule (pip list)", header_rows=2)
    words = body[0].split()
    if len(words) >= 2 and all(_HEADER_WORD.match(w) for w in re.split(r"\s{2,}|\t", body[0].strip())):
        cols = [len(s.split()) for s in body[1:]]
        if sum(1 for c in cols if c >= len(words) - 1) >= 0.8 * len(cols):
            return Shape("table", "upper-case column names over rows (ps, docker ps)", header_rows=1)
    for delim in ("\t", ","):
        want = body[0].count(delim)
        if delim == "," and sum(1 for s in body if ", " in s) >= 0.5 * n:
            continue  # prose, not CSV
        if want >= (1 if delim == "\t" else 2) and sum(1 for s in body if s.count(delim) == want) >= 0.9 * n:
            return Shape("table", "delimited rows (CSV/TSV)", header_rows=1, delimiter=delim)
    return None
