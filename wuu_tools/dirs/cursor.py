"""Cursors and revisions of directory listings.

A cursor is an opaque, URL-safe string that resumes a listing exactly after its last shown
entry. It packs, in a few dozen bytes: which listing it belongs to (a digest of the listed
directory's real path, the depth and ``include_ignored``), the revision of the listing it was
cut from, how many entries the chain has shown, the path of the last one (to find the place
again if the tree changed; a path over 40 bytes is kept as an 8-byte digest), and, once the
listing has been saved whole, the saved copy's reference and the byte offset of the next
entry in it. A 3-byte check catches a cursor that was cut short or mistyped.

A revision is a 16-hex-digit digest over the entries a view stands on: each entry's path,
kind, a directory's entry count and read error (not file sizes, which are facts about
files rather than about the tree).

>>> c = Cursor(binding(b"/tmp", 2, False), "0123456789abcdef", 40, "src/a.py")
>>> decode(encode(c)) == c
True
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

from ..core.errors import InvalidArgument

__all__ = ["SNAPSHOT_KIND", "Cursor", "RevisionHash", "binding", "decode", "encode", "is_last"]

SNAPSHOT_KIND = "dirlist"
"""Store kind of a saved whole listing (``dirlist-<32 hex>``)."""
_VERSION = 1
_CHECK = 3


def binding(real_root: bytes, depth: int, include_ignored: bool) -> bytes:
    """4 bytes naming one listing: the directory, the depth, and whether ignored entries are in it."""
    h = hashlib.blake2b(digest_size=4)
    h.update(real_root + b"\0" + str(depth).encode() + (b"\0i" if include_ignored else b"\0-"))
    return h.digest()


class RevisionHash:
    """Accumulates entry keys into a listing revision."""

    def __init__(self) -> None:
        self._h = hashlib.blake2b(digest_size=8)

    def add(self, key: str) -> None:
        """Add one entry's key (see ``Entry.key``: four fields joined by NUL, which no path holds)."""
        self._h.update(key.encode("utf-8", "surrogateescape") + b"\0")

    def add_many(self, keys: list[str]) -> None:
        """Add several keys at once; the same as adding them one by one."""
        if keys:
            self._h.update(("\0".join(keys) + "\0").encode("utf-8", "surrogateescape"))

    def copy(self) -> RevisionHash:
        """An independent copy (to fork a prefix's revision off a running digest)."""
        other = RevisionHash()
        other._h = self._h.copy()
        return other

    def hexdigest(self) -> str:
        """The revision so far: 16 hex digits."""
        return self._h.hexdigest()


@dataclass(frozen=True)
class Cursor:
    """Where a listing chain stands; :func:`encode` makes the opaque string."""

    binding: bytes
    revision: str
    shown: int
    last: str
    snapshot: str | None = None
    offset: int = 0


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated number")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


_LAST_MAX = 40  # a longer last path is kept as a digest, so cursors stay short


def _last_bytes(last: str) -> bytes:
    if last.startswith("\0"):  # already a digest (a decoded cursor)
        return b"\0" + bytes.fromhex(last[1:])
    raw = last.encode("utf-8", "surrogateescape")
    if len(raw) <= _LAST_MAX:
        return raw
    return b"\0" + hashlib.blake2b(raw, digest_size=8).digest()


def is_last(last: str, rel: str) -> bool:
    """Whether ``rel`` is the entry a cursor's ``last`` names (a path, or the digest of a long one)."""
    if not last.startswith("\0"):
        return last == rel
    return _last_bytes(rel) == _last_bytes(last)


def encode(cursor: Cursor) -> str:
    """The cursor as an opaque URL-safe string."""
    head = (_VERSION << 1) | (1 if cursor.snapshot else 0)
    body = bytearray([head])
    body += cursor.binding
    body += bytes.fromhex(cursor.revision)
    body += _varint(cursor.shown)
    if cursor.snapshot:
        body += bytes.fromhex(cursor.snapshot.rpartition("-")[2])
        body += _varint(cursor.offset)
    body += _last_bytes(cursor.last)
    body += hashlib.blake2b(bytes(body), digest_size=_CHECK).digest()
    return base64.urlsafe_b64encode(bytes(body)).decode().rstrip("=")


def decode(text: str) -> Cursor:
    """Parse a cursor made by :func:`encode`; raises :class:`InvalidArgument` for anything else."""
    bad = InvalidArgument(
        "cursor is not valid: pass the cursor string exactly as a list_dir result gave it, "
        "or leave it out to start the listing again"
    )
    if not isinstance(text, str) or not text or len(text) > 8192:
        raise bad
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise bad from None
    if len(data) < 1 + 4 + 8 + 1 + _CHECK:
        raise bad
    body, check = data[:-_CHECK], data[-_CHECK:]
    if hashlib.blake2b(body, digest_size=_CHECK).digest() != check or body[0] >> 1 != _VERSION:
        raise bad
    try:
        pos = 13
        shown, pos = _read_varint(body, pos)
        snapshot, offset = None, 0
        if body[0] & 1:
            if pos + 16 > len(body):
                raise ValueError("truncated reference")
            snapshot = f"{SNAPSHOT_KIND}-{body[pos : pos + 16].hex()}"
            offset, pos = _read_varint(body, pos + 16)
        tail = bytes(body[pos:])
        last = "\0" + tail[1:].hex() if tail[:1] == b"\0" else tail.decode("utf-8", "surrogateescape")
    except ValueError:
        raise bad from None
    return Cursor(bytes(body[1:5]), body[5:13].hex(), shown, last, snapshot, offset)
