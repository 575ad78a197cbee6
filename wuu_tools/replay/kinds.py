"""The replay's table by tool kind (issue 33): on the outputs rtk's filters shrink, rtk beside wuu.

A recorded output's *kind* is the ``rtk pipe`` filter its command rewrites to (:mod:`.rtk`:
``pytest -x tests`` → ``rtk pytest`` → ``pytest``; ``git log --oneline`` → ``git-log``; a file read
→ ``read``). An output counts for its kind only where rtk actually shrinks it (rtk's view has fewer
tokens than the output as printed): an output rtk passes through, or prints back as large, is
compared nowhere. For each split (DEV, HELD-OUT) and kind, the table gives the outputs, the raw
tokens, rtk's, wuu's (``run_command``'s first view at the budget, no session), and the items
(INDEX.md's rule, :func:`.runs._items`) each view keeps, over every output of the kind, whatever
its size (an output with no item adds tokens and no items).

The definition, pinned (the issue's counts, 263 pytest outputs and 45 items, were measured on
other runs; these runs give other counts under the same rule): an output is counted when it is a
Bash (or Read) output with text, ``rtk rewrite`` maps its command to an ``rtk`` command with a pipe
filter, and that filter's view has fewer tokens (:func:`~wuu_tools.core.budget.count_tokens`) than
the output; a row's *items* is the sum over its outputs of each output's distinct items, and a
view *keeps* an item when the item is one of the view's item-shaped tokens (:func:`.runs.tokens`).
Tokens are summed over the same outputs on each side, an output with no item included.

Beside them, a *floor*: the smallest view that still does what the issue asks of every view, the
verdict first and the call that reads the saved output (:func:`floor_view`): ``[exit N]``, one fold
line naming the lines before the last with that call, and the last line (pytest's summary), or the
whole output after the verdict where that is smaller. It shows no failure at all, so any view that
keeps the failures costs more: where the floor alone is over a ratio, no such view is under it.

The figures are deterministic: rtk's answers are memoized, the views are (invariant 6), and the
workers' rows are put back in the outputs' order.
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.budget import count_tokens
from .rtk import rtk_available, rtk_view
from .runs import Output, tokens
from .views import View, replay_store, wuu_run

__all__ = ["DEFINITION", "KindRow", "KindScore", "kind_rows", "kind_scores", "kinds_json"]

DEFAULT_BUDGET = 2000
DEFINITION = (
    "an output counts where rtk rewrites its command to a filter and that filter's view has fewer tokens "
    "than the output; items: each output's distinct items (INDEX.md's rule), summed"
)
"""The rule in one line, printed under the ``--kinds`` table's title."""


@dataclass(frozen=True)
class KindScore:
    """One output that rtk shrinks: its kind, tokens as printed, by rtk and by wuu, and the items each keeps."""

    index: int
    kind: str  # "pytest", "git log", "find", … (the rtk filter, dashes as spaces)
    raw: int
    rtk: int
    wuu: int
    items: int
    rtk_kept: int
    wuu_kept: int
    wuu_view: str  # the view run_command chose
    floor: int = 0  # tokens of floor_view(): the verdict, one call and the last line


@dataclass
class KindRow:
    """The sums over one split's outputs of one kind."""

    split: str
    kind: str
    outputs: int = 0
    raw: int = 0
    rtk: int = 0
    wuu: int = 0
    items: int = 0
    rtk_kept: int = 0
    wuu_kept: int = 0
    floor: int = 0

    def add(self, s: KindScore) -> None:
        self.outputs += 1
        self.raw += s.raw
        self.rtk += s.rtk
        self.wuu += s.wuu
        self.items += s.items
        self.rtk_kept += s.rtk_kept
        self.wuu_kept += s.wuu_kept
        self.floor += s.floor


