"""The files of search results and their matches: one pass over the saved output, bounded in time and memory.

:func:`index_hits` reads the output of ``grep -rn`` / ``rg -n`` (``path:line:text``, also with a
column and with ``-C`` context lines and ``--`` separators), ``grep -c`` (``path:count``) or
``rg --heading`` (a file's name, then ``line:text`` lines) and returns, in output order, every
file with its match count, the output lines it spans and the line numbers of its first
matches. Lines are grouped by prefix comparison (no regular expression per line), so a
200,000 lines take about a third of a second; beyond :data:`SCAN_BYTES` the count stops and says so.

>>> from wuu_tools.logs.searchindex import split_hit
>>> split_hit("src/a.py:12:    x = 1")
('src/a.py', '12:    x = 1')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.lines import LineFile
from .lineiter import SCAN_BYTES, OutputLines

__all__ = ["SCAN_BYTES", "FileHits", "SearchIndex", "index_hits", "split_hit"]

KEEP_HITS = 400  # line numbers kept per file (the first matches a view can show)
KEEP_TOTAL = 200_000  # line numbers kept in all

_HIT = re.compile(r"^(?!\d{4}-\d\d-\d\d)((?=[^:\s]*[A-Za-z_/.])[^:\s][^:]*?):(\d+(?::\d+)?[:-].*)$")
_COUNT = re.compile(r"^(.+):(\d+)$")
_UNDER = re.compile(r"^\d+(?::\d+)?[:-]")


def split_hit(line: str) -> tuple[str, str] | None:
    """``(path, "line:text")`` of a ``path:line:text`` search hit, else None."""
    m = _HIT.match(line)
    return (m.group(1), m.group(2)) if m else None


@dataclass
class FileHits:
    """One file of the results: its match count, the output lines it spans, its first match lines."""

    path: str
    count: int = 0
    first: int = 0  # first output line of the file (its heading line for ``rg --heading``)
    last: int = 0
    hits: list[int] = field(default_factory=list)
    heading: int = 0  # the output line naming the file (``rg --heading``), else 0


@dataclass
class SearchIndex:
    """Every file of the results, in output order, and what the pass covered."""

    files: list[FileHits] = field(default_factory=list)
    matches: int = 0
    zero_files: int = 0  # grep -c lines with a count of 0
    scanned_to: int = 0  # last output line read
    capped: bool = False

    @property
    def matching(self) -> list[FileHits]:
        return [f for f in self.files if f.count]


def index_hits(lf: LineFile, style: str) -> SearchIndex:
    """The files of the search results in ``lf``; ``style`` is ``lines``, ``counts`` or ``heading``."""
    index = SearchIndex()
    by_path: dict[str, FileHits] = {}
    current: FileHits | None = None
    kept = 0
    line_no = 0
    lines = OutputLines(lf)
    for text in lines:
        line_no += 1
        if style == "counts":
            m = _COUNT.match(text)
            if not m:
                continue
            n = int(m.group(2))
            if not n:
                index.zero_files += 1
                continue
            fh = FileHits(m.group(1), count=n, first=line_no, last=line_no, hits=[line_no])
            index.files.append(fh)
            index.matches += n
            continue
        if style == "heading":
            if not text.strip():
                continue
            if _UNDER.match(text):
                if current is None:
                    continue
                current.last = line_no
                if not _is_context(text):
                    current.count += 1
                    index.matches += 1
                    if len(current.hits) < KEEP_HITS and kept < KEEP_TOTAL:
                        current.hits.append(line_no)
                        kept += 1
                continue
            current = by_path.get(text)
            if current is None:
                current = by_path[text] = FileHits(text, first=line_no, last=line_no, heading=line_no)
                index.files.append(current)
            continue
        # ``lines``: the file named before the first ``:`` (or ``-`` on a context line of that file)
        if current is not None and text.startswith(current.path):
            rest = text[len(current.path) :]
            sep = rest[:1]
            if (sep == ":" and _UNDER.match(rest[1:])) or (sep == "-" and _is_context(rest[1:])):
                current.last = line_no
                if sep == ":":
                    current.count += 1
                    index.matches += 1
                    if len(current.hits) < KEEP_HITS and kept < KEEP_TOTAL:
                        current.hits.append(line_no)
                        kept += 1
                continue
        if text == "--":
            continue
        path, _, rest = text.partition(":")
        if not (rest[:1].isdigit() and path and not path[0].isspace()):
            hit = split_hit(text)
            if hit is None:
                continue
            path, rest = hit
        current = by_path.get(path)
        if current is None:
            current = by_path[path] = FileHits(path, first=line_no)
            index.files.append(current)
        current.last = line_no
        if not _is_context(rest):
            current.count += 1
            index.matches += 1
            if len(current.hits) < KEEP_HITS and kept < KEEP_TOTAL:
                current.hits.append(line_no)
                kept += 1
    index.scanned_to = line_no
    index.capped = lines.capped
    return index


def _is_context(rest: str) -> bool:
    """``12-text`` (a context line of ``grep -C``) rather than ``12:text`` or ``12:5:text``."""
    digits = len(rest) - len(rest.lstrip("0123456789"))
    return rest[digits : digits + 1] == "-"
