"""A :class:`~wuu_tools.logs.tools.Plan` made into a first view: the output as printed, each fold one counted line.

Every line a rule does not fold is shown as printed, in the order printed; a fold is shown as
``[… 199 PASSED lines: 12-210]`` at its place, and the view's last line gives the one call that
reads the folded lines back (``read_saved(ref=…, start_line=12, end_line=210)``, the first to the
last folded line): the view's continuation, so every omitted line is recoverable exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...core.lines import LineFile
from ...core.result import Continuation, call_text
from ..frame import rest_of
from . import Plan

__all__ = ["Rendered", "render_plan"]


@dataclass
class Rendered:
    """The view's text, the line ranges it shows and omits (1-based, inclusive), and the call reading the rest."""

    text: str
    shown: list[list[int]]
    omitted: list[list[int]]
    cont: Continuation | None


def _ranges(numbers: Sequence[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for n in numbers:
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


def render_plan(
    plan: Plan, lines: Sequence[str], lf: LineFile, ref: str, top: str, explicit_budget: int | None
) -> Rendered:
    """The view of ``lines`` (the saved output ``ref``'s, decoded) under ``top`` with ``plan``'s folds."""
    out = [top]
    shown: list[int] = []
    folds = iter(plan.folds)
    fold = next(folds, None)
    i = 1
    while i <= len(lines):
        if fold is not None and i == fold.start:
            end = min(fold.end, len(lines))
            out.append(f"[… {fold.label}: lines {fold.start:,}-{end:,}]")
            i = end + 1
            fold = next(folds, None)
            continue
        out.append(lines[i - 1])
        shown.append(i)
        i += 1
    ranges = _ranges(shown)
    rest = rest_of(lf, ref, ranges, explicit_budget)
    if rest.cont is not None:
        out.append(f"[folded lines: {call_text(rest.cont)}]")
    return Rendered("\n".join(out), ranges, rest.omitted, rest.cont)
