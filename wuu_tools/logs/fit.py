"""Fitting a log's view to its budget: what gives way, in which order, when a planned view is over.

A plan counts the lines it shows, not every token the rendered view costs (group labels, skip counts,
notices), so a first plan can come out over the budget. :func:`fit` plans again with less: the body
shrinks by what the view was over, and the tail and head give way first, since the evidence's room is
a share of the first body (a lone compiler error in a 3,500-line build stays in a view of 150 tokens).
Once they no longer shrink the view (none are left, or a cut did not lower what it is over), the
evidence's own room is squeezed by a doubling share, and what the doubling overshot is given back
by halves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["BISECT_STEPS", "fit"]

BISECT_STEPS = 4
"""Views rebuilt, at most, to give back the room the budget loop's doubling took from a view that fits."""
ATTEMPTS = 8
"""Plans tried, at most, before the give-back."""

P = TypeVar("P")
R = TypeVar("R")


def fit(attempt_at: Callable[[int, int], tuple[P, R, int, int]], body: int) -> tuple[P, R, bool]:
    """The fullest view that fits, and whether it had to give way (its first plan was over the budget).

    ``attempt_at(body, squeeze)`` plans and renders a view with a body of so many tokens, its evidence
    squeezed by so many: its plan, its render, the tokens it is over the budget (or its bytes over the
    hard cap; 0 or less: it fits) and the tokens its tail and head hold.
    """
    squeeze = squeezed = 0
    last_over: tuple[int, int] | None = None
    before: int | None = None
    for _ in range(ATTEMPTS):
        plan, got, over, edges = attempt_at(body, squeeze)
        if over <= 0:
            break
        last_over = (body, squeeze)
        cut = over + 8
        body -= cut
        if edges < cut or body <= 20 or (before is not None and over >= before):  # the edges cannot give it
            squeeze += cut << squeezed  # doubling: evidence that fits its room with tokens to spare still gives way
            squeezed += 1
        before = over
    if over <= 0 and last_over is not None:  # the doubling overshoots: give back what still fits, by halves
        lo, hi = last_over, (body, squeeze)  # lo is over the budget, hi fits
        for _ in range(BISECT_STEPS):
            mid = ((lo[0] + hi[0]) // 2, (lo[1] + hi[1]) // 2)
            if mid in (lo, hi):
                break
            trial_plan, trial, trial_over, _ = attempt_at(*mid)
            if trial_over <= 0:
                hi, plan, got = mid, trial_plan, trial
            else:
                lo = mid
    return plan, got, last_over is not None
