"""``read_file(path, symbol=...)``: one definition by name, or the map of a range of lines.

``symbol="Evidence.rank"`` shows the definition's whole lines, the comment block right above it
and its decorators included, at their line numbers and within the budget; a longer one goes on
with the usual line-range continuation. A name that several definitions answer to lists them
with their line ranges and qualified names, in line order (the next call picks one by its
qualified name, or by its lines where overloads share one); an unknown name is an
error that names the closest definitions. ``symbol="*"`` lists the map of lines
``start_line``-``end_line`` (every definition starting there, nested one level) page by page.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.budget import count_tokens
from ..core.errors import InvalidArgument, clip, quote
from ..core.lines import LineFile
from ..core.names import arg_path, shown_path
from ..core.result import ToolResult, call_text, continuation
from ..core.text import human_size, plural
from ..views.ceiling import fit_ceiling
from ..views.mapview import map_entries, map_page
from ..views.paging import Subject, paged
from ..views.structure import MAP_MAX_BYTES, Outline, outline_of
from ..views.symbols import closest, lookup, parts

__all__ = ["ALL", "SYMBOL_CHARS", "check_symbol", "file_outline", "read_symbol"]

ALL = "*"
"""The ``symbol`` that lists the map of a range instead of naming one definition."""
SYMBOL_CHARS = 300
"""The longest name ``symbol`` takes."""
CANDIDATES = 40
"""The most candidates an ambiguous name lists."""
UNLISTED_PLACES = 4
"""The most places (classes, namespaces) the count of candidates left out of a list names."""


def check_symbol(symbol: Any, start_line: int, end_line: int | None, start_char: int) -> None:
    """Raise :class:`InvalidArgument` unless ``symbol`` is a usable name (or ``"*"``) for these arguments."""
    if not isinstance(symbol, str) or not symbol.strip():
        raise InvalidArgument(f"symbol must be a non-empty name such as 'rank' or 'Evidence.rank', not {quote(symbol)}")
    if len(symbol) > SYMBOL_CHARS or "\n" in symbol:
        raise InvalidArgument(f"symbol {quote(symbol)} is not a name: one line, at most {SYMBOL_CHARS} characters")
    if symbol != ALL and (start_line != 1 or end_line is not None or start_char):
        raise InvalidArgument(
            'start_line, end_line and start_char go with symbol="*" (the map of a range), not with a name: '
            "a definition is read whole, continued by line range when it is longer than the budget"
        )
    if start_char:
        raise InvalidArgument('start_char does not go with symbol="*"')


def file_outline(lf: LineFile, path: str) -> Outline | None:
    """The outline of the open file ``lf`` named ``path`` (kept for the file's revision)."""
    return outline_of(path, lf.revision, lf.size, lambda: lf.pread(0, lf.size))


def read_symbol(
    lf: LineFile,
    path: str,
    symbol: str,
    *,
    start_line: int,
    end_line: int | None,
    revision: str | None,
    budget: int,
    explicit_budget: int | None,
) -> ToolResult:
    """The view of ``symbol`` in the open file ``lf`` (see the module docstring)."""
    outline = file_outline(lf, path)
    if outline is None:
        raise InvalidArgument(
            f"symbol: {clip(path)} has no definitions to look up (it defines none, is of a kind read without a "
            f"grammar or keywords, or is over {human_size(MAP_MAX_BYTES)}); read it by lines"
        )
    subject = Subject(tool="read_file", key={"path": arg_path(path)}, label=shown_path(path))
    if symbol == ALL:
        return fit_ceiling(
            lambda inner: _map_view(lf, path, outline, start_line, end_line, revision, inner, explicit_budget),
            budget,
        )
    found, dropped = lookup(outline, symbol)
    if not found:
        near = ", ".join(
            f"{outline.qualname(i)} ({outline.defs[i].start}-{outline.defs[i].end})" for i in closest(outline, symbol)
        )
        hint = f"; closest: {near}" if near else f'; the map of the file: read_file(path={_q(path)}, symbol="*")'
        raise InvalidArgument(f"symbol {quote(symbol)} is not defined in {clip(path)}{hint}")
    if len(found) > 1:
        return fit_ceiling(lambda inner: _candidates(lf, path, outline, symbol, found, dropped, inner), budget)
    i = found[0]
    d = outline.defs[i]
    note = f"[{outline.qualname(i)}: {d.kind}, lines {d.first:,}-{d.end:,}{_unknown(dropped)}]"
    return paged(
        lf,
        subject,
        start_line=d.first,
        end_line=d.end,
        start_char=0,
        revision=revision,
        budget=budget,
        explicit_budget=explicit_budget,
        extra_meta={"symbol": outline.qualname(i)},
        notes=(note,),
    )


def _unknown(dropped: list[str]) -> str:
    """The note that leading qualifiers of the name asked for were passed over."""
    if not dropped:
        return ""
    return f"; {quote('::'.join(dropped))} names no definition of this file's map and was passed over"


def _q(text: str) -> str:
    """``text`` as a call writes an argument (a JSON string)."""
    return json.dumps(text, ensure_ascii=False)


def _changed(lf: LineFile, path: str, revision: str | None) -> list[str]:
    if revision is None or revision == lf.revision:
        return []
    return [
        f"[changed: {shown_path(path)} is now revision {lf.revision}, not {revision} as asked; this view is cut from "
        f"revision {lf.revision} — do not join it with text read from {revision}]"
    ]


def _map_view(
    lf: LineFile,
    path: str,
    outline: Outline,
    start_line: int,
    end_line: int | None,
    revision: str | None,
    budget: int,
    explicit_budget: int | None,
) -> ToolResult:
    total = lf.total_lines
    first, last = start_line, min(end_line, total) if end_line is not None else total
    meta: dict[str, Any] = {"total_lines": total, "size": lf.size, "symbol": ALL, "shown": [], "omitted": []}
    notices = _changed(lf, path, revision)
    if first > last:
        raise InvalidArgument(f"start_line {first:,} is past the end: {path} has {plural(total, 'line')}")
    meta["omitted"] = [[first, last]]
    everything = map_entries(outline, first, last)
    head = f"[{shown_path(path)} · map of lines {first:,}-{last:,} · {plural(len(everything), 'entry', 'entries')}"
    head += f" · {plural(total, 'line')} · {human_size(lf.size)} · revision {lf.revision}]"
    lines, n, nxt = map_page(outline, first, last, max(1, budget - count_tokens(head) - 60))
    meta["map_entries"] = n
    cont = None
    tail = [f'[read one: read_file(path={_q(path)}, symbol="NAME"), or its lines by start_line and end_line]']
    if not everything:
        tail = ["[no definitions start in these lines]"]
    elif nxt is not None:
        cont = continuation(
            "read_file",
            path=arg_path(path),
            symbol=ALL,
            start_line=nxt,
            end_line=last,
            revision=lf.revision,
            budget=explicit_budget,
        )
        tail = [f"[{plural(len(everything) - n, 'more entry', 'more entries')}; next: {call_text(cont)}]"]
    text = "\n".join([*notices, head, *lines, *tail])
    return ToolResult(text=text, complete=cont is None, continuation=cont, revision=lf.revision, meta=meta)


def _candidates(
    lf: LineFile, path: str, outline: Outline, symbol: str, found: list[int], dropped: list[str], budget: int
) -> ToolResult:
    qualnames = [outline.qualname(i) for i in found]
    listed = found[:CANDIDATES]
    alone = [
        q for q, i in zip(qualnames, listed, strict=False) if qualnames.count(q) == 1 and lookup(outline, q)[0] == [i]
    ]
    how = "its qualified name or its lines" if alone else "its lines (they share one qualified name)"
    head = f"[{shown_path(path)}: {quote(symbol)} names {len(found)} definitions{_unknown(dropped)}; read one by {how}]"
    lines = [f"{outline.defs[i].first}-{outline.defs[i].end}  {q}  ·  {outline.defs[i].signature}" for i, q in
             zip(listed, qualnames, strict=False)]  # fmt: skip
    d0 = outline.defs[found[0]]
    by_lines = f"read_file(path={_q(path)}, start_line={d0.first}, end_line={d0.end})"
    by_name = f"read_file(path={_q(path)}, symbol={_q(alone[0])}) or " if alone else ""
    while True:
        tail = _unlisted(path, qualnames[len(lines) :])
        tail.append(f"[e.g. {by_name}{by_lines}]")
        if len(lines) <= 1 or count_tokens("\n".join([head, *lines, *tail])) <= budget - 10:
            break
        lines.pop()
    meta = {
        "total_lines": lf.total_lines,
        "shown": [],
        "omitted": [],
        "candidates": [[outline.defs[i].first, outline.defs[i].end, q] for i, q in zip(found, qualnames, strict=True)],
    }
    return ToolResult(text="\n".join([head, *lines, *tail]), complete=True, revision=lf.revision, meta=meta)


def _unlisted(path: str, qualnames: list[str]) -> list[str]:
    """The line that counts the candidates a list leaves out by where they are defined, and names the
    call that lists those of the first place (``[9 more not listed: 7 in basic_json, 2 in detail.lexer;
    e.g. read_file(path="json.hpp", symbol="basic_json.at")]``)."""
    if not qualnames:
        return []
    where: dict[str, list[str]] = {}
    for q in qualnames:
        p = parts(q)
        where.setdefault(".".join(p[:-1]) or "the top level", []).append(q)
    counts = ", ".join(f"{len(qs)} in {w}" for w, qs in list(where.items())[:UNLISTED_PLACES])
    if len(where) > UNLISTED_PLACES:
        counts += f", {len(where) - UNLISTED_PLACES} more places"
    first = next(iter(where.values()))[0]
    return [f"[{len(qualnames)} more not listed: {counts}; e.g. read_file(path={_q(path)}, symbol={_q(first)})]"]
