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


def table_frame(lf: LineFile, shape: Shape) -> Frame:
    """The frame of a table: rows (lines under its header rows) and its columns."""
    rows = max(lf.total_lines - shape.header_rows, 0)
    facts = plural(rows, "row")
    if shape.header_rows:
        raws, _ = lf.read_forward(1, 1, 4096)
        header = raws[0].decode("utf-8", "replace").strip() if raws else ""
        if header.startswith("total "):
            facts += " · a long listing (ls -l)"
        else:
            cols = header.split(shape.delimiter) if shape.delimiter else re.split(r"\s{2,}|\t", header)
            facts += " · columns: " + cut(", ".join(c.strip() for c in cols if c.strip()), 200)
    return Frame("table", facts, [], "head and tail", {"rows": rows, "table": shape.why})


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
        summary.append(f'[warnings: {count:,} · at lines {where}{more}; read_saved(pattern="warning") lists them]')
    return Frame("output", "head first, then the tail", summary, "head and tail", {"warnings": count})
