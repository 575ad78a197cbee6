r"""Lines a session already showed, named instead of repeated: the session's pass over a finished view.

A view is made as it would be without a session; then :func:`name_seen` walks its lines. A line
of the source (the tool says which lines are, and their numbers: :class:`Shown`) whose key
(:func:`~wuu_tools.core.session.line_key`) an earlier view of the session displayed is *seen*; a
short line (no key) is neutral. A stretch of consecutive source lines that are all seen or
neutral, once :data:`CONTEXT` lines beside a new line are kept as context, becomes one line,
``[lines 12-40 as shown in call 7]``, when it holds at least :data:`MIN_RUN` lines and costs
more than the line that names it. The view then ends with the call that shows everything again
(the same call with ``fresh=True``).

A line is only ever named by a view that displayed it: what a view names, that view shows.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.budget import count_tokens, within
from ..core.result import Continuation, ToolResult, call_text
from ..core.session import Session, content_keys, current_session, line_key, location

__all__ = [
    "CONTEXT",
    "EDIT_CONTEXT",
    "MIN_RUN",
    "Named",
    "Shown",
    "gutter_numbers",
    "name_seen",
    "numbers_by_key",
    "session_pass",
]

MIN_RUN = 3
"""A stretch of fewer lines than this is shown again, unless naming it saves :data:`MIN_SAVING` tokens."""
MIN_SAVING = 10
"""Tokens a stretch of one or two lines must save (its lines against the line naming them) to be named."""
CONTEXT = 0
"""Lines kept beside a new line of a command's output (a file's view keeps :data:`EDIT_CONTEXT`)."""
EDIT_CONTEXT = 1
"""Lines kept beside a changed line of a file: what an edit needs around it."""
_GUTTER = re.compile(r"^ *(\d+)[:-]?\t")


@dataclass
class Shown:
    """The lines of a finished view; ``numbers[i]`` is line i's number in its source, None for a notice."""

    lines: list[str]
    numbers: list[int | None]


@dataclass
class Named:
    """A view after :func:`name_seen`: its lines, the calls it names and how many lines it did not repeat."""

    lines: list[str]
    calls: list[int] = field(default_factory=list)
    named_lines: int = 0
    keys: list[bytes] = field(default_factory=list)  # the keys of the source lines it displays


def gutter_numbers(lines: Sequence[str]) -> list[int | None]:
    """The numbers of lines shown with a gutter (``12\tdef f():``); None for the others (notices)."""
    out: list[int | None] = []
    for line in lines:
        m = _GUTTER.match(line)
        out.append(int(m.group(1)) if m else None)
    return out


def numbers_by_key(lines: Sequence[str], source: Callable[[], dict[bytes, list[int]]]) -> list[int | None]:
    """The source numbers of a view's lines shown as printed, found by their keys in ``source()``.

    A keyed line takes the first number of its key past the line before it; a short line between two
    numbered lines whose numbers leave exactly room for it takes that number. Lines matched nowhere
    (notices, a verdict) get None.
    """
    where = source()
    keys = [line_key(line) for line in lines]
    out: list[int | None] = [None] * len(lines)
    prev = 0
    for i, key in enumerate(keys):
        if key is None:
            continue
        found = where.get(key)
        if not found:
            continue
        after = next((n for n in found if n > prev), found[0])
        out[i] = after
        prev = after
    i = 0
    while i < len(lines):  # short lines between two numbered ones
        if out[i] is not None or keys[i] is not None:
            i += 1
            continue
        j = i
        while j < len(lines) and out[j] is None and keys[j] is None:
            j += 1
        before = out[i - 1] if i > 0 else None
        after = out[j] if j < len(lines) else None
        if before is not None and after is not None and after - before == j - i + 1:
            for k in range(i, j):
                out[k] = before + (k - i) + 1
        i = j
    return out


