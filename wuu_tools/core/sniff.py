"""Telling text from binary by a file's first bytes, and naming what a binary file is.

>>> classify(b"\\x89PNG\\r\\n\\x1a\\n....", "x.png")
('PNG image', 'image/png')
>>> classify(b"hello\\n", "a.txt") is None
True
"""

from __future__ import annotations

import re

__all__ = ["SNIFF_BYTES", "classify"]

SNIFF_BYTES = 8192

# Control characters a text file does not hold (tab, newlines, form feed, backspace, ESC and VT it may).
_CONTROL = re.compile(r"[\x00-\x07\x0e-\x1a\x1c-\x1f]")

_MAGIC: list[tuple[int, bytes, str, str]] = [
    (0, b"\x89PNG\r\n\x1a\n", "PNG image", "image/png"),
    (0, b"\xff\xd8\xff", "JPEG image", "image/jpeg"),
    (0, b"GIF87a", "GIF image", "image/gif"),
    (0, b"GIF89a", "GIF image", "image/gif"),
    (0, b"%PDF-", "PDF document", "application/pdf"),
    (0, b"PK\x03\x04", "ZIP archive", "application/zip"),
    (0, b"\x1f\x8b", "gzip data", "application/gzip"),
    (0, b"BZh", "bzip2 data", "application/x-bzip2"),
    (0, b"\xfd7zXZ\x00", "xz data", "application/x-xz"),
    (0, b"(\xb5/\xfd", "zstd data", "application/zstd"),
    (0, b"7z\xbc\xaf\x27\x1c", "7-zip archive", "application/x-7z-compressed"),
    (0, b"\x7fELF", "ELF executable", "application/x-executable"),
    (0, b"\xcf\xfa\xed\xfe", "Mach-O executable", "application/x-mach-binary"),
    (0, b"MZ", "Windows executable", "application/vnd.microsoft.portable-executable"),
    (0, b"\x00asm", "WebAssembly module", "application/wasm"),
    (0, b"SQLite format 3\x00", "SQLite database", "application/vnd.sqlite3"),
    (0, b"\xca\xfe\xba\xbe", "Java class file", "application/java-vm"),
    (0, b"ID3", "MP3 audio", "audio/mpeg"),
    (0, b"OggS", "Ogg media", "audio/ogg"),
    (0, b"fLaC", "FLAC audio", "audio/flac"),
    (4, b"ftyp", "MP4 media", "video/mp4"),
    (257, b"ustar", "tar archive", "application/x-tar"),
    (0, b"\xff\xfe", "UTF-16 (LE) text", "text/plain; charset=utf-16le"),
    (0, b"\xfe\xff", "UTF-16 (BE) text", "text/plain; charset=utf-16be"),
]


def classify(head: bytes, name: str) -> tuple[str, str] | None:
    """``(description, mime type)`` when ``head`` (a file's first bytes) is binary, else None."""
    if head.startswith(b"RIFF") and len(head) >= 12:
        kind = head[8:12]
        names = {b"WEBP": ("WebP image", "image/webp"), b"WAVE": ("WAV audio", "audio/wav")}
        return names.get(kind, ("RIFF data", "application/octet-stream"))
    for offset, magic, desc, mime in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            if magic == b"MZ" and b"\x00" not in head:
                continue  # a text file that merely starts with "MZ"
            return desc, mime
    if b"\x00" in head:
        return _by_name(name)
    text = head.decode("utf-8", "replace")
    if len(head) == SNIFF_BYTES:
        text = text[:-4]  # the sniff may cut a character in two
    if not text:
        return None
    bad = text.count("\ufffd")
    controls = len(_CONTROL.findall(text))
    if (bad + controls) / len(text) > 0.3:
        return _by_name(name)
    return None


def _by_name(name: str) -> tuple[str, str]:
    import mimetypes  # only for a binary file (keeps a text read quick to start)

    mime, _ = mimetypes.guess_type(name, strict=False)
    return ("binary data", mime or "application/octet-stream")
