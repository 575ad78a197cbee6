"""The error-first view of a saved log: verdict, evidence, tail, head, and how to read the rest.

:func:`project_log` reads a log saved in the current store and returns its first view, in
this order: the verdict line the caller gives (exit code, duration, size, reference), the
error evidence (:mod:`.evidence`: lines matched by the toolchain patterns, chosen most causal
first and shown in file order, each with its line number and a little context, duplicates folded with a count, the
runner's summary lines always kept), then the tail, then the head. Ordinary output
(tail, head) is shortened before evidence is; when nothing matched the view is
tail-weighted. Lines are shown as a person saw them (colours and carriage-return redraws
removed; the saved log keeps the raw bytes) and cut at :data:`LINE_CHARS` characters.

Memory stays bounded whatever the log's size: the log is scanned in blocks, a log of up to
:data:`~._logscan.SCAN_ALL_BYTES` is searched whole, a larger one in its first and last
stretches (the view says which lines were searched). Line numbers are those of ``read_saved`` (the shared
:class:`~wuu_tools.core.lines.LineFile` index: split on ``"\\n"``), and the continuation is
``read_saved(ref, start_line=first omitted line, end_line=last omitted line)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.budget import HARD_CAP_BYTES, NOTICE_TOKENS, count_tokens
from ..core.lines import LineFile
from ..core.result import ToolResult, call_text, continuation
from ..core.store import current_store
from ..core.text import human_size, plural, ranges
from .fit import fit
from .frame import rest_of
from .groups import grouped
from .viewlines import LINE_CHARS, ViewLines

if TYPE_CHECKING:  # the evidence machinery is imported when a log is not shown whole
    from .evidence import Evidence
    from .scan import Scan
    from .steps import Step

__all__ = ["LINE_CHARS", "project_log"]

RUN_MAX = 8  # lines of a run of evidence shown at most
EVIDENCE_SHARE = 0.65
STRUCTURED_SHARE = 0.92  # the evidence's share when a failing CI step was found (head and tail are boilerplate)
STRUCTURED_EDGE = 60  # tokens of head and tail of a log with a failing CI step (its preamble and epilogue)
IN_STEP = 10  # rank bonus of a pattern match inside a failing step ...
OUT_OF_STEP = 30  # ... and its penalty outside every failing step of a log with step markers
GENERIC_SCORE = 40  # items of rules scoring below this (a bare "error" word) are filler ...
GENERIC_MAX = 4  # ... of which the evidence shows this many at most
GREP_HINT = "error|err!|fail|panic|exception|traceback|fatal|abort|killed|not ok|not found|undefined|^e  "
"""The search the view suggests: lower case, so smart case matches ``FAILED``, ``Error:``, pytest's ``E`` lines."""
HINT_RATIO = 16
"""The view suggests a search only when what it leaves out is this many times its budget (in bytes, 8 to a
token) or more: there a search finds in one call what the chain would read in many."""
NUMBER_TOKENS = 2
"""What a line number costs an evidence line (its digits and the tab after them)."""


def _block(item: Evidence, total: int) -> tuple[int, int]:
    rule = item.rule
    end = max(item.line, min(item.run_end, item.line + RUN_MAX - 1)) + rule.after
    return max(1, item.line - rule.before), min(total, end)


_Rendered = tuple[str, list[list[int]], list[list[int]], "dict[str, Any] | None"]
"""A rendered view: its text, the spans shown and omitted, and the continuation."""


@dataclass
class _Plan:
    blocks: list[list[int]] = field(default_factory=list)  # [first, last] in display order
    notes: dict[int, str] = field(default_factory=dict)  # line -> fold note after the block
    summaries: list[int] = field(default_factory=list)
    tail_first: int = 0
    head_last: int = 0
    evidence_count: int = 0


