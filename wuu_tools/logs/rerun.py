"""A command's view in a session: a re-run shown as what changed, and lines shown before named.

When the same command line runs again in the same directory, :func:`rerun_view` compares the new
log with the previous run's: the verdict, the lines that are new (``+``, numbered as in the new log)
and gone (``-``) in unified-diff hunks with a line of context, the current error evidence and the
runner's summary line when no hunk holds them, and both logs' references. An output that changed
too much for a diff to pay (over half its lines) is viewed as usual. Every other view of a command
goes through :func:`~wuu_tools.views.seen.session_pass`, which names the stretches of lines the
session already showed.
"""

from __future__ import annotations

import difflib
from typing import Any

from ..core.budget import within
from ..core.lines import LineFile, decode_line
from ..core.result import ToolResult, call_text, continuation
from ..core.session import current_session, line_key
from ..core.store import current_store
from ..core.text import clean_terminal, plural
from ..views.seen import numbers_by_key, session_pass
from .evidence import classify, is_summary

__all__ = ["command_session", "log_lines", "rerun_view"]

MAX_DIFF_LINES = 5_000
"""Logs longer than this are not diffed (the quadratic worst case of a diff stays under ~0.1 s)."""
MAX_KEYED_LINES = 100_000
MAX_KEYED_BYTES = 16 << 20
CHANGED_SHARE = 0.5
EVIDENCE_LINES = 5


def log_lines(ref: str, max_lines: int, max_bytes: int) -> list[str] | None:
    """The saved log's lines as a terminal showed them, or None when it is longer than the bounds."""
    with LineFile.open(current_store().path(ref), what=ref) as lf:
        total = lf.total_lines
        if total > max_lines or lf.size > max_bytes:
            return None
        if total == 0:
            return []
        raws, giant = lf.read_forward(1, total, max_bytes)
        if giant or len(raws) != total:
            return None
        return [clean_terminal(decode_line(raw)[0]) for raw in raws]


def _keys_of(ref: str) -> dict[bytes, list[int]]:
    lines = log_lines(ref, MAX_KEYED_LINES, MAX_KEYED_BYTES) or []
    where: dict[bytes, list[int]] = {}
    for number, line in enumerate(lines, 1):
        key = line_key(line)
        if key is not None:
            where.setdefault(key, []).append(number)
    return where


def rerun_view(
    prev_ref: str, ref: str, verdict: str, prev_call: int, budget: int, explicit: int | None
) -> ToolResult | None:
    """The view of a re-run as what changed against the run of ``prev_call``, or None when a diff does not pay."""
    then = log_lines(prev_ref, MAX_DIFF_LINES, MAX_KEYED_BYTES)
    now = log_lines(ref, MAX_DIFF_LINES, MAX_KEYED_BYTES)
    if then is None or now is None:
        return None
    ops = difflib.SequenceMatcher(None, then, now, autojunk=False).get_opcodes()
    new = sum(j2 - j1 for tag, _, _, j1, j2 in ops if tag in ("replace", "insert"))
    gone = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag in ("replace", "delete"))
    if new + gone > CHANGED_SHARE * max(len(then), len(now), 1):
        return None
    head = verdict[:-1] if verdict.endswith("]") else verdict
    same = len(now) - new
    if not new and not gone:
        lines = [f"{head} · the same output as call {prev_call}: {plural(len(now), 'line')}]"]
    else:
        lines = [f"{head} · as in call {prev_call} but {new:,} new, {gone:,} gone, {same:,} the same]"]
    shown: set[int] = set()
    for group in difflib.SequenceMatcher(None, then, now, autojunk=False).get_grouped_opcodes(1):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines.extend(f" {line}" for line in now[b1:b2])
                shown.update(range(b1, b2))
                continue
            lines.extend(f"-{line}" for line in then[a1:a2])
            lines.extend(f"+{line}" for line in now[b1:b2])
            shown.update(range(b1, b2))
    extra = [i for i, line in enumerate(now) if i not in shown and classify(line) is not None][:EVIDENCE_LINES]
    summary = next((i for i in range(len(now) - 1, -1, -1) if is_summary(now[i])), None)
    if summary is not None and summary not in shown and summary not in extra:
        extra.append(summary)
    if extra:
        lines.append("[now, unchanged: the error evidence and summary]")
        lines.extend(f"{i + 1}\t{now[i]}" for i in sorted(extra))
    again = continuation("read_saved", ref=ref, budget=explicit)
    lines.append(f"[then: {prev_ref} · now: {call_text(again)}]")
    text = "\n".join(lines)
    if not within(text, budget):
        return None
    keys = [line_key(now[i]) for i in sorted(shown | set(extra))]
    return ToolResult(
        text=text,
        complete=False,
        continuation=again,
        source=ref,
        revision=ref,
        meta={"rerun_of": prev_ref, "new_lines": new, "gone_lines": gone, "_keys": keys},
    )


def command_session(
    view: ToolResult,
    ref: str,
    run_meta: dict[str, Any],
    budget: int,
    explicit: int | None,
    fresh: bool,
    verdict: str,
) -> ToolResult:
    """``view`` of the command log ``ref`` as the current session shows it (the view itself without one).

    ``verdict`` is the run's verdict without its size: a re-run's view leads with it.
    """
    session = current_session()
    if session is None or view.is_error:
        return view
    command = run_meta.get("command")
    source = f"run:{run_meta.get('cwd')}\0{command if isinstance(command, str) else ' '.join(command or [])}"
    before = session.latest(source)
    total = int(view.meta.get("total_lines") or 0)
    if not fresh and before is not None and before.ref and current_store().exists(before.ref):
        diff = rerun_view(before.ref, ref, verdict, before.call, budget, explicit)
        if diff is not None and diff.tokens < view.tokens:
            meta = {**view.meta, **diff.meta}
            keys = meta.pop("_keys")
            call = session.record("run_command", source, ref=ref, keys=keys)
            meta["session"] = {"call": call, "previous_call": before.call, "named_calls": [before.call]}
            return ToolResult(
                text=diff.text, complete=False, continuation=diff.continuation, source=ref, revision=ref, meta=meta
            )

    def numbers(lines: list[str]) -> list[int | None]:
        if view.complete and total and len(lines) >= total:  # the whole output, as printed, under its verdict
            top = len(lines) - total
            return [None] * top + list(range(1, total + 1))
        return numbers_by_key(lines, lambda: _keys_of(ref))

    again = continuation("read_saved", ref=ref, budget=explicit, fresh=True)
    return session_pass(
        view, tool="run_command", source=source, numbers=numbers, again=again, budget=budget, fresh=fresh, ref=ref
    )
