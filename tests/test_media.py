"""_media: attachments, the media limit, oversized media saved, and the lines that name them."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from wuu_tools import InvalidArgument, Store
from wuu_tools.external.media import DEFAULT_MEDIA_MAX_BYTES, keep_media, media_limit, media_line


def test_media_limit_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert media_limit() == DEFAULT_MEDIA_MAX_BYTES == 5 * 1024 * 1024
    monkeypatch.setenv("WUU_MEDIA_MAX_BYTES", "1234")
    assert media_limit() == 1234
    monkeypatch.setenv("WUU_MEDIA_MAX_BYTES", "lots")
    with pytest.raises(InvalidArgument, match="WUU_MEDIA_MAX_BYTES"):
        media_limit()


def test_media_within_the_limit_become_attachments(store_dir: Path) -> None:
    data = base64.b64encode(b"RIFF" + bytes(100)).decode()
    item = keep_media(2, "resource", data, None, Store(store_dir), uri="file:///a.bin")
    assert item.delivered and item.size == 104 and item.mime_type == "application/octet-stream"
    assert item.attachment == {
        "type": "resource",
        "mime_type": "application/octet-stream",
        "data": data,
        "uri": "file:///a.bin",
    }
    assert media_line(item, 1, 2) == (
        "[resource 1/2: application/octet-stream, 104 B, file:///a.bin — attached after this text]"
    )


def test_oversized_media_are_saved_with_their_type(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WUU_MEDIA_MAX_BYTES", "10")
    raw = b"\x89PNG" + bytes(60)
    item = keep_media(0, "image", base64.b64encode(raw).decode(), "image/png", Store(store_dir))
    assert not item.delivered and item.attachment is None
    store = Store(store_dir)
    assert store.path(item.ref).read_bytes() == raw
    assert store.meta(item.ref) == {"mime_type": "image/png", "type": "image"}
    assert (
        media_line(item, 1, 1)
        == f"[image 1/1: image/png, 64 B — NOT attached (over the 10 B media limit); saved as {item.ref}]"
    )


def test_invalid_base64_is_saved_as_given(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WUU_MEDIA_MAX_BYTES", "3")
    item = keep_media(0, "audio", "not base64!!", "audio/wav", Store(store_dir))
    assert Store(store_dir).path(item.ref).read_bytes() == b"not base64!!"
    assert "not valid base64" in Store(store_dir).meta(item.ref)["note"]
