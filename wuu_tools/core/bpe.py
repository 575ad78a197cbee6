"""Exact cl100k tokens of a short text without loading tiktoken: its algorithm over a mapped table of its ranks.

Loading tiktoken's encoding costs ~0.1 s per process (its 100,256 ranks into a Rust hash map),
more than a ``wuu read`` of a small file costs in all. :class:`Table` gives the same tokens
for a view's worth of text at a few microseconds a word: the ranks are written once per
machine to a hash table file (:func:`build`, in the user cache dir beside tiktoken's own
cached ranks), which each process maps (``mmap``) instead of loading; the text is split as
cl100k's pattern splits it and each piece is merged as tiktoken's ``byte_pair_encode`` merges
it (the lowest-ranked adjacent pair first, the leftmost of equals). ``tests/test_bpe.py``
checks the tokens against tiktoken's on generated text, every Unicode code point and real files.

cl100k's pattern needs Unicode classes (``\\p{L}``, ``\\p{N}``, ``\\s``) that :mod:`re` lacks, but
it looks at nothing else of a character (beyond the ASCII of ``'s``, ``'ll``…): a non-ASCII
character is replaced by an ASCII one of its class (a letter by ``a``, a number by ``0``,
white space by a tab, anything else by ``!``) and the ASCII pattern runs on that, one
character for one. A character :mod:`unicodedata` does not know (one newer than this
Python's Unicode), a lone surrogate, or a run long enough to make the pure-Python merge slow is
not taken (:meth:`Table.takes` says no): the caller counts it with tiktoken.
"""

from __future__ import annotations

import mmap
import re
import struct
import sys
import unicodedata
import zlib
from array import array
from collections.abc import Mapping
from itertools import pairwise
from pathlib import Path

__all__ = ["FORMAT", "Table", "build"]

FORMAT = 1
_MAGIC = b"wuu-bpe\x00"
_HEADER = struct.Struct("<8sIIIII")  # magic, format, byte-order check, slots, ranks, blob bytes
_HEADER_SIZE = 64
_LONGEST_RUN = 200  # characters of one piece the pure-Python merge takes (it is quadratic in them)

_WS = "\t\n\x0b\x0c\r "
_PATTERN = re.compile(
    # cl100k's pattern over ASCII, greedy where cl100k's is possessive (the same matches here:
    # giving back a character never lets what follows match), \Z for its end-of-text $.
    rf"'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{{1,3}}| ?[^{_WS}A-Za-z0-9]+[\r\n]*"
    rf"|[{_WS}]+\Z|[{_WS}]*[\r\n]|[{_WS}]+(?![^{_WS}])|[{_WS}]"
)
_LONG = re.compile(rf"[A-Za-z]{{{_LONGEST_RUN}}}|[^{_WS}A-Za-z0-9]{{{_LONGEST_RUN}}}|[{_WS}]{{{_LONGEST_RUN}}}")
# Unicode White_Space beyond ASCII (the \s of tiktoken's regex engine; not Python's str.isspace).
_SPACES = frozenset("\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a")
_SPACES |= frozenset("\u2028\u2029\u202f\u205f\u3000")
_NOT_TAKEN = {"Cn", "Cs"}  # unassigned here (maybe not in tiktoken's newer tables), lone surrogates


class _Classes(dict[int, "str | None"]):
    """``str.translate`` table: a non-ASCII character to an ASCII one of its class (None: not taken)."""

    def __missing__(self, code: int) -> str | None:
        char = chr(code)
        if code < 128:
            mapped: str | None = char
        elif char == "ſ":  # case-folds to s: the "s" of cl100k's case-insensitive 's
            mapped = "s"
        elif char in _SPACES:
            mapped = "\t"  # white space, but not the literal space of `` ?`` in the pattern
        else:
            category = unicodedata.category(char)
            if category in _NOT_TAKEN:
                mapped = None
            elif category[0] == "L":
                mapped = "a"
            elif category[0] == "N":
                mapped = "0"
            else:
                mapped = "!"
        self[code] = mapped
        return mapped


_CLASSES = _Classes()


