"""Reading a file on disk by line number, through its cached line index (:mod:`.lineindex`).

Lines are split on ``"\\n"``; a ``"\\r"`` before it is a CRLF terminator and is not part of
the line's text. A line is found by a binary search over the index's chunk marks plus one
chunk read, so a view anywhere in a 1 GB file costs O(view), not O(file). A line within
:data:`END_WINDOW` bytes of either end of the file is found from the line count alone
(:func:`~.lineindex.count_for`), so the first view of a huge file, its head and tail, needs no
marks; the first view of a line far from both ends builds them.
"""

from __future__ import annotations

import bisect
import codecs
import os
import stat
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import NotAFile, map_os_error
from .lineindex import CHUNK, READ_BLOCK, LineIndex, count_for, index_for, key_of

__all__ = ["CHUNK", "END_WINDOW", "SCAN_BLOCK", "LineFile", "LineIndex", "decode_line", "require_regular"]

SCAN_BLOCK = 4 << 20  # bytes a whole-file pass reads at a time
END_WINDOW = 1 << 20
"""Bytes at each end of a file in which a line is found without the chunk marks."""

# (file key, line, character) -> byte offset of that character, so a chain through one long line
# resumes where the last view stopped instead of decoding the line from its start again.
_char_marks: OrderedDict[tuple[tuple[int, ...], int, int], int] = OrderedDict()


