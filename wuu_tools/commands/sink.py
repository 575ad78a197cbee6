"""Streaming a command's output into a saved log: capped, line-counted, stderr lines recorded.

A :class:`LogSink` takes the bytes of stdout and stderr as they arrive and writes them
into a record of the store (``Store.writer("log", record=True)``: named by a random id, not
hashed) in bounded memory. The log is capped at ``max_bytes``: the first 7/8 go straight
into the store, the rest through a ring file that keeps the last 1/8, copied in at the end
after a line that records what was dropped. While writing the head it counts the newlines
of every 64 KiB chunk, so :func:`prime_line_index` can hand the line index of a big log to
:mod:`wuu_tools.core.lineindex` instead of rescanning it. Bytes bound for the ring are not counted until the
end, so on Linux they move from the pipe into the ring in the kernel (:meth:`LogSink.splice`),
unread; a spliced piece may end mid-line, and then the other stream's lines wait for that
line's end. If the store fails the sink keeps the first ``HARD_CAP_BYTES`` in memory so the
caller can still show them, and, once the store has failed, the last :data:`TAIL_BYTES` too
(where a failure printed at the end is).

Everything happens in the reading thread: on a small machine a writer thread beside it
(writing while the next block is read) measured slower, the GIL hand-offs and wake-ups
costing more than the overlap gained.
"""

from __future__ import annotations

import errno
import os
import tempfile
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ..core.budget import HARD_CAP_BYTES
from ..core.errors import StoreError
from ..core.lineindex import DISK_CACHE_MIN, prime_index
from ..core.lines import CHUNK
from ..core.store import Store, StoreWriter
from ..core.text import clean_terminal, human_size

__all__ = ["LogSink", "prime_line_index", "watch"]

READ_SIZE = 1 << 20
PENDING_MAX = 64 << 10  # a partial line longer than this is written without waiting for its newline
MAX_STDERR_RANGES = 1000
TAIL_BYTES = 16 << 10  # the end of the output kept in memory once the store has failed
RING_BATCH = 256 << 10  # ring-bound bytes gathered before they are written (one pwritev) ...
RING_BATCH_PIECES = 256  # ... or this many pieces (under any IOV_MAX)
_PWRITEV = hasattr(os, "pwritev")
_SPLICE = hasattr(os, "splice")  # Linux: pipe to file in the kernel
_NONBLOCK = getattr(os, "SPLICE_F_NONBLOCK", 0)

Bytes = bytes | bytearray

_watcher: ContextVar[Callable[[LogSink], None] | None] = ContextVar("wuu_log_watcher", default=None)


@contextmanager
def watch(callback: Callable[[LogSink], None]) -> Iterator[None]:
    """Hand every :class:`LogSink` opened in this context to ``callback`` as its command starts.

    This is the progress hook of a live status (``wuu run`` at a terminal): the watcher reads
    :attr:`LogSink.size`, :attr:`LogSink.newlines` and :meth:`LogSink.recent_line` from its own
    thread, so the reading loop does no more work for it than keep a reference to its last read.
    """
    token = _watcher.set(callback)
    try:
        yield
    finally:
        _watcher.reset(token)


