"""The turn index of a large Claude Code session: one streaming pass, kept on disk, extended as the file grows.

One pass reads the session line by line through the Claude Code reader itself
(:func:`.claude.read_record`), but keeps no turn: each turn becomes an entry of the columns of
:mod:`.turncols` (role, kind, time, flattened text cut to :data:`~.turninfo.TEXT_KEEP`, its
calls' names, key arguments and failure marks) and the byte spans of the lines it is made of:
the line that starts it, the lines with the same ``message.id`` joined to it, and the lines
whose tool results came back for its calls. A view decodes a turn from those spans alone (:mod:`.lazy`).

The columns and the rest of the pass's state (the open calls by id, the newest turn's message
id, facts, counts) are saved in the store's ``index/`` folder, keyed by the file (device, inode,
path), with the offset of the last whole line it read and digests of the file's first 64 KiB
and of the 64 KiB before that offset (and the file's size and mtime: a file written again at
the same size is not an append). A view of an unchanged file reads the columns in place.
A file whose indexed prefix is unchanged is read only after it: an append-only
session (a live one) costs its new lines; a partly written last line is read on every call,
never saved. Anything else (the file rewritten, shrunk) is indexed again from the start.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.cancel import check_stop
from ..core.store import current_store
from .claude import SKIPPED, looks_like_claude, read_record
from .codex import looks_like_old_codex
from .jsonline import blank, load_line
from .kinds import line_kind
from .model import ToolOutput, Turn, TurnBuilder
from .turncols import O_ATT, O_KIND, O_RAW, O_ROLE, O_TEXT, O_THINK, Columns
from .turnfast import (
    SPAN_JOIN,
    SPAN_ORPHAN,
    SPAN_RESULTS,
    SPAN_START,
    fast_reader,
    joined,
    orphan_result,
    pair_result,
)
from .turninfo import call_info as _call_info
from .turninfo import flat

if TYPE_CHECKING:
    from .turnline import Line

__all__ = ["SPAN_JOIN", "SPAN_ORPHAN", "SPAN_RESULTS", "SPAN_START", "NotIndexed", "State", "index_session"]

VERSION = 3
READ_BUFFER = 1 << 20
"""The buffer lines are read through: a line longer than the default 8 KiB one costs a read of its own."""
HASH_SPAN = 64 * 1024
FACT_KEYS = ("cwd", "gitBranch", "version")
"""The header's facts, from the first line that holds each (the pass's ``facts`` hold only these)."""
State = dict[str, Any]
"""The pass's counts and facts; ``cols`` its :class:`~.turncols.Columns`, ``calls`` the open calls by id."""


class NotIndexed(Exception):
    """The file is not a Claude Code session the index can stand for (the whole-file reader decides)."""


def _fresh() -> State:
    return {
        "v": VERSION,
        "end": 0,
        "lines": 0,
        "cols": Columns(),
        "calls": {},
        "last_key": None,
        "facts": {},
        "skipped": 0,
        "chat": 0,
        "side": 0,
        "agent": None,
        "models": [],
        "malformed": 0,
        "malformed_lines": [],
        "reads": 0,
        "unread": 0,
        "unread_kinds": {},
        "unread_lines": [],
        "head": b"",
        "prefix": b"",
        "size": -1,
        "mtime": -1,
        "fed": 0,
    }


