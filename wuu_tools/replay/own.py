"""The replay of a user's own runs (``wuu replay PATH…``): the figures of ``scripts/replay.py`` at one budget.

The runs go through the same steps as the script's (:func:`.score.score` for the views without a
session, :func:`.session.score_sessions` for one session per run with rtk beside it,
:func:`.report.session_figures` for the sums, :func:`.report.shaped_json` for the shape of its
``--json``), at one budget and without the DEV / HELD-OUT split, which means nothing on a user's runs.
Two figures are added. The *plain cut*: every output over the budget replaced by whole lines from its head
and tail, half the budget each (what an agent that truncates does), with its whole-run input and the
items it keeps. And the items each view *lost*: of the outputs that count (INDEX.md's rule: with an item,
over 500 tokens), the words and numbers the agent's next message used that the view does not hold, the
outputs that lost most listed first.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..core.budget import count_tokens
from .report import ratio_figures, session_figures, shaped_json
from .runs import Output, Run, outputs_of, tokens
from .score import COUNT_OVER, Score, score, whole_run
from .session import SessionScore, score_sessions
from .views import Cutter

__all__ = ["EXAMPLES", "Progress", "replay_runs"]

EXAMPLES = 5
"""How many outputs the report lists for each view's lost items, and how many items of each."""

Progress = Callable[[str, int, int], None]
"""Hears ``(step, done, total)``: ``views`` (outputs viewed without a session), ``sessions`` (runs replayed)."""


def _plain_cut(outputs: list[Output], plain: dict[int, Score], budget: int) -> dict[int, tuple[Score, set[str]]]:
    """Each scored output with the plain head+tail cut at ``budget`` in place of wuu's view, and the items it keeps."""
    cut: dict[int, tuple[Score, set[str]]] = {}
    for i, s in plain.items():
        out = outputs[i]
        if s.raw_tokens <= budget:
            text, size = out.text, s.raw_tokens
        else:
            text = Cutter(out.text).head_tail(budget)
            size = count_tokens(text)
        have = out.items & tokens(text)
        cut[i] = (dataclasses.replace(s, run_tokens=size, run_kept=len(have)), have)
    return cut


def _lost(
    outputs: list[Output], counted: list[int], lost_of: Callable[[int], tuple[str, ...] | set[str]]
) -> dict[str, Any]:
    per = [(i, sorted(lost_of(i))) for i in counted]
    per = [(i, lost) for i, lost in per if lost]
    per.sort(key=lambda x: (-len(x[1]), x[0]))
    return {
        "lost": sum(len(lost) for _, lost in per),
        "outputs": len(per),
        "examples": [
            {
                "run": outputs[i].run,
                "command": " ".join(outputs[i].command.split())[:120],
                "lost": len(lost),
                "items": lost[:EXAMPLES],
            }
            for i, lost in per[:EXAMPLES]
        ],
    }


def replay_runs(
    runs: list[Run], budget: int, *, workers: int | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """The figures of ``runs`` at ``budget``: whole-run input and items kept and lost, for each view."""
    outputs, offsets = outputs_of(runs)
    budgets = (budget,)

    def step(name: str) -> Callable[[int, int], None] | None:
        return None if progress is None else (lambda done, total: progress(name, done, total))

    scores = score(outputs, budgets, all_outputs=True, workers=workers, progress=step("views"))
    sessions = score_sessions(runs, budgets, workers=workers, progress=step("sessions"))
    figures = session_figures(runs, outputs, scores, sessions, offsets, budgets, budget, (), splits=("all",))
    shaped = shaped_json(figures)
    shaped.pop("splits", None)
    top = figures["all"]
    whole = {"budget": budget, **top["whole_run"]}  # every figure (its tokens too), in the script's keys

    plain = {s.index: s for s in scores if s.budget == budget}
    cut = _plain_cut(outputs, plain, budget)
    rows = whole_run(runs, {i: s for i, (s, _) in cut.items()}, offsets, budget)
    whole["plain"] = ratio_figures(rows, lambda r: r.wuu)  # recovery counted, as for wuu

    sess: dict[int, SessionScore] = {s.index: s for s in sessions if s.budget == budget}
    counted = [i for i, s in plain.items() if s.items and s.raw_tokens > COUNT_OVER]
    items = sum(len(outputs[i].items) for i in counted)
    lost: dict[str, Any] = {
        "wuu": _lost(outputs, counted, lambda i: sess[i].lost),
        "plain": _lost(outputs, counted, lambda i: outputs[i].items - cut[i][1]),
    }
    if "rtk" in whole:
        lost["rtk"] = _lost(outputs, counted, lambda i: sess[i].rtk_lost)
    kept = {k: round(1 - x["lost"] / items, 4) if items else 1.0 for k, x in lost.items()}
    kept["wuu_no_session"] = top["items"][str(budget)]["wuu_no_session"] if items else 1.0
    return {
        "budget": budget,
        "runs": len(runs),
        "sources": dict(sorted(Counter(r.source for r in runs).items())),
        "outputs": len(outputs),
        "counted": len(counted),
        "items_total": items,
        **shaped,
        "whole_run": whole,
        "kept": kept,
        "lost": lost,
        "reused_words": top["reused_words"],
        "reruns_diffed": top["reruns_diffed"],
    }
