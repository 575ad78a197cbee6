"""The turn index's entries as columns: a few arrays and byte blobs, no Python object per turn.

One entry per turn the Claude Code reader made: role, kind, model and call names as ids in a
small table of strings; time, flattened text and reasoning (cut to ``TEXT_KEEP``), call key
arguments in UTF-8 blobs with an array of their ends; numbers in ``array`` columns. The
lines a turn is decoded from (its *spans*) are rows of their own, saved grouped by entry.

Only the newest entry is still open while a session is read (a later line with its message
id may join it); it is kept as a short list and written into the columns when the next
entry starts, and taken out of them again when an appended tail is read.

Saved, the columns are one file: a marshalled header (the table, counts and where each column
lies) and the columns' raw bytes after it. A view reads the file with one read and sees the
columns through memoryviews of it, never copying them into lists.
"""

from __future__ import annotations

import marshal
from array import array
from itertools import accumulate
from typing import Any

__all__ = ["Columns", "StrColumn"]

_Q, _I, _i = "q", "I", "i"
# The open entry: [role, kind, side, timestamp, line, text, thinking, attachments, raw_text, model]
O_ROLE, O_KIND, O_SIDE, O_TS, O_LINE, O_TEXT, O_THINK, O_ATT, O_RAW, O_MODEL = range(10)


PENDING_MAX = 2048
"""Entries set aside before they are written into the columns together: memory stays flat on any session."""