def name_seen(
    shown: Shown,
    session: Session,
    *,
    phrase: str = "as shown in",
    context: int = CONTEXT,
) -> Named:
    """Name the stretches of ``shown`` that ``session`` already displayed; see the module docstring."""
    lines, numbers = shown.lines, shown.numbers
    n = len(lines)
    keys = [line_key(line) if numbers[i] is not None else None for i, line in enumerate(lines)]
    hits = [content_keys(line) if numbers[i] is not None else () for i, line in enumerate(lines)]
    seen = [session.shown_in(k) for k in keys]
    located = [False] * n  # seen only as text: a search hit whose line a view showed without this location
    for i, keyed in enumerate(hits):
        for hit in keyed if seen[i] is None else ():
            if (call := session.shown_in(hit)) is not None:
                seen[i], located[i] = call, True
                break
    # state: 0 notice, 1 new, 2 seen, 3 neutral (a short source line)
    state = [
        0 if numbers[i] is None else (3 if keys[i] is None and not hits[i] else (2 if seen[i] is not None else 1))
        for i in range(n)
    ]
    out: list[str] = []
    named = Named(out)

    def show(a: int, b: int) -> None:
        out.extend(lines[a:b])
        named.keys.extend(k for k in keys[a:b] if k is not None)
        named.keys.extend(k for keyed in hits[a:b] for k in keyed)

    i = 0
    while i < n:
        if state[i] not in (2, 3):
            show(i, i + 1)
            i += 1
            continue
        j = i + 1
        while j < n and state[j] in (2, 3) and numbers[j] == (numbers[j - 1] or 0) + 1:
            j += 1
        lo, hi = i, j  # the stretch [i, j); context beside new lines stays shown
        if i > 0 and state[i - 1] == 1 and numbers[i] == (numbers[i - 1] or 0) + 1:
            lo = min(j, i + context)
        if j < n and state[j] == 1 and numbers[j] == (numbers[j - 1] or 0) + 1:
            hi = max(lo, j - context)
        calls = sorted({c for c in seen[lo:hi] if c is not None})
        where = _locations(lines[lo:hi]) if any(located[lo:hi]) else ""
        notice = _notice(numbers[lo], numbers[hi - 1], calls, phrase, where) if hi > lo else ""
        saving = count_tokens("\n".join(lines[lo:hi])) - count_tokens(notice) if hi > lo else 0
        worth = (
            sum(s == 2 for s in state[lo:hi]) >= min(2, hi - lo)
            and saving > 4
            and (hi - lo >= MIN_RUN or saving >= MIN_SAVING)
        )
        if not worth:
            show(i, j)
        else:
            show(i, lo)
            out.append(notice)
            show(hi, j)
            named.named_lines += hi - lo
            named.calls = sorted(set(named.calls) | set(calls))
        i = j
    return named


def _locations(lines: Sequence[str]) -> str:
    """The locations of the search hits among ``lines``, joined: ``a.py:12-14,40; b.py:7``."""
    groups: list[tuple[str, int, int]] = []
    for line in lines:
        hit = location(line)
        if hit is None:
            continue
        path, number, _ = hit
        if groups and groups[-1][0] == path and groups[-1][2] + 1 == number:
            groups[-1] = (path, groups[-1][1], number)
        else:
            groups.append((path, number, number))
    parts: list[str] = []
    last = None
    for path, a, b in groups:
        span = f"{a}" if a == b else f"{a}-{b}"
        if path == last:
            parts[-1] += f",{span}"
        else:
            parts.append(f"{path}:{span}" if path else span)
        last = path
    return "; ".join(parts)


def _notice(first: int | None, last: int | None, calls: list[int], phrase: str, hits: str = "") -> str:
    where = "call" if len(calls) == 1 else "calls"
    listed = ", ".join(str(c) for c in calls[-3:])
    if len(calls) > 3:
        listed = f"{calls[0]}-{calls[-1]}"
    span = f"line {first:,}" if first == last else f"lines {first:,}-{last:,}"
    if hits:  # search hits whose text a view showed: where they are is new
        return f"[{span} {phrase} {where} {listed}, here at {hits}]"
    return f"[{span} {phrase} {where} {listed}]"


def session_pass(
    result: ToolResult,
    *,
    tool: str,
    source: str,
    numbers: Callable[[list[str]], list[int | None]],
    again: Continuation,
    budget: int,
    phrase: str = "as shown in",
    fresh: bool = False,
    ref: str | None = None,
    context: int = CONTEXT,
    track_revision: bool = False,
) -> ToolResult:
    """``result`` with the lines the current session already showed named (unless ``fresh``); the view recorded.

    Without a session, or for an error, ``result`` comes back as it is. ``again`` is the call that
    shows the whole view again (``fresh=True``); it ends a view that named something. With
    ``track_revision`` (a file), a source whose revision changed since the session's last view of it
    is said to have changed, on the first line.
    """
    session = current_session()
    if session is None or result.is_error:
        return result
    lines = result.text.split("\n")
    nums = numbers(lines)
    before = session.latest(source)
    named = name_seen(Shown(lines, nums), Session() if fresh else session, phrase=phrase, context=context)
    text = result.text
    complete, cont = result.complete, result.continuation
    note = None
    if track_revision and not fresh and before is not None and before.revision and before.revision != result.revision:
        note = f"[changed since call {before.call}: revision {result.revision} now, {before.revision} then]"
        named.lines.insert(0, note)
    if named.named_lines:
        footer = f"[all again: {call_text(again)}]"  # (the notices say what is named, and where)
        candidate = "\n".join([*named.lines, footer])
        if within(candidate, budget) and count_tokens(candidate) < result.tokens + (count_tokens(note) if note else 0):
            text = candidate
            if complete:
                complete, cont = False, again
        else:  # naming does not pay (or does not fit): the view as it is
            named = name_seen(Shown(lines, nums), Session(), phrase=phrase)
    if note is not None and not named.named_lines and within(f"{note}\n{text}", budget):
        text = f"{note}\n{text}"
    call = session.record(tool, source, revision=result.revision, ref=ref, keys=named.keys)
    facts: dict[str, Any] = {"call": call, "named_lines": named.named_lines, "named_calls": named.calls}
    if before is not None:
        facts["previous_call"] = before.call
    return dataclasses.replace(
        result, text=text, complete=complete, continuation=cont, meta={**result.meta, "session": facts}
    )