def _ranked(lf: LineFile, scan: Scan) -> tuple[list[Evidence], float]:
    """Evidence most causal first: pattern matches ranked by where they sit in the log's steps, with the
    failing steps' own evidence (:mod:`.steps`) merged in; and the evidence's share of the view."""
    from .steps import failing_steps, step_evidence

    ranked = scan.collector.ranked()
    ends = scan.collector.step_ends
    steps = failing_steps(lf, ends)
    # A CI log cut before its failing step ended (a time limit, a log cap) has step markers but no
    # failing end: its last step is the one that failed.
    structured = bool(ends) or any(s.marked for s in steps)
    share = EVIDENCE_SHARE
    if structured:
        share = STRUCTURED_SHARE
        for item in ranked:
            item.score += IN_STEP if any(_in_step(item.line, s) for s in steps) else -OUT_OF_STEP
    known: dict[str, float] = {}
    for item in ranked:
        known[item.text.strip()] = max(item.score, known.get(item.text.strip(), 0.0))
    # A step line that a pattern already found (a duplicate folded with its count) is shown once.
    ranked += [e for e in step_evidence(lf, steps, structured) if known.get(e.text.strip(), -1.0) < e.score]
    ranked.sort(key=lambda e: (-e.score, e.line if not e.rule.last_wins else -e.line))
    return ranked, share


def _in_step(line: int, step: Step) -> bool:
    return step.first <= line <= (step.end or step.last)


def _plan(
    lines: ViewLines,
    scan: Scan,
    body: int,
    ranked: list[Evidence],
    share: float,
    squeeze: int = 0,
    evidence_body: int | None = None,
) -> _Plan:
    """Choose what a view of ``body`` tokens shows: evidence blocks (in their share of ``evidence_body``, else of
    ``body``, less ``squeeze``), summaries, tail, head."""
    total = lines.lf.total_lines
    plan = _Plan(tail_first=total + 1)
    summaries = [n for n, _ in scan.collector.summary_lines()]
    for n in summaries:
        lines.load(n, n)
    reserve = sum(lines.cost[n] for n in summaries)
    room = int((body if evidence_body is None else evidence_body) * share) - reserve - squeeze
    used = _fill_evidence(lines, plan, ranked, room) if ranked else 0
    evidence = {n for a, b in plan.blocks for n in range(a, b + 1)}
    # Evidence that runs to the last line does not end the tail: the tail still shows what led up
    # to it (shown evidence lines cost nothing there and are not repeated).
    trailing = total
    while trailing in evidence:
        trailing -= 1
    free = frozenset(n for n in evidence if n > trailing)
    floor = max(evidence - free, default=0) + 1
    rest = body - used - reserve
    edge = rest if share < STRUCTURED_SHARE else min(rest, STRUCTURED_EDGE)  # boilerplate around a failing step
    plan.tail_first = lines.tail_from(int(edge * 0.75), floor, free)
    plan.summaries = [n for n in summaries if n < plan.tail_first and n not in evidence]
    rest += reserve - sum(lines.cost[n] for n in plan.summaries)
    tail_used = sum(lines.cost[n] for n in range(plan.tail_first, total + 1) if n not in free)
    ceiling = min([plan.tail_first - 1, *(n - 1 for n in evidence | set(plan.summaries))])
    plan.head_last = lines.head_to(edge - tail_used, ceiling)
    if plan.head_last < ceiling and plan.tail_first > max(floor, plan.head_last + 1):
        head_used = sum(lines.cost[n] for n in range(1, plan.head_last + 1))
        summary_cost = sum(lines.cost[n] for n in plan.summaries)
        room = edge - head_used - summary_cost
        plan.tail_first = lines.tail_from(room, max(floor, plan.head_last + 1), free)
        plan.summaries = [n for n in plan.summaries if n < plan.tail_first]
    return plan


def _fill_evidence(lines: ViewLines, plan: _Plan, ranked: list[Evidence], room: int) -> int:
    """Add evidence blocks in rank order while they fit ``room`` tokens; returns the tokens used."""
    total = lines.lf.total_lines
    used = 0
    shown: set[int] = set()
    misses = 0
    generic = 0
    for item in ranked[:400]:
        if misses > 40:
            break
        if item.rule.score < GENERIC_SCORE:
            if generic >= GENERIC_MAX:
                continue
            generic += 1
        a, b = _block(item, total)
        note = _fold_note(item)
        spans = [(a, b), (item.line, item.line)]
        if item.rule.name == "step-tail":  # the end of a failing step: as many of its last lines as fit
            spans = [(max(a, b - k), b) for k in (b - a, 20, 10, 4, 0) if k <= b - a]
        for first, last in spans:
            lines.load(first, last)
            new = [n for n in range(first, last + 1) if n not in shown]
            cost = sum(lines.cost[n] + NUMBER_TOKENS for n in new) + (count_tokens(note) + 1 if note else 0)
            if not new or cost > room - used:
                continue
            used += cost
            shown.update(new)
            if note:
                plan.notes[item.line] = note
            _merge(plan.blocks, [first, last])
            plan.evidence_count += 1
            break
        else:
            misses += 1
    return used


