"""The replay's session tables (issue 32): items kept and whole-run input with a session, without one, and rtk's.

Printed by ``scripts/replay.py``; :func:`session_figures` is also what ``--json FILE`` writes.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable
from typing import Any

from .ceiling import repeats_removed
from .runs import Output, Run
from .score import COUNT_OVER, Score, Whole, whole_run
from .session import SessionScore

__all__ = ["SPLITS", "print_figures", "ratio_figures", "session_figures", "shaped_json"]

SPLITS = ("all", "DEV", "HELD-OUT")

TARGET_WHOLE = 0.85
TARGET_MEDIAN = 0.95
TARGET_MAX = 1.02
TARGET_REUSED = 0.95


def ratio_figures(rows: list[Whole], pick: Callable[[Whole], int]) -> dict[str, float]:
    rec = sum(r.recorded for r in rows)
    per = sorted(pick(r) / r.recorded for r in rows if r.recorded)
    return {
        "ratio": round(sum(pick(r) for r in rows) / rec, 4) if rec else 0.0,
        "per_run_median": round(statistics.median(per), 4) if per else 0.0,
        "per_run_max": round(per[-1], 4) if per else 0.0,
        "tokens": sum(pick(r) for r in rows),
    }


def session_figures(
    runs: list[Run],
    outputs: list[Output],
    scores: list[Score],
    sessions: list[SessionScore],
    offsets: dict[str, int],
    budgets: tuple[int, ...],
    whole_budget: int,
    dev: tuple[str, ...],
    splits: tuple[str, ...] = SPLITS,
) -> dict[str, Any]:
    """The figures of issue 32, for all runs and per split (DEV, HELD-OUT; ``splits`` names those wanted)."""
    plain = {s.index: s for s in scores if s.budget == whole_budget}
    sess = {s.index: s for s in sessions if s.budget == whole_budget}
    with_session = {
        i: dataclasses.replace(
            p,
            run_tokens=sess[i].tokens,
            run_kept=sess[i].kept,
            continuation=sess[i].continuation,
            recovery=whole_budget,
        )
        for i, p in plain.items()
        if i in sess
    }
    has_rtk = all(s.rtk_tokens is not None for s in sess.values())
    rtk = {
        i: dataclasses.replace(p, run_tokens=sess[i].rtk_tokens or 0, run_kept=sess[i].rtk_kept or 0)
        for i, p in plain.items()
        if i in sess and has_rtk
    }
    bound = repeats_removed(runs, plain, offsets)
    out: dict[str, Any] = {}
    for split in splits:
        chosen = [r for r in runs if split == "all" or (r.project in dev) == (split == "DEV")]
        if not chosen:
            continue
        rows_plain = whole_run(chosen, plain, offsets, whole_budget)
        rows_sess = whole_run(chosen, with_session, offsets, whole_budget)
        fig: dict[str, Any] = {
            "runs": len(chosen),
            "whole_run": {
                "budget": whole_budget,
                "recorded": sum(r.recorded for r in rows_plain),
                "wuu": ratio_figures(rows_sess, lambda r: r.wuu),
                "wuu_no_recovery": ratio_figures(rows_sess, lambda r: r.wuu_no_recovery),
                "wuu_no_session": ratio_figures(rows_plain, lambda r: r.wuu),
                "repeats_removed": ratio_figures(
                    whole_run(chosen, bound, offsets, whole_budget), lambda r: r.wuu_no_recovery
                ),
            },
        }
        worst = sorted(rows_sess, key=lambda r: -r.wuu / max(r.recorded, 1))[:3]
        fig["worst_runs"] = [[r.run, round(r.wuu / r.recorded, 3)] for r in worst if r.recorded]
        if rtk:
            rows_rtk = whole_run(chosen, rtk, offsets, whole_budget)
            fig["whole_run"]["rtk"] = ratio_figures(rows_rtk, lambda r: r.wuu_no_recovery)
        names = {r.name for r in chosen}
        items: dict[str, Any] = {}
        for b in budgets:
            part = [s for s in sessions if s.budget == b and outputs[s.index].run in names]
            counted = [s for s in part if outputs[s.index].items and _raw_over(plain, s.index)]
            n = sum(len(outputs[s.index].items) for s in counted)
            nosess = [x for x in scores if x.budget == b and x.index in {s.index for s in counted}]
            items[str(b)] = {
                "items": n,
                "outputs": len(counted),
                "wuu": round(sum(s.kept for s in counted) / n, 4) if n else 0.0,
                "plain": round(sum(s.ht_kept for s in counted) / n, 4) if n else 0.0,
                "wuu_no_session": round(sum(x.run_kept for x in nosess) / n, 4) if n else 0.0,
                "rtk": round(sum(s.rtk_kept or 0 for s in counted) / n, 4) if n and has_rtk else None,
            }
        fig["items"] = items
        part = [s for s in sessions if s.budget == whole_budget and outputs[s.index].run in names]
        reused = sum(s.reused for s in part)
        fig["reused_visible"] = round(sum(s.reused_visible for s in part) / reused, 4) if reused else 1.0
        fig["reused_words"] = reused
        fig["reruns_diffed"] = sum(s.rerun for s in part)
        fig["views_naming_lines"] = sum(s.named_lines > 0 for s in part)
        fig["lines_named"] = sum(s.named_lines for s in part)
        out[split] = fig
    return out


def shaped_json(figures: dict[str, Any]) -> dict[str, Any]:
    """Issue 32's shape: whole_run at the default budget, items by budget, reused_visible; splits beside."""
    top = figures["all"]
    w = top["whole_run"]
    pick = ("ratio", "per_run_median", "per_run_max")
    shaped: dict[str, Any] = {
        "whole_run": {
            "recorded": w["recorded"],
            **{k: {f: w[k][f] for f in pick} for k in ("wuu", "wuu_no_session", "rtk") if k in w},
        },
        "items": {b: {k: x[k] for k in ("wuu", "plain", "rtk")} for b, x in top["items"].items()},
        "reused_visible": top["reused_visible"],
    }
    shaped["splits"] = {k: v for k, v in figures.items() if k != "all"}
    return shaped


