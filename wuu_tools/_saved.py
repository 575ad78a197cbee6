"""``read_saved``: read a saved result (a command's log, an external tool's output) by lines or by pattern.

Recovery never re-executes: this reads the saved copy in the store and nothing else.
"""

from __future__ import annotations

import re
from typing import Any

from ._budget import HARD_CAP_BYTES, fit_count, fit_prefix, resolve_budget
from ._errors import InvalidArgument
from ._lines import LineFile, decode_line
from ._paging import Subject, check_range, render_view
from ._result import ToolResult, call_text, continuation
from ._store import current_store
from ._text import plural, ranges

__all__ = ["read_saved"]

CONTEXT = 2
MAX_MATCH_CHARS = 2000
SCAN_BLOCK = 4 * 1024 * 1024


def read_saved(
    ref: str,
    start_line: int = 1,
    end_line: int | None = None,
    pattern: str | None = None,
    budget: int | None = None,
    start_char: int = 0,
) -> ToolResult:
    """Read a saved result by whole numbered lines, or the lines matching a regex.

    Saved results are never re-run: this reads the copy kept when the result was produced.

    Args:
        ref: Reference of the saved result, as given in a result's ``source`` or continuation.
        start_line: First line to show (1-based); with ``pattern``, where the search starts.
        end_line: Last line to show or search (inclusive); None reads to the end.
        pattern: A regular expression; when given, shows matching lines with two lines of context.
        budget: Token budget of the view; defaults to WUU_BUDGET or 2,000.
        start_char: Character offset within ``start_line`` (for a line longer than the budget).

    Returns:
        The view as a ToolResult; ``meta`` has total_lines, shown, omitted and partial_line.
    """
    check_range(start_line, end_line, start_char)
    resolved = resolve_budget(budget)
    store = current_store()
    path = store.path(ref)
    with LineFile.open(path, what=ref) as lf:
        if pattern is not None:
            if start_char:
                raise InvalidArgument("start_char cannot be combined with pattern")
            return _grep(lf, ref, pattern, start_line, end_line, resolved, budget)
        return render_view(
            lf,
            Subject(
                tool="read_saved", key={"ref": ref}, label=f"saved {ref}", source=ref, takes_revision=False
            ),
            start_line=start_line,
            end_line=end_line,
            start_char=start_char,
            revision=None,
            budget=resolved,
            explicit_budget=budget,
        )


def _compile(pattern: str) -> re.Pattern[str]:
    if not isinstance(pattern, str) or not pattern:
        raise InvalidArgument("pattern must be a non-empty regular expression")
    try:
        return re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise InvalidArgument(f"pattern {pattern!r} is not a valid regular expression: {exc}") from None


def _matching_lines(lf: LineFile, rx: re.Pattern[str], first: int, last: int) -> tuple[list[int], int]:
    """Line numbers in ``first..last`` that match (the first few thousand) and the total count."""
    found: list[int] = []
    count = 0
    pos = lf.offset(first)
    end = lf.offset(last + 1)
    line = first
    carry = b""
    while pos < end or carry:
        block = lf._pread(pos, min(SCAN_BLOCK, end - pos)) if pos < end else b""
        pos += len(block)
        data = carry + block
        if pos < end:
            cut = data.rfind(b"\n")
            if cut < 0:
                carry = data
                continue
            data, carry = data[: cut + 1], data[cut + 1 :]
        else:
            carry = b""
        text = data.decode("utf-8", "replace")
        last_line_seen = -1
        cursor, cursor_line = 0, line
        for m in rx.finditer(text):
            at = cursor_line + text.count("\n", cursor, m.start())
            cursor, cursor_line = m.start(), at
            if at == last_line_seen or at > last:
                continue
            last_line_seen = at
            count += 1
            if len(found) < 5000:
                found.append(at)
        line += text.count("\n")
    return found, count


def _grep(
    lf: LineFile,
    ref: str,
    pattern: str,
    start_line: int,
    end_line: int | None,
    budget: int,
    explicit: int | None,
) -> ToolResult:
    rx = _compile(pattern)
    total = lf.total_lines
    last = min(end_line, total) if end_line is not None else total
    meta: dict[str, Any] = {"total_lines": total, "pattern": pattern}
    if total == 0 or start_line > last:
        found, count = [], 0
    else:
        found, count = _matching_lines(lf, rx, start_line, last)
    width = len(str(max(last, 1)))
    groups: list[tuple[list[int], str]] = []
    for m in found:
        lo, hi = max(start_line, m - CONTEXT), min(last, m + CONTEXT)
        if groups and lo <= groups[-1][0][-1] + 1:
            lo = groups[-1][0][-1] + 1
            matches, _ = groups.pop()
            lines = [*matches, *range(lo, hi + 1)]
        else:
            lines = list(range(lo, hi + 1))
        groups.append((lines, ""))
        if len(groups) > 400:
            break
    match_set = set(found)
    rendered: list[str] = []
    for lines, _ in groups:
        raws, _giant = lf.read_forward(lines[0], lines[-1], HARD_CAP_BYTES)
        out = []
        for n, raw in zip(lines, raws, strict=False):
            text, _bad = decode_line(raw)
            if len(text) > MAX_MATCH_CHARS:
                text = text[:MAX_MATCH_CHARS] + f" … [{len(text) - MAX_MATCH_CHARS:,} more characters]"
            out.append(f"{n:>{width}}{':' if n in match_set else '-'}\t{text}")
        rendered.append("\n".join(out))
    k = fit_count(rendered, budget, HARD_CAP_BYTES - 2000, sep="\n--\n")
    if k == 0 and groups:
        # Not even one group fits: show its first match alone, cut to the budget, so the view advances.
        m = next(n for n in groups[0][0] if n in match_set)
        line = rendered[0].split("\n")[groups[0][0].index(m)]
        cut = fit_prefix(line, max(1, budget - 10), HARD_CAP_BYTES - 2000)
        rendered[0] = line[:cut] + (" …" if cut < len(line) else "")
        groups[0] = ([m], "")
        k = 1
    shown_groups = [g for g, _ in groups[:k]]
    shown_matches = [n for g in shown_groups for n in g if n in match_set]
    cont = None
    if k < len(groups) or (len(found) < count and k == len(groups)):
        next_start = shown_matches[-1] + 1 if shown_matches else start_line
        cont = continuation(
            "read_saved", ref=ref, start_line=next_start, end_line=end_line, pattern=pattern, budget=explicit
        )
    where = (
        f"lines {start_line:,}-{last:,}" if (start_line > 1 or last < total) else f"{plural(total, 'line')}"
    )
    header = f"[saved {ref} · /{pattern}/ · {plural(count, 'matching line')} in {where}"
    header += f" · showing {len(shown_matches):,}]" if count else "]"
    parts = [header, *(["\n--\n".join(rendered[:k])] if k else [])]
    if cont is not None:
        rest = count - len(shown_matches)
        parts.append(f"[{plural(rest, 'more match', 'more matches')}; next: {call_text(cont)}]")
    text = "\n".join(parts)
    meta["matches"] = count
    meta["shown"] = ranges(n for g in shown_groups for n in g)
    meta["omitted"] = [[cont["args"]["start_line"], last]] if cont else []
    return ToolResult(
        text=text, complete=cont is None, continuation=cont, source=ref, revision=lf.revision, meta=meta
    )
