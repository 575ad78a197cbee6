"""Media in external results: kept as attachments, oversized ones saved, every one accounted for in words.

Images, audio and binary resources are never flattened into text and never count against
the text budget. Each becomes an attachment ``{"type", "mime_type", "data", ...}`` (a binary
resource also keeps its ``uri``) in its original order, unless it is over the media limit
(``WUU_MEDIA_MAX_BYTES``, default 5 MiB of decoded bytes): then it is saved to the store and
replaced by a line naming its type, size and reference. Either way the result says, one
line per medium, what the model did and did not receive.

>>> media_line(MediaItem(block=1, type="image", mime_type="image/png", size=2048, delivered=True), 1, 1)
'[image 1/1: image/png, 2.0 KiB — attached after this text]'
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from ..core.env import DEFAULT_MEDIA_MAX_BYTES, media_limit
from ..core.errors import StoreError
from ..core.store import Store
from ..core.text import human_size

__all__ = ["DEFAULT_MEDIA_MAX_BYTES", "MediaItem", "keep_media", "media_limit", "media_line"]


@dataclass
class MediaItem:
    """One medium of a result and what became of it.

    Attributes:
        block: Index of its content block in the original result.
        type: ``image``, ``audio`` or ``resource``.
        mime_type: Its MIME type (``application/octet-stream`` when the result gave none).
        size: Decoded size in bytes.
        delivered: True when it is in the attachments.
        uri: A resource's URI.
        ref: Store reference when it was saved instead of delivered.
        reason: Why it was not delivered, or why it was delivered despite the limit.
        attachment: The attachment dict, when delivered.
    """

    block: int
    type: str
    mime_type: str
    size: int
    delivered: bool
    uri: str | None = None
    ref: str | None = None
    reason: str | None = None
    attachment: dict[str, Any] | None = field(default=None, repr=False)

    def fact(self) -> dict[str, Any]:
        """The JSON-ready description kept in ``meta["media"]``."""
        out: dict[str, Any] = {
            "block": self.block,
            "type": self.type,
            "mime_type": self.mime_type,
            "bytes": self.size,
            "delivered": self.delivered,
        }
        for key in ("uri", "ref", "reason"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


def _decode(data: str) -> tuple[bytes, bool]:
    """Decoded bytes and whether ``data`` was valid base64 (else its UTF-8 bytes)."""
    try:
        return base64.b64decode(data, validate=True), True
    except (binascii.Error, ValueError):
        return data.encode("utf-8", "surrogatepass"), False


def keep_media(
    block: int,
    kind: str,
    data: str,
    mime_type: str | None,
    store: Store,
    uri: str | None = None,
) -> MediaItem:
    """Decide what becomes of one medium: an attachment, or (over the limit) a saved object.

    Args:
        block: Index of the content block in the original result.
        kind: ``image``, ``audio`` or ``resource``.
        data: Its base64 data, as the result carried it.
        mime_type: Its MIME type, if the result gave one.
        store: Where an oversized medium is saved.
        uri: A binary resource's URI.

    Returns:
        The :class:`MediaItem`; when the store cannot save an oversized medium, it is
        delivered anyway (nothing is lost) and ``reason`` says why.
    """
    mime = mime_type or "application/octet-stream"
    raw, valid = _decode(data) if isinstance(data, str) else (b"", False)
    size = len(raw)
    attachment: dict[str, Any] = {"type": kind, "mime_type": mime, "data": data}
    if uri is not None:
        attachment["uri"] = uri
    limit = media_limit()
    if size <= limit:
        return MediaItem(block, kind, mime, size, True, uri=uri, attachment=attachment)
    meta = {"mime_type": mime, "type": kind, **({"uri": uri} if uri else {})}
    if not valid:
        meta["note"] = "the data was not valid base64; saved as given"
    try:
        ref = store.save(raw, "media", meta)
    except StoreError as exc:
        reason = f"over the {human_size(limit)} media limit, but could not be saved ({exc.message}); sent anyway"
        return MediaItem(block, kind, mime, size, True, uri=uri, reason=reason, attachment=attachment)
    reason = f"over the {human_size(limit)} media limit"
    return MediaItem(block, kind, mime, size, False, uri=uri, ref=ref, reason=reason)


def media_line(item: MediaItem, number: int, total: int) -> str:
    """The line that tells the model about one medium: received, or saved and where."""
    what = f"{item.type} {number}/{total}: {item.mime_type}, {human_size(item.size)}"
    if item.uri:
        what += f", {item.uri}"
    if item.delivered and item.reason is None:
        return f"[{what} — attached after this text]"
    if item.delivered:
        return f"[{what} — attached after this text; {item.reason}]"
    return f"[{what} — NOT attached ({item.reason}); saved as {item.ref}]"