class LogSink:
    """The saved log being written: the head straight into the store, the rest through a tail ring.

    Output is counted by lines (and stderr's line ranges recorded) while it fits the head,
    the first 7/8 of ``WUU_LOG_MAX_BYTES``; beyond that it goes to a ring file that keeps the
    last 1/8, copied into the log at the end after a line that records the drop. The newlines
    of every 64 KiB chunk of the saved log are counted as it is written (the line index
    :func:`prime_line_index` hands on). A partial line is held back (up to
    :data:`PENDING_MAX`) so that stdout and stderr lines do not interleave mid-line.
    """

    def __init__(self, store: Store, max_bytes: int, *, record: bool = True) -> None:
        self.store = store
        self.ring_cap = max(max_bytes // 8, 1024)
        self.head_cap = max_bytes - self.ring_cap - 1024  # room for the drop line
        self.writer: StoreWriter | None = None
        self.error: StoreError | None = None
        try:
            self.writer = store.writer("log", record=record)
        except StoreError as exc:
            self.error = exc
        self.memory = bytearray()  # the first HARD_CAP_BYTES, shown if the store fails
        self.tail = bytearray()  # once the store failed: the last TAIL_BYTES (at most twice that while kept)
        self.size = 0
        self.newlines = 0  # newlines of the output while it is counted (not in the ring)
        self.ends_line = True
        self.head_ends_line = True
        self.ring: Any = None
        self.ring_pos = 0  # bytes sent to the ring so far, the batch not yet written included
        self.batch: list[memoryview] = []  # ring-bound bytes not written yet (one pwritev for many reads)
        self.batch_size = 0
        self.stderr: list[list[int]] = []  # saved-log line ranges that came from stderr
        self.ring_stderr: list[list[int]] = []  # [start, end) offsets of ring-bound stderr bytes
        self.pending: dict[int, bytes] = {1: b"", 2: b""}
        self.open: int | None = None  # the stream whose spliced bytes may end mid-line in the ring
        self.held: list[tuple[int, bytes]] = []  # the other stream's bytes, waiting for that line's end
        self.held_size = 0
        self.can_splice = _SPLICE
        self.saved_size = 0
        self.saved_newlines = 0
        self.marks = array("q", [0])
        self.dropped_bytes = 0
        self.last: tuple[Bytes, int] = (b"", 0)  # the latest read and its length, for a live status
        self.finished = False  # the command ended and the log is being closed
        watcher = _watcher.get()
        if watcher is not None:
            watcher(self)

    def recent_line(self) -> str:
        """The last line of output read so far, as a person saw it (a best effort, for a status line).

        Safe to call from another thread: the reading loop may refill its buffer meanwhile, and
        then the line shown is a mix of two reads, never an error.
        """
        data, end = self.last
        chunk = bytes(data[max(0, end - 2048) : end]).rstrip(b"\r\n")
        line = clean_terminal(chunk[chunk.rfind(b"\n") + 1 :].decode("utf-8", "replace"))
        return "".join(c if c.isprintable() else " " for c in line).strip()

    @property
    def saved_lines(self) -> int:
        """Lines of the saved log (of the output, when nothing went through the ring)."""
        if self.ring is None and self.writer is None:
            return self.newlines + (0 if self.ends_line else 1)
        return self.saved_newlines + (0 if self.ends_line or not self.saved_size else 1)

    def feed(self, stream: int, data: Bytes, end: int | None = None) -> None:
        """Take ``data[:end]``, read from ``stream`` (1 stdout, 2 stderr); ``data`` may be reused after the call."""
        if end is None:
            end = len(data)
        self.last = (data, end)
        if self.open is not None and end and not self._close_open_line(stream, bytes(data[:end])):
            return
        pend = self.pending[stream]
        cut = data.rfind(b"\n", 0, end) + 1
        if cut == 0:
            if len(pend) + end < PENDING_MAX:
                self.pending[stream] = pend + data[:end]
                return
            cut = end
        if pend:  # the start of the line ``data`` goes on with: nothing comes between them
            self._emit(stream, pend, len(pend))
        self.pending[stream] = bytes(data[cut:end]) if cut < end else b""
        self._emit(stream, data, cut)

    def splice(self, stream: int, fd: int) -> int:
        """Move what waits in the pipe ``fd`` (of ``stream``) into the ring without reading it.

        Returns the bytes moved (0 at the end of the stream), or -1 when they must be read and
        fed instead: before the head is full, where ``splice`` is missing, or while the other
        stream's lines wait for the end of a line this stream left open in the ring. Bytes
        beyond the head are never counted until the end, so most of a long output goes from the
        pipe to the ring in the kernel.
        """
        if self.ring is None or not self.can_splice or self.held or self.open not in (None, stream):
            return -1
        pend = self.pending[stream]
        if pend:  # the start of the line the spliced bytes go on with
            self.pending[stream] = b""
            self._emit(stream, pend, len(pend))
        if self.batch:
            self._ring_flush()
        total = 0
        flags = 0
        while total < READ_SIZE:
            off = self.ring_pos % self.ring_cap
            want = min(READ_SIZE - total, self.ring_cap - off)
            try:
                n = os.splice(fd, self.ring.fileno(), want, offset_dst=off, flags=flags)
            except BlockingIOError:  # nothing more waiting
                break
            except OSError as exc:
                if total:  # the next call meets the error again, and reports it
                    break
                if exc.errno in (errno.EINVAL, errno.ENOSYS):  # not spliceable here: read instead from now on
                    self.can_splice = False
                    return -1
                self._fail(exc)
                return -1
            if n == 0:  # the end of the stream (the caller says so: :meth:`ended`)
                break
            if stream == 2:
                _add_range(self.ring_stderr, self.ring_pos, self.ring_pos + n, 0)
            self.ring_pos += n
            self.size += n
            total += n
            self.open = stream  # it may end mid-line: unknown until looked at
            if n < want:
                break
            # Stopped at the ring's end: what already waits goes on at its start now. Left for the
            # next round, it would land after the other stream's lines read meanwhile, though it
            # was written before them.
            flags = _NONBLOCK
        return total

    def ended(self, stream: int) -> None:
        """``stream`` closed: a line it left open in the ring is over, and the other's lines go on."""
        if self.open == stream:
            self._release()

    def _close_open_line(self, stream: int, data: bytes) -> bool:
        """Whether ``data`` of ``stream`` can go on as usual after the spliced line left open in the ring.

        The other stream's bytes wait (up to :data:`PENDING_MAX`) until that line's newline is
        read; ``stream``'s own bytes up to their first newline close it.
        """
        if self.open == stream:
            k = data.find(b"\n") + 1
            self._emit(stream, data, k or len(data))
            if not k:
                return False
            self._release()  # the line is over: the other stream's lines follow it
            if k < len(data):
                self.feed(stream, data[k:])
            return False
        if self.open is not None and self._ring_ends_line():
            self.open = None
            return True
        self.held.append((stream, data))
        self.held_size += len(data)
        if self.held_size >= PENDING_MAX:  # waited long enough: the lines interleave
            self._release()
        return False

    def _ring_ends_line(self) -> bool:
        if self.batch:
            self._ring_flush()
        if self.ring_pos == 0:
            return True
        return os.pread(self.ring.fileno(), 1, (self.ring_pos - 1) % self.ring_cap) == b"\n"

    def _release(self) -> None:
        """Write the other stream's waiting bytes now (after the open line, whether it ended or not)."""
        held, self.held, self.held_size, self.open = self.held, [], 0, None
        for other, piece in held:
            self.feed(other, piece)

    def flush(self) -> None:
        if self.held:
            self._release()
        for stream in (1, 2):
            pend = self.pending[stream]
            if pend:
                self.pending[stream] = b""
                self._emit(stream, pend, len(pend))

    def _emit(self, stream: int, data: Bytes, end: int) -> None:
        """Write ``data[:end]`` of ``stream`` into the log."""
        if self.ring is None:
            n, k = -1, end
            if self.writer is not None:
                try:
                    n, k = self._head(stream, data, end)
                except (StoreError, OSError) as exc:
                    self._fail(exc)
            if n < 0:
                n = data.count(b"\n", 0, end)
            if stream == 2 and k:
                first = self.newlines + 1
                last = self.newlines + n + (0 if data.endswith(b"\n", 0, k) else 1)
                _add_range(self.stderr, first, last, 1)
            self.newlines += n
        else:
            try:
                self._ring_write(stream, memoryview(data)[:end])
            except OSError as exc:
                self._fail(exc)
        self.size += end
        self.ends_line = data.endswith(b"\n", 0, end)
        if len(self.memory) < HARD_CAP_BYTES:
            self.memory += data[: min(end, HARD_CAP_BYTES - len(self.memory))]
        if self.writer is None:  # nothing is saved: keep the end of the output in memory, bounded
            self.tail += data[max(0, end - TAIL_BYTES) : end]
            if len(self.tail) > 2 * TAIL_BYTES:
                del self.tail[:-TAIL_BYTES]

    def _head(self, stream: int, data: Bytes, end: int) -> tuple[int, int]:
        """Write ``data[:end]`` into the head of the log, opening the ring when it is full.

        Returns the newlines and the number of bytes that went into the head.
        """
        room = self.head_cap - self.size
        if end <= room:
            return self._w(data, 0, end), end
        k = data.rfind(b"\n", 0, max(room, 0)) + 1 if room > 0 else 0
        n = self._w(data, 0, k) if k else 0
        self.head_ends_line = k > 0 or self.ends_line
        self.ring = tempfile.TemporaryFile(dir=self.store.root / "tmp")  # noqa: SIM115 - closed in finish()
        self._ring_write(stream, memoryview(data)[k:end])
        return n, k

    def _w(self, data: Bytes, start: int = 0, end: int | None = None) -> int:
        """Write ``data[start:end]`` to the saved log; returns its newlines (counted per line-index chunk)."""
        assert self.writer is not None
        end = len(data) if end is None else end
        self.writer.write(data if start == 0 and end == len(data) else memoryview(data)[start:end])
        total = 0
        i = start
        while i < end:
            j = min(end, i + CHUNK - self.saved_size % CHUNK)
            n = data.count(b"\n", i, j)
            total += n
            self.saved_newlines += n
            self.saved_size += j - i
            if self.saved_size % CHUNK == 0:
                self.marks.append(self.saved_newlines)
            i = j
        return total

    def _ring_write(self, stream: int, data: memoryview) -> None:
        """Append ``data`` to the ring (its stderr spans kept as offsets of the ring-bound stream).

        Reads of a fast writer are small when the reader keeps up; they are gathered into
        batches of :data:`RING_BATCH` bytes, each written with one ``pwritev``.
        """
        if not data:
            return
        if isinstance(data.obj, bytearray):  # a read buffer that will be reused: the batch keeps a copy
            data = memoryview(bytes(data))
        if stream == 2:
            _add_range(self.ring_stderr, self.ring_pos, self.ring_pos + len(data), 0)
        self.batch.append(data)
        self.batch_size += len(data)
        self.ring_pos += len(data)
        if self.batch_size >= RING_BATCH or len(self.batch) >= RING_BATCH_PIECES:
            self._ring_flush()

    def _ring_flush(self) -> None:
        """Write the batch into the ring file, wrapping at its end."""
        fd = self.ring.fileno()
        batch, pos = self.batch, self.ring_pos - self.batch_size
        self.batch, self.batch_size = [], 0
        i = 0
        while i < len(batch):
            off = pos % self.ring_cap
            room = self.ring_cap - off
            group: list[memoryview] = []
            size = 0
            while i < len(batch) and size < room:
                piece = batch[i]
                if size + len(piece) > room:  # the ring's end: the rest goes to its start
                    group.append(piece[: room - size])
                    batch[i] = piece[room - size :]
                    size = room
                    break
                group.append(piece)
                size += len(piece)
                i += 1
            _pwrite_all(fd, group, size, off)
            pos += size

    def _fail(self, exc: BaseException) -> None:
        self.error = exc if isinstance(exc, StoreError) else StoreError(f"cannot write the log: {exc}")
        self.abort()

    def abort(self) -> None:
        """Drop the log being written (nothing is saved)."""
        if self.writer is not None:
            self.writer.abort()
        self.writer = None

    def finish(self, meta: dict[str, Any]) -> str | None:
        """Close the log and return its reference (None when the store failed)."""
        self.finished = True
        self.flush()
        if self.writer is None:
            return None
        try:
            if self.ring is not None:
                self._copy_ring()
            meta.update(stderr_lines=self.stderr, bytes=self.size, dropped_bytes=self.dropped_bytes)
            self.writer.meta.update(meta)
            ref = self.writer.close()
        except (StoreError, OSError) as exc:
            self._fail(exc)
            return None
        finally:
            if self.ring is not None:
                self.ring.close()
        prime_line_index(self.store.path(ref), self.marks, self.saved_newlines, self.saved_size)
        return ref

    def _copy_ring(self) -> None:
        """Append the ring's bytes in order; when it wrapped, first a line that records the drop."""
        self.ends_line = self._ring_ends_line()  # the ring ends where the output ends
        fd = self.ring.fileno()
        total = self.ring_pos
        wrapped = total > self.ring_cap
        pos = total % self.ring_cap if wrapped else 0
        spans = [(pos, self.ring_cap), (0, pos)] if wrapped else [(0, total)]
        offset = total - self.ring_cap if wrapped else 0  # ring-stream offset of the next byte read
        skipping = wrapped
        dropped = self.size - self.saved_size - self.ring_cap if wrapped else 0
        for start, end in spans:
            while start < end:
                block = os.pread(fd, min(READ_SIZE, end - start), start)
                start += len(block)
                offset += len(block)
                if skipping:  # the kept tail starts at a whole line
                    k = block.find(b"\n") + 1
                    dropped += k or len(block)
                    if not k:
                        continue
                    block = block[k:]
                    skipping = False
                    self._drop_line(dropped)
                self._stderr_lines(block, offset - len(block))
                self._w(block)
        if skipping:  # the ring held no line end: all of it is dropped
            self._drop_line(dropped)
            self.ends_line = True
        self.dropped_bytes = dropped

    def _drop_line(self, dropped: int) -> None:
        lead = b"" if self.head_ends_line else b"\n"
        self._w(
            lead
            + f"[wuu: {human_size(dropped)} of output dropped here: the log keeps its first "
            f"{human_size(self.head_cap)} and last {human_size(self.ring_cap)} "
            "(WUU_LOG_MAX_BYTES)]\n".encode()
        )

    def _stderr_lines(self, block: bytes, at: int) -> None:
        """Record the saved-log lines of ``block`` (ring-stream offset ``at``) that came from stderr."""
        for a, b in self.ring_stderr:
            lo, hi = max(a, at), min(b, at + len(block))
            if lo >= hi:
                continue
            first = self.saved_newlines + block.count(b"\n", 0, lo - at) + 1
            last = self.saved_newlines + block.count(b"\n", 0, hi - at - 1) + 1
            _add_range(self.stderr, first, last, 1)


def _pwrite_all(fd: int, pieces: list[memoryview], size: int, offset: int) -> None:
    """Write ``pieces`` (``size`` bytes in all) at ``offset`` of ``fd``."""
    done = os.pwritev(fd, pieces, offset) if _PWRITEV and len(pieces) > 1 else os.pwrite(fd, pieces[0], offset)
    if done < size:  # a short write (or no pwritev): the rest as one buffer
        rest = memoryview(b"".join(pieces))[done:]
        while rest:
            n = os.pwrite(fd, rest, offset + done)
            rest = rest[n:]
            done += n


def _add_range(ranges: list[list[int]], first: int, last: int, gap: int) -> None:
    """Append ``[first, last]`` to sorted ``ranges``, merging it with the last one when they touch."""
    if ranges and ranges[-1][1] >= first - gap:
        ranges[-1][1] = max(ranges[-1][1], last)
    elif len(ranges) < MAX_STDERR_RANGES:
        ranges.append([first, last])


def prime_line_index(path: Path, marks: array, newlines: int, size: int) -> None:
    """Hand the line index counted while writing the log to :mod:`~wuu_tools.core.lineindex` (no rescan later)."""
    if size >= DISK_CACHE_MIN:
        prime_index(path, marks, newlines)


# -- the view ---------------------------------------------------------------------------------
