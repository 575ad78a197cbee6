"""Streaming a command's output into a saved log: capped, line-counted, stderr lines recorded.

A :class:`LogSink` takes the bytes of stdout and stderr as they arrive and writes them
into ``Store.writer("log")`` in bounded memory. The log is capped at ``max_bytes``: the
first 7/8 go straight into the store, the rest through a ring file that keeps the last
1/8, copied in at the end after a line that records what was dropped. While writing it
counts the newlines of every 64 KiB chunk, so :func:`prime_line_index` can hand the line
index of a big log to :mod:`._lines` instead of rescanning it. If the store fails the sink
keeps the first ``HARD_CAP_BYTES`` in memory so the caller can still show them.
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
from array import array
from pathlib import Path
from typing import Any

from . import _lines
from ._budget import HARD_CAP_BYTES
from ._errors import StoreError
from ._lines import CHUNK
from ._store import Store, StoreWriter
from ._text import human_size

__all__ = ["LogSink", "prime_line_index"]

READ_SIZE = 1 << 20
PENDING_MAX = 64 << 10  # a partial line longer than this is written without waiting for its newline
MAX_STDERR_RANGES = 1000
QUEUE_BLOCKS = 8  # blocks (of at most a pipe read, 1 MiB) waiting to be written


class LogSink:
    """The saved log being written: the head straight into the store, the rest through a tail ring.

    Output is counted by lines (and stderr's line ranges recorded) while it fits the head,
    the first 7/8 of ``WUU_LOG_MAX_BYTES``; beyond that it goes to a ring file that keeps the
    last 1/8, copied into the log at the end after a line that records the drop. The newlines
    of every 64 KiB chunk of the saved log are counted as it is written (the line index
    :func:`~._logview.prime_line_index` hands on). A partial line is held back (up to
    :data:`PENDING_MAX`) so that stdout and stderr lines do not interleave mid-line.
    """

    def __init__(self, store: Store, max_bytes: int) -> None:
        self.store = store
        self.ring_cap = max(max_bytes // 8, 1024)
        self.head_cap = max_bytes - self.ring_cap - 1024  # room for the drop line
        self.writer: StoreWriter | None = None
        self.error: StoreError | None = None
        self._bg: _Background | None = None
        try:
            self.writer = store.writer("log")
            self._bg = _Background(self.writer)
        except StoreError as exc:
            self.error = exc
        self.memory = bytearray()  # the first HARD_CAP_BYTES, shown if the store fails
        self.size = 0
        self.newlines = 0  # newlines of the output while it is counted (not in the ring)
        self.ends_line = True
        self.head_ends_line = True
        self.ring: Any = None
        self.ring_pos = 0
        self.stderr: list[list[int]] = []  # saved-log line ranges that came from stderr
        self.ring_stderr: list[list[int]] = []  # [start, end) offsets of ring-bound stderr bytes
        self.pending: dict[int, bytes] = {1: b"", 2: b""}
        self.saved_size = 0
        self.saved_newlines = 0
        self.marks = array("q", [0])
        self.dropped_bytes = 0

    @property
    def saved_lines(self) -> int:
        """Lines of the saved log (of the output, when nothing went through the ring)."""
        if self.ring is None and self.writer is None:
            return self.newlines + (0 if self.ends_line else 1)
        return self.saved_newlines + (0 if self.ends_line or not self.saved_size else 1)

    def feed(self, stream: int, data: bytes) -> None:
        """Take bytes read from ``stream`` (1 stdout, 2 stderr)."""
        pend = self.pending[stream]
        if pend:
            data = pend + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            if len(data) < PENDING_MAX:
                self.pending[stream] = data
                return
            cut = len(data)
        self.pending[stream] = data[cut:] if cut < len(data) else b""
        self._emit(stream, data[:cut] if cut < len(data) else data)

    def flush(self) -> None:
        for stream in (1, 2):
            if self.pending[stream]:
                self._emit(stream, self.pending[stream])
                self.pending[stream] = b""

    def _emit(self, stream: int, data: bytes) -> None:
        if self.ring is None:
            n, k = -1, len(data)
            if self.writer is not None:
                try:
                    n, k = self._head(stream, data)
                except (StoreError, OSError) as exc:
                    self._fail(exc)
            if n < 0:
                n = data.count(b"\n")
            if stream == 2 and k:
                first = self.newlines + 1
                last = self.newlines + n + (0 if data[:k].endswith(b"\n") else 1)
                _add_range(self.stderr, first, last, 1)
            self.newlines += n
        else:
            try:
                self._ring_write(stream, data)
            except OSError as exc:
                self._fail(exc)
        self.size += len(data)
        self.ends_line = data.endswith(b"\n")
        if len(self.memory) < HARD_CAP_BYTES:
            self.memory += data[: HARD_CAP_BYTES - len(self.memory)]

    def _head(self, stream: int, data: bytes) -> tuple[int, int]:
        """Write ``data`` into the head of the log, opening the ring when it is full.

        Returns the newlines and the number of bytes that went into the head.
        """
        room = self.head_cap - self.size
        if len(data) <= room:
            return self._w(data), len(data)
        k = data.rfind(b"\n", 0, max(room, 0)) + 1 if room > 0 else 0
        n = self._w(data[:k]) if k else 0
        self.head_ends_line = k > 0 or self.ends_line
        self.ring = tempfile.TemporaryFile(dir=self.store.root / "tmp")  # noqa: SIM115 - closed in finish()
        self._ring_write(stream, data[k:])
        return n, k

    def _w(self, data: bytes) -> int:
        """Write ``data`` to the saved log; returns its newlines (counted per line-index chunk)."""
        assert self._bg is not None
        self._bg.put(data)
        total = 0
        i = 0
        while i < len(data):
            j = min(len(data), i + CHUNK - self.saved_size % CHUNK)
            n = data.count(b"\n", i, j)
            total += n
            self.saved_newlines += n
            self.saved_size += j - i
            if self.saved_size % CHUNK == 0:
                self.marks.append(self.saved_newlines)
            i = j
        return total

    def _ring_write(self, stream: int, data: bytes) -> None:
        """Append ``data`` to the ring (its stderr spans kept as offsets of the ring-bound stream)."""
        if stream == 2 and data:
            _add_range(self.ring_stderr, self.ring_pos, self.ring_pos + len(data), 0)
        mv = memoryview(data)
        fd = self.ring.fileno()
        while mv:
            off = self.ring_pos % self.ring_cap
            n = os.pwrite(fd, mv[: self.ring_cap - off], off)
            mv = mv[n:]
            self.ring_pos += n

    def _fail(self, exc: BaseException) -> None:
        self.error = exc if isinstance(exc, StoreError) else StoreError(f"cannot write the log: {exc}")
        self.abort()

    def abort(self) -> None:
        """Drop the log being written (nothing is saved)."""
        if self._bg is not None:
            self._bg.stop(raise_error=False)
            self._bg = None
        if self.writer is not None:
            self.writer.abort()
        self.writer = None

    def finish(self, meta: dict[str, Any]) -> str | None:
        """Close the log and return its reference (None when the store failed)."""
        self.flush()
        if self.writer is None:
            return None
        try:
            if self.ring is not None:
                self._copy_ring()
            meta.update(stderr_lines=self.stderr, bytes=self.size, dropped_bytes=self.dropped_bytes)
            assert self._bg is not None
            self._bg.stop()
            self._bg = None
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
                    lead = b"" if self.head_ends_line else b"\n"
                    self._w(
                        lead
                        + f"[wuu: {human_size(dropped)} of output dropped here: the log keeps its first "
                        f"{human_size(self.head_cap)} and last {human_size(self.ring_cap)} "
                        "(WUU_LOG_MAX_BYTES)]\n".encode()
                    )
                self._stderr_lines(block, offset - len(block))
                self._w(block)
        self.dropped_bytes = dropped

    def _stderr_lines(self, block: bytes, at: int) -> None:
        """Record the saved-log lines of ``block`` (ring-stream offset ``at``) that came from stderr."""
        for a, b in self.ring_stderr:
            lo, hi = max(a, at), min(b, at + len(block))
            if lo >= hi:
                continue
            first = self.saved_newlines + block.count(b"\n", 0, lo - at) + 1
            last = self.saved_newlines + block.count(b"\n", 0, hi - at - 1) + 1
            _add_range(self.stderr, first, last, 1)


def _add_range(ranges: list[list[int]], first: int, last: int, gap: int) -> None:
    """Append ``[first, last]`` to sorted ``ranges``, merging it with the last one when they touch."""
    if ranges and ranges[-1][1] >= first - gap:
        ranges[-1][1] = max(ranges[-1][1], last)
    elif len(ranges) < MAX_STDERR_RANGES:
        ranges.append([first, last])


class _Background(threading.Thread):
    """Writes (and so hashes) the log's bytes beside the reading thread: blake2b and file writes release the GIL."""

    def __init__(self, writer: StoreWriter) -> None:
        super().__init__(name="wuu-log-writer", daemon=True)
        self.writer = writer
        self.queue: queue.Queue[bytes | None] = queue.Queue(maxsize=QUEUE_BLOCKS)
        self.error: BaseException | None = None
        self._stopped = False
        self.start()

    def run(self) -> None:
        while True:
            data = self.queue.get()
            if data is None:
                return
            if self.error is None:
                try:
                    self.writer.write(data)
                except BaseException as exc:  # handed to the reading thread by put() or stop()
                    self.error = exc

    def put(self, data: bytes) -> None:
        """Queue ``data`` for writing; raises the error a previous write met."""
        if self.error is not None:
            raise self.error
        self.queue.put(data)

    def stop(self, raise_error: bool = True) -> None:
        """Write what is queued and end the thread; raise the error a write met (unless told not to)."""
        if not self._stopped:
            self._stopped = True
            self.queue.put(None)  # the thread runs until it takes this, so the put cannot block for ever
            self.join()
        if raise_error and self.error is not None:
            raise self.error


def prime_line_index(path: Path, marks: array, newlines: int, size: int) -> None:
    """Hand the line index counted while writing the log to :mod:`._lines`, so the first view need not rescan it."""
    if size >= _lines.DISK_CACHE_MIN:
        _lines.prime_index(path, marks, newlines)


# -- the view ---------------------------------------------------------------------------------
