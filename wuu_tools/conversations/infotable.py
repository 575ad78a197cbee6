"""The :class:`TurnInfo` of each turn of an indexed session, read from its columns when asked for.

A view of a long session asks for a few infos one by one (the index lines it shows) and for
facts over all of them: the human instructions, the first and last time, a summary of the
turns it does not index. :class:`InfoTable` answers the first from the columns of
:mod:`.turncols` and the others with passes over them, so no info exists for a turn no
view line shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import compress
from typing import overload

from .turncols import Columns
from .turninfo import CallInfo, TurnInfo

__all__ = ["InfoTable"]


class InfoTable(Sequence[TurnInfo]):
    """The infos of the kept entries ``kept`` of ``cols`` (turn ``n`` is entry ``kept[n - 1]``)."""

    def __init__(self, cols: Columns, mixed: bool) -> None:
        self.cols = cols
        self.mixed = mixed
        c = cols.cols
        n = cols.count
        full = bytes(c["full"])
        if mixed:
            full = (int.from_bytes(full, "little") | int.from_bytes(bytes(c["mix"]), "little")).to_bytes(n, "little")
        self.kept: list[int] = list(compress(range(n), full))
        self._humans: list[int] | None = None
        self._span: tuple[str, str] | bool | None = False  # False: not computed yet
        self._counts: dict[int, tuple[Counter[str], Counter[str], int]] = {}

    def __len__(self) -> int:
        return len(self.kept)

    @overload
    def __getitem__(self, i: int) -> TurnInfo: ...
    @overload
    def __getitem__(self, i: slice) -> list[TurnInfo]: ...
    def __getitem__(self, i: int | slice) -> TurnInfo | list[TurnInfo]:
        if isinstance(i, slice):
            return [self[n] for n in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        e = self.kept[i]
        c, s = self.cols.cols, self.cols.s
        a, b = c["calls"][e], self.cols.calls_end(e)
        calls = tuple(CallInfo(s(c["name"][k]), c["key"][k], c["short"][k], bool(c["failed"][k])) for k in range(a, b))
        text = c["text"][e]
        return TurnInfo(
            i + 1,
            s(c["role"][e]),
            self.kind(e),
            c["ts"][e] if c["has_ts"][e] else None,
            text,
            c["think"][e],
            calls,
            c["att"][e],
            bool(c["raw"][e]) and not text,
        )

    def __iter__(self) -> Iterator[TurnInfo]:
        return (self[n] for n in range(len(self)))

    def kind(self, e: int) -> str:
        """The kind of entry ``e`` as its turn has it (a sidechain turn of a mixed session is a sub-agent's)."""
        c = self.cols.cols
        return "sub-agent" if self.mixed and c["mix"][e] else self.cols.s(c["kind"][e])

    def human_numbers(self) -> list[int]:
        """The numbers of the turns that are human instructions (computed once)."""
        if self._humans is None:
            self._humans = self._human_numbers()
        return self._humans

    def _human_numbers(self) -> list[int]:
        c = self.cols.cols
        human, mix = c["human"], c["mix"]
        mixed = self.mixed
        return [n for n, e in enumerate(self.kept, 1) if human[e] and not (mixed and mix[e])]

    def time_span(self) -> tuple[str, str] | None:
        """The earliest and latest time of the turns, if any has one (computed once)."""
        if self._span is False:
            self._span = self._time_span()
        return self._span  # type: ignore[return-value]

    def _time_span(self) -> tuple[str, str] | None:
        c = self.cols.cols
        has, data = c["has_ts"], bytes(c["ts"].data)
        ends = c["ts"].ends.tolist()
        starts = [0, *ends[:-1]]
        stamps = [data[starts[e] : ends[e]] for e in self.kept if has[e]]
        if not stamps:
            return None
        return min(stamps).decode("utf-8", "surrogatepass"), max(stamps).decode("utf-8", "surrogatepass")

    def counts(self, hi: int) -> tuple[Counter[str], Counter[str], int]:
        """Turns by role, tool calls by name and failed calls, over turns ``1 .. hi`` (once for each ``hi``)."""
        if hi not in self._counts:
            self._counts[hi] = self._count(hi)
        return self._counts[hi]

    def _count(self, hi: int) -> tuple[Counter[str], Counter[str], int]:
        c, s = self.cols.cols, self.cols.s
        entries = self.kept[:hi]
        roles = Counter({s(r): n for r, n in Counter(map(c["role"].__getitem__, entries)).items()})
        a = c["calls"][entries[0]] if entries else 0
        b = self.cols.calls_end(entries[-1]) if entries else 0
        tools: Counter[str] = Counter()
        for name, n in Counter(c["name"][a:b]).items():
            tools[s(name)] = n
        return roles, tools, sum(c["failed"][a:b])
