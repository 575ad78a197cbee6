"""The lines of a saved output, decoded, read forward in large blocks up to a byte limit.

A pass over a whole output (the files of search results, the stat of a diff) reads it in
4 MiB blocks and splits them in C; lines are numbered as ``read_saved`` numbers them (split on
``"\\n"``, a CR before it dropped). Past ``limit`` bytes the pass stops and says so.

>>> import tempfile, os
>>> from wuu_tools.core.lines import LineFile
>>> with tempfile.NamedTemporaryFile(delete=False) as fh:
...     _ = fh.write(b"a\\r\\nb\\nc")
>>> with LineFile.open(fh.name) as lf:
...     lines = OutputLines(lf)
...     (list(lines), lines.count, lines.capped)
(['a', 'b', 'c'], 3, False)
>>> os.unlink(fh.name)
"""

from __future__ import annotations

from collections.abc import Iterator

from ..core.lines import LineFile

__all__ = ["SCAN_BYTES", "OutputLines"]

SCAN_BYTES = 16 << 20


class OutputLines:
    """The lines of ``lf`` up to ``limit`` bytes; ``count``: lines read so far, ``capped``: cut short."""

    def __init__(self, lf: LineFile, limit: int = SCAN_BYTES) -> None:
        self.lf = lf
        self.limit = limit
        self.count = 0
        self.capped = lf.size > limit

    def __iter__(self) -> Iterator[str]:
        for data in self.lf.blocks(0, self.limit):
            text = data.decode("utf-8", "replace")
            if text.endswith("\n"):
                text = text[:-1]
            for line in text.split("\n"):
                self.count += 1
                yield line[:-1] if line.endswith("\r") else line