def _merge(blocks: list[list[int]], span: list[int]) -> None:
    """Add ``span`` to ``blocks``, fusing it with every block it touches (into the first of them)."""
    into: list[int] | None = None
    for blk in list(blocks):
        if span[0] <= blk[1] + 1 and span[1] >= blk[0] - 1:
            if into is None:
                into = blk
            else:
                blocks.remove(blk)
            into[0] = min(into[0], span[0], blk[0])
            into[1] = max(into[1], span[1], blk[1])
    if into is None:
        blocks.append(span)


def _fold_note(item: Evidence) -> str:
    if item.count <= 1:
        return ""
    where = ", ".join(f"{n:,}" for n in item.repeats)
    more = "" if len(item.repeats) >= item.count - 1 else ", …"
    return f"      [line {item.line:,} occurs {item.count:,}× in all; also lines {where}{more}]"


def project_log(
    ref: str,
    *,
    budget: int,
    explicit_budget: int | None,
    verdict: str | None = None,
    meta: dict[str, Any] | None = None,
) -> ToolResult:
    """The error-first first view of the saved log ``ref`` within ``budget`` tokens.

    Args:
        ref: Reference of a log saved in the current store.
        budget: The resolved token budget of the view.
        explicit_budget: The budget the caller gave (repeated in the continuation), or None.
        verdict: The first line of the view (exit code, duration, …); a plain description if None.
        meta: Facts merged into the result's ``meta``.
    """
    store = current_store()
    path = store.path(ref)
    with LineFile.open(path, what=ref) as lf:
        total = lf.total_lines
        head = verdict or f"[saved {ref} · {plural(total, 'line')} · {human_size(lf.size)}]"
        out_meta: dict[str, Any] = {"total_lines": total, **(meta or {})}
        if total == 0:
            return ToolResult(
                text=f"{head}\n[no output]",
                complete=True,
                source=ref,
                revision=ref,
                meta={**out_meta, "shown": [], "omitted": []},
            )
        lines = ViewLines(lf)
        whole = _whole(lines, budget)
        if whole is not None:
            flag = ["[invalid UTF-8 replaced with U+FFFD]"] if lines.replaced else []
            return ToolResult(
                text="\n".join([head, *flag, *whole]),
                complete=True,
                source=ref,
                revision=ref,
                meta={
                    **out_meta,
                    "shown": [[1, total]],
                    "omitted": [],
                    **({"invalid_utf8_replaced": True} if flag else {}),
                },
            )
        from .scan import scan_log

        scan = scan_log(lf)
        ranked, share = _ranked(lf, scan)
        # Notices are allowed NOTICE_TOKENS above the budget; the view aims at the budget itself.
        body = budget - count_tokens(head) - NOTICE_TOKENS // 2
        hint = lf.size >= HINT_RATIO * 8 * budget
        first_body = body  # (the evidence's room is a share of it whatever the tail and head give back)

        def attempt_at(body: int, squeeze: int, counts: bool) -> tuple[_Plan, _Rendered, int, int]:
            """The view planned so, by how much it is over (tokens or bytes; 0 or less: it fits), and the
            tokens its tail and head hold."""
            plan = _plan(lines, scan, body, ranked, share, squeeze, evidence_body=first_body)
            got = _render(lines, scan, plan, ref, head, explicit_budget, hint, counts)
            over = max(count_tokens(got[0]) - budget, len(got[0].encode()) - HARD_CAP_BYTES)
            edges = [*range(plan.tail_first, total + 1), *range(1, plan.head_last + 1)]
            return plan, got, over, sum(lines.cost.get(n, 0) for n in edges)

        plan, got, gave_way = fit(lambda b, s: attempt_at(b, s, True), body)
        if gave_way:  # the skip counts between a group's places may have cost places: the view without them
            bare_plan, bare, _ = fit(lambda b, s: attempt_at(b, s, False), body)
            if bare_plan.evidence_count > plan.evidence_count:
                plan, got = bare_plan, bare
        text, shown, omitted, cont = got
        out_meta.update(shown=shown, omitted=omitted, evidence=plan.evidence_count)
        if scan.capped_at:
            out_meta["search_stopped_at"] = scan.capped_at
        if not scan.whole:
            out_meta["searched"] = [list(r) for r in scan.searched]
        if lines.replaced:
            out_meta["invalid_utf8_replaced"] = True
        return ToolResult(
            text=text,
            complete=cont is None,
            continuation=cont,
            source=ref,
            revision=ref,
            meta=out_meta,
        )