def _enc(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


class StrColumn:
    """Strings one after another in a blob; ``ends[i]`` is where string ``i`` ends."""

    __slots__ = ("data", "ends")

    def __init__(self, data: Any = None, ends: Any = None) -> None:
        self.data: Any = bytearray() if data is None else data
        self.ends: Any = array(_Q) if ends is None else ends

    def append(self, s: str) -> None:
        self.data += _enc(s)
        self.ends.append(len(self.data))

    def extend(self, strings: list[str]) -> None:
        """Append each of ``strings``."""
        if not strings:
            return
        blobs = [_enc(s) for s in strings]
        self.ends.extend(accumulate(map(len, blobs), initial=len(self.data)))
        del self.ends[-len(blobs) - 1]  # the running total's start, the end of the string before them
        self.data += b"".join(blobs)

    def __getitem__(self, i: int) -> str:
        start = self.ends[i - 1] if i else 0
        return bytes(self.data[start : self.ends[i]]).decode("utf-8", "surrogatepass")

    def length(self, i: int) -> int:
        """Bytes of string ``i`` (0 for an empty string)."""
        return self.ends[i] - (self.ends[i - 1] if i else 0)

    def __len__(self) -> int:
        return len(self.ends)

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` strings."""
        end = self.ends[n - 1] if n else 0
        del self.data[end:]
        del self.ends[n:]


# The columns of one entry (array type code, or "s" for strings), then of one call, then of one span.
ENTRY = {"role": _I, "kind": _I, "side": "B", "has_ts": "B", "ts": "s", "line": _Q, "text": "s", "think": "s"}
ENTRY |= {"att": _I, "raw": "B", "model": _I, "calls": _I}  # calls: index of the entry's first call
ENTRY |= {"full": "B", "mix": "B", "human": "B"}  # kept as is; kept as a sub-agent turn when mixed; human
CALL = {"name": _I, "key": "s", "short": "s", "failed": "B", "output": "B"}
SPAN = {"entry": _I, "off": _Q, "len": _Q, "code": "B", "ord": _i}


def _new(code: str) -> Any:
    if code == "s":
        return StrColumn()
    return bytearray() if code == "B" else array(code)


class Columns:
    """Entries, calls and spans of an indexed session, built line by line or loaded from a saved file."""

    def __init__(self) -> None:
        self.table: list[str | None] = [None]  # id 0 is None (a turn without a model)
        self.ids: dict[str | None, int] = {None: 0}
        self.cols: dict[str, Any] = {k: _new(c) for part in (ENTRY, CALL, SPAN) for k, c in part.items()}
        self.open: list[Any] | None = None  # the newest entry, not yet in the columns
        self.pending: list[tuple[list[Any], int, int]] = []  # entries set aside: (entry, first call, calls end)
        self.open_calls = 0  # where the open entry's calls start
        self.count = 0  # entries, the open one included

    def sid(self, s: str | None) -> int:
        """The id of ``s`` in the table of short strings (roles, kinds, models, tool names)."""
        got = self.ids.get(s)
        if got is None:
            got = self.ids[s] = len(self.table)
            self.table.append(s)
        return got

    def s(self, i: int) -> Any:
        return self.table[i]

    # building

    def add(self, role: str, kind: str, side: bool, ts: str | None, line: int, model: str | None) -> int:
        """Start a new entry (setting the open one aside for the columns); its index."""
        if self.open is not None:
            self.pending.append((self.open, self.open_calls, len(self.cols["failed"])))
            if len(self.pending) >= PENDING_MAX:
                self.open = None
                self.close()
        self.open = [role, kind, side, ts, line, "", "", 0, False, model]
        self.open_calls = len(self.cols["failed"])
        self.count += 1
        return self.count - 1

    def close(self) -> None:
        """Write the entries set aside and the open one into the columns (a few appends per column, not per entry)."""
        if self.open is not None:
            self.pending.append((self.open, self.open_calls, len(self.cols["failed"])))
            self.open = None
        rows, self.pending = self.pending, []
        if not rows:
            return
        c, sid = self.cols, self.sid
        es = [r[0] for r in rows]
        c["role"].extend([sid(e[O_ROLE]) for e in es])
        c["kind"].extend([sid(e[O_KIND]) for e in es])
        c["side"].extend([bool(e[O_SIDE]) for e in es])
        c["has_ts"].extend([e[O_TS] is not None for e in es])
        c["ts"].extend([e[O_TS] or "" for e in es])
        c["line"].extend([e[O_LINE] for e in es])
        c["text"].extend([e[O_TEXT] for e in es])
        c["think"].extend([e[O_THINK] for e in es])
        c["att"].extend([e[O_ATT] for e in es])
        c["raw"].extend([bool(e[O_RAW]) for e in es])
        c["model"].extend([sid(e[O_MODEL]) for e in es])
        c["calls"].extend([r[1] for r in rows])
        c["full"].extend(
            [bool(e[O_TEXT] or end > start or e[O_THINK] or e[O_ATT] or e[O_KIND]) for e, start, end in rows]
        )
        c["mix"].extend([bool(e[O_KIND] == "" and e[O_ROLE] in ("user", "assistant") and e[O_SIDE]) for e in es])
        c["human"].extend([e[O_ROLE] == "user" and e[O_KIND] == "" and bool(e[O_TEXT]) for e in es])

    def reopen(self) -> None:
        """Take the newest entry out of the columns again, so that appended lines can join it."""
        if self.open is not None or not self.count:
            return
        c, n = self.cols, self.count - 1
        s = self.s
        self.open = [
            s(c["role"][n]),
            s(c["kind"][n]),
            bool(c["side"][n]),
            c["ts"][n] if c["has_ts"][n] else None,
            c["line"][n],
            c["text"][n],
            c["think"][n],
            c["att"][n],
            bool(c["raw"][n]),
            s(c["model"][n]),
        ]
        self.open_calls = c["calls"][n]
        for key, code in ENTRY.items():
            col = c[key]
            if code == "s":
                col.truncate(n)
            else:
                del col[n:]

    def add_call(self, name: str, key: str, short: str, failed: bool = False, output: bool = False) -> int:
        """A call of the open entry; its index among all calls."""
        c = self.cols
        c["name"].append(self.sid(name))
        c["key"].append(key)
        c["short"].append(short)
        c["failed"].append(failed)
        c["output"].append(output)
        return len(c["failed"]) - 1

    def calls_end(self, entry: int) -> int:
        """Where the calls of closed entry ``entry`` end."""
        c = self.cols
        return c["calls"][entry + 1] if entry + 1 < len(c["calls"]) else len(c["failed"])

    def sort_spans(self) -> None:
        """Group the span rows by entry (rows of one entry keep their order)."""
        c = self.cols
        col = c["entry"]
        if all(col[k] <= col[k + 1] for k in range(len(col) - 1)):
            return
        order = sorted(range(len(col)), key=col.__getitem__)
        for key, code in SPAN.items():
            old = c[key]
            c[key] = bytearray(old[k] for k in order) if code == "B" else array(code, [old[k] for k in order])

    def add_span(self, entry: int, off: int, length: int, code: int, ordinal: int) -> None:
        c = self.cols
        c["entry"].append(entry)
        c["off"].append(off)
        c["len"].append(length)
        c["code"].append(code)
        c["ord"].append(ordinal)

    # saving and loading

    def to_pieces(self, extra: dict[str, Any]) -> list[Any]:
        """The columns (the open entry closed) and ``extra`` as the pieces of one file; spans grouped by entry.

        The pieces are the columns themselves, not copies: write them before the columns change.
        """
        self.close()
        self.sort_spans()
        c = self.cols
        parts: list[Any] = []
        where: dict[str, tuple[str, int, int]] = {}
        at = 0
        for key in (*ENTRY, *CALL, *SPAN):
            col = c[key]
            blobs = [("d", col.data), ("e", col.ends)] if isinstance(col, StrColumn) else [("", col)]
            for tag, blob in blobs:
                n = len(blob) * getattr(blob, "itemsize", 1)
                where[key + tag] = (getattr(blob, "typecode", "B"), at, n)
                parts.append(blob)
                at += n
        head = marshal.dumps({"table": self.table, "count": self.count, "where": where, "extra": extra})
        return [len(head).to_bytes(8, "little") + head, *parts]

    @classmethod
    def from_bytes(cls, data: bytes, writable: bool) -> tuple[Columns, dict[str, Any]]:
        """Columns saved by :meth:`to_pieces` and their ``extra``; read-only views of ``data`` unless ``writable``."""
        size = int.from_bytes(data[:8], "little")
        head = marshal.loads(data[8 : 8 + size])
        body = memoryview(data)[8 + size :]
        self = cls()
        self.table = head["table"]
        self.ids = {s: i for i, s in enumerate(self.table)}
        self.count = head["count"]

        def blob(name: str) -> Any:
            code, at, n = head["where"][name]
            view = body[at : at + n]
            if writable:
                if code == "B":
                    return bytearray(view)
                col = array(code)
                col.frombytes(view)
                return col
            return view if code == "B" else view.cast(code)

        for key, code in (*ENTRY.items(), *CALL.items(), *SPAN.items()):
            self.cols[key] = StrColumn(blob(key + "d"), blob(key + "e")) if code == "s" else blob(key)
        return self, head["extra"]