class _Indexer(TurnBuilder):
    """A :class:`TurnBuilder` that folds each line's turns into the state's columns instead of keeping them.

    Only the newest turn can be joined by a later line (the reader joins a piece to the turn
    its message id started only when that turn is the last), so only the newest turn's key is kept.
    """

    def __init__(self, st: State) -> None:
        super().__init__()
        self.st = st
        self.cols: Columns = st["cols"]
        self.begin(0, 0, False)

    def begin(self, off: int, length: int, side: bool) -> None:
        self.span = (off, length)
        self.side = side
        self.ordinal = 0
        self.touched: dict[int, tuple[int, Turn, bool]] = {}  # id(turn) -> (entry, turn, joined)
        self.spanned: set[int] = set()  # the entries this line is already a span of
        self.last_temp: Turn | None = None

    def _spans(self, idx: int, code: int) -> None:
        if idx in self.spanned:
            return  # the line is already one of the turn's (a result in the line that made it)
        self.spanned.add(idx)
        self.cols.add_span(idx, self.span[0], self.span[1], code, -1)

    def add(self, turn: Turn, key: str | None = None) -> Turn:
        self.fold()
        idx = self.cols.add(turn.role, turn.kind, self.side, turn.timestamp, turn.line or 0, turn.model)
        self._spans(idx, SPAN_START)
        self.touched[id(turn)] = (idx, turn, False)
        self.st["last_key"] = key or None
        models = self.st["models"]
        if turn.model and turn.model not in models and not turn.model.startswith("<"):
            models.append(turn.model)
        self.last_temp = None
        return turn

    def joined(self, key: str | None) -> Turn | None:
        if not key or key != self.st["last_key"]:
            return None
        idx = self.cols.count - 1
        temp = Turn(role=self.cols.open[O_ROLE])  # type: ignore[index]
        self.touched[id(temp)] = (idx, temp, True)
        self.last_temp = temp
        self._spans(idx, SPAN_JOIN)
        return temp

    def last(self) -> Turn | None:
        return self.last_temp

    def call(self, turn: Turn, call: Any) -> None:
        idx = self.touched[id(turn)][0]
        info = _call_info(call.name, call.args, False)
        at = self.cols.add_call(info.name, info.key, info.short_key)
        if call.id:
            self.st["calls"][call.id] = (idx, at)

    def result(
        self, call_id: str | None, output: ToolOutput, timestamp: str | None = None, line: int | None = None
    ) -> None:
        ordinal = self.ordinal
        self.ordinal += 1
        hit = self.st["calls"].get(call_id) if call_id else None
        if hit is not None:
            pair_result(self.cols, hit, output.is_error, self.spanned, *self.span)
            return
        self.fold()
        orphan_result(self.st, output.is_error, self.spanned, *self.span, ordinal, timestamp, line or 0)
        self.last_temp = None

    def fold(self) -> None:
        """Fold the turn the current line made or extended into the open entry (before a new entry closes it).

        The reader has set all of a turn's text by the time it starts another turn or reports a result.
        """
        touched, self.touched = self.touched, {}
        for idx, turn, is_piece in touched.values():
            e = self.cols.open
            assert e is not None and idx == self.cols.count - 1
            if is_piece:
                if turn.text:
                    e[O_TEXT] = joined(e[O_TEXT], turn.text)
                    e[O_RAW] = True
                if turn.thinking:
                    e[O_THINK] = joined(e[O_THINK], turn.thinking)
            else:
                e[O_KIND] = turn.kind
                e[O_TEXT] = flat(turn.text)
                e[O_RAW] = bool(turn.text)
                e[O_THINK] = flat(turn.thinking)
            e[O_ATT] += len(turn.attachments)


def feed(st: State, fh: Any, size: int, name: str) -> bool:
    """Read the file from ``st["end"]`` to ``size`` into the state (``end`` moves over whole lines only).

    Before a partly written last line, the state read so far is saved as index ``name`` (when it
    read any whole line); returns whether it was. The counts live in locals while the lines are
    read (a few million dictionary lookups fewer on a 1 GB session) and go back into ``st`` at the end.

    A line is decoded as a :class:`~.turnline.Line` (only the keys the pass reads), and read
    by :func:`~.turnfast.fast_reader` when it has a common shape; any other is decoded whole
    for the reader, and one the :class:`~.turnline.Line` refuses (not JSON, or a key of another type)
    is read as before it existed: decoded whole, unreadable, not a session line or read by the reader.
    """
    with open(fh.fileno(), "rb", buffering=READ_BUFFER, closefd=False) as lines:
        lines.seek(st["end"])
        return _feed(st, lines, size, name)


def _feed(st: State, fh: Any, size: int, name: str) -> bool:
    from .turnline import decode_line  # msgspec: loaded by the pass only

    ix = _Indexer(st)
    saved = False
    start = off = st["end"]
    first = lineno = st["lines"]
    facts = st["facts"]
    facts_left = [k for k in FACT_KEYS if k not in facts]
    reads, chat, side, skipped, unread = st["reads"], st["chat"], st["side"], st["skipped"], st["unread"]
    fast = fast_reader(st)
    decode = decode_line
    raw = b"\n"
    for raw in fh:
        length = len(raw)
        lineno += 1
        if not lineno & 4095:
            check_stop()
        if raw[-1] != 10 and off != start:  # a partly written last line: what was read before it is saved first
            st["end"], st["lines"], st["fed"] = off, lineno - 1, lineno - first
            st["reads"], st["chat"], st["side"], st["skipped"], st["unread"] = reads, chat, side, skipped, unread
            _seal(st, fh.fileno(), size)
            _save(st, name)
            saved = True
            fast = fast_reader(st)  # saving grouped the span rows into new arrays
        if raw[0] == 123 or not blank(raw, not off):  # 123: "{"
            rec: Any = None
            try:
                line: Line | None = decode(raw)
            except ValueError:
                line = None
                try:
                    rec = load_line(raw, not off)
                except ValueError:
                    rec = None
            if line is not None:
                kind: Any = line.type
                claude = line.is_claude()
            elif type(rec) is dict:
                kind = rec.get("type")
                claude = looks_like_claude(rec)
            else:
                st["malformed"] += 1
                if len(st["malformed_lines"]) < 10:
                    st["malformed_lines"].append(lineno)
                claude = None
            if claude is False:
                if rec is None:
                    rec = load_line(raw)
                unread += 1
                label = line_kind(rec)
                st["unread_kinds"][label] = st["unread_kinds"].get(label, 0) + 1
                if len(st["unread_lines"]) < 10:
                    st["unread_lines"].append(lineno)
            elif claude:
                if not reads and rec is not None and looks_like_old_codex(rec):
                    raise NotIndexed("an old Codex rollout")
                reads += 1
                if kind == "user" or kind == "assistant":
                    if not chat:
                        agent = line.agentId if line is not None else rec.get("agentId")
                        st["agent"] = str(agent or "yes")
                    chat += 1
                    if line.isSidechain if line is not None else rec.get("isSidechain"):
                        side += 1
                if facts_left:
                    for key in facts_left:
                        value = getattr(line, key) if line is not None else rec.get(key)
                        if isinstance(value, str):
                            facts[key] = value
                    facts_left = [k for k in FACT_KEYS if k not in facts]
                if kind in SKIPPED:
                    skipped += 1
                elif line is None or not fast(line, kind, lineno, off, length):
                    if rec is None:
                        rec = load_line(raw)
                    ix.begin(off, length, bool(rec.get("isSidechain")))
                    if not read_record(ix, rec, lineno, False):
                        skipped += 1
                    ix.fold()
        off += length
        if off >= size:
            break
    if raw[-1] == 10:
        st["end"], st["lines"] = off, lineno
    st["fed"] = lineno - first
    st["reads"], st["chat"], st["side"], st["skipped"], st["unread"] = reads, chat, side, skipped, unread
    return saved


