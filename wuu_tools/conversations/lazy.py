"""A large Claude Code session as a :class:`Conversation` whose turns are decoded only when a view shows them.

:func:`lazy_conversation` turns the index of :mod:`.turnindex` into a conversation: the turn
infos (what the first view's anchor, index and header need) come from the index, and
``conv.turns[n]`` reads the spans of turn ``n + 1`` from the file and decodes them through
the Claude Code reader, exactly as the whole-file reader would have built that turn. A
pattern search first runs over the file's raw bytes with RE2 (:meth:`LazyTurns.candidates`)
and decodes only the turns holding a matching line.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from threading import Lock
from typing import Any, overload

from ..core.pattern import compile_pattern
from .claude import read_record
from .model import Conversation, ToolCall, ToolOutput, Turn, TurnBuilder
from .turnindex import (
    ATT,
    CALLS,
    KIND,
    LINE,
    RAW,
    ROLE,
    SIDE,
    SPAN_JOIN,
    SPAN_ORPHAN,
    SPAN_START,
    SPANS,
    TEXT,
    THINK,
    TS,
    State,
    load_line,
)
from .turninfo import CallInfo, TurnInfo

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

    def __init__(self, path: str, entries: list[list[Any]], mixed: bool) -> None:
        self.path = path
        self.entries = entries  # the kept entries, turn n at entries[n - 1]
        self.mixed = mixed
        self._decoded: OrderedDict[int, Turn] = OrderedDict()
        self._lock = Lock()  # a server's calls may read one cached conversation at once

    def __len__(self) -> int:
        return len(self.entries)

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

    def _decode(self, i: int) -> Turn:
        e = self.entries[i]
        spans = e[SPANS]
        b = _OneTurn(spans[0][3])
        with open(self.path, "rb", buffering=0) as fh:
            for off, length, code, _ in spans:
                rec = load_line(os.pread(fh.fileno(), length, off))
                b.code, b.ordinal = code, 0
                read_record(b, rec, e[LINE], self.mixed)
        turn = b.target
        if turn is None:  # the file changed under the index: say so rather than show another turn
            turn = Turn(role=e[ROLE], kind=e[KIND], text="(this turn could not be read again from the file)")
        turn.number = i + 1
        return turn

    def candidates(self, pattern: str) -> list[int] | None:
        """Numbers of the turns one of whose lines matches ``pattern`` in the raw bytes; None if that cannot tell."""
        if any(piece in pattern for piece in _RAW_UNSAFE) or not pattern.isascii():
            return None
        rx = compile_pattern(pattern)
        owners: dict[int, list[int]] = {}
        for n, e in enumerate(self.entries, 1):
            for span in e[SPANS]:
                owners.setdefault(span[0], []).append(n)
        found: set[int] = set()
        with open(self.path, "rb") as fh:
            base = 0
            rest = b""
            while True:
                block = fh.read(_SEARCH_BLOCK)
                if not block and not rest:
                    break
                data = rest + block
                cut = data.rfind(b"\n") + 1 if block else len(data)
                for start in rx.line_starts(data, 0, cut):
                    found.update(owners.get(base + start, ()))
                base += cut
                rest = data[cut:]
                if not block:
                    break
        return sorted(found)


def _info(n: int, e: list[Any], kind: str) -> TurnInfo:
    calls = e[CALLS]
    return TurnInfo(
        n,
        e[ROLE],
        kind,
        e[TS],
        e[TEXT],
        e[THINK],
        tuple([CallInfo(c[0], c[1], c[2], bool(c[3])) for c in calls]) if calls else (),
        e[ATT],
        e[RAW] and not e[TEXT],
    )


def lazy_conversation(path: str, st: State) -> Conversation:
    """The conversation the index stands for, as the whole-file Claude Code reader would have read it."""
    mixed = 0 < st["side"] < st["chat"]
    facts: dict[str, Any] = {}
    if st["chat"] and st["side"] == st["chat"]:
        facts["sub_agent"] = st["agent"]
    facts.update(st["facts"])
    if st["skipped"]:
        facts["skipped_records"] = st["skipped"]
    kept: list[list[Any]] = []
    infos: list[TurnInfo] = []
    for e in st["entries"]:
        kind = e[KIND]
        if mixed and e[SIDE] and e[ROLE] in ("user", "assistant") and kind == "":
            kind = "sub-agent"
        if not (e[TEXT] or e[CALLS] or e[THINK] or e[ATT] or kind):
            continue
        kept.append(e)
        infos.append(_info(len(kept), e, kind))
    conv = Conversation(
        format="claude-code",
        turns=LazyTurns(path, kept, mixed),  # type: ignore[arg-type]
        malformed=st["malformed"],
        malformed_lines=list(st["malformed_lines"]),
        models=list(st["models"]),
        facts=facts,
        infos=infos,
    )
    if st["unread"]:
        conv.unread = st["unread"]
        conv.unread_kinds = dict(sorted(st["unread_kinds"].items(), key=lambda kv: -kv[1]))
        conv.unread_lines = list(st["unread_lines"])
    return conv
