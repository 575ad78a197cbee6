"""The parts of a first view that stand for turns not shown in full: the task anchor and the index.

The *anchor* quotes the first real request (up to about a third of the budget, in whole
lines; a template's instructions after the task block are left for the saved copy) and
lists every later human instruction in one line each, the latest first when they do not
all fit. The *index* gives each omitted turn one line (number, role, tool calls with their
key argument, ``✗`` for a failed call), newest first; shorter lines are used when the full
ones do not fit, and the oldest turns are summarised in one line when even those do not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import overload

from ..core.budget import HARD_CAP_BYTES, count_tokens, fit_count, fit_prefix
from ..core.text import plural, ranges
from .model import Conversation, Turn
from .render import TurnRenderer, index_line
from .turninfo import TurnInfo, counts, human_numbers, infos_of

__all__ = ["BYTE_ROOM", "SomeInfos", "anchor_lines", "index_lines", "instruction_lines", "one_line"]

BYTE_ROOM = HARD_CAP_BYTES - 4096
"""Bytes a view's body may use: the hard cap less room for its header and closing line."""


def _first_request(conv: Conversation) -> tuple[Turn | None, str]:
    """The turn the task comes from, and how to label it when it is not a human request."""
    infos = infos_of(conv)
    humans = human_numbers(infos)
    if humans:
        label = "request from the parent agent" if conv.facts.get("sub_agent") else "first request"
        return conv.turns[humans[0] - 1], label
    for kind, label in (("sub-agent", "sub-agent prompt"), ("compaction", "compaction summary")):
        for info in infos:
            if info.role == "user" and info.kind == kind and info.text:
                return conv.turns[info.number - 1], f"no human request in this transcript; {label}"
    for info in infos:
        if info.role == "assistant" and info.text:
            return conv.turns[info.number - 1], "no request in this transcript; the agent's first message"
    return None, ""


