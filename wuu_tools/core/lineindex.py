"""The line index of a file on disk, built in one streaming pass and cached.

The index records, for every 64 KiB chunk of the file, how many newlines come before it.
Finding line N is then a binary search plus one chunk read (:class:`~wuu_tools.core.lines.LineFile`
does that), so a view anywhere in a 1 GB file costs O(view), not O(file). The file is never
read whole into memory: the index pass reads 1 MiB at a time.

Indexes are cached in memory keyed on (device, inode, size, mtime), and, for files of
8 MiB or more, on disk under the store's ``index/`` folder so a later process (the CLI
following a continuation) does not rescan. The revision of a file under 8 MiB is a digest
of its bytes; of a larger one, a digest of its size, mtime, inode and first and last
64 KiB (hashing a gigabyte would cost more than counting its lines).

A first view needs only a file's size, line count, final newline and revision, and lines
near its two ends: :func:`count_for` gives those facts without the chunk marks. For a file of
:data:`COUNT_ONLY_MIN` bytes or more the newlines are counted by ``wc -l`` (SIMD: several
times faster than CPython's ``bytes.count``, ~1-2 GB/s), read from the very file this process
opened; where ``wc`` cannot be run, or the file changed meanwhile, the full index is built
instead. The marks are built when a view first needs a line far from both ends (a
continuation), and cached as before.
"""

from __future__ import annotations

import hashlib
import os
import struct
from array import array
from collections import OrderedDict
from dataclasses import dataclass
from typing import BinaryIO

from .cancel import check_stop
from .store import current_store

__all__ = [
    "CHUNK",
    "COUNT_ONLY_MIN",
    "DISK_CACHE_MIN",
    "READ_BLOCK",
    "LineIndex",
    "count_for",
    "index_for",
    "key_of",
    "large_revision",
    "prime_index",
]

CHUNK = 64 * 1024
READ_BLOCK = 1024 * 1024  # L2-friendly: 4 MiB blocks counted ~40% slower here
CONTENT_HASH_LIMIT = 8 * 1024 * 1024
DISK_CACHE_MIN = 8 * 1024 * 1024
COUNT_ONLY_MIN = 16 * 1024 * 1024
"""Files from this size get their first view from a line count alone (``wc -l``), the marks built later."""
_MEMORY_CACHE_SIZE = 64
_INDEX_MAGIC = b"WUUIDX1\n"


@dataclass(frozen=True)
class LineIndex:
    """Facts about one version of a file: size, lines, final newline, chunk marks, revision."""

    size: int
    newlines: int
    final_newline: bool
    marks: array | None  # marks[i] = newlines in bytes [0, i * CHUNK); None: counted, not indexed
    revision: str

    @property
    def total_lines(self) -> int:
        if self.size == 0:
            return 0
        return self.newlines + (0 if self.final_newline else 1)


_memory: OrderedDict[tuple[int, ...], LineIndex] = OrderedDict()


