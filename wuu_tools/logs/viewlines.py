"""The lines of a log as a view shows them: read on demand, cut when long, cached with their token costs.

The failing-log view (:mod:`.view`) plans its evidence, head and tail over these: each line is
rendered once (terminal codes cleaned, a long line cut at :data:`LINE_CHARS` characters) and its
cost counted once, however many plans a view tries within its budget.
"""

from __future__ import annotations

import re

from ..core.budget import count_tokens_batch
from ..core.lines import LineFile, decode_line
from ..core.text import clean_line, human_size, number_line
from .groups import Scans

__all__ = ["LINE_CHARS", "PASSING_KEEP", "ViewLines"]

LINE_CHARS = 320
"""A view line longer than this many characters is cut (``read_saved`` shows it whole)."""
READ_WINDOW = 256 << 10
PASSING_KEEP = 2  # lines of a run of passing-test lines that a head or tail shows: the rest are cut first
PASSING_LINE = re.compile(
    r"(?:^|\s)PASSED(?:\s+\[\s*\d+%\])?\s*$|\.\.\.\s*(?:ok|OK|PASS(?:ED)?|passed|skipped)\s*$|^\s*ok \d+\b"
    r"|^\s*[✓✔√]\s|^\s*\[\s*(?:OK|PASS(?:ED)?)\s*\]|^\S+\.py [.sx]+\s*(?:\[\s*\d+%\])?\s*$"
)


class ViewLines:
    """Rendered, cut view lines of a log, read on demand and cached with their token costs."""

    def __init__(self, lf: LineFile) -> None:
        self.lf = lf
        self.width = len(str(lf.total_lines))
        self.text: dict[int, str] = {}
        self.cost: dict[int, int] = {}
        self.cut_any = False
        self.replaced = False
        self.scans: Scans = {}  # the evidence groups' header scans (:mod:`.groups`), kept between renders

    def _render(self, number: int, text: str, size: int) -> str:
        text = clean_line(text)
        if len(text) > LINE_CHARS or size > LINE_CHARS * 8:
            text = f"{text[:LINE_CHARS]}… [line cut: {human_size(size)} in all]"
            self.cut_any = True
        return text

    def numbered(self, number: int) -> str:
        """Line ``number`` with its number (evidence lines, lines of a tail with gaps)."""
        return number_line(number, self.text[number], self.width)

    def load(self, first: int, last: int) -> None:
        """Render lines ``first..last`` (those not rendered yet)."""
        todo = [n for n in range(first, last + 1) if n not in self.text]
        if not todo:
            return
        line = todo[0]
        while line <= todo[-1]:
            raws, giant = self.lf.read_forward(line, todo[-1], READ_WINDOW)
            if giant:
                text, _, bad = self.lf.read_chars(line, 0, LINE_CHARS * 2)
                self.replaced |= bad
                size = self.lf.line_end(line) - self.lf.offset(line)
                self.text.setdefault(line, self._render(line, text, size))
                line += 1
                continue
            for k, raw in enumerate(raws):
                if line + k not in self.text:
                    text, bad = decode_line(raw[: LINE_CHARS * 8])
                    self.replaced |= bad
                    self.text[line + k] = self._render(line + k, text, len(raw))
            line += max(1, len(raws))
        new = [n for n in todo if n not in self.cost]
        for n, c in zip(new, count_tokens_batch([self.text[n] for n in new]), strict=True):
            self.cost[n] = c + 1

    def passing(self, number: int) -> bool:
        """True for a rendered line that only reports progress: a passing or skipped test, a row of dots."""
        return PASSING_LINE.search(self.text[number]) is not None

    def tail_from(self, budget: int, floor: int, free: frozenset[int] = frozenset()) -> int:
        """The first line of the longest tail (down to ``floor``) that fits ``budget``; ``free`` lines cost nothing."""
        first = self.lf.total_lines + 1
        used = run = 0
        window = min(READ_WINDOW, max(4096, budget * 8))
        most = budget // 2 + 1  # lines that can fit: each costs 2 tokens at least (its number, its newline)
        while first > floor:
            raws = self.lf.read_backward(first - 1, window, floor=floor)
            batch_first = first - max(1, min(len(raws), most))
            self.load(batch_first, first - 1)
            for n in range(first - 1, batch_first - 1, -1):
                cost = 0 if n in free else self.cost[n]
                run = run + 1 if self.passing(n) else 0
                if used + cost > budget or run > PASSING_KEEP:
                    return first
                used += cost
                first = n
            window = min(READ_WINDOW, window * 2)
        return first

    def head_to(self, budget: int, ceiling: int) -> int:
        """The last line of the longest head (up to ``ceiling``) that fits ``budget``."""
        last = 0
        used = run = 0
        while last < ceiling:
            self.load(last + 1, min(ceiling, last + 64))
            for n in range(last + 1, min(ceiling, last + 64) + 1):
                run = run + 1 if self.passing(n) else 0
                if used + self.cost[n] > budget or run > PASSING_KEEP:
                    return last
                used += self.cost[n]
                last = n
        return last
