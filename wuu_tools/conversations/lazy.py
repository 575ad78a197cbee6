"""A large Claude Code session as a :class:`Conversation` whose turns are decoded only when a view shows them.

:func:`lazy_conversation` turns the index of :mod:`.turnindex` into a conversation: the turn
infos (what the first view's anchor, index and header need) come from the index, and
``conv.turns[n]`` reads the spans of turn ``n + 1`` from the file and decodes them through
the Claude Code reader, exactly as the whole-file reader would have built that turn. A
pattern search first runs over the file's raw bytes with RE2 (:meth:`LazyTurns.candidates`)
and decodes only the turns holding a matching line.
"""

from __future__ import annotations

import mmap
import os
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from threading import Lock
from typing import Any, overload

from ..core.pattern import Pattern, compile_pattern
from .claude import read_record
from .infotable import InfoTable
from .jsonline import load_line
from .model import Conversation, ToolCall, ToolOutput, Turn, TurnBuilder
from .turnindex import SPAN_JOIN, SPAN_ORPHAN, SPAN_START, State

__all__ = ["LazyTurns", "lazy_conversation"]

_DECODED = 64
_SEARCH_BLOCK = 8 * 1024 * 1024
_RAW_UNSAFE = ("^", "$", "\\A", "\\z", "\\Z", "\\s", "\\S", "\\t", "\\n", "\\r", "\\x", "\\u", "\\p", "\\P")
"""Pattern pieces that can match a decoded turn's line but not the JSON bytes it came from (or the reverse)."""


class _OneTurn(TurnBuilder):
    """A builder that keeps one turn: the one its start line makes, joined pieces and results for its calls."""

    def __init__(self, want_ordinal: int) -> None:
        super().__init__()
        self.target: Turn | None = None
        self.code = SPAN_START
        self.ordinal = 0
        self.want = want_ordinal

    def add(self, turn: Turn, key: str | None = None) -> Turn:
        if self.target is None and self.code == SPAN_START:
            self.target = turn
        return turn

    def joined(self, key: str | None) -> Turn | None:
        return self.target if self.code == SPAN_JOIN else None

    def last(self) -> Turn | None:
        return self.target

    def result(
        self, call_id: str | None, output: ToolOutput, timestamp: str | None = None, line: int | None = None
    ) -> None:
        ordinal = self.ordinal
        self.ordinal += 1
        if call_id and call_id in self._calls:
            super().result(call_id, output, timestamp, line)
        elif self.code == SPAN_ORPHAN and ordinal == self.want and self.target is None:
            self.target = Turn(role="tool", timestamp=timestamp, line=line)
            self.target.calls.append(ToolCall(id=call_id, name="(result)", args=None, output=output))


