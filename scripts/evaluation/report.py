"""Metrics per task and policy, the budget sweep, and the markdown and JSON reports.

``summarize`` folds traces into one row per policy; ``markdown`` renders the whole report
(``docs/eval.md``); ``to_json`` is the same material for programs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from . import peers
from .agent import FOLLOW_UP_TOKENS, FOLLOW_UPS, MAX_CALLS, Trace

__all__ = ["Summary", "best_peer", "markdown", "summarize", "to_json"]

WUU = "wuu-tools"


@dataclass(frozen=True)
class Summary:
    """One policy over the suite."""

    policy: str
    tasks: int
    found: int
    first_view_hits: int
    reading_calls: int
    tokens_read: int
    total_input: int
    non_advancing: int
    fruitless_searches: int
    reexecutions: int
    errors: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def summarize(traces: list[Trace]) -> dict[str, Summary]:
    """One :class:`Summary` per policy, in the order the policies first appear."""
    by: dict[str, list[Trace]] = defaultdict(list)
    for t in traces:
        by[t.policy].append(t)
    return {
        p: Summary(
            p,
            len(ts),
            sum(t.found for t in ts),
            sum(t.first_view_hit for t in ts),
            sum(t.reading_calls for t in ts),
            sum(t.tokens_read for t in ts),
            sum(t.total_input for t in ts),
            sum(t.non_advancing for t in ts),
            sum(t.fruitless_searches for t in ts),
            sum(t.reexecutions for t in ts),
            sum(t.error is not None for t in ts),
        )
        for p, ts in by.items()
    }


def best_peer(summaries: dict[str, Summary], complete_only: bool = False) -> Summary | None:
    """The peer policy with the least total input (whatever its success, unless ``complete_only``)."""
    peers = [
        s
        for p, s in summaries.items()
        if not p.startswith((WUU, "model:")) and (s.found == s.tasks or not complete_only)
    ]
    return min(peers, key=lambda s: s.total_input) if peers else None


def _k(n: int) -> str:
    return f"{n / 1000:,.1f}k" if n >= 10_000 else f"{n:,}"


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"


def _policy_table(summaries: dict[str, Summary]) -> list[str]:
    wuu = summaries.get(WUU)
    rows = [
        "| policy | evidence found | first-view hits | reading calls | tokens read | total input "
        "| vs wuu-tools | non-advancing | fruitless searches | re-runs |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries.values():
        ratio = f"{s.total_input / wuu.total_input:.1f}×" if wuu and wuu.total_input else "–"
        err = f" ({s.errors} errors)" if s.errors else ""
        rows.append(
            f"| {s.policy}{err} | {_pct(s.found, s.tasks)} | {s.first_view_hits} | {s.reading_calls} "
            f"| {s.tokens_read:,} | {s.total_input:,} | {ratio} | {s.non_advancing} | {s.fruitless_searches} "
            f"| {s.reexecutions} |"
        )
    return rows


def _kind_table(traces: list[Trace], policies: list[str]) -> list[str]:
    kinds = sorted({t.kind for t in traces})
    cell: dict[tuple[str, str], list[Trace]] = defaultdict(list)
    for t in traces:
        cell[(t.kind, t.policy)].append(t)
    rows = ["| kind | " + " | ".join(policies) + " |", "|---|" + "---|" * len(policies)]
    for k in kinds:
        parts = []
        for p in policies:
            ts = cell[(k, p)]
            parts.append(f"{sum(t.found for t in ts)}/{len(ts)} · {_k(sum(t.total_input for t in ts))}")
        rows.append(f"| {k} | " + " | ".join(parts) + " |")
    return rows


def _task_table(traces: list[Trace], policies: list[str]) -> list[str]:
    by: dict[str, dict[str, Trace]] = defaultdict(dict)
    for t in traces:
        by[t.task][t.policy] = t
    rows = ["| task | " + " | ".join(policies) + " |", "|---|" + "---|" * len(policies)]
    for task, row in by.items():
        parts = []
        for p in policies:
            t = row.get(p)
            if t is None:
                parts.append("–")
                continue
            mark = "✓" if t.found else ("error" if t.error else "✗")
            parts.append(f"{mark} {_k(t.total_input)} ({t.reading_calls})")
        rows.append(f"| {task} | " + " | ".join(parts) + " |")
    return rows


def _sweep_table(sweep: dict[int, Summary]) -> list[str]:
    rows = [
        "| budget | evidence found | first-view hits | reading calls | tokens read | total input | non-advancing "
        "| fruitless searches |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for budget, s in sorted(sweep.items()):
        rows.append(
            f"| {budget:,} | {_pct(s.found, s.tasks)} | {s.first_view_hits} | {s.reading_calls} "
            f"| {s.tokens_read:,} | {s.total_input:,} | {s.non_advancing} | {s.fruitless_searches} |"
        )
    return rows


def headline(summaries: dict[str, Summary]) -> dict[str, Any]:
    """The figures the README quotes: success, non-advancing calls, input ratio to the best peer."""
    wuu = summaries.get(WUU)
    peer = best_peer(summaries)
    full = best_peer(summaries, complete_only=True)
    if wuu is None:
        return {}
    return {
        "tasks": wuu.tasks,
        "found": wuu.found,
        "non_advancing": wuu.non_advancing,
        "fruitless_searches": wuu.fruitless_searches,
        "total_input": wuu.total_input,
        "best_peer": peer.policy if peer else None,
        "best_peer_total_input": peer.total_input if peer else None,
        "ratio_to_best_peer": round(wuu.total_input / peer.total_input, 3) if peer and peer.total_input else None,
        "best_complete_peer": full.policy if full else None,
        "ratio_to_best_complete_peer": round(wuu.total_input / full.total_input, 3) if full else None,
    }


def _headline_text(h: dict[str, Any]) -> str:
    text = (
        f"**wuu-tools** found the evidence in {_pct(h['found'], h['tasks'])} tasks with "
        f"{h['non_advancing']} non-advancing calls, at {h['total_input']:,} input tokens across the suite"
    )
    if h["best_peer"] is None:
        return text + " (no peer policy was run)."
    text += (
        f": **{h['ratio_to_best_peer']}×** the best peer policy ({h['best_peer']}, "
        f"{h['best_peer_total_input']:,}). Target: 100%, 0, ≤ 0.2×."
    )
    if h["best_complete_peer"] and h["best_complete_peer"] != h["best_peer"]:
        text += (
            f" Against the cheapest peer that found every answer ({h['best_complete_peer']}): "
            f"{h['ratio_to_best_complete_peer']}×."
        )
    return text


def markdown(traces: list[Trace], sweep: dict[int, Summary], skipped: list[str], command: str) -> str:
    """The whole report as markdown."""
    summaries = summarize(traces)
    policies = list(summaries)
    h = headline(summaries)
    out = [
        "# Evaluation across whole tasks",
        "",
        f"Reproduce: `{command}` (a few minutes). Generated by `scripts/eval.py`; do not edit. The suite and the "
        "agent are deterministic; a command view names its duration, which can move a count by a token.",
        "",
    ]
    if h:
        out += [_headline_text(h), ""]
    out += [
        "## Per policy",
        "",
        *_policy_table(summaries),
        "",
        "![total input per policy, and cumulative input over one long task](eval.png)",
        "",
        "## Per kind of task (found/tasks · total input)",
        "",
        *_kind_table(traces, policies),
        "",
    ]
    if sweep:
        out += ["## Budget sweep (wuu-tools)", "", *_sweep_table(sweep), "", "![budget sweep](eval-sweep.png)", ""]
    out += [
        "## Per task (✓ found / ✗ not found · total input · reading calls)",
        "",
        *_task_table(traces, policies),
        "",
        "## How it is measured",
        "",
        *METHOD,
        "",
        f"Constants: at most {MAX_CALLS} reading calls a task; then {FOLLOW_UPS} further requests "
        f"adding {FOLLOW_UP_TOKENS} tokens each. The system prompt and tool schemas are left out "
        "(the same for every policy).",
        "",
        "The peer policies as modelled:",
        "",
        *[ln.strip() for ln in (peers.__doc__ or "").splitlines() if ln.strip().startswith("|")],
        "",
    ]
    if skipped:
        out += ["## Left out", "", *[f"- {s}" for s in skipped], ""]
    return "\n".join(out)


METHOD = [
    "- Every task is one question about one source (a failing command's output, a file, a tree, a transcript, "
    "an MCP result) and the evidence that answers it (strings that must become visible; an image that must "
    "reach the model). Real third-party logs use their labelled ground-truth lines.",
    "- A deterministic scripted agent makes the natural first call of each policy. When the evidence is not "
    "visible it recovers as that policy allows: one grep for what a real agent would search (a generic "
    "`error|fail|panic|exception|assert|undefined` for logs, the name in question otherwise), a read around "
    "the first match, then continuation (wuu-tools) or paging from the first unseen line in the largest pages "
    "the policy shows uncut (peers). A command output that was cut and not saved must be re-run to read more; "
    "a cut MCP result that was not saved cannot be read further.",
    "- Total input is Σ over the task's requests of the history sent with it (the question, then every call "
    "and result so far), in exact cl100k tokens; images count ⌈w·h/750⌉ tokens.",
    "- A non-advancing call is a continuation, page or read around a match that shows nothing new (for "
    "wuu-tools: no line, turn or slice of the source beyond those already shown, or no new text line). A "
    "fruitless search is a grep whose result shows nothing new: the pattern matched only what was in view, "
    "which says more about the pattern than about the tool; it is counted apart.",
    "- Peer policies are models of their documented limits (see `scripts/evaluation/peers.py`), not the "
    "products themselves; the agent is generous to them (ideal page sizes, no wasted calls).",
    "- Limits of the method: evidence is matched as text, so a view that shows the decisive line counts as "
    "found even if a real model would want more context around it; the scripted agent never misreads a "
    "view and follows every continuation exactly; peers get images through as images (the plain cap too); "
    "every log task's command output is replayed from a file (`cat`), so re-running it costs no build time.",
]


def to_json(traces: list[Trace], sweep: dict[int, Summary], skipped: list[str]) -> dict[str, Any]:
    """The report for programs: headline, per-policy summaries, the sweep, every trace."""
    summaries = summarize(traces)
    return {
        "headline": headline(summaries),
        "config": {"max_calls": MAX_CALLS, "follow_ups": FOLLOW_UPS, "follow_up_tokens": FOLLOW_UP_TOKENS},
        "policies": {p: s.to_dict() for p, s in summaries.items()},
        "sweep": {str(b): s.to_dict() for b, s in sorted(sweep.items())},
        "skipped": skipped,
        "traces": [t.to_dict() for t in traces],
    }
