"""``read_saved``: read a saved result (a command's log, an external tool's output) by lines or by pattern.

Recovery never re-executes: this reads the saved copy in the store and nothing else.

What is paged and searched is the text the first view showed: each line as a terminal showed
it (:func:`~wuu_tools.core.text.clean_terminal`: colours and other escape sequences removed,
carriage-return redraws collapsed to their last state). Only ``"\n"`` ends a line, so the
clean-up never moves a line number. The store keeps the raw bytes; ``raw=True`` pages and
searches them instead (escape sequences kept, a lone carriage return shown as ``␍``, as
``read_file`` shows one). Patterns follow ripgrep's smart case (:mod:`~wuu_tools.core.pattern`).
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..core.budget import HARD_CAP_BYTES, fit_count, fit_prefix, resolve_budget
from ..core.cancel import check_stop
from ..core.errors import InvalidArgument
from ..core.lines import CHUNK, LineFile, decode_line
from ..core.pattern import Pattern, compile_pattern, is_case_sensitive
from ..core.result import ToolResult, call_text, continuation
from ..core.store import current_store
from ..core.text import clean_terminal, mark_carriage_returns, plural, ranges
from ..views.ceiling import fit_ceiling
from ..views.gutter import fold_gutter, has_padded_gutter
from ..views.paging import Subject, check_range, paged
from ..views.seen import gutter_numbers, session_pass

__all__ = ["read_saved"]

CONTEXT = 2
MAX_FOUND = 5000  # line numbers listed; past them, matches are only counted
MAX_COUNTED = 100_000  # matches counted; past them the count says '100,000+' (a dense pattern costs ~1 s, not ~1 min)
WINDOW_MIN = 256 << 10  # the smallest window (and the first): a slow pattern is stopped within one
SEARCH_WINDOW = 4 << 20  # bytes RE2 searches at a time (whole lines; a longer line widens it)
_C1 = re.compile("[\x80-\x9f]")
MAX_MATCH_CHARS = 2000


def read_saved(
    ref: str,
    start_line: int = 1,
    end_line: int | None = None,
    pattern: str | None = None,
    budget: int | None = None,
    start_char: int = 0,
    raw: bool = False,
    fresh: bool = False,
) -> ToolResult:
    """Read a saved result by whole numbered lines, or the lines matching a regex.

    Saved results are never re-run: this reads the copy kept when the result was produced.

    Args:
        ref: Reference of the saved result, as given in a result's ``source`` or continuation.
        start_line: First line to show (1-based); with ``pattern``, where the search starts.
        end_line: Last line to show or search (inclusive); None reads to the end.
        pattern: A regular expression; when given, shows matching lines with two lines of context.
            Case-insensitive unless it holds an upper-case letter; ``(?i)`` forces it.
        budget: Token budget of the view; defaults to WUU_BUDGET or 2,000.
        start_char: Character offset within ``start_line`` (for a line longer than the budget).
        raw: Page and search the saved bytes as they are (terminal escapes kept) instead of the
            text as a terminal showed it.
        fresh: Show every line again, even those an earlier view of this session showed (they
            are otherwise named, not repeated).

    Returns:
        The view as a ToolResult; ``meta`` has total_lines, shown, omitted and partial_line.
    """
    check_range(start_line, end_line, start_char)
    if not isinstance(raw, bool):
        raise InvalidArgument(f"raw must be true or false, not {raw!r}")
    if not isinstance(fresh, bool):
        raise InvalidArgument(f"fresh must be true or false, not {fresh!r}")
    resolved = resolve_budget(budget)
    result = _read(ref, start_line, end_line, pattern, budget, resolved, start_char, raw)
    again = continuation(
        "read_saved",
        ref=ref,
        start_line=start_line,
        end_line=end_line,
        pattern=pattern,
        budget=budget,
        start_char=start_char,
        raw=raw,
        fresh=True,
    )
    return session_pass(
        result,
        tool="read_saved",
        source=f"saved:{ref}",
        numbers=gutter_numbers,
        again=again,
        budget=resolved,
        fresh=fresh,
    )


def _read(
    ref: str,
    start_line: int,
    end_line: int | None,
    pattern: str | None,
    budget: int | None,
    resolved: int,
    start_char: int,
    raw: bool,
) -> ToolResult:
    store = current_store()
    path = store.path(ref)
    with LineFile.open(path, what=ref) as lf:
        if pattern is not None:
            if start_char:
                raise InvalidArgument("start_char cannot be combined with pattern")
            hits = _Hits.find(lf, pattern, start_line, end_line, raw)  # once: the budget only cuts
            return fit_ceiling(lambda n: _grep(lf, ref, hits, n, budget), resolved)
        if start_line == 1 and end_line is None and not start_char and not raw and ref.startswith("log-"):
            shaped = _shaped(ref, resolved, budget)
            if shaped is not None:
                return shaped
        key: dict[str, Any] = {"ref": ref, "raw": True} if raw else {"ref": ref}
        subject = Subject(
            tool="read_saved",
            key=key,
            label=f"saved {ref}" + (" (raw)" if raw else ""),
            source=ref,
            takes_revision=False,
            terminal=not raw,
            gutter=not raw and has_padded_gutter(lf),
        )
        return paged(
            lf,
            subject,
            start_line=start_line,
            end_line=end_line,
            start_char=start_char,
            revision=None,
            budget=resolved,
            explicit_budget=budget,
        )


def _clean_block(text: str) -> str:
    """Each line of ``text`` as :func:`clean_terminal` shows it; the count of lines is kept."""
    if "\x1b" not in text and "\r" not in text and not _C1.search(text):
        return text
    return "\n".join(clean_terminal(line) for line in text.split("\n"))


def _shaped(ref: str, budget: int, explicit: int | None) -> ToolResult | None:
    """The first view of a command's saved output in its shape (search results, diff, data, table), if it has one."""
    from ..logs.output import project_output

    facts = current_store().meta(ref)
    code = facts.get("exit_code")
    failed = bool(facts.get("timed_out") or facts.get("signal"))
    return project_output(
        ref,
        budget=budget,
        explicit_budget=explicit,
        exit_code=code if isinstance(code, int) else None,
        failed=failed,
        saved=True,
    )


