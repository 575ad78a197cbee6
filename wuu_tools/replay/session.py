"""Replay each recorded run through one wuu session: views that depend on what earlier views of the run showed.

Each run's outputs go, in order, through ``run_command``'s view of a captured output
(:func:`wuu_tools.commands.run.project_captured`) inside one :class:`~wuu_tools.core.session.Session` per
run and budget: the recorded command line (``cd … &&`` included) is the command the session sees, so a
re-run of the same line is shown as what changed, and stretches of lines an earlier view displayed are
named (``[lines 12-40 as shown in call 7]``) instead of repeated. Runs are replayed in worker processes,
one run at a time each; every figure is deterministic.

Besides the items kept (INDEX.md's rule), each output gets the *reused* words: those the agent's next
message used that this output holds and an earlier output of the run held too (so INDEX.md's items
leave them out). A reused word is *visible* when it is in the view or in the view of a call the view
names.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..commands.run import project_captured
from ..core.budget import count_tokens
from ..core.session import Session, use_session
from .rtk import rtk_available, rtk_view
from .runs import Output, Run, tokens
from .views import Cutter, default_budget, replay_store

__all__ = ["SessionScore", "score_sessions"]


@dataclass
class SessionScore:
    """One output's view in its run's session, at one budget."""

    index: int  # the output's place among all outputs (as in score.Score.index)
    budget: int
    tokens: int
    kept: int
    ht_kept: int  # the plain head+tail cut of the same tokens
    complete: bool
    reused: int
    reused_visible: int
    named_lines: int
    rerun: bool
    continuation: int
    rtk_tokens: int | None = None  # rtk's view (None when rtk is not installed)
    rtk_kept: int | None = None
    rtk_filter: str | None = None
    lost: tuple[str, ...] = ()  # the items the view does not hold, sorted
    rtk_lost: tuple[str, ...] = ()


_RUNS: list[Run] = []
_OFFSETS: list[int] = []


def _init(runs: list[Run], offsets: list[int]) -> None:
    global _RUNS, _OFFSETS
    _RUNS, _OFFSETS = runs, offsets


def _raw(out: Output) -> bytes:
    text = out.text
    if text and not text.endswith("\n"):
        text += "\n"
    return text.encode("utf-8", "surrogateescape")


def _rtk(run: Run) -> list[tuple[int, set[str], str | None] | None]:
    """rtk's view of each output: its tokens, the items it keeps and its filter (None each without rtk)."""
    if not rtk_available():
        return [None] * len(run.outputs)
    out = []
    with tempfile.TemporaryDirectory(prefix="wuu-replay-rtk-read-") as folder:
        for o in run.outputs:
            text, name = rtk_view(o, Path(folder))
            out.append((count_tokens(text), o.items & tokens(text), name))
    return out


def _one_run(job: tuple[int, tuple[int, ...]]) -> list[SessionScore]:
    r, budgets = job
    run, base = _RUNS[r], _OFFSETS[r]
    scores = []
    peer = _rtk(run)
    for budget in budgets:
        with replay_store(), default_budget(budget), use_session(Session()):
            views: dict[int, set[str]] = {}
            earlier: set[str] = set()
            for k, out in enumerate(run.outputs):
                result = project_captured(out.command or "true", _raw(out), out.exit_code, cwd="/")
                facts = result.meta.get("session", {})
                have = tokens(result.text)
                views[facts.get("call", -1)] = have
                visible = set(have)
                for call in facts.get("named_calls", []):
                    visible |= views.get(call, set())
                held = tokens(out.text)
                reused = tokens(out.next_text) & held & earlier
                earlier |= held
                kept = len(out.items & have)
                ht = len(out.items & tokens(Cutter(out.text).head_tail(result.tokens))) if out.items else 0
                cont = result.continuation
                scores.append(
                    SessionScore(
                        index=base + k,
                        budget=budget,
                        tokens=result.tokens,
                        kept=kept,
                        ht_kept=ht,
                        complete=result.complete,
                        reused=len(reused),
                        reused_visible=len(reused & visible),
                        named_lines=int(facts.get("named_lines", 0)),
                        rerun="rerun_of" in result.meta,
                        continuation=count_tokens(repr(cont)) if cont else 0,
                        rtk_tokens=peer[k][0] if peer[k] else None,
                        rtk_kept=len(peer[k][1]) if peer[k] else None,
                        rtk_filter=peer[k][2] if peer[k] else None,
                        lost=tuple(sorted(out.items - have)),
                        rtk_lost=tuple(sorted(out.items - peer[k][1])) if peer[k] else (),
                    )
                )
    return scores


def score_sessions(
    runs: list[Run],
    budgets: tuple[int, ...],
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[SessionScore]:
    """Every output of every run, viewed through its run's session at each budget.

    ``progress(done, total)`` hears each run replayed (the runs done so far, of how many).
    """
    offsets, n = [], 0
    for run in runs:
        offsets.append(n)
        n += len(run.outputs)
    jobs = [(i, budgets) for i in range(len(runs))]
    jobs.sort(key=lambda j: -len(runs[j[0]].outputs))  # the longest runs first: the pool ends together
    workers = workers or min(4, os.cpu_count() or 1)
    parts: list[list[SessionScore]] = []
    if workers <= 1:
        _init(runs, offsets)
        for job in jobs:
            parts.append(_one_run(job))
            if progress is not None:
                progress(len(parts), len(jobs))
    else:
        with ProcessPoolExecutor(workers, initializer=_init, initargs=(runs, offsets)) as pool:
            for part in pool.map(_one_run, jobs):
                parts.append(part)
                if progress is not None:
                    progress(len(parts), len(jobs))
    return sorted((s for part in parts for s in part), key=lambda s: (s.index, s.budget))