def _whole(lines: ViewLines, budget: int) -> list[str] | None:
    """Every line of a small log when all of them fit uncut in ``budget``; else None."""
    lf = lines.lf
    if lf.size > min(HARD_CAP_BYTES - 2048, budget * 8):
        return None
    lines.load(1, lf.total_lines)
    if lines.cut_any or sum(lines.cost.values()) > budget:
        return None
    return [lines.text[n] for n in range(1, lf.total_lines + 1)]


def _render(
    lines: ViewLines,
    scan: Scan,
    plan: _Plan,
    ref: str,
    head: str,
    explicit_budget: int | None,
    hint: bool,
    counts: bool = True,
) -> _Rendered:
    total = lines.lf.total_lines
    out = [head]
    if lines.replaced:
        out.append("[invalid UTF-8 in the output is shown as U+FFFD; the saved log keeps the bytes]")
    shown: set[int] = set()
    if plan.blocks or plan.summaries:
        n_items = plan.evidence_count
        out.append(f"[error evidence: {plural(n_items, 'place')}, in file order]" if n_items else "[summary]")
        blocks = sorted(plan.blocks)  # (chosen most causal first; read in the order printed)
        out.extend(grouped(lines.lf, blocks, lines.numbered, plan.notes, lines.scans, counts))
        for a, b in blocks:
            shown.update(range(a, b + 1))
        if plan.summaries:
            out.extend(lines.numbered(n) for n in plan.summaries)
            shown.update(plan.summaries)
        elif out[-1] == "  …":
            out.pop()
    tail = [n for n in range(plan.tail_first, total + 1) if n not in shown]
    if tail:
        label = "tail" if plan.tail_first > plan.head_last + 1 else "lines"
        spans = ranges(tail)
        where = ", ".join(f"{a:,}-{b:,}" if a != b else f"{a:,}" for a, b in spans)
        out.append(f"[{label}: {'line' if len(tail) == 1 else 'lines'} {where}]")
        # One run of lines is numbered by its label; a tail with gaps (evidence taken out) numbers each line.
        out.extend(lines.text[n] if len(spans) == 1 else lines.numbered(n) for n in tail)
        shown.update(tail)
    if plan.head_last >= 1:
        out.append(f"[head: lines 1-{plan.head_last:,}]" if plan.head_last > 1 else "[head: line 1]")
        out.extend(lines.text[n] for n in range(1, plan.head_last + 1))
        shown.update(range(1, plan.head_last + 1))
    shown_r = ranges(shown)
    rest = rest_of(lines.lf, ref, shown_r, explicit_budget)
    omitted, cont = rest.omitted, rest.cont
    if cont:
        a, b = omitted[0][0], omitted[-1][1]
        search = f" · search: {call_text(continuation('read_saved', ref=ref, pattern=GREP_HINT))}" if hint else ""
        out.append(
            f"[not shown: {plural(rest.lines, 'line')} ({human_size(rest.size)}) in lines {a:,}-{b:,}; "
            f"next: {call_text(cont)}{search}]"
        )
    if scan.capped_at:
        out.append(
            f"[evidence was searched up to line {scan.capped_at:,} only (too many candidate lines); search on: "
            f"{call_text(continuation('read_saved', ref=ref, start_line=scan.capped_at + 1, pattern=GREP_HINT))}]"
        )
    if not scan.whole:
        parts = " and ".join(f"{x:,}-{y:,}" for x, y in scan.searched)
        search = call_text(continuation("read_saved", ref=ref, pattern=GREP_HINT))
        out.append(f"[evidence was searched in lines {parts} only; search the rest with {search}]")
    return "\n".join(out), shown_r, omitted, cont