def _matching_lines(lf: LineFile, rx: Pattern, first: int, last: int, raw: bool) -> tuple[list[int], int, int | None]:
    """Line numbers in ``first..last`` that match (the first few thousand), how many match, and where counting stopped.

    RE2 searches the saved bytes in place, a window of whole lines at a time read into one
    reused buffer (a window with terminal escapes, carriage returns or C1 controls is cleaned
    first, unless ``raw``), so only the lines that match are looked at in Python. A match's
    line number comes from the line index (newlines before each 64 KiB chunk) and a count
    within its chunk, so a window without matches costs the engine's pass alone. Past
    :data:`MAX_COUNTED` matches the count stops (the third value is the last line counted,
    else None). A call that is stopped (a cancelled MCP call, a closing server) ends between
    two windows; a window is sized so that it takes 0.05-0.25 s (from 256 KiB to 4 MiB), so a
    pattern that makes RE2 slow (its DFA out of memory, the NFA at a few MB/s) still stops soon.
    """
    found: list[int] = []
    count = 0
    marks = lf.index.marks
    pos, end = lf.offset(first), lf.offset(last + 1)
    want = WINDOW_MIN
    buf = bytearray(SEARCH_WINDOW)
    while pos < end:
        check_stop()
        base = pos - pos % CHUNK  # windows start on a chunk, so the index numbers their lines
        n = lf.read_into(buf, base, min(end - base, want))
        lo = pos - base
        if n <= lo:
            break
        cut = buf.rfind(b"\n", lo, n) + 1
        if cut == 0:
            if base + n < end and n >= want:  # a line longer than the window: widen it
                want *= 2
                if want > len(buf):
                    buf.extend(bytes(want - len(buf)))
                continue
            cut = n
        if not raw and any(buf.find(c, lo, cut) >= 0 for c in (b"\x1b", b"\r", b"\xc2")):
            hay = _clean_block(buf[lo:cut].decode("utf-8", "replace")).encode("utf-8", "replace")
            line = marks[base // CHUNK] + buf.count(b"\n", 0, lo) + 1  # the line at ``pos``
            hits = _numbered(rx.line_starts(hay), hay, functools.partial(_fixed, line))
        else:
            hits = _numbered(rx.line_starts(buf, lo, cut), buf, functools.partial(_chunk_start, marks, base))
        started = time.monotonic()
        for number in hits:
            count += 1
            if len(found) < MAX_FOUND:
                found.append(number)
            elif count >= MAX_COUNTED:
                return found, count, number
        took = time.monotonic() - started
        want = min(want * 2, SEARCH_WINDOW) if took < 0.05 else max(want // 2, WINDOW_MIN) if took > 0.25 else want
        pos = base + cut
    return found, count, None


def _fixed(line: int, start: int) -> tuple[int, int]:
    """The anchor of a cleaned window: its first line starts at 0."""
    return 0, line


def _chunk_start(marks: Any, base: int, start: int) -> tuple[int, int]:
    """Where the chunk holding ``start`` begins in a window read from file offset ``base``, and its first line."""
    k = (base + start) // CHUNK
    return k * CHUNK - base, marks[k] + 1


def _numbered(starts: Iterator[int], hay: bytes | bytearray, anchor: Callable[[int], tuple[int, int]]) -> Iterator[int]:
    """The line number of each line start in ``starts``: counted from the previous one, or from ``anchor(start)``
    (an offset before it whose line is known) when that is nearer."""
    cursor, cursor_line = -1, 0
    for start in starts:
        at, line = anchor(start)
        if cursor < at:
            cursor, cursor_line = at, line
        cursor_line += hay.count(b"\n", cursor, start)
        cursor = start
        yield cursor_line


@dataclass(frozen=True)
class _Hits:
    """The lines of a saved output that match a pattern, rendered grep-style (whatever the budget)."""

    pattern: str
    start_line: int
    end_line: int | None
    last: int
    raw: bool
    found: list[int]
    count: int
    counted_to: int | None  # the line where counting stopped (past MAX_COUNTED matches), else None
    items: list[str]
    numbers: list[int | None]

    @classmethod
    def find(cls, lf: LineFile, pattern: str, start_line: int, end_line: int | None, raw: bool) -> _Hits:
        rx = compile_pattern(pattern, multiline=True)
        total = lf.total_lines
        last = min(end_line, total) if end_line is not None else total
        empty = total == 0 or start_line > last
        found, count, counted_to = ([], 0, None) if empty else _matching_lines(lf, rx, start_line, last, raw)
        gutter = not raw and has_padded_gutter(lf)
        items, numbers = _render_matches(lf, found, start_line, last, terminal=not raw, gutter=gutter)
        return cls(pattern, start_line, end_line, last, raw, found, count, counted_to, items, numbers)


def _grep(lf: LineFile, ref: str, hits: _Hits, budget: int, explicit: int | None) -> ToolResult:
    pattern, start_line, end_line, last, raw = hits.pattern, hits.start_line, hits.end_line, hits.last, hits.raw
    found, count, items, numbers = hits.found, hits.count, hits.items, hits.numbers
    total = lf.total_lines
    match_set = set(found)
    k = fit_count(items, budget, HARD_CAP_BYTES - 2000)
    shown_matches = [n for n in numbers[:k] if n in match_set]
    if shown_matches:
        # Keep the last shown match and its trailing context; drop the next match's leading context.
        end = numbers.index(shown_matches[-1]) + 1
        while end < k and (n := numbers[end]) is not None and n not in match_set and n - shown_matches[-1] <= CONTEXT:
            end += 1
        body, shown_lines = items[:end], [n for n in numbers[:end] if n is not None]
    elif items:
        # Not even one match line fits: show the first one alone, cut to the budget, so the view advances.
        first = numbers.index(found[0])
        cut = fit_prefix(items[first], max(1, budget - 10), HARD_CAP_BYTES - 2000)
        body = [items[first][:cut] + (" …" if cut < len(items[first]) else "")]
        shown_matches = shown_lines = [found[0]]
    else:
        body, shown_lines = [], []
    cont = None
    if count > len(shown_matches):
        cont = continuation(
            "read_saved",
            ref=ref,
            start_line=shown_matches[-1] + 1,
            end_line=end_line,
            pattern=pattern,
            budget=explicit,
            raw=True if raw else None,
        )
    where = f"lines {start_line:,}-{last:,}" if (start_line > 1 or last < total) else plural(total, "line")
    flags = "" if is_case_sensitive(pattern) else "i"
    matching = plural(count, "matching line")
    if hits.counted_to is not None:  # counting stopped there: say "at least"
        matching = f"{count:,}+ matching lines (counted to line {hits.counted_to:,})"
    header = f"[saved {ref}{' (raw)' if raw else ''} · /{pattern}/{flags} · {matching} in {where}"
    header += f" · showing {len(shown_matches):,}]" if count else "]"
    parts = [header, *body]
    if cont is not None:
        rest = count - len(shown_matches)
        more = plural(rest, "more match", "more matches") if hits.counted_to is None else f"{rest:,}+ more matches"
        parts.append(f"[{more}; next: {call_text(cont)}]")
    meta: dict[str, Any] = {
        "total_lines": total,
        "pattern": pattern,
        "matches": count,
        **({"matches_counted_to": hits.counted_to} if hits.counted_to is not None else {}),
        "shown": ranges(shown_lines),
        "omitted": [[cont["args"]["start_line"], last]] if cont else [],
    }
    return ToolResult(
        text="\n".join(parts),
        complete=cont is None,
        continuation=cont,
        source=ref,
        revision=lf.revision,
        meta=meta,
    )


def _render_matches(
    lf: LineFile, found: list[int], start_line: int, last: int, terminal: bool, gutter: bool = False
) -> tuple[list[str], list[int | None]]:
    """One item per line (grep -n style: ``N:`` a match, ``N-`` context) and its number; ``--`` between runs.

    ``gutter``: the output is a numbered listing, each line's padded number folded into ``N:``
    (:func:`~wuu_tools.views.gutter.fold_gutter`).
    """
    width = len(str(max(last, 1)))
    match_set = set(found)
    items: list[str] = []
    numbers: list[int | None] = []
    prev: int | None = None
    size = 0  # characters rendered (at most the bytes): past the hard cap, no view shows more
    for m in found:
        lo, hi = max(start_line, m - CONTEXT), min(last, m + CONTEXT)
        if prev is not None:
            lo = max(lo, prev + 1)
            if lo > prev + 1:
                items.append("--")
                numbers.append(None)
        if lo > hi:
            continue
        raws, _giant = lf.read_forward(lo, hi, HARD_CAP_BYTES)
        for n, raw in zip(range(lo, hi + 1), raws, strict=False):
            text, _bad = decode_line(raw)
            text = clean_terminal(text) if terminal else mark_carriage_returns(text)
            if gutter:
                text = fold_gutter(n, text)
            if len(text) > MAX_MATCH_CHARS:
                text = text[:MAX_MATCH_CHARS] + f" … [{len(text) - MAX_MATCH_CHARS:,} more characters]"
            items.append(f"{n:>{width}}{':' if n in match_set else '-'}\t{text}")
            numbers.append(n)
            size += len(text) + width + 2
        prev = hi
        if len(items) > 4000 or size > HARD_CAP_BYTES:  # more than any view shows; the continuation resumes after
            break
    return items, numbers
