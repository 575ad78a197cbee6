"""The turn index of a large Claude Code session: one streaming pass, kept on disk, extended as the file grows.

One pass reads the session line by line through the Claude Code reader itself
(:func:`.claude.read_record`), but keeps no turn: each turn becomes a small entry (role,
kind, time, flattened text cut to :data:`~.turninfo.TEXT_KEEP`, its calls' names, key
arguments and failure marks) and the byte spans of the lines it is made of: the line that
starts it, the lines with the same ``message.id`` joined to it, and the lines whose tool
results came back for its calls. A view decodes a turn from those spans alone (:mod:`.lazy`).

The whole state of the pass (entries, message ids, call ids, facts, counts) is saved in the
store's ``index/`` folder, keyed by the file (device, inode, path), with the offset of the
last whole line it read and digests of the file's first 64 KiB and of the 64 KiB before that
offset (and the file's size and mtime: a file written again at the same size is not an append).
A file whose indexed prefix is unchanged is read only after it: an append-only
session (a live one) costs its new lines; a partly written last line is read on every call,
never saved. Anything else (the file rewritten, shrunk) is indexed again from the start.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
from pathlib import Path
from typing import Any

from ..core.cancel import check_stop
from ..core.store import current_store
from .claude import looks_like_claude, read_record
from .codex import looks_like_old_codex
from .kinds import line_kind
from .model import ToolOutput, Turn, TurnBuilder
from .turninfo import TEXT_KEEP, flat
from .turninfo import call_info as _call_info

__all__ = ["SPAN_JOIN", "SPAN_ORPHAN", "SPAN_RESULTS", "SPAN_START", "NotIndexed", "State", "index_session"]

VERSION = 1
HASH_SPAN = 64 * 1024
SPAN_START, SPAN_JOIN, SPAN_RESULTS, SPAN_ORPHAN = 0, 1, 2, 3
# An entry: [role, kind, sidechain, timestamp, line, text, thinking, attachments, calls, spans, raw_text, model]
ROLE, KIND, SIDE, TS, LINE, TEXT, THINK, ATT, CALLS, SPANS, RAW, MODEL = range(12)
# A call: [name, key (60), short key (36), failed, has_output]
State = dict[str, Any]


class NotIndexed(Exception):
    """The file is not a Claude Code session the index can stand for (the whole-file reader decides)."""


def _fresh() -> State:
    return {
        "v": VERSION,
        "end": 0,
        "lines": 0,
        "entries": [],
        "keyed": {},
        "calls": {},
        "last": -1,
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


_ELSEWHERE = Turn(role="assistant")  # what ``joined`` returns for a message id whose turn is not the last


class _Indexer(TurnBuilder):
    """A :class:`TurnBuilder` that folds each line's turns into the state's entries instead of keeping them."""

    def __init__(self, st: State) -> None:
        super().__init__()
        self.st = st
        self.entries: list[list[Any]] = st["entries"]
        self.begin(0, 0, False)

    def begin(self, off: int, length: int, side: bool) -> None:
        self.span = (off, length)
        self.side = side
        self.ordinal = 0
        self.touched: dict[int, tuple[int, Turn, bool]] = {}  # id(turn) -> (entry, turn, joined)
        self.last_temp: Turn | None = None

    def _spans(self, idx: int, code: int, ordinal: int = -1) -> None:
        spans = self.entries[idx][SPANS]
        if spans and spans[-1][0] == self.span[0]:
            return  # the line is already one of the turn's (a result in the line that made it)
        spans.append([self.span[0], self.span[1], code, ordinal])

    def add(self, turn: Turn, key: str | None = None) -> Turn:
        idx = len(self.entries)
        e = [turn.role, turn.kind, self.side, turn.timestamp, turn.line, "", "", 0, [], [], False, turn.model]
        e[SPANS].append([self.span[0], self.span[1], SPAN_START, -1])
        self.entries.append(e)
        self.touched[id(turn)] = (idx, turn, False)
        if key:
            self.st["keyed"][key] = idx
        models = self.st["models"]
        if turn.model and turn.model not in models and not turn.model.startswith("<"):
            models.append(turn.model)
        self.st["last"] = idx
        self.last_temp = None
        return turn

    def joined(self, key: str | None) -> Turn | None:
        idx = self.st["keyed"].get(key) if key else None
        if idx is None:
            return None
        if idx != self.st["last"]:
            return _ELSEWHERE
        temp = Turn(role=self.entries[idx][ROLE])
        self.touched[id(temp)] = (idx, temp, True)
        self.last_temp = temp
        self._spans(idx, SPAN_JOIN)
        return temp

    def last(self) -> Turn | None:
        return self.last_temp

    def call(self, turn: Turn, call: Any) -> None:
        idx = self.touched[id(turn)][0]
        calls = self.entries[idx][CALLS]
        info = _call_info(call.name, call.args, False)
        calls.append([info.name, info.key, info.short_key, False, False])
        if call.id:
            self.st["calls"][call.id] = [idx, len(calls) - 1]

    def result(
        self, call_id: str | None, output: ToolOutput, timestamp: str | None = None, line: int | None = None
    ) -> None:
        ordinal = self.ordinal
        self.ordinal += 1
        hit = self.st["calls"].get(call_id) if call_id else None
        if hit is not None:
            c = self.entries[hit[0]][CALLS][hit[1]]
            c[3] = output.is_error if not c[4] else c[3] or output.is_error
            c[4] = True
            self._spans(hit[0], SPAN_RESULTS)
            return
        e = ["tool", "", False, timestamp, line, "", "", 0, [["(result)", "", "", output.is_error, True]], [], False]
        e.append(None)
        e[SPANS].append([self.span[0], self.span[1], SPAN_ORPHAN, ordinal])
        self.entries.append(e)
        self.st["last"] = len(self.entries) - 1
        self.last_temp = None

    def fold(self) -> None:
        """Fold the turns the current line made or extended into their entries."""
        for idx, turn, joined in self.touched.values():
            e = self.entries[idx]
            if joined:
                if turn.text:
                    e[TEXT] = " ".join(x for x in (e[TEXT], flat(turn.text)) if x)[:TEXT_KEEP]
                    e[RAW] = True
                if turn.thinking:
                    e[THINK] = " ".join(x for x in (e[THINK], flat(turn.thinking)) if x)[:TEXT_KEEP]
            else:
                e[KIND] = turn.kind
                e[TEXT] = flat(turn.text)
                e[RAW] = bool(turn.text)
                e[THINK] = flat(turn.thinking)
            e[ATT] += len(turn.attachments)


_decode = json.JSONDecoder().decode


def load_line(raw: bytes) -> Any:
    try:
        return _decode(raw.decode("utf-8"))
    except ValueError:  # not UTF-8 (the whole-file reader decodes with replacement), or not JSON
        return json.loads(raw.decode("utf-8", "replace").lstrip("\ufeff"))


def feed(st: State, fh: Any, size: int) -> bytes | None:
    """Read the file from ``st["end"]`` to ``size`` into the state (``end`` moves over whole lines only).

    Returns the state as it was before a partly written last line (marshalled, to be saved), if there is one.
    """
    ix = _Indexer(st)
    snapshot = None
    fh.seek(st["end"])
    off = st["end"]
    lineno = st["lines"]
    facts = st["facts"]
    st["fed"] = 0
    for n, raw in enumerate(fh):
        if n % 4096 == 0:
            check_stop()
        st["fed"] = n + 1
        length = len(raw)
        lineno += 1
        whole = raw.endswith(b"\n")
        if not whole:
            _seal(st, fh.fileno(), size)
            snapshot = marshal.dumps(st)
        if raw[:1] == b"{" or raw.strip():
            try:
                rec = load_line(raw)
            except ValueError:
                rec = None
            if not isinstance(rec, dict):
                st["malformed"] += 1
                if len(st["malformed_lines"]) < 10:
                    st["malformed_lines"].append(lineno)
            elif not looks_like_claude(rec):
                st["unread"] += 1
                kind = line_kind(rec)
                st["unread_kinds"][kind] = st["unread_kinds"].get(kind, 0) + 1
                if len(st["unread_lines"]) < 10:
                    st["unread_lines"].append(lineno)
            else:
                if st["reads"] == 0 and looks_like_old_codex(rec):
                    raise NotIndexed("an old Codex rollout")
                st["reads"] += 1
                if rec.get("type") in ("user", "assistant"):
                    if st["chat"] == 0:
                        st["agent"] = str(rec.get("agentId") or "yes")
                    st["chat"] += 1
                    st["side"] += bool(rec.get("isSidechain"))
                for key in ("cwd", "gitBranch", "version"):
                    if key not in facts and isinstance(rec.get(key), str):
                        facts[key] = rec[key]
                ix.begin(off, length, bool(rec.get("isSidechain")))
                if not read_record(ix, rec, lineno, False):
                    st["skipped"] += 1
                ix.fold()
        off += length
        if whole:
            st["end"], st["lines"] = off, lineno
        if off >= size:
            break
    return snapshot


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


def _load(where: Path, fd: int, size: int) -> State | None:
    """The saved state when the bytes it read are still the file's first bytes."""
    try:
        st = marshal.loads(where.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(st, dict) or st.get("v") != VERSION or st["end"] > size:
        return None
    if st["size"] == size and st["mtime"] != os.fstat(fd).st_mtime_ns:
        return None  # written again at the same size: not an append
    end = st["end"]
    if st["head"] != _digest(fd, 0, min(end, HASH_SPAN)) or st["prefix"] != _digest(fd, max(0, end - HASH_SPAN), end):
        return None
    return st


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
    snapshot = None
    st["fed"] = 0
    if st["end"] < size:
        head = os.pread(fd, 4096, st["end"]) if st["end"] == 0 else b"{"
        if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            raise NotIndexed("not JSON Lines")
        snapshot = feed(st, fh, size)
    if not st["reads"] or st["unread"] >= st["reads"] or not st["entries"]:
        raise NotIndexed("not mostly Claude Code session lines")
    if st["end"] != saved_end:
        if snapshot is None:
            _seal(st, fd, size)
            snapshot = marshal.dumps(st)
        current_store().save_index(name, snapshot, prefix="conv-")
    return st
