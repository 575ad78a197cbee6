"""``list_dir``: a directory as complete paths, breadth-first, within a token budget, paged by cursor.

Every line of a view is one entry as a complete path relative to the listed directory
(directories end with ``/``), with its size, entry count or link target. The first view
walks only what it shows (see :mod:`.walk`): it lists whole levels breadth-first until
the budget is spent, then names, per directory, how many entries are still to come, and
ends with a call carrying a ``cursor``. The first continuation walks the listing once and
saves it (:mod:`.snapshot`); every later page reads its slice of the saved listing at the
byte offset in the cursor (:mod:`.cursor`) and checks that the directories it shows
have not changed. Ignored entries, VCS metadata and heavy folders stay out unless
``include_ignored`` (:mod:`.ignore`).

The chain of continuations shows every listed entry (to the requested depth) exactly once.
When the tree changes between pages, the page that notices says so on its first line, names
both revisions, and resumes after the last entry shown (found again by its path); the last
page checks every directory of the saved listing once, so a change to a directory whose
entries were already shown is reported too. Changes are seen through directory modification
times, so a change within the file system's timestamp granularity of the walk can be missed.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ..core.budget import HARD_CAP_BYTES, count_tokens, resolve_budget
from ..core.errors import (
    AccessDenied,
    InvalidArgument,
    NotAFile,
    SourceError,
    StoreError,
    WuuError,
    check_revision,
    clip,
    map_os_error,
    quote,
)
from ..core.names import arg_path, check_path, given_path, shown_path
from ..core.result import ToolResult, call_text, continuation
from ..core.store import current_store
from ..views.ceiling import fit_ceiling
from ..views.linefit import LineFit
from .cursor import Cursor, RevisionHash, binding, decode, encode, is_last
from .snapshot import (
    FullListing,
    Record,
    changed_dirs,
    read_records,
    records_unchanged,
    save_listing,
    walk_all,
)
from .walk import Entry, Listing, Walker, display_path

__all__ = ["list_dir"]

T = TypeVar("T")

MAX_DEPTH = 64
_NOTE_BYTES = 4096  # room kept for the notice lines within the hard cap
_CAP = HARD_CAP_BYTES - _NOTE_BYTES  # bytes for entry lines
_SUMMARY_SHARE = 0.2  # of the budget, at most, kept for the notes of a cut first view


def list_dir(
    path: str = ".",
    depth: int = 2,
    cursor: str | None = None,
    include_ignored: bool = False,
    revision: str | None = None,
    budget: int | None = None,
) -> ToolResult:
    """List a directory as complete paths, breadth-first, within a token budget.

    Each line is one entry as a complete path relative to the listed directory (directories
    end with "/"), directories first, with file sizes, directory entry counts and link
    targets. Ignored (.gitignore, .wuuignore, .git/info/exclude), VCS and heavy folders such
    as node_modules/ show as one line with their size. What does not fit is named per
    directory, and the result ends with the call (with a cursor) that lists the next entries.

    Args:
        path: The directory to list.
        depth: How many levels to list (1 = the directory's own entries).
        cursor: The cursor from an earlier result, to list the entries after it.
        include_ignored: Also list ignored files, VCS metadata and heavy folders.
        revision: The revision the caller's earlier view came from; a changed tree is reported.
        budget: Token budget of the view; defaults to WUU_BUDGET or 2,000.

    Returns:
        The view as a ToolResult; ``meta`` has total_entries (None when not counted) and shown_entries.
    """
    if not isinstance(path, str) or not path:
        raise InvalidArgument(f"path must be a non-empty string, not {quote(path)}")
    check_path(path)
    path = given_path(path)
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidArgument(f"depth must be a whole number from 1 to {MAX_DEPTH}, not {quote(depth)}")
    if not isinstance(include_ignored, bool):
        raise InvalidArgument(f"include_ignored must be true or false, not {quote(include_ignored)}")
    check_revision(revision)
    limit = resolve_budget(budget)
    parsed = decode(cursor) if cursor is not None else None
    root = os.path.abspath(path)
    try:
        mode = os.stat(root).st_mode
    except OSError as exc:
        raise map_os_error(exc, shown_path(path)) from exc
    if not stat.S_ISDIR(mode):
        raise NotAFile(f"{clip(shown_path(path))}: is a file, not a directory (read it with read_file)")

    def view(inner: int) -> ToolResult:
        walker = Walker(root, depth, include_ignored, record_mtimes=parsed is not None)
        return _view(_Ctx(path, depth, include_ignored, budget, inner, walker), parsed, revision)

    return fit_ceiling(view, limit)


def _view(ctx: _Ctx, parsed: Cursor | None, revision: str | None) -> ToolResult:
    if parsed is None:
        return _first_view(ctx, revision)
    if parsed.binding != ctx.binding:
        raise InvalidArgument(
            "cursor belongs to another listing (another directory, depth or include_ignored): "
            "pass the same path, depth and include_ignored as the call that gave the cursor"
        )
    if parsed.snapshot is not None:
        return _saved_page(ctx, parsed)
    return _walked_page(ctx, parsed, by_digest=False)


@dataclass
class _Ctx:
    path: str
    depth: int
    include_ignored: bool
    budget: int | None
    limit: int
    walker: Walker

    @property
    def binding(self) -> bytes:
        return binding(os.fsencode(self.walker.real_root), self.depth, self.include_ignored)

    def label(self) -> str:
        shown = display_path(self.path)
        if shown in (".", "./"):  # (a Toolset passes its root as an absolute path)
            return "."
        return f"{shown} (paths relative to it)"

    def next_call(self, cur: Cursor) -> dict[str, Any]:
        return continuation(
            "list_dir",
            path=arg_path(self.path),
            depth=self.depth,
            include_ignored=self.include_ignored,
            cursor=encode(cur),
            revision=cur.revision,
            budget=self.budget,
        )

    def scan_root(self) -> Listing:
        listing = self.walker.scan("", None)
        if listing.error is not None:
            cls = AccessDenied if listing.error == "permission denied" else SourceError
            raise cls(f"{self.path}: cannot list it: {listing.error}")
        return listing


def _take(source: Iterator[tuple[T, str]], fit: LineFit) -> tuple[list[tuple[T, str]], bool]:
    """The pairs whose lines ``fit`` takes, and whether the source ran out with them.

    An entry too large for the whole budget on its own is still taken, alone (an entry is
    never cut), so every page shows something new. Saved records bring their token cost.
    """
    taken: list[tuple[T, str]] = []
    for pair in source:
        item = pair[0]
        if not fit.offer(pair[1], item.tokens if isinstance(item, Record) else 0):
            if not taken:
                taken.append(pair)
            return taken, False
        taken.append(pair)
    return taken, True


def _bound(fit: LineFit, lines: list[str], n: int) -> int:
    """Tokens of the first ``n`` lines (an upper bound; exact for a lone oversized entry)."""
    return fit.tokens_of(n) if n <= fit.count else count_tokens("\n".join(lines[:n]))


def _fits(text_parts: list[str], body_tokens: int, limit: int) -> bool:
    """Whether body lines of ``body_tokens`` plus the notice lines ``text_parts`` stay within the limits."""
    notices = "\n".join(text_parts)
    return body_tokens + count_tokens(notices) + len(text_parts) <= limit


def _small(text: str) -> bool:
    return len(text.encode("utf-8", "surrogatepass")) <= HARD_CAP_BYTES


def _first_view(ctx: _Ctx, revision: str | None) -> ToolResult:
    walker = ctx.walker
    root = ctx.scan_root()
    fit = LineFit(ctx.limit, _CAP)
    items, exhausted = _take(((e, walker.line(e)) for e in walker.walk(root)), fit)
    entries = [e for e, _ in items]
    lines = [line for _, line in items]
    if exhausted and _whole_fits(ctx, fit, entries, revision):
        rev = _revision(entries)
        notices = [_changed_first(ctx, revision, rev)] if revision is not None and revision != rev else []
        what = f"{len(entries):,} {'entry' if len(entries) == 1 else 'entries'}" if entries else "empty"
        header = f"[{ctx.label()} · depth {ctx.depth} · {what} · revision {rev}]"
        body = [*notices, header, *lines, *_depth_note(ctx, entries)]
        meta = {"total_entries": len(entries), "shown_entries": len(entries), "start_entry": 1}
        return ToolResult("\n".join(body), complete=True, revision=rev, meta=meta)

    def attempt(n: int) -> tuple[str, dict[str, Any], bool]:
        shown = entries[:n]
        rev = _revision(shown)
        notices = [_changed_first(ctx, revision, rev)] if revision is not None and revision != rev else []
        more = _still_to_come(root.children, shown)
        marked, marks = _mark_cut(shown, lines[:n], more)
        top = more.get("", 0)
        tail = [f"… (top level): {top:,} more {'entry' if top == 1 else 'entries'}"] if top else []
        cont = ctx.next_call(Cursor(ctx.binding, rev, n, shown[-1].rel))
        total_known = n + sum(more.values())
        header = (
            f"[{ctx.label()} · depth {ctx.depth} · entries 1-{n:,} of at least {total_known:,}, "
            f"breadth-first · revision {rev}]"
        )
        depth_note = _depth_note(ctx, shown)
        nxt = f"[next: {call_text(cont)}]"
        text = "\n".join([*notices, header, *marked, *tail, *depth_note, nxt])
        notes = [*notices, header, *tail, *depth_note, nxt]
        return text, cont, _fits(notes, _bound(fit, lines, n) + marks, ctx.limit) and _small(text)

    # Up to one entry fewer than all (the next page must show something), the most that fit.
    cap = max(1, len(entries) - 1 if exhausted else len(entries))
    n = min(cap, max(1, fit.within(int(ctx.limit * (1 - _SUMMARY_SHARE)))))
    text, cont, ok = attempt(n)
    while not ok and n > 1:
        n -= max(1, n // 20)
        text, cont, ok = attempt(n)
    step = max(1, n // 10) if ok else 0
    while step:  # the notices took less than the share kept for them: fill the rest
        m = min(n + step, cap)
        if m > n:
            bigger = attempt(m)
            if bigger[2]:
                n, (text, cont, ok) = m, bigger
                continue
        step //= 2
    return ToolResult(
        text,
        complete=False,
        continuation=cont,
        revision=cont["args"]["revision"],
        meta={"total_entries": None, "shown_entries": n, "start_entry": 1},
    )


def _whole_fits(ctx: _Ctx, fit: LineFit, entries: list[Entry], revision: str | None) -> bool:
    """Whether the whole listing, with its header and notes, fits the budget (else it is paged)."""
    if not entries:
        return True
    rev = _revision(entries)
    notes = [f"[{ctx.label()} · depth {ctx.depth} · {len(entries):,} entries · revision {rev}]"]
    if revision is not None and revision != rev:
        notes.append(_changed_first(ctx, revision, rev))
    notes += _depth_note(ctx, entries)
    return _fits(notes, fit.tokens_of(len(entries)), ctx.limit)


def _revision(entries: Iterable[Entry]) -> str:
    digest = RevisionHash()
    for e in entries:
        digest.add(e.key())
    return digest.hexdigest()


def _changed_first(ctx: _Ctx, asked: str, now: str) -> str:
    return (
        f"[changed: {display_path(ctx.path)} is now revision {now}, not {asked} as asked; "
        f"this view is cut from revision {now}]"
    )


def _still_to_come(top: list[Entry], shown: list[Entry]) -> dict[str, int]:
    """Entries still to come per directory whose entries are not all shown ("" the top level), in listing order."""
    seen = Counter(e.parent for e in shown)
    more: dict[str, int] = {}
    if seen[""] < len(top):
        more[""] = len(top) - seen[""]
    for e in shown:
        if e.expanded and e.count and e.count > seen[e.rel]:
            more[e.rel] = e.count - seen[e.rel]
    return more


def _mark_cut(shown: list[Entry], lines: list[str], more: dict[str, int]) -> tuple[list[str], int]:
    """``lines`` with each cut directory's own line saying how many of its entries are still to come.

    A cut directory is named once, on its line (``tests/  (42 entries, 30 still to come)``);
    returns the lines and the tokens the marks add.
    """
    marked = list(lines)
    added = 0
    for i, e in enumerate(shown):
        left = more.get(e.rel) if e.rel else None
        if not left:
            continue
        mark = "all still to come" if left == e.count else f"{left:,} still to come"
        line = marked[i]
        marked[i] = f"{line[:-1]}, {mark})" if line.endswith(")") else f"{line}  ({mark})"
        added += count_tokens(f", {mark}")
    return marked, added


def _depth_note(ctx: _Ctx, shown: Iterable[Entry]) -> list[str]:
    if any(e.kind == "dir" and e.level == ctx.depth and e.count for e in shown):
        return [f"… directories at depth {ctx.depth} are not expanded: pass depth={ctx.depth + 1}, or list one of them"]
    return []


def _saved_page(ctx: _Ctx, cur: Cursor) -> ToolResult:
    """A page read from the saved listing, or a fresh walk when it is gone or the tree changed."""
    assert cur.snapshot is not None
    try:
        saved = str(current_store().path(cur.snapshot))
        header, records = read_records(saved, cur.offset)
        total = int(header["total"])  # type: ignore[call-overload]
    except (WuuError, OSError, ValueError, KeyError, TypeError):
        return _walked_page(ctx, cur, by_digest=True)  # evicted or unreadable: walk again
    if header.get("binding") != cur.binding.hex():
        raise InvalidArgument("cursor does not match its saved listing: list again without cursor")
    fit = LineFit(ctx.limit, _CAP)
    items, exhausted = _take(((r, r.line) for r in records), fit)
    if not records_unchanged(ctx.walker.root, [r for r, _ in items]):
        return _walked_page(ctx, cur, by_digest=True)
    page = _page(ctx, fit, items, exhausted, cur.shown, total, cur.revision, cur.snapshot, cur.offset, [])
    if not page.complete:
        return page
    changed = changed_dirs(ctx.walker.root, current_store(), cur.snapshot)
    if not changed:
        return page
    where = f"{display_path(changed[0])}/" if changed[0] else "the top level"
    others = f" and {len(changed) - 1:,} more directories" if len(changed) > 1 else ""
    note = (
        f"[changed: the directory changed while it was being listed ({where}{others} modified since "
        f"revision {cur.revision}); pages may mix old and new entries: list again without cursor]"
    )
    meta = {**page.meta, "changed": changed[:20]}
    return replace(page, text=f"{note}\n{page.text}", meta=meta)


def _walked_page(ctx: _Ctx, cur: Cursor, by_digest: bool) -> ToolResult:
    """Walk the whole listing, save it, and show the page after ``cur`` (said so if the tree changed)."""
    full = walk_all(ctx.walker, ctx.scan_root(), cur.shown, count=ctx.limit < _CAP)
    notices: list[str] = []
    ref: str | None = None
    offsets: list[int] = []
    try:
        ref, offsets = save_listing(current_store(), full, ctx.binding)
    except StoreError as exc:
        notices.append(f"[the listing could not be saved ({exc.message}); each page walks the tree again]")
    same = ref is not None and ref == cur.snapshot if by_digest else full.prefix_revision == cur.revision
    if same:
        start, rev = min(cur.shown, len(full.records)), cur.revision
    else:
        rev = full.revision
        start = _resync(full, cur)
        after = _as_listed(full.records[start - 1]) if 0 < start <= len(full.records) else None
        where = f"after {after}" if after is not None else f"at entry {start + 1:,}"
        notices.insert(
            0,
            f"[changed: the directory changed since revision {cur.revision} (now {rev}); the listing "
            f"resumes {where} — entries added before it are not shown: list again without cursor to see them]",
        )
    fit = LineFit(ctx.limit, _CAP)
    items, exhausted = _take(((r, r.line) for r in full.records[start:]), fit)
    offset = offsets[start] if ref is not None else 0
    return _page(ctx, fit, items, exhausted, start, len(full.records), rev, ref, offset, notices, full)


def _as_listed(record: Record) -> str:
    """An entry's path as its line shows it (a directory with its ``/``)."""
    name = display_path(record.rel)
    return f"{name}/" if record.line.startswith(f"{name}/") else name


def _resync(full: FullListing, cur: Cursor) -> int:
    """Where to go on in a changed listing: after the last entry shown, found by its path."""
    for i, record in enumerate(full.records):
        if is_last(cur.last, record.rel):
            return i + 1
    return min(cur.shown, len(full.records))


def _page(
    ctx: _Ctx,
    fit: LineFit,
    items: list[tuple[Record, str]],
    exhausted: bool,
    start: int,
    total: int,
    rev: str,
    ref: str | None,
    offset: int,
    notices: list[str],
    full: FullListing | None = None,
) -> ToolResult:
    """Assemble a continuation page from the records taken after entry ``start``."""
    label = ctx.label()
    if not items:
        text = "\n".join([*notices, f"[{label} · depth {ctx.depth} · end of listing: {total:,} entries]"])
        meta = {"total_entries": total, "shown_entries": 0, "start_entry": start + 1}
        return ToolResult(text, complete=True, revision=rev, meta=meta)
    n = len(items)
    lines = [line for _, line in items]
    while True:
        shown = [r for r, _ in items[:n]]
        end = start + n
        header = f"[{label} · depth {ctx.depth} · entries {start + 1:,}-{end:,} of {total:,} · revision {rev}]"
        cont = None
        if end >= total and (exhausted or n == len(items)):
            footer = [f"[end of listing: {total:,} entries]"]
        else:
            cont = ctx.next_call(_next_cursor(ctx, shown, end, rev, ref, offset, full))
            last = shown[-1]
            here = ""
            if last.index + 1 < last.siblings:
                parent = last.rel.rpartition("/")[0]
                where = f"{display_path(parent)}/" if parent else "the top level"
                here = f", starting with {last.siblings - last.index - 1:,} more in {where}"
            footer = [f"… {max(total - end, 0):,} more entries{here}", f"[next: {call_text(cont)}]"]
        text = "\n".join([*notices, header, *lines[:n], *footer])
        if (_fits([*notices, header, *footer], _bound(fit, lines, n), ctx.limit) and _small(text)) or n == 1:
            break
        n -= max(1, n // 20)
    meta = {"total_entries": total, "shown_entries": n, "start_entry": start + 1}
    return ToolResult(text, complete=cont is None, continuation=cont, revision=rev, meta=meta)


def _next_cursor(
    ctx: _Ctx,
    shown: list[Record],
    end: int,
    rev: str,
    ref: str | None,
    offset: int,
    full: FullListing | None,
) -> Cursor:
    if ref is not None:
        return Cursor(ctx.binding, rev, end, shown[-1].rel, ref, offset + sum(_size(r) for r in shown))
    # Not saved: the next page walks again and checks the entries shown so far by their revision.
    assert full is not None
    digest = RevisionHash()
    for record in full.records[:end]:
        digest.add(record.key)
    return Cursor(ctx.binding, digest.hexdigest(), end, shown[-1].rel)


def _size(record: Record) -> int:
    return record.nbytes or len((record.to_row() + "\n").encode("utf-8", "surrogateescape"))
