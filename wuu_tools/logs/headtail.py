"""The first view of a listing, a table or any other output that succeeded: head first, then the tail.

* ``table`` (``ls -l``, ``ps``, ``pip list``, ``docker ps``, CSV/TSV): the header row is the
  first line of the head, and the view line names the row count and the columns.
* ``output``: anything else. No error evidence is pulled out of an output that succeeded;
  a compiler's warnings are counted (``[warnings: N]``, with the lines of the first few), never
  shown as errors.

The omitted middle is named and read forward by the continuation, so the chain from the
first view reads every line once.
"""

from __future__ import annotations

import re

from ..core.lines import LineFile
from ..core.text import plural
from .frame import Frame, cut
from .lineiter import SCAN_BYTES
from .shape import WARNING, Shape

__all__ = ["output_frame", "table_frame", "warnings"]

FIRST_WARNINGS = 5
NAMES_MAX = 2000  # names of a long listing's entries put in its summary, at most (the view cuts to its share)
NAMES_BYTES = 1 << 20
NAMES_LINE = 8  # names per summary line (a share too small for all of them ends after a whole line)
LS_MODE = re.compile(r"^[-dlcbps][-rwxsStT]{9}[.+@]?$")


def table_frame(lf: LineFile, shape: Shape) -> Frame:
    """The frame of a table: rows (lines under its header rows) and its columns.

    A long listing (``ls -l``) is named in full first: every entry's name on one line (the
    rows' other columns cost ten times as much), then the rows of its head and tail.
    """
    rows = max(lf.total_lines - shape.header_rows, 0)
    facts = plural(rows, "row")
    summary: list[str] = []
    if shape.why.startswith("a long listing"):
        names = _listing_names(lf)
        if names:
            summary.append(f"[the {plural(len(names), 'entry', 'entries')} by name:]")
            summary += ["  " + "  ".join(names[i : i + NAMES_LINE]) for i in range(0, len(names), NAMES_LINE)]
    elif shape.header_rows:
        raws, _ = lf.read_forward(1, 1, 4096)
        header = raws[0].decode("utf-8", "replace").strip() if raws else ""
        cols = header.split(shape.delimiter) if shape.delimiter else re.split(r"\s{2,}|\t", header)
        facts += " · columns: " + cut(", ".join(c.strip() for c in cols if c.strip()), 200)
    return Frame("table", facts, summary, "head and tail", {"rows": rows, "table": shape.why})


def _listing_names(lf: LineFile) -> list[str]:
    """The names of a long listing's entries (its ninth column on), in order, the first :data:`NAMES_MAX`."""
    names = []
    for data in lf.blocks(0, NAMES_BYTES):
        for raw in data.split(b"\n"):
            fields = raw.decode("utf-8", "replace").split(None, 8)
            if len(fields) == 9 and LS_MODE.match(fields[0]):
                names.append(fields[8].strip())
                if len(names) >= NAMES_MAX:
                    return names
    return names


def warnings(lf: LineFile, limit: int = SCAN_BYTES) -> tuple[int, list[int]]:
    """Compiler warning lines in the first ``limit`` bytes of ``lf``: how many, and the first few line numbers."""
    count = 0
    first: list[int] = []
    line = 1
    for data in lf.blocks(0, limit):
        at, seen = 0, line
        for m in WARNING.finditer(data) if b"warning" in data else ():
            count += 1
            if len(first) < FIRST_WARNINGS:
                seen += data.count(b"\n", at, m.start())
                at = m.start()
                first.append(seen)
        line += data.count(b"\n")
    return count, first


def output_frame(lf: LineFile) -> Frame:
    """The frame of any other output: head and tail, and its compiler warnings counted."""
    count, first = warnings(lf)
    summary = []
    if count:
        where = ", ".join(f"{n:,}" for n in first)
        more = ", …" if count > len(first) else ""
        summary.append(f"[warnings: {count:,}, at lines {where}{more}]")
    return Frame("output", "", summary, "head and tail", {"warnings": count})
