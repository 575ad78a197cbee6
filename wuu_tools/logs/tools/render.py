"""A :class:`~wuu_tools.logs.tools.Plan` made into a first view: the output as printed, each fold one counted line.

Every line a rule does not fold is shown as printed, in the order printed; a fold is shown as
``[… 199 PASSED lines: 12-210]`` at its place, and the view's last line gives the one call that
reads the folded lines back (``read_saved(ref=…, start_line=12, end_line=210)``, the first to the
last folded line): the view's continuation, so every omitted line is recoverable exactly.

A view with one fold names the call in the fold's own line (``[… 18 lines: 5 session header, 12
PASSED: read_saved(ref=…, end_line=18)]``): the call reads exactly the folded lines, so one line says
both. A fold with an empty label (a traceback's ``^^^^`` marker line) shows no line: the last line
counts such lines (``[folded lines and 3 traceback ^ marker lines: read_saved(…)]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...core.lines import LineFile
from ...core.result import Continuation, call_text
from ..frame import rest_of
from . import Plan
from .pytrace import MARKER_LABEL

__all__ = ["Rendered", "render_plan"]


@dataclass
class Rendered:
    """The view's text, the line ranges it shows and omits (1-based, inclusive), and the call reading the rest."""

    text: str
    shown: list[list[int]]
    omitted: list[list[int]]
    cont: Continuation | None


def render_plan(
    plan: Plan, lines: Sequence[str], lf: LineFile, ref: str, top: str, explicit_budget: int | None
) -> Rendered:
    """The view of ``lines`` (the saved output ``ref``'s, decoded) under ``top`` with ``plan``'s folds."""
    pieces: list[tuple[int, int, str | None]] = []  # (first, last, label): a fold's lines, or shown lines (None)
    i = 1
    for fold in plan.folds:
        if fold.start > len(lines):
            break
        if i < fold.start:
            pieces.append((i, fold.start - 1, None))
        end = min(fold.end, len(lines))
        pieces.append((fold.start, end, fold.label))
        i = end + 1
    if i <= len(lines):
        pieces.append((i, len(lines), None))
    ranges = [[a, b] for a, b, label in pieces if label is None]
    rest = rest_of(lf, ref, ranges, explicit_budget)
    cont = rest.cont
    labelled = sum(1 for *_, label in pieces if label)
    hidden = sum(b - a + 1 for a, b, label in pieces if label == MARKER_LABEL)
    single = cont is not None and labelled == 1 and not hidden
    out = [top]
    for a, b, label in pieces:
        if label is None:
            out += lines[a - 1 : b]
        elif label == MARKER_LABEL:  # (a line left out without one of its own: counted in the last line)
            continue
        elif single and cont is not None:
            out.append(f"[… {label}: {call_text(cont)}]")
        else:
            out.append(f"[… {label}: lines {a:,}-{b:,}]")
    if cont is not None and not single:
        markers = f"{hidden:,} traceback ^ marker {'line' if hidden == 1 else 'lines'}"
        what = "folded lines" if not hidden else f"folded lines and {markers}" if labelled else f"{markers} left out"
        out.append(f"[{what}: {call_text(cont)}]")
    return Rendered("\n".join(out), ranges, rest.omitted, cont)