class Table:
    """cl100k's ranks in a mapped file: tokens of a text, and the bytes of a token."""

    def __init__(self, path: Path) -> None:
        with path.open("rb") as fh:
            self._mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        magic, fmt, order, slots, ranks, blob = _HEADER.unpack_from(self._mm, 0)
        if magic != _MAGIC or fmt != FORMAT or order != 1 or slots & (slots - 1):
            raise ValueError(f"{path}: not a token table of format {FORMAT}")
        if len(self._mm) != _HEADER_SIZE + 4 * (2 * slots + ranks) + blob:
            raise ValueError(f"{path}: truncated")
        view = memoryview(self._mm)
        start = _HEADER_SIZE
        self._slots = view[start : start + 4 * slots].cast("I")  # key: blob offset | length << 24, 0 = empty
        start += 4 * slots
        self._slot_ranks = view[start : start + 4 * slots].cast("I")
        start += 4 * slots
        self._by_rank = view[start : start + 4 * ranks].cast("I")
        self._blob = start + 4 * ranks
        self._mask = slots - 1
        self._pieces: dict[str, list[int]] = {}
        self._mapped: tuple[str, str] = ("", "")

    def _rank(self, piece: bytes) -> int | None:
        """The rank of the token whose bytes are ``piece``, or None when there is no such token."""
        mask, slots, mm, n = self._mask, self._slots, self._mm, len(piece)
        at = zlib.crc32(piece) & mask
        while True:
            entry = slots[at]
            if not entry:
                return None
            if entry >> 24 == n:
                offset = self._blob + (entry & 0xFFFFFF)
                if mm[offset : offset + n] == piece:
                    return int(self._slot_ranks[at])
            at = (at + 1) & mask

    def token_bytes(self, rank: int) -> bytes:
        """The bytes of token ``rank`` (tiktoken's ``decode_single_token_bytes``)."""
        entry = self._by_rank[rank]
        offset = self._blob + (entry & 0xFFFFFF)
        return self._mm[offset : offset + (entry >> 24)]

    def decode_bytes(self, tokens: list[int]) -> bytes:
        return b"".join(self.token_bytes(t) for t in tokens)

    def _map(self, text: str) -> str | None:
        """``text`` with each character replaced by an ASCII one of its class, or None when it is not taken."""
        if text.isascii():
            return text
        if self._mapped[0] is text:
            return self._mapped[1]
        mapped = text.translate(_CLASSES)
        if len(mapped) != len(text):
            return None
        self._mapped = (text, mapped)
        return mapped

    def takes(self, text: str) -> bool:
        """Whether :meth:`encode_ordinary` gives ``text``'s exact tokens, and quickly."""
        mapped = self._map(text)
        return mapped is not None and _LONG.search(mapped) is None

    def encode_ordinary(self, text: str) -> list[int]:
        """cl100k's tokens of ``text`` (a text :meth:`takes`), as ``tiktoken.Encoding.encode_ordinary`` gives them."""
        mapped = self._map(text)
        if mapped is None:
            raise ValueError("a text this table does not take")
        tokens: list[int] = []
        pieces = self._pieces
        if mapped is text:
            words = _PATTERN.findall(text)
        else:
            words = [text[m.start() : m.end()] for m in _PATTERN.finditer(mapped)]
        for word in words:
            known = pieces.get(word)
            if known is None:
                known = pieces[word] = self._encode_piece(word.encode("utf-8"))
            tokens += known
        if len(pieces) > 100_000:
            pieces.clear()
        return tokens

    def _encode_piece(self, piece: bytes) -> list[int]:
        rank = self._rank(piece)
        if rank is not None:
            return [rank]
        # tiktoken's _byte_pair_merge: ranks[i] is the rank of the pair starting at parts[i].
        big = sys.maxsize
        parts = list(range(len(piece) + 1))
        ranks = [self._pair_rank(piece, i, i + 2, big) for i in range(len(piece) - 1)] + [big, big]
        while True:
            low = min(ranks[:-1])
            if low == big:
                break
            i = ranks.index(low)
            if i > 0:
                ranks[i - 1] = self._pair_rank(piece, parts[i - 1], parts[i + 2], big) if i + 2 < len(parts) else big
            ranks[i] = self._pair_rank(piece, parts[i], parts[i + 3], big) if i + 3 < len(parts) else big
            del parts[i + 1]
            del ranks[i + 1]
        out = []
        for a, b in pairwise(parts):
            rank = self._rank(piece[a:b])
            assert rank is not None  # every byte is a token, and every merge made one
            out.append(rank)
        return out

    def _pair_rank(self, piece: bytes, a: int, b: int, big: int) -> int:
        rank = self._rank(piece[a:b])
        return big if rank is None else rank


def build(ranks: Mapping[bytes, int], path: Path) -> None:
    """Write ``ranks`` (tiktoken's ``mergeable_ranks``) as a table file at ``path``, atomically."""
    import os
    import tempfile

    count = len(ranks)
    if sorted(ranks.values()) != list(range(count)) or max(map(len, ranks), default=0) > 255:
        raise ValueError("ranks must be 0..n-1, keys of at most 255 bytes")
    slots = 1 << max(1, (count * 5 // 2).bit_length())
    keys = array("I", bytes(4 * slots))
    slot_ranks = array("I", bytes(4 * slots))
    by_rank = array("I", bytes(4 * count))
    blob = bytearray()
    for key, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        entry = len(blob) | len(key) << 24
        blob += key
        by_rank[rank] = entry
        at = zlib.crc32(key) & (slots - 1)
        while keys[at]:
            at = (at + 1) & (slots - 1)
        keys[at] = entry
        slot_ranks[at] = rank
    if len(blob) >= 1 << 24:
        raise ValueError("the ranks' bytes do not fit the table's 24-bit offsets")
    header = _HEADER.pack(_MAGIC, FORMAT, 1, slots, count, len(blob)).ljust(_HEADER_SIZE, b"\0")
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="cl100k-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(header)
            fh.write(keys.tobytes())
            fh.write(slot_ranks.tobytes())
            fh.write(by_rank.tobytes())
            fh.write(blob)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