class LazyTurns(Sequence[Turn]):
    """The turns of an indexed session, each decoded from its lines when first asked for."""

    def __init__(self, path: str, infos: InfoTable) -> None:
        self.path = path
        self.infos = infos  # turn n is entry infos.kept[n - 1] of infos.cols
        self.mixed = infos.mixed
        self._decoded: OrderedDict[int, Turn] = OrderedDict()
        self._lock = Lock()  # a server's calls may read one cached conversation at once

    def __len__(self) -> int:
        return len(self.infos)

    @overload
    def __getitem__(self, i: int) -> Turn: ...
    @overload
    def __getitem__(self, i: slice) -> list[Turn]: ...
    def __getitem__(self, i: int | slice) -> Turn | list[Turn]:
        if isinstance(i, slice):
            return [self[n] for n in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        with self._lock:
            hit = self._decoded.get(i)
            if hit is not None:
                self._decoded.move_to_end(i)
                return hit
        turn = self._decode(i)
        with self._lock:
            turn = self._decoded.setdefault(i, turn)
            while len(self._decoded) > _DECODED:
                self._decoded.popitem(last=False)
        return turn

    def __iter__(self) -> Iterator[Turn]:
        return (self[n] for n in range(len(self)))

    def _spans(self, e: int) -> list[tuple[int, int, int, int]]:
        """The lines (offset, length, code, ordinal) entry ``e`` is decoded from, in order."""
        c = self.infos.cols.cols
        entry = c["entry"]
        lo = bisect_left(entry, e)
        hi = bisect_right(entry, e, lo)
        return [(c["off"][k], c["len"][k], c["code"][k], c["ord"][k]) for k in range(lo, hi)]

    def _decode(self, i: int) -> Turn:
        e = self.infos.kept[i]
        spans = self._spans(e)
        c = self.infos.cols.cols
        line = c["line"][e]
        b = _OneTurn(spans[0][3] if spans else -1)
        with open(self.path, "rb", buffering=0) as fh:
            for off, length, code, _ in spans:
                rec = load_line(os.pread(fh.fileno(), length, off), not off)
                b.code, b.ordinal = code, 0
                read_record(b, rec, line, self.mixed)
        turn = b.target
        if turn is None:  # the file changed under the index: say so rather than show another turn
            role, kind = self.infos.cols.s(c["role"][e]), self.infos.cols.s(c["kind"][e])
            turn = Turn(role=role, kind=kind, text="(this turn could not be read again from the file)")
        turn.number = i + 1
        return turn

    def candidates(self, pattern: str) -> list[int] | None:
        """Numbers of the turns one of whose lines matches ``pattern`` in the raw bytes; None if that cannot tell."""
        if any(piece in pattern for piece in _RAW_UNSAFE) or not pattern.isascii():
            return None
        rx = compile_pattern(pattern)
        hits: set[int] = set()
        with open(self.path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size:
                with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
                    _line_hits(rx, data, size, hits)
        if not hits:
            return []
        c = self.infos.cols.cols
        number = dict(zip(self.infos.kept, range(1, len(self.infos) + 1), strict=True))
        found = {number.get(c["entry"][k]) for k, off in enumerate(c["off"]) if off in hits}
        found.discard(None)
        return sorted(found)  # type: ignore[type-var]


def _line_hits(rx: Pattern, data: mmap.mmap, size: int, hits: set[int]) -> None:
    """Add to ``hits`` where each line of ``data`` holding a match starts, a block at a time.

    The file is mapped, not read: RE2 searches the mapped bytes in place, and each block's pages
    are let go once searched, so the process holds one block of the file however big it is.
    """
    base = 0
    drop = getattr(mmap, "MADV_DONTNEED", None)
    while base < size:
        end = min(base + _SEARCH_BLOCK, size)
        cut = data.rfind(b"\n", base, end) + 1 if end < size else size
        if cut <= base:  # a line longer than the block: search up to its end
            nl = data.find(b"\n", end)
            cut = size if nl < 0 else nl + 1
        hits.update(rx.line_starts(data, base, cut))
        if drop is not None:
            start = base - base % mmap.PAGESIZE
            data.madvise(drop, start, cut - start)
        base = cut


def lazy_conversation(path: str, st: State) -> Conversation:
    """The conversation the index stands for, as the whole-file Claude Code reader would have read it."""
    mixed = 0 < st["side"] < st["chat"]
    facts: dict[str, Any] = {}
    if st["chat"] and st["side"] == st["chat"]:
        facts["sub_agent"] = st["agent"]
    facts.update(st["facts"])
    if st["skipped"]:
        facts["skipped_records"] = st["skipped"]
    infos = InfoTable(st["cols"], mixed)
    conv = Conversation(
        format="claude-code",
        turns=LazyTurns(path, infos),  # type: ignore[arg-type]
        malformed=st["malformed"],
        malformed_lines=list(st["malformed_lines"]),
        models=list(st["models"]),
        facts=facts,
        infos=infos,  # type: ignore[arg-type]
    )
    if st["unread"]:
        conv.unread = st["unread"]
        conv.unread_kinds = dict(sorted(st["unread_kinds"].items(), key=lambda kv: -kv[1]))
        conv.unread_lines = list(st["unread_lines"])
    return conv
