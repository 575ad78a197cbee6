"""The map of what a cut file's omitted lines define, and the full map read page by page.

A first view that omits the middle of a source file shows, between its head and its tail, one
line per definition of the omitted lines, in order, nested one level (a class and its methods)::

    [what lines 72-334 define; read one: read_file(path="evidence.py", symbol="Collector")]
    98-140  class Rule
    328-405  class Collector
      341-383  def add(self, number: int, raw_line: str) -> None

Each entry is ``first-last  signature``: the definition's whole line range (decorators included)
and the line that names it. A map longer than its share of the budget (:data:`MAP_SHARE`) is
summarised: the top level first (types and functions, then namespaces), the largest first when
even they do not all fit, then members of the largest containers; a container whose members are
not all listed says how many it has (``class Parser(Base) · 312 members``), and a last line names
how many entries are listed and the call that lists them all (``symbol="*"`` over the omitted
range). That call pages the full map (:func:`map_page`) with its own continuation.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable

from ..core.budget import count_tokens_batch
from .structure.model import TRANSPARENT, Outline

__all__ = ["MAP_SHARE", "MIN_MAP_TOKENS", "gap_map", "map_entries", "map_page", "map_share"]

MAP_SHARE = 0.4
"""The most of a first view's budget its map may take (it takes less when it is shorter)."""
MIN_MAP_TOKENS = 200
"""A first view whose map share would be smaller than this has no map (its notices alone cost 50-90)."""
MAX_MAP_TOKENS = 4000
"""The longest map a first view holds, whatever its budget (about 300 entries)."""
GAP_SHARE = 0.1
"""A map costs at most this share of the tokens of the lines it names (else reading them is as cheap)."""
BYTES_PER_TOKEN = 4
MAX_LEVEL = 1
"""Maps show definitions nested this many levels inside a top-level one (a class and its methods)."""


def map_share(budget: int, gap_bytes: int | None = None) -> int:
    """The tokens a first view of ``budget`` reserves for its map (0 when too few to be useful).

    ``gap_bytes``: the size of the lines the map names; the map takes at most :data:`GAP_SHARE`
    of their tokens (counted as :data:`BYTES_PER_TOKEN` bytes each).
    """
    share = min(int(budget * MAP_SHARE), MAX_MAP_TOKENS)
    if gap_bytes is not None:
        share = min(share, int(gap_bytes / BYTES_PER_TOKEN * GAP_SHARE))
    return share if share >= MIN_MAP_TOKENS else 0


def map_entries(outline: Outline, first: int, last: int) -> list[int]:
    """Indexes of the definitions a map of lines ``first``-``last`` lists: those starting there, one level deep."""
    key = ("entries", first, last)
    if key not in outline.memo:
        starts = outline.memo.setdefault("starts", [d.start for d in outline.defs])
        lo, hi = bisect_left(starts, first), bisect_right(starts, last)  # type: ignore[arg-type]
        outline.memo[key] = [
            i
            for i in range(lo, hi)
            if outline.level(i) <= MAX_LEVEL and not _in_function(outline, i) and not outline.is_alias(i)
        ]
    return outline.memo[key]  # type: ignore[return-value]


def _in_function(outline: Outline, i: int) -> bool:
    """Whether ``i`` is defined inside a function (a helper or callback: a map leaves it to its function)."""
    p = outline.parents[i]
    while p >= 0 and outline.defs[p].kind in TRANSPARENT:
        p = outline.parents[p]
    return p >= 0 and outline.defs[p].kind in ("function", "method")


def _noun(kind: str) -> str:
    if kind in ("key", "table"):
        return "keys"
    if kind == "title" or (kind[:1] == "h" and kind[1:].isdigit()):
        return "sections"
    return "members"


def _line(outline: Outline, i: int, shown: set[int], first: int, count: int = 0, offset: int = 0) -> str:
    """``first-last  signature``, indented two spaces per enclosing definition that is in ``shown`` or
    starts above the mapped lines (a method whose class opens in the head stays indented); with an
    ``offset``, the file's numbers follow in parentheses (``first-last (first+offset-last+offset)``)."""
    d = outline.defs[i]
    noun = _noun(d.kind)
    suffix = f" · {count:,} {noun if count != 1 else noun[:-1]}" if count else ""
    depth, p = 0, outline.parents[i]
    while p >= 0:
        depth += p in shown or outline.defs[p].start < first
        p = outline.parents[p]
    where = f"{d.start}-{d.end}" + (f" ({d.start + offset}-{d.end + offset})" if offset else "")
    return f"{'  ' * depth}{where}  {d.signature}{suffix}"


def _members(outline: Outline, i: int, listed: set[int]) -> list[int]:
    return [j for j in outline.members(i) if j in listed]


