"""The recall report on the LogChunks corpus, printed by ``scripts/recall.py``.

Recall and median/max first-view tokens overall, on the DEV and HELD-OUT projects (the split
of :func:`evaluation.logchunks.is_dev`), per language and per project, beside the peers'
position cuts (the same rule, computed here), the list of misses, and leave-project-out
figures: every tuned parameter in :data:`TUNED` is tried at each value of its grid, and each
project is judged with the value that does best on the *other* projects (leave one project
out), so a figure that depends on fitting the corpus is judged on a project that did not
inform it.
"""

from __future__ import annotations

import importlib
import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from wuu_tools.core.budget import count_tokens

from .logchunks import PEER_CUTS, CorpusTask, is_dev, load, recalled, views

__all__ = ["TUNED", "corpus_report"]

TUNED: tuple[tuple[str, str, tuple[float, ...]], ...] = (
    ("wuu_tools.logs.view", "STRUCTURED_SHARE", (0.85, 0.92)),
    ("wuu_tools.logs.view", "STRUCTURED_EDGE", (60, 160, 400)),
    ("wuu_tools.logs.view", "OUT_OF_STEP", (0, 30)),
    ("wuu_tools.logs.steps", "STEP_TAIL", (12, 30, 60)),
)
"""(module, attribute, grid): the view's parameters whose value could be fitted on the corpus."""

Row = tuple[CorpusTask, bool, int]  # task, recalled, view tokens


def _run(tasks: list[CorpusTask], budget: int) -> list[Row]:
    return [(t, recalled(v, t), count_tokens(v)) for t, _, v in views(tasks, budget)]


def _fig(rows: list[Row]) -> str:
    if not rows:
        return "-"
    hits = sum(r[1] for r in rows)
    tokens = [r[2] for r in rows]
    return (
        f"{hits:>3}/{len(rows):<3} {hits / len(rows):>4.0%}  median {statistics.median(tokens):>7,.0f}  "
        f"max {max(tokens):>7,}"
    )


def _grouped(rows: list[Row], key: str) -> Iterable[tuple[str, list[Row]]]:
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        groups[getattr(r[0], key)].append(r)
    return sorted(groups.items())


def _peers(tasks: list[CorpusTask]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {name: [] for name in PEER_CUTS}
    for t in tasks:
        text = t.path.read_bytes().decode("utf-8", "replace")
        for name, cut in PEER_CUTS.items():
            shown = cut(text)
            out[name].append((t, recalled(shown, t), count_tokens(shown)))
    return out


def _leave_project_out(tasks: list[CorpusTask], budget: int) -> list[str]:
    """Leave-one-project-out recall for each tuned parameter (its other parameters at their defaults)."""
    out = []
    for module_name, attr, grid in TUNED:
        module = importlib.import_module(module_name)
        default = getattr(module, attr)
        hits: dict[float, dict[str, bool]] = {}
        try:
            for value in grid:
                setattr(module, attr, value)
                hits[value] = {r[0].name: r[1] for r in _run(tasks, budget)}
        finally:
            setattr(module, attr, default)
        repos = sorted({t.repo for t in tasks})
        lpo = 0
        chosen: dict[float, int] = defaultdict(int)
        for repo in repos:
            train = [t.name for t in tasks if t.repo != repo]
            best = max(grid, key=lambda v: (sum(hits[v][n] for n in train), v == default))
            chosen[best] += 1
            lpo += sum(hits[best][t.name] for t in tasks if t.repo == repo)
        n = len(tasks)
        at_default = sum(hits[default].values()) if default in hits else -1
        grid_s = ", ".join(f"{v:g}: {sum(hits[v].values())}" for v in grid)
        picks = ", ".join(f"{v:g} ×{c}" for v, c in sorted(chosen.items()))
        out.append(
            f"  {attr} = {default:g}: {at_default}/{n} at the shipped value; leave-one-project-out "
            f"{lpo}/{n} = {lpo / n:.1%} (grid {grid_s}; chosen {picks})"
        )
    return out


def corpus_report(
    root: Path,
    budget: int,
    *,
    lpo: bool = True,
    peers: bool = True,
    misses: str = "all",
    dev_only: bool = False,
    blind: bool = False,
) -> None:
    """Print the corpus report (or say why there is none).

    ``dev_only``: the DEV projects alone (for tuning). ``blind``: the HELD-OUT projects are
    counted in the totals but nothing else of them is printed (no per-language or per-project
    row, no miss), so a developer can check the held-out figure without studying its logs.
    """
    tasks = load(root)
    if not tasks:
        print(f"\nLogChunks corpus: {root / 'tasks.json'} is absent (../shared/realdata missing): skipped")
        return
    if dev_only:
        tasks = [t for t in tasks if is_dev(t.repo)]
        print("\n(DEV projects only: the HELD-OUT ones are left out)")
    rows = _run(tasks, budget)
    dev = [r for r in rows if is_dev(r[0].repo)]
    held = [r for r in rows if not is_dev(r[0].repo)]
    n_dev = len({r[0].repo for r in dev})
    n_held = len({r[0].repo for r in held})
    print(f"\nLogChunks corpus: {len(rows)} logs of {n_dev + n_held} projects, first view at budget {budget}")
    print(f"  {'wuu-tools, all':<40} {_fig(rows)}")
    print(f"  {f'wuu-tools, DEV ({n_dev} projects)':<40} {_fig(dev)}")
    print(f"  {f'wuu-tools, HELD-OUT ({n_held} projects)':<40} {_fig(held)}")
    if peers:
        for name, peer_rows in _peers(tasks).items():
            print(f"  {name:<40} {_fig(peer_rows)}")
    if lpo and TUNED:
        print("\nLeave-project-out (each project judged with the value that does best on the other projects):")
        for line in _leave_project_out(tasks, budget):
            print(line)
    if blind:
        rows = dev
        misses = "dev" if misses == "all" else misses
        print("\n(blind: below, the DEV projects only)")
    print("\nPer language:")
    for lang, part in _grouped(rows, "language"):
        print(f"  {lang:<14} {_fig(part)}")
    print("\nPer project (D: DEV, H: HELD-OUT):")
    for repo, part in _grouped(rows, "repo"):
        print(f"  {'D' if is_dev(repo) else 'H'} {repo:<38} {_fig(part)}")
    if misses != "none":
        listed = [r for r in rows if not r[1] and (misses == "all" or is_dev(r[0].repo))]
        print(f"\nMisses ({'all' if misses == 'all' else 'DEV only'}: {len(listed)}):")
        for t, _, tokens in listed:
            print(f"  {t.language}/{t.name}  ({tokens} tokens)")