def key_of(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _build(fh: BinaryIO, st: os.stat_result) -> LineIndex:
    marks = array("q", [0])
    newlines = 0
    digest = hashlib.sha256()
    content_hash = st.st_size < CONTENT_HASH_LIMIT
    buf = bytearray(min(READ_BLOCK, (st.st_size // CHUNK + 1) * CHUNK))  # a small file: no 1 MiB to zero
    view = memoryview(buf)
    last_byte = b""
    fh.seek(0)
    pos = 0
    while True:
        check_stop()  # a stopped call ends between two blocks of a huge file
        n = fh.readinto(buf)
        if not n:
            break
        for s in range(0, n, CHUNK):
            e = min(s + CHUNK, n)
            newlines += buf.count(b"\n", s, e)
            if e - s == CHUNK:
                marks.append(newlines)
        if content_hash:
            digest.update(view[:n])
        last_byte = bytes(view[n - 1 : n])
        pos += n
        if n % CHUNK:
            # A short read mid-file would misalign the marks; only the last read may be short.
            extra = fh.read(1)
            if extra:
                raise OSError(f"short read at byte {pos}; the file is changing")
            break
    return LineIndex(
        size=pos,
        newlines=newlines,
        final_newline=last_byte == b"\n",
        marks=marks,
        revision=digest.hexdigest()[:12] if content_hash else large_revision(fh, st),
    )


def large_revision(fh: BinaryIO, st: os.stat_result) -> str:
    """Revision of a file too large to hash whole: its size, mtime, inode and first and last 64 KiB."""
    digest = hashlib.sha256(f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}".encode())
    digest.update(os.pread(fh.fileno(), CHUNK, 0))
    digest.update(os.pread(fh.fileno(), CHUNK, max(0, st.st_size - CHUNK)))
    return digest.hexdigest()[:12]


def prime_index(path: str | os.PathLike[str], marks: array, newlines: int) -> bool:
    """Adopt a line index counted while ``path`` was written, so its first view need not rescan it.

    ``marks`` must follow :class:`LineIndex`'s layout (newlines before each 64 KiB chunk).
    Returns False, changing nothing, when the file does not match them; only files large
    enough to be cached on disk are primed.
    """
    try:
        with open(path, "rb", buffering=0) as fh:
            st = os.fstat(fh.fileno())
            if st.st_size < DISK_CACHE_MIN or len(marks) != st.st_size // CHUNK + 1:
                return False
            last = os.pread(fh.fileno(), 1, st.st_size - 1)
            index = LineIndex(
                size=st.st_size,
                newlines=newlines,
                final_newline=last == b"\n",
                marks=marks,
                revision=large_revision(fh, st),
            )
    except OSError:
        return False
    key = key_of(st)
    _save_disk(key, index)
    _memory[key] = index
    return True


def _disk_name(key: tuple[int, ...]) -> str:
    return hashlib.blake2b(repr(key).encode(), digest_size=12).hexdigest() + ".idx"


def _load_disk(key: tuple[int, ...]) -> LineIndex | None:
    try:
        data = current_store().index_path(_disk_name(key)).read_bytes()
    except OSError:
        return None
    head = len(_INDEX_MAGIC) + struct.calcsize("<6q?12s")
    if not data.startswith(_INDEX_MAGIC) or len(data) < head:
        return None
    *k, size, newlines, final, rev = struct.unpack_from("<6q?12s", data, len(_INDEX_MAGIC))
    if tuple(k[:4]) != key:
        return None
    marks: array | None = array("q")
    marks.frombytes(data[head:])
    if not marks:  # a count saved by a first view: no marks yet
        marks = None
    return LineIndex(size=size, newlines=newlines, final_newline=final, marks=marks, revision=rev.decode())


def _save_disk(key: tuple[int, ...], idx: LineIndex) -> None:
    header = struct.pack("<6q?12s", *key, idx.size, idx.newlines, idx.final_newline, idx.revision.encode()[:12])
    marks = idx.marks.tobytes() if idx.marks is not None else b""
    current_store().save_index(_disk_name(key), _INDEX_MAGIC + header + marks)


def _cached(key: tuple[int, ...], size: int, marks: bool) -> LineIndex | None:
    """The index of ``key`` from memory or disk (one with chunk marks if ``marks``), or None."""
    idx = _memory.get(key)
    if idx is not None and (idx.marks is not None or not marks):
        _memory.move_to_end(key)
        return idx
    disk = _load_disk(key) if size >= DISK_CACHE_MIN else None
    return disk if disk is not None and (disk.marks is not None or not marks) else None


def _remember(key: tuple[int, ...], idx: LineIndex) -> LineIndex:
    _memory[key] = idx
    while len(_memory) > _MEMORY_CACHE_SIZE:
        _memory.popitem(last=False)
    return idx


def index_for(fh: BinaryIO, st: os.stat_result) -> LineIndex:
    """The full index of the open file ``fh`` (chunk marks included): cached, or built in one pass."""
    key = key_of(st)
    idx = _cached(key, st.st_size, marks=True)
    if idx is None:
        idx = _build(fh, st)
        if st.st_size >= DISK_CACHE_MIN:
            _save_disk(key, idx)
    return _remember(key, idx)


def count_for(fh: BinaryIO, st: os.stat_result) -> LineIndex:
    """The open file's size, lines, final newline and revision; its chunk marks only if they are at hand.

    A file of :data:`COUNT_ONLY_MIN` bytes or more is counted by ``wc -l``; any other (or where
    that fails) gets its full index (:func:`index_for`).
    """
    key = key_of(st)
    idx = _cached(key, st.st_size, marks=False)
    if idx is not None:
        return _remember(key, idx)
    if st.st_size < max(COUNT_ONLY_MIN, CONTENT_HASH_LIMIT):  # (a smaller file's revision hashes all its bytes)
        return index_for(fh, st)
    newlines = _wc_lines(fh.fileno(), st)
    if newlines is None:
        return index_for(fh, st)
    last = os.pread(fh.fileno(), 1, st.st_size - 1)
    idx = LineIndex(st.st_size, newlines, last == b"\n", None, large_revision(fh, st))
    _save_disk(key, idx)
    return _remember(key, idx)


def _wc_lines(fd: int, st: os.stat_result) -> int | None:
    """Newlines of the open file ``fd`` counted by ``wc -l`` (its stdin is this very file), or None.

    None when ``wc`` is not installed or fails, or when the file changed while it was counted.
    """
    import shutil
    import subprocess

    wc = shutil.which("wc")
    if wc is None:
        return None
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        out = subprocess.run(
            [wc, "-l"],
            stdin=fd,
            capture_output=True,
            env={"LC_ALL": "C", "PATH": os.environ.get("PATH", "")},
            check=False,
        )
        after = os.fstat(fd)
    except OSError:
        return None
    words = out.stdout.split()
    if out.returncode != 0 or len(words) != 1 or not words[0].isdigit() or key_of(after) != key_of(st):
        return None
    return int(words[0])