def gap_map(
    outline: Outline,
    first: int,
    last: int,
    cap: int,
    call_one: Callable[[str], str] | None = None,
    call_all: Callable[[int, int], str] | None = None,
    file_lines: tuple[str, int] | None = None,
) -> list[str]:
    """The map lines of lines ``first``-``last`` within about ``cap`` tokens ([] when nothing fits or is defined).

    ``call_one(name)`` is the text of the call that reads a definition by name, ``call_all(a, b)``
    the call that lists the whole map of lines a-b (neither is named when not given: a saved
    output is read by its line ranges). ``file_lines``: ``(path, offset)`` when the lines are the
    file ``path``'s from line ``1 + offset`` (a command printed them): each entry gives both numbers.
    Token costs are counted once per entry and kept on the outline, and only for the entries a map
    of ``cap`` tokens can reach.
    """
    idx = map_entries(outline, first, last)
    if not idx or cap <= 0:
        return []
    offset = file_lines[1] if file_lines else 0
    listed = set(idx)
    ranked = _ranked(outline, first, last, idx)

    def head(i: int) -> str:
        return _header(first, last, call_one(outline.qualname(i)) if call_one else None, file_lines)

    header = head(ranked[0])
    room = cap - _cost(outline, header)
    full: list[str] = []
    for i in idx:  # the whole map, while it fits
        text = _line(outline, i, listed, first, offset=offset)
        room -= _cost(outline, text)
        if room < 0:
            break
        full.append(text)
    if room >= 0:
        return [header, *full]
    all_call = call_all(first, last) if call_all else None
    room = cap - _cost(outline, header) - _cost(outline, _footer(len(idx), len(idx), all_call))
    chosen: set[int] = set()
    misses = 0
    for i in ranked:
        members = _members(outline, i, listed)
        cost = _cost(outline, _line(outline, i, listed, first, len(members), offset))
        if cost <= room:
            chosen.add(i)
            room -= cost
            misses = 0
        else:
            misses += 1
            if misses > 40 or room < 8:  # nothing much left to fill
                break
    if not chosen:
        return []
    out = [head(next(i for i in ranked if i in chosen))]
    for i in idx:
        if i in chosen:
            members = _members(outline, i, listed)
            unlisted = not all(j in chosen for j in members)
            out.append(_line(outline, i, chosen, first, len(members) if unlisted else 0, offset))
    out.append(_footer(len(chosen), len(idx), all_call))
    return out


def _header(first: int, last: int, call: str | None, file_lines: tuple[str, int] | None = None) -> str:
    where = f"lines {first:,}-{last:,}"
    if file_lines and file_lines[1]:
        path, offset = file_lines
        where += f" ({path} lines {first + offset:,}-{last + offset:,})"
    return f"[what {where} define" + (f"; read one: {call}]" if call else "]")


def _cost(outline: Outline, text: str) -> int:
    """Tokens of a map line with its newline, counted once per outline."""
    costs = outline.memo.setdefault("costs", {})
    assert isinstance(costs, dict)
    if text not in costs:
        costs[text] = count_tokens_batch([text])[0] + 1
    return costs[text]  # type: ignore[no-any-return]


def _footer(shown: int, total: int, call: str | None) -> str:
    return f"[map: {shown:,} of {total:,} entries listed" + (f"; all: {call}]" if call else "]")


def _ranked(outline: Outline, first: int, last: int, idx: list[int]) -> list[int]:
    """``idx`` in the order a summary takes them: top-level types and functions, namespaces, then members;
    the longest first within each."""
    key = ("ranked", first, last)
    if key in outline.memo:
        return outline.memo[key]  # type: ignore[return-value]
    names = {d.name for d in outline.defs if d.kind not in TRANSPARENT}

    def tier(i: int) -> int:
        d = outline.defs[i]
        if d.kind in TRANSPARENT:
            return 1
        if outline.level(i) > 0 or (d.owner and d.owner.split("::")[-1] in names):
            return 2
        return 0

    ranked = sorted(idx, key=lambda i: (tier(i), -(outline.defs[i].end - outline.defs[i].start), i))
    outline.memo[key] = ranked
    return ranked


def map_page(outline: Outline, first: int, last: int, budget: int) -> tuple[list[str], int, int | None]:
    """One page of the full map of lines ``first``-``last``: its lines, how many entries, and the next start line.

    Entries are taken in order while they fit ``budget`` tokens; a page never ends between two
    entries that start on one line (the next page starts at a line), and it holds one entry at least.
    """
    idx = map_entries(outline, first, last)
    listed = set(idx)
    used = 0
    n = 0
    while n < len(idx):
        cost = _cost(outline, _line(outline, idx[n], listed, first))
        if used + cost > budget:
            break
        used += cost
        n += 1
    n = max(n, 1) if idx else 0
    while 0 < n < len(idx) and outline.defs[idx[n]].start == outline.defs[idx[n - 1]].start:
        back = n - 1
        while back > 0 and outline.defs[idx[back - 1]].start == outline.defs[idx[n]].start:
            back -= 1
        if back == 0:  # one line opens more entries than the page holds: take them all
            while n < len(idx) and outline.defs[idx[n]].start == outline.defs[idx[0]].start:
                n += 1
            break
        n = back
    nxt = outline.defs[idx[n]].start if n < len(idx) else None
    return [_line(outline, i, listed, first) for i in idx[:n]], n, nxt
