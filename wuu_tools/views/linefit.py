"""Fitting a stream of lines to a token budget, one line at a time, with an upper bound that needs no re-count.

Each offered line is counted on its own (plus one token for the newline that joins it to
the previous line). cl100k splits text into pieces at line breaks before merging, so the
sum is an upper bound of the joined text's count: the result never needs counting again,
and a source is never read further than one line past the budget. Every token is at least
one byte, so lines are counted only once their bytes exceed the budget (a small listing is
never tokenized at all), and when the budget is at least the byte cap nothing is counted.

>>> fit = LineFit(budget=5, byte_cap=1000)
>>> [fit.offer(w) for w in ["alpha", "beta", "gamma", "delta"]]
[True, True, True, False]
>>> fit.count, fit.tokens
(3, 5)
"""

from __future__ import annotations

from ..core.budget import count_tokens

__all__ = ["LineFit"]


class LineFit:
    """Lines taken while they fit ``budget`` tokens and ``byte_cap`` bytes (joined by newlines).

    Args:
        budget: Tokens the joined lines may take (an upper bound is kept, see the module doc).
        byte_cap: UTF-8 bytes the joined lines may take.
    """

    def __init__(self, budget: int, byte_cap: int) -> None:
        self.budget = budget
        self.byte_cap = byte_cap
        self.count = 0
        self.tokens = 0  # upper bound of the joined lines' tokens
        self.bytes = 0
        self._exact = budget < byte_cap
        self._cumulative: list[int] = []
        self._uncounted: list[str] = []  # lines taken on bytes alone, counted once it matters

    def offer(self, line: str, cost: int = 0) -> bool:
        """Take ``line`` if it still fits; False (and nothing taken) once it does not.

        ``cost``, when known (see :func:`~wuu_tools.core.budget.line_costs`), is the line's tokens with a
        newline after it, so it is not counted again; every line offered to one fit must then
        carry its cost.
        """
        size = len(line.encode("utf-8", "surrogatepass")) + (1 if self.count else 0)
        if self.bytes + size > self.byte_cap:
            return False
        if cost and self._exact:
            if self.tokens + cost > self.budget:
                return False
            self._take(cost, size)
            return True
        if not self._exact or (self.bytes + size <= self.budget and len(self._uncounted) == self.count):
            # Every token is at least one byte: this fits without counting anything.
            if self._exact:
                self._uncounted.append(line)
            self._take(size, size)
            return True
        if self._uncounted:
            self._count_taken()
        cost = count_tokens(line) + (1 if self.count else 0)
        if self.tokens + cost > self.budget:
            return False
        self._take(cost, size)
        return True

    def _take(self, cost: int, size: int) -> None:
        self.count += 1
        self.tokens += cost
        self.bytes += size
        self._cumulative.append(self.tokens)

    def _count_taken(self) -> None:
        """Replace the byte bounds of the lines taken so far by their token counts."""
        total = 0
        self._cumulative = []
        for i, taken in enumerate(self._uncounted):
            total += count_tokens(taken) + (1 if i else 0)
            self._cumulative.append(total)
        self.tokens = total
        self._uncounted = []

    def within(self, tokens: int) -> int:
        """How many of the taken lines fit in ``tokens`` (by the same upper bound)."""
        if self._uncounted and self.tokens > tokens:
            self._count_taken()
        n = 0
        for total in self._cumulative:
            if total > tokens:
                break
            n += 1
        return n

    def tokens_of(self, n: int) -> int:
        """The upper bound of the first ``n`` taken lines."""
        return self._cumulative[n - 1] if n else 0
