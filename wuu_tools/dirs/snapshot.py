"""A whole directory listing, walked once and saved in the store, so a cursor chain costs one walk.

The first continuation of a listing walks the tree to the requested depth and saves every
entry's rendered line in listing order as one store object (``dirlist-<32 hex>``): a JSON
header line, then one tab-separated record per entry. Each record carries its line's token
cost (:func:`~wuu_tools.core.budget.line_costs`: one tokenization per few thousand lines, where counting
each page's lines one by one costs half as much again), so later pages fit their budget
without tokenizing; a chain whose budget is at least the byte cap never counts. Later pages
read their records from a byte offset carried by the cursor (O(page), not O(tree)) and check
that the directories those records came from have not been modified since (their
``st_mtime_ns``); a modified one means the tree changed and the caller re-walks.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..core.budget import line_costs
from ..core.store import Store
from .cursor import SNAPSHOT_KIND, RevisionHash
from .walk import Listing, Walker

__all__ = ["FullListing", "Record", "changed_dirs", "read_records", "records_unchanged", "save_listing", "walk_all"]

_FORMAT = 2
_COST_CHUNK = 4096  # lines per tokenization (bounds the memory of one count)
_UNSAFE = re.compile(r"[\t\n\r\\\"]|[\ud800-\udfff]")


@dataclass(slots=True)
class Record:
    """One saved entry: its view line, path, and the facts a later page checks or summarises."""

    line: str
    rel: str
    parent_mtime: int
    mtime: int  # a scanned directory's own st_mtime_ns; 0 when there is nothing to check
    index: int
    siblings: int
    tokens: int = 0  # tokens of its line with the newline after it (see line_costs); 0: not counted
    nbytes: int = 0  # size of its record in the saved listing
    key: str = ""  # what the revision covers (kept in memory only)

    def to_row(self) -> str:
        """The record as one line of the saved listing (without the newline): tab-separated fields."""
        line, rel, flags = self.line, self.rel, 0
        if _UNSAFE.search(line):
            line, flags = json.dumps(line), flags | 1
        if _UNSAFE.search(rel):
            rel, flags = json.dumps(rel), flags | 2
        facts = f"{self.parent_mtime}\t{self.mtime}\t{self.index}\t{self.siblings}\t{self.tokens}"
        return f"{flags}\t{line}\t{rel}\t{facts}"

    @classmethod
    def from_row(cls, raw: bytes) -> Record:
        """Parse a line written by :meth:`to_row` (with its newline)."""
        flags, line, rel, parent_mtime, mtime, index, siblings, tokens = (
            raw.decode("utf-8", "surrogateescape").rstrip("\n").split("\t")
        )
        bits = int(flags)
        return cls(
            json.loads(line) if bits & 1 else line,
            json.loads(rel) if bits & 2 else rel,
            int(parent_mtime),
            int(mtime),
            int(index),
            int(siblings),
            int(tokens),
            len(raw),
        )


@dataclass
class FullListing:
    """Every entry of a listing in order, its revision, and the revision of its first ``check_at`` entries."""

    records: list[Record]
    revision: str
    prefix_revision: str | None


def walk_all(walker: Walker, root: Listing, check_at: int, count: bool = True) -> FullListing:
    """Walk the whole listing; ``prefix_revision`` covers its first ``check_at`` entries.

    With ``count``, each record gets its line's token cost (one tokenization per
    :data:`_COST_CHUNK` lines), so pages cut from it need no tokenizer.
    """
    records: list[Record] = []
    keys: list[str] = []
    with _gc_paused():
        _walk_into(walker, root, records, keys)
    if count:
        for at in range(0, len(records), _COST_CHUNK):
            chunk = records[at : at + _COST_CHUNK]
            for record, cost in zip(chunk, line_costs([r.line for r in chunk]), strict=True):
                record.tokens = cost
    digest = RevisionHash()
    prefix: str | None = None
    if check_at <= len(keys):
        digest.add_many(keys[:check_at])
        prefix = digest.hexdigest()
        digest.add_many(keys[check_at:])
    else:
        digest.add_many(keys)
    return FullListing(records, digest.hexdigest(), prefix)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a walk allocates its records.

    A 50,000-entry walk creates ~200,000 tracked objects, none of them in a cycle; the
    collector's repeated passes over them cost a third of the walk (measured: 1.1 s -> 0.75 s
    of CPU). Collection resumes, as it was, when the walk ends or fails.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _walk_into(walker: Walker, root: Listing, records: list[Record], keys: list[str]) -> None:
    for entry in walker.walk(root):
        key = entry.key()
        keys.append(key)
        records.append(
            Record(
                walker.line(entry),
                entry.rel,
                entry.parent_mtime,
                entry.mtime if entry.kind == "dir" else 0,
                entry.index,
                entry.siblings,
                key=key,
            )
        )


def save_listing(store: Store, listing: FullListing, binding: bytes) -> tuple[str, list[int]]:
    """Save ``listing``; returns its reference and the byte offset of every record (plus the end)."""
    header = json.dumps({"format": _FORMAT, "binding": binding.hex(), "total": len(listing.records)})
    offsets: list[int] = []
    dirs: dict[str, int] = {}
    for record in listing.records:
        if record.parent_mtime:
            dirs.setdefault(record.rel.rpartition("/")[0], record.parent_mtime)
        if record.mtime:
            dirs.setdefault(record.rel, record.mtime)
    with store.writer(SNAPSHOT_KIND) as out:
        out.meta["dirs"] = sorted(dirs.items())
        data = (header + "\n").encode()
        out.write(data)
        position = len(data)
        chunk: list[bytes] = []
        for record in listing.records:
            raw = (record.to_row() + "\n").encode("utf-8", "surrogateescape")
            offsets.append(position)
            position += len(raw)
            chunk.append(raw)
            if len(chunk) >= 2048:
                out.write(b"".join(chunk))
                chunk.clear()
        out.write(b"".join(chunk))
        offsets.append(position)
    assert out.ref is not None
    return store.resolve(out.ref), offsets  # the full reference: a cursor packs its 16 bytes


def read_records(path: str, offset: int) -> tuple[dict[str, object], Iterator[Record]]:
    """The header of a saved listing and its records from byte ``offset`` on (read lazily)."""
    with open(path, "rb") as fh:
        header = json.loads(fh.readline())
        start = max(offset, fh.tell())
    if not isinstance(header, dict) or header.get("format") != _FORMAT:
        raise ValueError("not a saved listing")

    def records() -> Iterator[Record]:
        with open(path, "rb") as fh:
            fh.seek(start)
            for raw in fh:
                yield Record.from_row(raw)

    return header, records()


def changed_dirs(root: str, store: Store, ref: str) -> list[str]:
    """Directories of a saved listing modified since it was saved (all of them are checked)."""
    changed = []
    for rel, mtime in store.meta(ref).get("dirs", []):
        try:
            now = os.stat(os.path.join(root, rel) if rel else root).st_mtime_ns
        except OSError:
            now = None
        if now != mtime:
            changed.append(rel)
    return changed


def records_unchanged(root: str, records: list[Record]) -> bool:
    """True when no directory the ``records`` came from (or that they are) was modified since saving."""
    seen: dict[str, int | None] = {}

    def mtime(rel: str) -> int | None:
        if rel not in seen:
            try:
                seen[rel] = os.stat(os.path.join(root, rel) if rel else root).st_mtime_ns
            except OSError:
                seen[rel] = None
        return seen[rel]

    for r in records:
        if r.parent_mtime and mtime(r.rel.rpartition("/")[0]) != r.parent_mtime:
            return False
        if r.mtime and mtime(r.rel) != r.mtime:
            return False
    return True
