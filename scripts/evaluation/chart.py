"""The PNG charts of the report (needs matplotlib: ``pip install 'wuu-tools[eval]'``).

``eval.png``: total input per policy across the suite, and the cumulative input over the
requests of one long task. ``eval-sweep.png``: total input and success per wuu-tools budget.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from .agent import Trace
from .report import Summary, best_peer, summarize

__all__ = ["available", "long_task", "write_charts"]


def available() -> bool:
    """True when matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def long_task(traces: list[Trace]) -> str | None:
    """The task on which the best peer policy spent the most input (the one-long-task panel)."""
    peer = best_peer(summarize(traces))
    pool = [t for t in traces if peer is None or t.policy == peer.policy]
    return max(pool, key=lambda t: t.total_input).task if pool else None


def write_charts(traces: list[Trace], sweep: dict[int, Summary], out: Path) -> list[Path]:
    """Write the charts into ``out``; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    summaries = summarize(traces)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    names = list(summaries)
    values = [summaries[n].total_input / 1e6 for n in names]
    colours = ["#2a7" if n.startswith("wuu-tools") else "#888" for n in names]
    bars = left.barh(names, values, color=colours)
    for bar, n in zip(bars, names, strict=True):
        s = summaries[n]
        left.text(
            bar.get_width(),
            bar.get_y() + bar.get_height() / 2,
            f" {s.total_input / 1e6:.2f}M · found {s.found}/{s.tasks}",
            va="center",
            fontsize=8,
        )
    left.invert_yaxis()
    left.set_xlabel("total input tokens across the suite (millions)")
    left.set_title("Total input per policy (history re-sent every request)")
    left.set_xlim(0, max(values) * 1.45 if values else 1)

    task = long_task(traces)
    for t in traces:
        if t.task != task:
            continue
        cumulative = list(itertools.accumulate(t.history()))
        right.plot(
            range(1, len(cumulative) + 1),
            [c / 1000 for c in cumulative],
            marker=".",
            label=f"{t.policy} ({'found' if t.found else 'not found'})",
            linewidth=2.5 if t.policy.startswith("wuu-tools") else 1.2,
        )
    right.set_xlabel("request")
    right.set_ylabel("cumulative input tokens (thousands)")
    right.set_title(f"One long task: {task}")
    right.legend(fontsize=8)
    fig.tight_layout()
    path = out / "eval.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    if sweep:
        fig, ax = plt.subplots(figsize=(7, 4))
        budgets = sorted(sweep)
        ax.bar([str(b) for b in budgets], [sweep[b].total_input / 1e6 for b in budgets], color="#2a7")
        ax.set_xlabel("budget (tokens per view)")
        ax.set_ylabel("total input across the suite (millions)")
        twin = ax.twinx()
        twin.plot(
            [str(b) for b in budgets],
            [100 * sweep[b].found / max(1, sweep[b].tasks) for b in budgets],
            color="#c33",
            marker="o",
        )
        twin.set_ylabel("evidence found (%)", color="#c33")
        twin.set_ylim(0, 105)
        ax.set_title("wuu-tools budget sweep")
        fig.tight_layout()
        path = out / "eval-sweep.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written
