"""Finding the evidence lines of a saved log fast, in bounded memory.

:func:`scan_log` hands every candidate line (one holding an :data:`~._evidence.KEYS`
literal) to a :class:`~.evidence.Collector`. Candidates are found by ``grep -F`` when it is
installed (several times faster than Python's ``re`` on large logs) and by
:data:`~._evidence.PREFILTER` in Python otherwise; both give the same lines. A log of up to
:data:`SCAN_ALL_BYTES` is searched whole; a larger one in its first :data:`SCAN_HEAD_BYTES`
and last :data:`SCAN_TAIL_BYTES` (the scan says which lines), and at most
:data:`MAX_CANDIDATES` candidate lines are classified.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.lines import CHUNK, LineFile, decode_line
from .evidence import KEYS, PREFILTER, Collector

__all__ = ["MAX_CANDIDATES", "SCAN_ALL_BYTES", "Scan", "scan_log"]

SCAN_ALL_BYTES = 64 << 20
"""Logs up to this size are searched whole for evidence; larger ones in their first and last stretches."""
SCAN_HEAD_BYTES = 8 << 20
SCAN_TAIL_BYTES = 24 << 20
BLOCK = 1 << 20
MAX_CANDIDATES = 100_000  # candidate lines classified at most (a log of nothing but "error" lines)
MAX_LINE_SCAN = 4096  # characters of one line that are classified
_GREP = shutil.which("grep")


@dataclass
class Scan:
    """What a scan of a log found: the evidence collector and the line ranges searched."""

    collector: Collector
    searched: list[tuple[int, int]] = field(default_factory=list)
    whole: bool = True
    capped_at: int = 0  # the line where the search stopped after MAX_CANDIDATES lines (0: it did not)


def scan_log(lf: LineFile) -> Scan:
    """Search ``lf`` for evidence and summary lines, in bounded memory.

    Candidate lines are found with ``grep -F`` (fast, when it is installed) or with
    :data:`~._evidence.PREFILTER` in Python, then classified by :mod:`.evidence`.
    """
    size = lf.size
    scan = Scan(Collector())
    if size <= SCAN_ALL_BYTES:
        windows = [(0, size, 0)]
        scan.searched = [(1, lf.total_lines)]
    else:
        scan.whole = False
        start = (size - SCAN_TAIL_BYTES) // CHUNK * CHUNK
        head_lines = lf.index.marks[SCAN_HEAD_BYTES // CHUNK]
        tail_before = lf.index.marks[start // CHUNK]
        windows = [(0, SCAN_HEAD_BYTES, 0), (start, size, tail_before)]
        scan.searched = [(1, head_lines), (tail_before + 2, lf.total_lines)]
    taken = 0  # candidate lines classified so far
    with open(lf.path, "rb", buffering=0) as fh:
        for start, end, before in windows:
            partial = start > 0 and os.pread(fh.fileno(), 1, start - 1) != b"\n"
            found = _grep(fh.fileno(), start, end, size, lf.index.marks) if _GREP else None
            if found is None:
                found = _python_scan(fh.fileno(), start, end, size)
            if partial and found and found[0][0] == 1:
                found = found[1:]
            for rel, raw in found[: MAX_CANDIDATES - taken]:
                scan.collector.add(before + rel, decode_line(raw[:MAX_LINE_SCAN])[0])
            if taken + len(found) >= MAX_CANDIDATES:
                scan.capped_at = before + found[MAX_CANDIDATES - taken - 1][0]
                return scan
            taken += len(found)
    return scan


def _grep(fd: int, start: int, end: int, size: int, marks: Sequence[int]) -> list[tuple[int, bytes]] | None:
    """Candidate lines of bytes ``start..end`` as (line within the range, raw text) by ``grep -F``.

    grep gives each line's byte offset (``-b``), turned into its number with the line index
    ``marks``: ``-n`` would have grep count every newline, slow in a log of short lines.
    Returns None when grep cannot be run, so the caller scans in Python instead.
    """
    argv = [_GREP, "-a", "-b", "-F", "-m", str(MAX_CANDIDATES)]
    for key in KEYS:
        argv += ["-e", key]
    whole = start == 0 and end == size
    try:
        proc = subprocess.Popen(
            [*argv, f"/dev/fd/{fd}"] if whole else argv,
            stdin=subprocess.DEVNULL if whole else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            pass_fds=(fd,) if whole else (),
            env={"LC_ALL": "C", "PATH": os.environ.get("PATH", "")},
        )
    except OSError:
        return None
    feeder = None
    if not whole:
        feeder = threading.Thread(target=_feed, args=(fd, start, end, proc.stdin), daemon=True)
        feeder.start()
    assert proc.stdout is not None
    out: list[tuple[int, bytes]] = []
    carry = b""
    while True:
        block = proc.stdout.read(BLOCK)
        if not block:
            break
        buf = carry + block if carry else block
        cut = buf.rfind(b"\n") + 1
        for line in buf[: cut - 1].split(b"\n") if cut else ():
            num, _, text = line.partition(b":")
            out.append((int(num), text))
        carry = buf[cut:]
        if len(carry) > MAX_LINE_SCAN * 16:  # one enormous line: keep its start only
            carry = carry[: MAX_LINE_SCAN * 2]
    proc.stdout.close()
    if feeder is not None:
        feeder.join()
    if proc.wait() > 1:
        return None
    if carry:
        num, _, text = carry.partition(b":")
        out.append((int(num), text))
    return _numbered(fd, start, marks, out)


def _numbered(fd: int, start: int, marks: Sequence[int], found: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """(byte offset within the range at ``start``, text), in order, as (line within the range, text).

    Newlines are counted from the index mark of each offset's chunk, each byte at most once.
    """
    out: list[tuple[int, bytes]] = []
    at = -1  # the chunk in ``data``
    data = b""
    pos = seen = 0  # newlines before data[pos]: marks[at] + seen
    first = 0  # newlines before ``start``
    for i, (off, text) in enumerate([(0, b""), *found]):
        p = start + off
        c = p // CHUNK
        if c != at:
            at, data, pos, seen = c, os.pread(fd, CHUNK, c * CHUNK), 0, 0
        seen += data.count(b"\n", pos, p - c * CHUNK)
        pos = p - c * CHUNK
        if i == 0:
            first = marks[c] + seen
        else:
            out.append((marks[c] + seen - first + 1, text))
    return out


def _feed(fd: int, start: int, end: int, pipe: Any) -> None:
    """Write bytes ``start..end`` of ``fd`` into ``pipe`` (grep's stdin), then close it."""
    try:
        pos = start
        while pos < end:
            data = os.pread(fd, min(BLOCK, end - pos), pos)
            if not data:
                break
            pipe.write(data)
            pos += len(data)
    except OSError:  # grep stopped early (-m): nothing more to give it
        pass
    finally:
        with contextlib.suppress(OSError):
            pipe.close()


def _python_scan(fd: int, start: int, end: int, size: int) -> list[tuple[int, bytes]]:
    """Candidate lines of bytes ``start..end`` found with :data:`PREFILTER`, as :func:`_grep` gives them."""
    out: list[tuple[int, bytes]] = []
    nl = 0  # newlines before buf[0], counted from ``start``
    pos = start
    carry = b""
    skip_long = False  # inside a line longer than the carry limit: drop bytes up to its newline
    while pos < end and len(out) < MAX_CANDIDATES:
        data = os.pread(fd, min(BLOCK, end - pos), pos)
        if not data:
            break
        pos += len(data)
        if skip_long:
            cut = data.find(b"\n")
            if cut < 0:
                continue
            data = data[cut:]
            skip_long = False
        buf = carry + data if carry else data
        limit = len(buf) if pos >= end else buf.rfind(b"\n") + 1
        i = counted = 0
        while i < limit:
            m = PREFILTER.search(buf, i, limit)
            if m is None:
                break
            ls = buf.rfind(b"\n", 0, m.start()) + 1
            le = buf.find(b"\n", m.start(), limit)
            le = limit if le < 0 else le
            nl += buf.count(b"\n", counted, ls)
            counted = ls
            out.append((nl + 1, buf[ls : min(le, ls + MAX_LINE_SCAN)]))
            i = le + 1
        nl += buf.count(b"\n", counted, limit)
        carry = buf[limit:]
        if len(carry) > MAX_LINE_SCAN * 16:
            carry = carry[:MAX_LINE_SCAN]
            skip_long = True
    return out