def decode_line(raw: bytes) -> tuple[str, bool]:
    """A line's text (CR of a CRLF dropped) and whether invalid UTF-8 had to be replaced."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), True


def _nth_newline(data: bytes, n: int) -> int:
    """Index of the ``n``-th newline of ``data``: halved by counting, then stepped (a chunk may hold 32k)."""
    lo, before, hi = 0, 0, len(data)  # data[:lo] holds ``before`` < n newlines; data[:hi] holds n or more
    while hi - lo > 64:
        mid = (lo + hi) // 2
        seen = before + data.count(b"\n", lo, mid)
        if seen >= n:
            hi = mid
        else:
            lo, before = mid, seen
    pos = lo - 1
    for _ in range(n - before):
        pos = data.find(b"\n", pos + 1)
    return pos


class LineFile:
    """An open regular file with its line index: read any line range in O(range).

    The index is built (or found in the cache) on first use, so a caller can look at the
    first bytes (:meth:`pread`) and :attr:`stat` of the open file first, for instance to
    describe a binary file without counting its lines.
    """

    def __init__(self, path: Path, fh: BinaryIO, st: os.stat_result, label: str) -> None:
        self.path = path
        self._fh = fh
        self.stat = st
        self._label = label
        self._index: LineIndex | None = None
        self._facts: LineIndex | None = None
        self._ends: tuple[bytes, int, int, bytes, int] | None = None  # head, its newlines, tail start, tail, …
        self._near: dict[int, int] = {}  # newlines before a line -> its offset, found in the ends
        self._text_start: int | None = None

    @property
    def index(self) -> LineIndex:
        """The line index of the file as it was opened, chunk marks included."""
        if self._index is None:
            try:
                self._index = index_for(self._fh, self.stat)
            except OSError as exc:
                raise map_os_error(exc, self._label) from exc
        return self._index

    @property
    def facts(self) -> LineIndex:
        """Size, lines, final newline and revision of the file as opened; the chunk marks if at hand."""
        if self._index is not None:
            return self._index
        if self._facts is None:
            try:
                self._facts = count_for(self._fh, self.stat)
            except OSError as exc:
                raise map_os_error(exc, self._label) from exc
            if self._facts.marks is not None:
                self._index = self._facts
        return self._facts

    @classmethod
    def open(cls, path: str | os.PathLike[str], what: str | None = None) -> LineFile:
        """Open ``path`` for reading by lines; ``what`` names it in errors (defaults to the path)."""
        label = what if what is not None else str(path)
        try:
            st = os.stat(path)
        except OSError as exc:
            raise map_os_error(exc, label) from exc
        require_regular(st, label)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise map_os_error(exc, label) from exc
        fh = os.fdopen(fd, "rb", buffering=0)
        try:
            st = os.fstat(fd)
            require_regular(st, label)
        except OSError as exc:
            fh.close()
            raise map_os_error(exc, label) from exc
        except BaseException:
            fh.close()
            raise
        return cls(Path(path), fh, st, label)

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> LineFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- geometry -------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self.facts.size

    @property
    def total_lines(self) -> int:
        return self.facts.total_lines

    @property
    def revision(self) -> str:
        return self.facts.revision

    @property
    def final_newline(self) -> bool:
        return self.facts.final_newline

    def pread(self, offset: int, n: int) -> bytes:
        """Up to ``n`` bytes at ``offset`` (one positioned read; the file position is not used)."""
        return os.pread(self._fh.fileno(), n, offset)

    def read_into(self, buf: bytearray, offset: int, n: int) -> int:
        """Read up to ``n`` bytes at ``offset`` into the start of ``buf`` (no new bytes object); returns how many."""
        view = memoryview(buf)[: min(n, len(buf))]
        return os.preadv(self._fh.fileno(), [view], offset)

    def blocks(self, start: int = 0, end: int | None = None, size: int = SCAN_BLOCK) -> Iterator[bytes]:
        """The bytes from ``start`` to ``end`` in blocks of about ``size``, each ending after a newline.

        No line is split between two blocks (a line longer than ``size`` makes its block longer).
        The bytes after the last newline come last only when ``end`` is the file's end: a range cut
        short inside a line leaves that partial line out.
        """
        end = self.size if end is None else min(end, self.size)
        pos, carry = start, b""
        while pos < end:
            block = self.pread(pos, min(size, end - pos))
            if not block:
                break
            pos += len(block)
            data = carry + block
            cut = data.rfind(b"\n") + 1
            data, carry = data[:cut], data[cut:]
            if data:
                yield data
        if carry and end >= self.size:
            yield carry

    def offset(self, line: int) -> int:
        """Byte offset where ``line`` starts (``total_lines + 1`` gives the size)."""
        k = line - 1  # newlines before the line
        if k <= 0:
            return 0
        facts = self.facts
        if k > facts.newlines:
            return facts.size
        if facts.marks is None:
            near = self._near_offset(k, facts)
            if near is not None:
                return near
        marks = self.index.marks
        assert marks is not None
        chunk = bisect.bisect_left(marks, k) - 1  # last chunk starting with fewer than k newlines before it
        base = chunk * CHUNK
        data = self.pread(base, CHUNK)
        return base + _nth_newline(data, k - marks[chunk]) + 1

    def _near_offset(self, k: int, facts: LineIndex) -> int | None:
        """Offset of the line after the ``k``-th newline when it lies in the file's first or last END_WINDOW bytes."""
        known = self._near.get(k)
        if known is not None:
            return known
        if self._ends is None:
            head = self.pread(0, min(END_WINDOW, facts.size))
            start = max(0, facts.size - END_WINDOW)
            tail = self.pread(start, facts.size - start)
            self._ends = (head, head.count(b"\n"), start, tail, tail.count(b"\n"))
        head, head_newlines, start, tail, tail_newlines = self._ends
        if k <= head_newlines:
            at = _nth_newline(head, k) + 1
        elif facts.newlines - k < tail_newlines:
            at = start + _nth_newline(tail, k - (facts.newlines - tail_newlines)) + 1
        else:
            return None
        self._near[k] = at
        return at

    def line_end(self, line: int) -> int:
        """Byte offset just past the text of ``line`` (before its newline, if it has one)."""
        nxt = self.offset(line + 1)
        return nxt - 1 if line <= self.facts.newlines else nxt

    def span_bytes(self, first: int, last: int) -> int:
        """Bytes of lines ``first..last`` including their newlines."""
        return self.offset(last + 1) - self.offset(first)

    # -- reading ---------------------------------------------------------------------------

    def read_forward(self, first: int, last: int, max_bytes: int) -> tuple[list[bytes], bool]:
        """Raw lines ``first..last`` (no newlines) within about ``max_bytes``.

        Returns the whole lines that fit and whether the first line alone was longer than
        ``max_bytes`` (then the list holds just that line's leading bytes).
        """
        start = self.offset(first)
        end = self.offset(last + 1)
        data = self.pread(start, min(end - start, max_bytes + 1))
        if len(data) == end - start:
            if data.endswith(b"\n"):
                data = data[:-1]
            return data.split(b"\n"), False
        cut = data.rfind(b"\n")
        if cut < 0:
            return [data[:max_bytes]], True
        return data[:cut].split(b"\n"), False

    def read_backward(self, last: int, max_bytes: int, floor: int = 1) -> list[bytes]:
        """Whole raw lines ending at ``last`` (not before line ``floor``) within ``max_bytes``, in order."""
        end = self.line_end(last)
        start = max(self.offset(floor), end - max_bytes)
        data = self.pread(start, end - start)
        lines = data.split(b"\n")
        if start > self.offset(floor) and start > 0:
            # The first piece may be the tail of a longer line: drop it unless it is whole.
            prev = self.pread(start - 1, 1)
            if prev != b"\n":
                lines = lines[1:]
        return lines

    def read_chars(self, line: int, start_char: int, max_chars: int) -> tuple[str, bool, bool]:
        """Characters ``start_char..`` of one line, at most ``max_chars``.

        Returns (text, whether the line ends within the text, whether invalid UTF-8 was
        replaced). Reads the line in blocks, so a line of any length costs one block of memory.
        """
        pos = self.offset(line)
        end = self.line_end(line)
        if end > pos and self.pread(end - 1, 1) == b"\r":
            end -= 1
        skipped = 0
        mark = _char_marks.get((key_of(self.stat), line, start_char))
        if mark is not None:
            pos, skipped = mark, start_char
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        out: list[str] = []
        have = 0
        replaced = False
        overflow = False
        self._text_start: int | None = pos if skipped == start_char else None
        while pos < end:
            block = self.pread(pos, min(READ_BLOCK, end - pos))
            if not block:
                break
            block_start = pos
            pos += len(block)
            text = decoder.decode(block, final=pos >= end)
            replaced = replaced or "\ufffd" in text
            if skipped < start_char:
                take = min(len(text), start_char - skipped)
                skipped += take
                if not replaced and skipped == start_char:
                    self._text_start = block_start + len(text[:take].encode())
                text = text[take:]
            if not text:
                continue
            room = max_chars - have
            if len(text) > room:
                out.append(text[:room])
                overflow = True
                break
            out.append(text)
            have += len(text)
        return "".join(out), not overflow, replaced

    def remember_char(self, line: int, start_char: int, shown: str) -> None:
        """Note where the character after ``shown`` (read from ``start_char``) starts, for the next view."""
        if self._text_start is None or "\ufffd" in shown:
            return
        _char_marks[(key_of(self.stat), line, start_char + len(shown))] = self._text_start + len(shown.encode())
        while len(_char_marks) > 256:
            _char_marks.popitem(last=False)


def require_regular(st: os.stat_result, label: str) -> None:
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise NotAFile(f"{label}: is a directory (use list_dir)")
    kinds = {
        stat.S_ISFIFO: "a FIFO (named pipe)",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
    }
    for test, name in kinds.items():
        if test(mode):
            raise NotAFile(f"{label}: is {name}, not a regular file; nothing read")
    raise NotAFile(f"{label}: is not a regular file; nothing read")