def anchor_lines(
    conv: Conversation, r: TurnRenderer, budget: int, before: int, listing: Callable[[int], str] | None = None
) -> tuple[list[str], list[int]]:
    """The anchor lines (first request, then later instructions before turn ``before``) and their turns.

    Instructions that do not fit are named by their turn numbers, or when those take more than
    :data:`LISTED_RANGES` ranges, counted, with ``listing(before)``: the call that lists them all.
    """
    first, label = _first_request(conv)
    if first is None:
        return [], []
    stamp = f" · {first.timestamp}" if first.timestamp else ""
    lines = [f"[task · turn {first.number} · {label}{stamp}]"]
    body = first.text.strip().split("\n")
    rest = _task_end(body)
    cap = max(40, budget * 35 // 100)
    keep = fit_count(body[:rest], cap, BYTE_ROOM // 3)
    if keep == 0:
        cut = fit_prefix(body[0], cap, BYTE_ROOM // 3)
        lines.append(body[0][:cut] + "…")
        keep = 1
    else:
        lines.extend(body[:keep])
    if keep < len(body):
        what = "instructions" if keep == rest else "request"
        lines.append(f"… (the {what} continue: {plural(len(body) - keep, 'more line')}; {r.whole(first)})")
    anchors = [first.number]
    infos = infos_of(conv)
    later = [n for n in human_numbers(infos) if first.number < n < before]
    if later:
        entries = instruction_lines(SomeInfos(infos, later), max(30, budget * 12 // 100), BYTE_ROOM // 6)
        shown = later[len(later) - len(entries) :] if entries else []
        lines.append("[later instructions from the user]")
        if len(shown) < len(later):
            skipped = later[: len(later) - len(shown)]
            lines.append(_skipped_text(skipped, listing, shown[0] if shown else before))
        lines.extend(entries)
        anchors.extend(shown)
    return lines, anchors


class SomeInfos(Sequence[TurnInfo]):
    """The infos of turns ``numbers``, each read when asked for (a long session's instructions are many)."""

    def __init__(self, infos: Sequence[TurnInfo], numbers: list[int]) -> None:
        self.infos = infos
        self.numbers = numbers

    def __len__(self) -> int:
        return len(self.numbers)

    @overload
    def __getitem__(self, i: int) -> TurnInfo: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[TurnInfo]: ...
    def __getitem__(self, i: int | slice) -> TurnInfo | Sequence[TurnInfo]:
        if isinstance(i, slice):
            return SomeInfos(self.infos, self.numbers[i])
        return self.infos[self.numbers[i] - 1]


LISTED_RANGES = 8
"""A list of turns longer than this many ranges is shown as a count and its first and last turn."""


def _skipped_text(skipped: list[int], listing: Callable[[int], str] | None, upto: int) -> str:
    spans = ranges(skipped)
    if len(spans) <= LISTED_RANGES or listing is None:
        return f"(+{len(skipped)} earlier: turns {_ranges_text(skipped)})"
    return f"(+{len(skipped)} earlier, turns {skipped[0]}–{skipped[-1]}; all of them: {listing(upto)})"


def instruction_lines(later: Sequence[TurnInfo], cap: int, byte_cap: int) -> list[str]:
    """One line per human instruction, the latest that fit ``cap`` tokens and ``byte_cap`` bytes, in order."""
    out: list[str] = []
    used = used_b = 0
    for t in reversed(later):
        line = f"turn {t.number}: " + one_line(t.text, 200)
        used += count_tokens(line) + 1
        used_b += len(line.encode("utf-8", "replace")) + 1
        if used > cap or used_b > byte_cap:
            break
        out.append(line)
    return out[::-1]


_TASK_END = re.compile(r"^\s*</(pr_description|issue|issue_description|task|problem_statement)>\s*$")
_GRADING = re.compile(r"^Rubric \(how the outcome is graded\):\s*$")


def _task_end(lines: list[str]) -> int:
    """Lines up to the end of the task: a template's ``</pr_description>``, or an outcome's grading rubric."""
    for n, line in enumerate(lines[:400]):
        if _TASK_END.match(line):
            return n + 1
        if n and _GRADING.match(line):
            return len("\n".join(lines[:n]).rstrip("\n").split("\n"))
    return len(lines)


def one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


def _ranges_text(numbers: list[int]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in ranges(numbers))


def index_lines(infos: Sequence[TurnInfo], upto: int, cap: int, width: int) -> tuple[list[str], list[int]]:
    """Index lines for turns ``1 .. upto``, newest kept first; the oldest summarised in one line if needed.

    When the full lines do not all fit, shorter ones (calls only, no quoted text) are tried first.
    Lines are made newest first and only as far as they fit, so a long transcript costs what its index shows.
    """
    if upto < 1 or cap < 20:
        return [], []
    title = f"[turns 1–{upto} in short: one line each (✗ = failed tool call)]"
    room = cap - count_tokens(title) - 1
    for short in (False, True):
        fitted = _fit_newest(infos, upto, width, short, room)
        if len(fitted) == upto:
            return [title, *fitted[::-1]], list(range(1, upto + 1))
    summary = _summary(infos, upto, width)  # the longest it can be: every tool name counted
    if count_tokens(summary) + 1 > room:
        return [], []
    fitted = _fit_newest(infos, upto, width, True, room - count_tokens(summary) - 1)
    keep = len(fitted)
    return [title, _summary(infos, upto - keep, width), *fitted[::-1]], list(range(upto - keep + 1, upto + 1))


def _fit_newest(infos: Sequence[TurnInfo], upto: int, width: int, short: bool, cap: int) -> list[str]:
    """The index lines of turns ``upto, upto-1, …`` that fit ``cap`` tokens (and a third of the bytes)."""
    out: list[str] = []
    used = used_b = 0
    for n in range(upto - 1, -1, -1):
        line = index_line(infos[n], width, short)
        used += count_tokens(line) + 1
        used_b += len(line.encode("utf-8", "replace")) + 1
        if used > cap or used_b > BYTE_ROOM // 3:
            break
        out.append(line)
    return out


def _summary(infos: Sequence[TurnInfo], hi: int, width: int) -> str:
    """One line for turns ``1 .. hi``: how many of each role, the most called tools, the failed calls."""
    roles, tools, failed = counts(infos, hi)
    first, last = 1, hi
    parts = [", ".join(plural(n, role) for role, n in sorted(roles.items()))]
    if tools:
        top = ", ".join(f"{name} ×{n}" for name, n in tools.most_common(5))
        parts.append(f"tool calls: {top}" + (" …" if len(tools) > 5 else ""))
    if failed:
        parts.append(f"{failed} failed")
    span = f"{first}–{last}" if first != last else f"{first}"
    return f"{span:>{width}} (not indexed here: {'; '.join(parts)})"