def _raw_over(plain: dict[int, Score], index: int) -> bool:
    s = plain.get(index)
    return s is not None and s.raw_tokens > COUNT_OVER


def print_figures(figures: dict[str, Any], table: Callable[[list[str]], Any]) -> list[str]:
    """Print the session tables; return the targets missed."""
    misses: list[str] = []
    for split, fig in figures.items():
        w = fig["whole_run"]
        print(f"whole-run input through one session per run ({split}, {fig['runs']} runs, budget {w['budget']:,}):")
        t = table(["", "x recorded", "per run: median", "worst"])
        t.add("as recorded", "1.00", "1.00", "1.00")
        for label, key in (
            ("wuu, no session (recovery counted)", "wuu_no_session"),
            ("wuu with a session, no recovery", "wuu_no_recovery"),
            ("wuu with a session (recovery counted)", "wuu"),
            ("rtk 1.1.0 (its hook's rewrites; no recovery)", "rtk"),
            ("bound: each output whole less the lines an earlier one printed, verdict first", "repeats_removed"),
        ):
            if key in w:
                x = w[key]
                t.add(label, f"{x['ratio']:.3f}", f"{x['per_run_median']:.3f}", f"{x['per_run_max']:.3f}")
        t.print()
        print("   worst runs: " + ", ".join(f"{name} {x:.2f}x" for name, x in fig["worst_runs"]))
        print(f"items kept ({split}): wuu with a session / plain head+tail at its tokens / wuu without / rtk:")
        t = table(["budget", "outputs", "items", "wuu", "plain", "no session", "rtk"])
        for b, x in fig["items"].items():
            rtk = "-" if x["rtk"] is None else f"{100 * x['rtk']:.0f}%"
            t.add(
                b,
                x["outputs"],
                x["items"],
                f"{100 * x['wuu']:.1f}%",
                f"{100 * x['plain']:.1f}%",
                f"{100 * x['wuu_no_session']:.1f}%",
                rtk,
            )
            if split != "all" and x["wuu"] + 1e-9 < x["plain"]:
                misses.append(f"{split} budget {b}: items {100 * x['wuu']:.1f}% < plain {100 * x['plain']:.1f}%")
        t.print()
        print(
            f"   reused words visible ({split}): {100 * fig['reused_visible']:.1f}% of {fig['reused_words']:,}; "
            f"{fig['views_naming_lines']:,} views named {fig['lines_named']:,} lines shown before; "
            f"{fig['reruns_diffed']:,} re-runs shown as what changed"
        )
        print()
        if split == "all":
            continue
        if w["wuu"]["ratio"] > TARGET_WHOLE:
            bound = w["repeats_removed"]["ratio"]
            why = f" (naming every repeat at no cost gives {bound:.3f}x)" if bound > TARGET_WHOLE else ""
            misses.append(f"{split}: whole-run with a session {w['wuu']['ratio']:.3f}x > {TARGET_WHOLE}x{why}")
        if w["wuu"]["per_run_median"] > TARGET_MEDIAN:
            misses.append(f"{split}: median run {w['wuu']['per_run_median']:.3f}x > {TARGET_MEDIAN}x")
        if w["wuu"]["per_run_max"] > TARGET_MAX:
            misses.append(f"{split}: worst run {w['wuu']['per_run_max']:.3f}x > {TARGET_MAX}x")
        if fig["reused_visible"] < TARGET_REUSED:
            misses.append(f"{split}: reused visible {fig['reused_visible']:.3f} < {TARGET_REUSED}")
        if "rtk" in w and w["wuu"]["ratio"] >= w["rtk"]["ratio"]:
            misses.append(f"{split}: wuu {w['wuu']['ratio']:.3f}x not below rtk {w['rtk']['ratio']:.3f}x")
    return misses