def floor_view(text: str, exit_code: int | None, ref: str) -> str:
    """The smallest view with the verdict and a call that reads the saved output (the module docstring).

    >>> passed = "".join(f"tests/test_a.py::test_{i} PASSED\\n" for i in range(6))
    >>> print(floor_view("collected 6 items\\n" + passed + "==== 6 passed in 0.1s ====\\n", 0, "log-1"))
    [exit 0]
    [… 7 lines: read_saved(ref="log-1", end_line=7)]
    ==== 6 passed in 0.1s ====
    >>> print(floor_view("No module named pytest", 1, "log-2"))
    [exit 1]
    No module named pytest
    """
    verdict = f"[exit {exit_code}]" if exit_code is not None else "[exit ?]"
    lines = text.rstrip("\n").split("\n")
    whole = "\n".join([verdict, *lines])
    if len(lines) < 2:
        return whole
    n = len(lines) - 1
    folded = f'{verdict}\n[… {n} lines: read_saved(ref="{ref}", end_line={n})]\n{lines[-1]}'
    return min(whole, folded, key=count_tokens)


def kind_name(filter_name: str) -> str:
    """``git-log`` → ``git log``: the kind as the table names it."""
    return filter_name.replace("-", " ")


_OUTPUTS: list[Output] = []


def _init(outputs: list[Output]) -> None:
    global _OUTPUTS
    _OUTPUTS = outputs


def _one(job: tuple[int, int]) -> KindScore | None:
    index, budget = job
    out = _OUTPUTS[index]
    with tempfile.TemporaryDirectory(prefix="wuu-replay-kinds-") as folder:
        text, name = rtk_view(out, Path(folder))
    if name is None:
        return None
    raw, rtk = count_tokens(out.text), count_tokens(text)
    if rtk >= raw:
        return None  # rtk does not shrink it: not compared
    with replay_store():
        view = wuu_run(out, budget)
    return KindScore(
        index=index,
        kind=kind_name(name),
        raw=raw,
        rtk=rtk,
        wuu=view.tokens,
        items=len(out.items),
        rtk_kept=len(out.items & tokens(text)),
        wuu_kept=len(out.items & tokens(view.text)),
        wuu_view=view.kind,
        floor=count_tokens(floor_view(out.text, out.exit_code, _ref(view))),
    )


def _ref(view: View) -> str:
    """The saved output's reference in wuu's view (a stand-in of the same shape when it saved none)."""
    ref = view.result.source if view.result is not None else None
    return ref or "log-00000000"


def kind_scores(outputs: list[Output], budget: int = DEFAULT_BUDGET, workers: int | None = None) -> list[KindScore]:
    """The outputs rtk shrinks, each scored at ``budget`` (empty when rtk is not installed)."""
    if not rtk_available():
        return []
    jobs = [(i, budget) for i, o in enumerate(outputs) if o.tool in ("bash", "Bash", "Read") and o.text.strip()]
    workers = workers or min(4, os.cpu_count() or 1)
    if workers <= 1:
        _init(outputs)
        got = [_one(j) for j in jobs]
    else:
        with ProcessPoolExecutor(workers, initializer=_init, initargs=(outputs,)) as pool:
            got = list(pool.map(_one, jobs, chunksize=16))
    return [s for s in got if s is not None]


def kind_rows(scores: Iterable[KindScore], outputs: list[Output], dev: tuple[str, ...]) -> list[KindRow]:
    """Rows by split (DEV, HELD-OUT) and kind, the kinds with most outputs first within a split."""
    rows: dict[tuple[str, str], KindRow] = {}
    for s in scores:
        split = "DEV" if outputs[s.index].project in dev else "HELD-OUT"
        rows.setdefault((split, s.kind), KindRow(split, s.kind)).add(s)
    by_split: dict[str, list[KindRow]] = defaultdict(list)
    for row in rows.values():
        by_split[row.split].append(row)
    ordered = []
    for split in ("DEV", "HELD-OUT"):
        ordered += sorted(by_split[split], key=lambda r: (-r.outputs, r.kind))
    return ordered


def kinds_json(rows: list[KindRow], budget: int) -> dict[str, Any]:
    """``{"budget": B, "DEV": {kind: {...}}, "HELD-OUT": {...}}``."""
    out: dict[str, Any] = {"budget": budget}
    for r in rows:
        out.setdefault(r.split, {})[r.kind] = {
            "outputs": r.outputs,
            "raw_tokens": r.raw,
            "rtk_tokens": r.rtk,
            "wuu_tokens": r.wuu,
            "items": r.items,
            "rtk_kept": r.rtk_kept,
            "wuu_kept": r.wuu_kept,
            "floor_tokens": r.floor,
        }
    return out
