"""The views of a conversation: the first view, older turns (``before_turn``), and turns matching a pattern.

First view, top to bottom: a header (format, turns, time span, models, size), the task
anchor (the first real request, then every later human instruction in one line each),
a one-line-per-turn index of the omitted middle (the oldest part summarised in one line
when even the index does not fit), and the most recent turns in full as far as the
budget allows. The latest turns get the most detail; older ones are shortened before they
are dropped. A ``before_turn=N`` view shows the turns just before N in full, and its
continuation goes further back, so following the chain shows every turn exactly once.
A ``pattern`` view lists the matching lines of each matching turn, newest turns first
in the chain, each view in transcript order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.budget import HARD_CAP_BYTES, count_tokens, fit_prefix
from ..core.errors import InvalidArgument
from ..core.pattern import Pattern, compile_pattern
from ..core.result import Continuation, ToolResult, call_text, continuation
from ..core.text import human_size, plural, ranges, thousands
from .lazy import LazyTurns
from .model import Conversation, Turn
from .outline import BYTE_ROOM, SomeInfos, anchor_lines, index_lines, instruction_lines
from .render import COMPACT, LEVELS, NORMAL, TINY, Level, TurnRenderer, hit_lines, turn_label
from .turninfo import human_numbers, infos_of, time_span

__all__ = ["Frame", "first_view", "instructions_view", "older_view", "pattern_view"]

MAX_HITS = 6


@dataclass
class Frame:
    """What every view of one call needs: the call's arguments and the source's facts."""

    path: str
    budget: int
    explicit_budget: int | None
    revision: str
    size: int
    fmt: str | None = None
    pattern: str | None = None
    notes: list[str] = field(default_factory=list)
    changed_from: str | None = None
    instructions: bool = False

    def cont(self, before_turn: int, instructions: bool | None = None) -> Continuation:
        """The call that reads the turns before ``before_turn`` (the human instructions only, if asked)."""
        return continuation(
            "read_conversation",
            path=self.path,
            before_turn=before_turn,
            revision=self.revision,
            budget=self.explicit_budget,
            pattern=self.pattern,
            format=self.fmt,
            instructions=True if (self.instructions if instructions is None else instructions) else None,
        )

    def listing(self, before_turn: int) -> str:
        """The call that lists every human instruction before ``before_turn``, one line each."""
        return call_text(self.cont(before_turn, instructions=True))


@dataclass
class Picked:
    """Turns chosen for a view, in transcript order, with their rendering and cost."""

    turns: list[Turn]
    texts: list[str]
    tokens: int
    nbytes: int


def _pick(
    turns: Sequence[Turn], hi: int, cap: int, byte_cap: int, r: TurnRenderer, levels: Sequence[Level] = LEVELS
) -> Picked:
    """Turns ``hi, hi-1, ...`` (numbers), each at the most detailed level that still fits; at least one."""
    chosen: list[tuple[Turn, str]] = []
    used = used_b = 0
    n = hi
    while n >= 1:
        turn = turns[n - 1]
        placed = False
        for level in levels if n != hi else LEVELS:
            text, tok = r.rendered(turn, level)
            tok += 1
            nbytes = len(text.encode("utf-8", "replace")) + 1
            if used_b + nbytes > byte_cap:
                continue
            if used + tok <= cap:
                chosen.append((turn, text))
                used += tok
                used_b += nbytes
                placed = True
                break
        if not placed:
            if not chosen:
                text = _forced(turn, r, cap, byte_cap)
                chosen.append((turn, text))
                used += count_tokens(text) + 1
                used_b += len(text.encode("utf-8", "replace")) + 1
            break
        n -= 1
    chosen.reverse()
    return Picked([t for t, _ in chosen], [x for _, x in chosen], used, used_b)


def _forced(turn: Turn, r: TurnRenderer, cap: int, byte_cap: int) -> str:
    """A turn too large for the whole budget even at the smallest level, cut at a character."""
    text = r.render(turn, TINY)
    note = f"\n  … (cut to fit the budget; {r.whole(turn)})"
    keep = fit_prefix(text, max(1, cap - count_tokens(note) - 2), max(1, byte_cap - len(note.encode())))
    return text[:keep] + note


def _footer_reserve(frame: Frame, before: int) -> int:
    """Tokens the closing line (with its continuation call) will take."""
    return count_tokens(f"[older turns 1–{before} in full: {call_text(frame.cont(before))}]") + 2


def _header(conv: Conversation, frame: Frame, tail: str | None = None) -> str:
    parts = [f"conversation: {conv.format}", plural(len(conv.turns), "turn")]
    stamps = time_span(infos_of(conv))
    if stamps:
        first, last = stamps
        parts.append(f"{first} → {last[11:] if last[:10] == first[:10] else last} UTC" if last != first else first)
    if conv.models:
        parts.append(", ".join(conv.models[:3]) + (f" +{len(conv.models) - 3} more" if len(conv.models) > 3 else ""))
    approx = int(round(frame.size / 4, -3)) if frame.size > 4000 else frame.size // 4
    parts.append(f"{human_size(frame.size)} (≈{thousands(approx)} tokens)")
    facts = conv.facts
    if facts.get("sub_agent"):
        parts.append(f"sub-agent {facts['sub_agent']}")
    if isinstance(facts.get("context_window"), int):
        parts.append(f"context window {thousands(facts['context_window'])}")
    if conv.malformed:
        where = ", ".join(str(n) for n in conv.malformed_lines[:5]) + (", …" if conv.malformed > 5 else "")
        parts.append(f"{plural(conv.malformed, 'unreadable line')} skipped ({where})")
    if conv.unread:
        kinds = ", ".join(f"{k} ×{n}" for k, n in list(conv.unread_kinds.items())[:4])
        more = ", …" if len(conv.unread_kinds) > 4 else ""
        unit = "line" if conv.unread_lines else "item"  # a JSON document's items have no line numbers
        parts.append(f"{plural(conv.unread, unit)} of kinds this format does not hold left out: {kinds}{more}")
    if tail:
        parts.append(tail)
    return "[" + " · ".join(parts) + "]"


def _lead(conv: Conversation, frame: Frame, tail: str | None = None) -> list[str]:
    return [*frame.notes, _header(conv, frame, tail)]


def _result(
    lines: list[str],
    frame: Frame,
    conv: Conversation,
    shown: list[int],
    cont: Continuation | None,
    r: TurnRenderer | None = None,
    **meta: Any,
) -> ToolResult:
    text = "\n".join(lines)
    if r is not None:
        text = r.resolve(text)
    info: dict[str, Any] = {
        "total_turns": len(conv.turns),
        "shown_turns": ranges(shown),
        "anchor_turns": [],
        "format": conv.format,
        "malformed_lines": conv.malformed,
    }
    if conv.unread:
        info["unread_lines"] = conv.unread
        info["unread_kinds"] = dict(conv.unread_kinds)
    if frame.changed_from is not None:
        info["revision_changed"] = {"from": frame.changed_from, "to": frame.revision}
    info.update(meta)
    attachments = tuple(
        {**a, "turn": t.number}
        for t in (conv.turns[n - 1] for n in sorted(set(shown)))
        for a in [*t.attachments, *(x for c in t.calls if c.output for x in c.output.attachments)]
    )
    return ToolResult(
        text=text,
        complete=cont is None,
        continuation=cont,
        revision=frame.revision,
        attachments=attachments,
        meta=info,
    )


# -- the views ------------------------------------------------------------------------------------


def first_view(conv: Conversation, frame: Frame, r: TurnRenderer) -> ToolResult:
    """Header, task anchor, index of the omitted middle, most recent turns."""
    turns = conv.turns
    total = len(turns)
    lead = _lead(conv, frame)
    if not turns:
        return _result([*lead, "(no turns: the transcript holds no messages yet)"], frame, conv, [], None)
    lead_tok = count_tokens("\n".join(lead)) + 1
    room = frame.budget - lead_tok
    everything = _pick(turns, total, room, BYTE_ROOM, r, (NORMAL, COMPACT))
    if everything.turns[0].number == 1:
        anchors = human_numbers(infos_of(conv))
        return _result(
            [*lead, *everything.texts],
            frame,
            conv,
            [t.number for t in everything.turns],
            None,
            r,
            anchor_turns=anchors,
        )

    anchor, anchors = anchor_lines(conv, r, frame.budget, total + 1, frame.listing)
    recent_cap = max((room - count_tokens("\n".join(anchor)) - _footer_reserve(frame, total)) * 55 // 100, 40)
    width = len(str(total))
    for _ in range(3):
        recent = _pick(turns, total, recent_cap, BYTE_ROOM // 2, r)
        start = recent.turns[0].number
        cont = frame.cont(start) if start > 1 else None
        title = f"[latest turns {start}–{total} in full]" if start > 1 else "[all turns in full]"
        footer = [f"[older turns 1–{start - 1} in full: {call_text(cont)}]"] if cont is not None else []
        anchor, anchors = anchor_lines(conv, r, frame.budget, start, frame.listing)
        fixed = count_tokens("\n".join([*anchor, title, *footer])) + 3
        index, indexed = index_lines(infos_of(conv), start - 1, room - fixed - recent.tokens, width)
        spare = room - fixed - recent.tokens - (count_tokens("\n".join(index)) + 1 if index else 0)
        if start == 1 or spare < frame.budget // 10 or len(indexed) < start - 1:
            break
        recent_cap = recent.tokens + spare
    lines = [*lead, *anchor, *index, title, *recent.texts, *footer]
    return _fit_total(
        lines,
        frame,
        conv,
        [t.number for t in recent.turns],
        cont,
        r,
        anchor_turns=anchors,
        indexed_turns=ranges(indexed),
    )


def older_view(conv: Conversation, frame: Frame, r: TurnRenderer, before: int) -> ToolResult:
    """The turns just before ``before`` in full, as many as fit; the continuation goes further back."""
    total = len(conv.turns)
    if before < 1 or before > total + 1:
        raise InvalidArgument(
            f"before_turn must be between 1 and {total + 1} (the transcript has {plural(total, 'turn')}), not {before}"
        )
    lead = _lead(conv, frame, f"turns before {before}")
    if before == 1:
        return _result(
            [*lead, "[no turns before turn 1: this is the start of the conversation]"], frame, conv, [], None
        )
    room = frame.budget - count_tokens("\n".join(lead)) - _footer_reserve(frame, before)
    picked = _pick(conv.turns, before - 1, room, BYTE_ROOM, r)
    start = picked.turns[0].number
    cont = frame.cont(start) if start > 1 else None
    lines = [*lead, f"[turns {start}–{before - 1} in full]", *picked.texts]
    lines.append(f"[older turns 1–{start - 1}: {call_text(cont)}]" if cont else "[start of the conversation]")
    return _fit_total(lines, frame, conv, [t.number for t in picked.turns], cont, r)


def pattern_view(conv: Conversation, frame: Frame, pattern: str, before: int | None) -> ToolResult:
    """The lines of each turn that match ``pattern``, latest matching turns first along the chain."""
    rx = compile_pattern(pattern)
    total = len(conv.turns)
    hi = total if before is None else before - 1
    if before is not None and not 1 <= before <= total + 1:
        raise InvalidArgument(f"before_turn must be between 1 and {total + 1}, not {before}")
    lead = _lead(conv, frame, f"turns matching /{pattern}/" + (f" before {before}" if before else ""))
    room = frame.budget - count_tokens("\n".join(lead)) - _footer_reserve(frame, hi + 1) - 12
    blocks: list[str] = []
    shown: list[int] = []
    used = 0
    cont = None
    cands = conv.turns.candidates(pattern) if isinstance(conv.turns, LazyTurns) else None
    numbers = list(range(1, total + 1)) if cands is None else cands  # only these turns can match
    for n in reversed([m for m in numbers if m <= hi]):
        turn = conv.turns[n - 1]
        block = _hit_block(turn, rx)
        if block is None:
            continue
        tok = count_tokens(block) + 1
        if used + tok > room or sum(len(b) for b in blocks) + len(block) > BYTE_ROOM:
            nxt = n + 1
            if not blocks:
                keep = fit_prefix(block, room, BYTE_ROOM)
                blocks.append(block[:keep] + "…")
                shown.append(n)
                nxt = n
            if any(hit_lines(conv.turns[m - 1], rx, 0)[1] for m in reversed([m for m in numbers if m < nxt])):
                cont = frame.cont(nxt)
            break
        blocks.append(block)
        shown.append(n)
        used += tok
    blocks.reverse()
    if not shown:
        if hi == 0:
            empty = "(no turns before turn 1: this is the start of the conversation)"
        else:
            scope = f"turns 1–{hi}" if hi < total else f"all {plural(total, 'turn')}"
            empty = f"(no turn matches /{pattern}/ in {scope})"
        return _result([*lead, empty], frame, conv, [], None, matched_turns=[])
    lines = [*lead, *blocks]
    if cont is not None:
        lines.append(f"[more matches may be in turns 1–{cont['args']['before_turn'] - 1}: {call_text(cont)}]")
    else:
        lines.append("[no more matching turns]")
    return _fit_total(lines, frame, conv, shown, cont, matched_turns=sorted(shown))


def instructions_view(conv: Conversation, frame: Frame, before: int | None) -> ToolResult:
    """Every human instruction before ``before`` (all, if None) in one line each, the latest that fit."""
    total = len(conv.turns)
    hi = total + 1 if before is None else before
    if not 1 <= hi <= total + 1:
        raise InvalidArgument(f"before_turn must be between 1 and {total + 1}, not {before}")
    lead = _lead(conv, frame, "human instructions" + (f" before turn {before}" if before else ""))
    infos = infos_of(conv)
    later = SomeInfos(infos, [n for n in human_numbers(infos) if n < hi])
    if not later:
        return _result([*lead, "(no human instructions in these turns)"], frame, conv, [], None, instruction_turns=[])
    room = frame.budget - count_tokens("\n".join(lead)) - _footer_reserve(frame, hi)
    entries = instruction_lines(later, room, BYTE_ROOM) or instruction_lines(later[-1:], 1 << 30, 1 << 30)
    numbers = later.numbers[len(later) - len(entries) :]
    cont = frame.cont(numbers[0]) if len(numbers) < len(later) else None
    tail = f"[earlier instructions: {call_text(cont)}]" if cont else "[no earlier instructions]"
    return _fit_total([*lead, *entries, tail], frame, conv, numbers, cont, instruction_turns=ranges(numbers))


def _hit_block(turn: Turn, rx: Pattern) -> str | None:
    """A matching turn's header and its matching lines, or None when nothing in it matches."""
    lines, total = hit_lines(turn, rx, MAX_HITS)
    if not total:
        return None
    stamp = f" · {turn.timestamp}" if turn.timestamp else ""
    out = [f"── turn {turn.number} · {turn_label(turn)}{stamp}", *lines]
    if total > MAX_HITS:
        out.append(f"  (+{plural(total - MAX_HITS, 'more matching line')})")
    return "\n".join(out)


def _fit_total(
    lines: list[str],
    frame: Frame,
    conv: Conversation,
    shown: list[int],
    cont: Continuation | None,
    r: TurnRenderer | None = None,
    **meta: Any,
) -> ToolResult:
    """Assemble the view; should joining pieces have merged tokens past the allowance, cut the body."""
    limit = frame.budget + 100
    if r is not None:
        lines = r.resolve("\n".join(lines)).split("\n")
    text = "\n".join(lines)
    if count_tokens(text) > limit or len(text.encode("utf-8", "replace")) > HARD_CAP_BYTES:
        body, footer = "\n".join(lines[:-1]), lines[-1]
        keep = fit_prefix(body, limit - count_tokens(footer) - 4, HARD_CAP_BYTES - len(footer.encode()) - 8)
        lines = [body[:keep] + "…", footer]
    return _result(lines, frame, conv, shown, cont, None, **meta)
