"""What naming repetition can give at most: each output without the lines an earlier output of its run printed.

Issue 32 measured the repetition as the share of output tokens in lines (over 8 characters, line numbers
stripped) that an earlier output of the same run held. :func:`repeats_removed` takes those lines out of
every output, at no cost and with nothing lost, keeps the rest whole and puts the verdict a command's
whole view leads with above it (``[exit 1]``; none for exit 0, :func:`~wuu_tools.commands.verdict.quiet`).
Its whole-run input is a bound for any view that only leaves out what the run already showed: a
session's views can beat it only by cutting what is new, as a first view cuts a long output.

The keys are the session's own (:func:`~wuu_tools.core.session.line_key`, and a search hit's text
without its location, :func:`~wuu_tools.core.session.content_keys`), so a ``grep -n`` hit of a line a
``cat`` printed counts as seen.
"""

from __future__ import annotations

import dataclasses

from ..core.budget import count_tokens, line_costs
from ..core.session import content_keys, line_key
from .runs import Run
from .score import Score

__all__ = ["repeated_tokens", "repeats_removed"]


def repeated_tokens(text: str, seen: set[bytes]) -> int:
    """The tokens of ``text``'s lines whose key is in ``seen``; then adds ``text``'s keys to ``seen``."""
    lines = text.split("\n")
    costs = line_costs(lines)
    repeated = 0
    keys: list[bytes] = []
    for line, cost in zip(lines, costs, strict=True):
        line_keys = [k for k in (line_key(line), *content_keys(line)) if k is not None]
        if any(k in seen for k in line_keys):
            repeated += cost
        keys.extend(line_keys)
    seen.update(keys)
    return repeated


def repeats_removed(runs: list[Run], plain: dict[int, Score], offsets: dict[str, int]) -> dict[int, Score]:
    """Each output's score as if its view were the whole output less its repeated lines, every item kept."""
    out: dict[int, Score] = {}
    for run in runs:
        base = offsets[run.name]
        seen: set[bytes] = set()
        for k, output in enumerate(run.outputs):
            score = plain.get(base + k)
            if score is None:
                continue
            cut = repeated_tokens(output.text, seen)
            verdict = count_tokens(f"[exit {output.exit_code}]\n") if output.exit_code not in (None, 0) else 0
            out[base + k] = dataclasses.replace(
                score, run_tokens=max(score.raw_tokens - cut, 0) + verdict, run_kept=score.items, continuation=0
            )
    return out
