"""Score recorded tool outputs: items kept by each first view, and the whole-run input with wuu's views in place.

Views are computed in worker processes (one private store each); every figure is deterministic:
the views are (invariant 6), and the workers' results are put back in the outputs' order.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..core.budget import count_tokens
from ..files.saved import read_saved
from .runs import Output, Run, kind_of, tokens
from .views import Cutter, default_budget, frame_share, replay_store, wuu_read, wuu_run

__all__ = ["Score", "Whole", "score", "whole_run"]

COUNT_OVER = 500  # an output counts when it is over this many tokens (and has an item)


@dataclass
class Score:
    """One output at one budget."""

    index: int
    budget: int
    raw_tokens: int
    kind: str  # the command's kind (trajectories.kind_of)
    view: str  # the view run_command chose
    items: int
    run_tokens: int
    run_kept: int
    run_complete: bool
    frame: float
    ht_kept: int
    head_kept: int
    read_tokens: int | None = None
    read_kept: int | None = None
    read_ht_kept: int | None = None
    continuation: int = 0  # tokens of the call that reads on (the recovery's request)
    recovery: int = 0  # tokens of that call's result (the next view along the chain)


_OUTPUTS: list[Output] = []


def _init(outputs: list[Output]) -> None:
    global _OUTPUTS
    _OUTPUTS = outputs


def _score_one(job: tuple[int, tuple[int, ...], bool]) -> list[Score]:
    index, budgets, counted = job
    out = _OUTPUTS[index]
    raw = count_tokens(out.text)
    cutter = Cutter(out.text) if counted else None
    results = []
    with replay_store(), tempfile.TemporaryDirectory(prefix="wuu-replay-read-") as folder:
        for budget in budgets:
            view = wuu_run(out, budget)
            have = tokens(view.text)
            cont = view.result.continuation if view.result is not None else None
            score = Score(
                index=index,
                budget=budget,
                raw_tokens=raw,
                kind=kind_of(out),
                view=view.kind,
                items=len(out.items),
                run_tokens=view.tokens,
                run_kept=len(out.items & have),
                run_complete=view.complete,
                frame=frame_share(view, out.text) if not view.complete else 0.0,
                ht_kept=0,
                head_kept=0,
                continuation=count_tokens(repr(cont)) if cont else 0,
            )
            if cont is not None and cont["tool"] == "read_saved":
                with default_budget(budget):
                    score.recovery = read_saved(**cont["args"]).tokens
            if cutter is not None:
                score.ht_kept = len(out.items & tokens(cutter.head_tail(view.tokens)))
                score.head_kept = len(out.items & tokens(cutter.head(view.tokens)))
                read = wuu_read(out, budget, Path(folder))
                if read is not None:
                    score.read_tokens = read.tokens
                    score.read_kept = len(out.items & tokens(read.text))
                    score.read_ht_kept = len(out.items & tokens(cutter.head_tail(read.tokens)))
            results.append(score)
    return results


def counts(out: Output) -> bool:
    """Whether the output counts (INDEX.md): at least one item, over 500 tokens."""
    return bool(out.items) and count_tokens(out.text) > COUNT_OVER


def score(
    outputs: list[Output],
    budgets: tuple[int, ...],
    *,
    all_outputs: bool,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Score]:
    """Scores of the outputs that count at each budget; of every output too when ``all_outputs``.

    ``progress(done, total)`` hears each output scored (the outputs scored so far, of how many).
    """
    jobs = []
    for i, out in enumerate(outputs):
        counted = counts(out)
        if counted or all_outputs:
            jobs.append((i, budgets, counted))
    workers = workers or min(4, os.cpu_count() or 1)
    scores: list[Score] = []
    if workers <= 1:
        _init(outputs)
        parts: Iterable[list[Score]] = map(_score_one, jobs)
        for done, part in enumerate(parts, 1):
            scores.extend(part)
            if progress is not None:
                progress(done, len(jobs))
        return scores
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(outputs,)) as pool:
        for done, part in enumerate(pool.map(_score_one, jobs, chunksize=16), 1):
            scores.extend(part)
            if progress is not None:
                progress(done, len(jobs))
    return scores


@dataclass
class Whole:
    """A run's input: the tokens its requests carry, as recorded and with wuu's views."""

    run: str
    project: str
    recorded: int
    wuu: int
    wuu_no_recovery: int
    wuu_real_recovery: int
    recoveries: int


def whole_run(runs: list[Run], views: dict[int, Score], offsets: dict[str, int], budget: int) -> list[Whole]:
    """Each run's input as recorded and with wuu's first view (at ``budget``) in place of every output.

    A request is made before each assistant message and carries every message before it. With
    wuu, each output is replaced by its first view; where an output that counts lost items, one
    recovery is added after it: a request carrying the history so far, whose answer (the
    continuation call) and result stay in the history. The result is counted two ways: the
    budget's size (``wuu``, the issue's measure) and the continuation's real next view, which
    reads only what the first view left out (``wuu_real_recovery``).
    """
    rows = []
    for run in runs:
        base = offsets[run.name]
        recorded = wuu = plain_wuu = real = 0
        ctx_rec = ctx_wuu = ctx_plain = ctx_real = 0
        recoveries = 0
        for message in run.messages:
            cost = count_tokens(message.text) if message.text else 0
            if message.role == "assistant":
                recorded += ctx_rec
                wuu += ctx_wuu
                plain_wuu += ctx_plain
                real += ctx_real
            ctx_rec += cost
            if message.output is None:
                ctx_wuu += cost
                ctx_plain += cost
                ctx_real += cost
                continue
            scored = views[base + message.output]
            ctx_wuu += scored.run_tokens
            ctx_plain += scored.run_tokens
            ctx_real += scored.run_tokens
            if scored.items and scored.raw_tokens > COUNT_OVER and scored.run_kept < scored.items:
                recoveries += 1
                wuu += ctx_wuu  # the recovery's request
                real += ctx_real
                ctx_wuu += max(scored.continuation, 1) + budget
                ctx_real += max(scored.continuation, 1) + scored.recovery
        rows.append(Whole(run.name, run.project, recorded, wuu, plain_wuu, real, recoveries))
    return rows