def _seal(st: State, fd: int, size: int) -> None:
    """Record digests of the bytes the state has read, to tell later that they are unchanged."""
    end = st["end"]
    st["size"], st["mtime"] = size, os.fstat(fd).st_mtime_ns
    st["head"] = _digest(fd, 0, min(end, HASH_SPAN))
    st["prefix"] = _digest(fd, max(0, end - HASH_SPAN), end)


def _key_name(path: str, st: os.stat_result) -> str:
    name = hashlib.blake2b(f"{os.path.abspath(path)}:{st.st_dev}:{st.st_ino}".encode(), digest_size=12).hexdigest()
    return f"conv-{name}.idx"


def _digest(fd: int, start: int, end: int) -> bytes:
    return hashlib.blake2b(os.pread(fd, end - start, start), digest_size=16).digest()


def _save(st: State, name: str) -> None:
    """Save the state as index file ``name`` (the open entry closed to write it, and opened again)."""
    extra = {k: v for k, v in st.items() if k not in ("cols", "calls")}
    extra["calls"] = marshal.dumps(st["calls"])  # unpacked only to read an appended tail
    current_store().save_index(name, st["cols"].to_pieces(extra), prefix="conv-")
    st["cols"].reopen()


def _load(where: Path, fd: int, size: int) -> State | None:
    """The saved state when the bytes it read are still the file's first bytes (its columns read-only)."""
    try:
        data = where.read_bytes()
        cols, st = Columns.from_bytes(data, writable=False)
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return None
    if not isinstance(st, dict) or st.get("v") != VERSION or st["end"] > size:
        return None
    if st["size"] == size and st["mtime"] != os.fstat(fd).st_mtime_ns:
        return None  # written again at the same size: not an append
    end = st["end"]
    if st["head"] != _digest(fd, 0, min(end, HASH_SPAN)) or st["prefix"] != _digest(fd, max(0, end - HASH_SPAN), end):
        return None
    st["cols"], st["data"] = cols, data
    return st


def _writable(st: State) -> None:
    """Make a loaded state's columns writable and its newest entry open again, to read what was appended."""
    st["cols"] = Columns.from_bytes(st.pop("data"), writable=True)[0]
    st["cols"].reopen()
    st["calls"] = marshal.loads(st["calls"])


def index_session(path: str, fh: Any, stat: os.stat_result) -> State:
    """The index of the session open as ``fh``: the saved one, extended over what was appended, or a new one.

    Raises:
        NotIndexed: The file is not (mostly) a Claude Code session; read it whole instead.
    """
    fd = fh.fileno()
    size = stat.st_size
    name = _key_name(path, stat)
    st = _load(current_store().index_path(name), fd, size) or _fresh()
    saved_end = st["end"]
    saved = False
    st["fed"] = 0
    if st["end"] < size:
        head = os.pread(fd, 4096, st["end"]) if st["end"] == 0 else b"{"
        if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            raise NotIndexed("not JSON Lines")
        if "data" in st:
            _writable(st)
        saved = feed(st, fh, size, name)
    st.pop("data", None)
    if not st["reads"] or st["unread"] >= st["reads"] or not st["cols"].count:
        raise NotIndexed("not mostly Claude Code session lines")
    if st["end"] != saved_end and not saved:
        _seal(st, fd, size)
        _save(st, name)
    if isinstance(st["cols"].cols["entry"], array):
        st["cols"].close()
        st["cols"].sort_spans()
    return st
