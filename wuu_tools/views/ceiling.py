"""The budget is a ceiling: a view, header and notices included, fits the budget it was asked for.

Every view engine fits its body to a token budget and then wraps notices around it (a header,
the omitted ranges, the continuation call). :func:`fit_ceiling` builds a view, measures the
whole text as the package counts tokens, and builds it again with the body's budget lowered by
what the notices took, until the text fits the caller's budget. When even the smallest view
(its mandatory header and one line, entry or turn) does not fit, the view says so on its first
line (after a ``[changed: …]`` notice, which stays first) and shows that much.

The continuation of the view carries the caller's budget, never the lowered one, so a chain
keeps asking for what the caller asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..core.budget import HARD_CAP_BYTES, MIN_BUDGET, count_tokens
from ..core.result import ToolResult

__all__ = ["TOO_SMALL", "fit_ceiling"]

TOO_SMALL = "is too small for this view"
"""Words every over-budget view carries (``[budget 60 is too small for this view: …]``)."""
ROUNDS = 12
SLACK = 2  # tokens given back per round beyond the excess (joining pieces can merge a token)
GROW_STEP = 3  # a fitting view within this many tokens of one too long is full enough


def fit_ceiling(build: Callable[[int], ToolResult], budget: int) -> ToolResult:
    """The view ``build(inner)`` for the largest inner budget whose whole text fits ``budget``.

    ``build`` takes the budget its body may use and returns the finished view. The first call
    uses ``budget`` itself; each further call lowers it by the excess measured (or halves the
    range still open), at most :data:`ROUNDS` times and never below
    :data:`~wuu_tools.core.budget.MIN_BUDGET`. A lower budget never turns a whole line into a
    piece of one (``meta["partial_line"]``). When no view fits, the view is the one built with
    the budget itself (its header and notices go beyond it; the shortest view that shows a line,
    entry or turn when that one shows none), and it says on its first line that the budget is
    too small.
    """
    first = build(budget)
    if _fits(first, budget):
        return first
    cut_anyway = "partial_line" in first.meta  # a line longer than the budget itself is cut anyway
    hi = budget  # the smallest inner budget known to give a view too long
    lo = MIN_BUDGET - 1  # inner budgets up to this one cut a whole line into a piece
    smallest = first  # the shortest view of whole units built: shown (said too small) when none fits
    fitted: tuple[int, ToolResult] | None = None  # the largest inner budget found to fit, and its view
    shrink = first.tokens - budget + SLACK
    longest = first.tokens  # the length of the last view found too long
    inner = budget - shrink
    for _ in range(ROUNDS):
        if fitted is not None:
            if hi - fitted[0] <= GROW_STEP:
                break
            inner = (fitted[0] + hi) // 2  # it fits: try to fill the rest
        elif not lo < inner < hi:
            if hi - lo <= 1 or (cut_anyway and inner <= lo):  # (a piece: the notices alone are too long)
                break
            inner = lo + 1 if inner <= lo else (lo + hi) // 2
        result = build(inner)
        if "partial_line" in result.meta and not cut_anyway:
            lo = inner  # no room for a whole line beside the notices: look between
            inner = (lo + hi) // 2
        elif _fits(result, budget):
            fitted = (inner, result)
        else:
            # Lower by the excess; twice as far as last time when that changed nothing (whole units
            # make the view's length a staircase: a small excess can need a long step down).
            shrink = result.tokens - budget + SLACK if result.tokens < longest else 2 * shrink
            hi, longest = inner, result.tokens
            smallest = _shorter(result, smallest)
            inner -= shrink
    if fitted is not None:
        return fitted[1]
    # Too small: the view the budget itself holds beside its notices (the piece of a long line, the
    # lines or entries that fit), so that a chain still reads a budget's worth per call; the
    # shortest view that shows a line when that one shows none.
    return _say_too_small(first if cut_anyway or _shows_a_line(first) else smallest, budget)


def _shorter(a: ToolResult, b: ToolResult) -> ToolResult:
    """The shorter of two views too long, but one that shows a line of its source before one that does not."""
    return min(a, b, key=lambda r: (not _shows_a_line(r), r.tokens))


def _shows_a_line(result: ToolResult) -> bool:
    """Whether the view shows something besides its notices (which are ``[bracketed]`` lines)."""
    return any(line and not line.startswith("[") for line in result.text.split("\n"))


def _fits(result: ToolResult, budget: int) -> bool:
    return result.tokens <= budget and len(result.text.encode("utf-8", "surrogatepass")) <= HARD_CAP_BYTES


def _say_too_small(result: ToolResult, budget: int) -> ToolResult:
    note = f"[budget {budget:,} {TOO_SMALL}: {result.tokens:,} tokens with its header and notices]"
    lines = result.text.split("\n")
    at = 1 if lines and lines[0].startswith("[changed") else 0
    lines.insert(at, note)
    meta = {**result.meta, "budget_too_small": {"budget": budget, "tokens": count_tokens("\n".join(lines))}}
    return replace(result, text="\n".join(lines), meta=meta)
