"""Reading what an external tool returned into one shape: content blocks, structured data, error, ``_meta``.

Accepted inputs:

* an MCP ``CallToolResult`` as the spec's JSON (camelCase: ``content``, ``structuredContent``,
  ``isError``, ``_meta``), also with the snake_case names of ``model_dump()`` without aliases;
* the ``mcp`` SDK's pydantic models (``CallToolResult``, a single content block): any object with
  ``model_dump`` is dumped by alias, so ``mcp`` itself is never imported here;
* a bare list of content blocks, or one content block;
* plain text (``bytes`` are decoded as UTF-8, invalid bytes replaced and said so);
* any other JSON value, which becomes a structured-only result.

:func:`collect_content` then reads the blocks in order into text segments (text, embedded
text resources, resource links as lines) and media (kept as attachments or, oversized, saved).

>>> r = read_result({"content": [{"type": "text", "text": "hi"}], "isError": True})
>>> r.origin, r.is_error, [b["type"] for b in r.blocks]
('mcp', True, ['text'])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import InvalidArgument
from ..core.store import Store
from ..core.text import human_size
from .media import MediaItem, keep_media

__all__ = ["BLOCK_TYPES", "Content", "ExternalResult", "collect_content", "field_of", "read_result"]

BLOCK_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link"})
_RESULT_KEYS = frozenset(
    {
        "content",
        "structuredContent",
        "structured_content",
        "isError",
        "is_error",
        "_meta",
        "meta",
        "resultType",
        "result_type",
    }
)
_ALIASES = {"mimeType": "mime_type", "structuredContent": "structured_content", "isError": "is_error"}


def field_of(obj: dict[str, Any], camel: str, default: Any = None) -> Any:
    """``obj[camel]``, else its snake_case spelling (``mimeType`` / ``mime_type``), else ``default``."""
    if camel in obj:
        return obj[camel]
    return obj.get(_ALIASES.get(camel, camel), default)


@dataclass
class ExternalResult:
    """An external result in one shape.

    Attributes:
        origin: ``mcp`` (a result or content blocks), ``text`` or ``json`` (any other JSON value).
        blocks: The content blocks in order (a text input is one text block).
        structured: The structured content (``has_structured`` says whether there is any).
        has_structured: True when the result carried structured content (even ``null`` for JSON input).
        is_error: The result's ``isError`` flag.
        result_meta: The result's ``_meta``, if any.
        notes: Facts about reading the input (``invalid UTF-8 replaced``).
    """

    origin: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    structured: Any = None
    has_structured: bool = False
    is_error: bool = False
    result_meta: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


def _is_block(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") in BLOCK_TYPES
        and (value["type"] != "text" or isinstance(value.get("text"), str))
    )


def _looks_like_result(value: dict[str, Any]) -> bool:
    content = value.get("content")
    blocks_ok = isinstance(content, list) and all(
        isinstance(b, dict) and isinstance(b.get("type"), str) for b in content
    )
    if not set(value) <= _RESULT_KEYS:
        return False
    if "content" in value:
        return blocks_ok
    return any(k in value for k in ("structuredContent", "structured_content"))


def _dump_model(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if not callable(dump):
        return value
    try:
        return dump(mode="json", by_alias=True, exclude_none=True)
    except TypeError:
        return dump()


def _check_json(value: Any) -> None:
    try:
        json.dumps(value, allow_nan=True)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(
            f"result must be an MCP result, text, or a JSON value; {type(value).__name__} is not ({exc})"
        ) from None


def read_result(result: Any) -> ExternalResult:
    """Read ``result`` (see the module docstring) into an :class:`ExternalResult`.

    Raises:
        InvalidArgument: The result is neither text nor JSON-serialisable.
    """
    if isinstance(result, (bytes, bytearray, memoryview)):
        raw = bytes(result)
        try:
            text, notes = raw.decode("utf-8"), []
        except UnicodeDecodeError:
            text, notes = raw.decode("utf-8", "replace"), ["invalid UTF-8 replaced with U+FFFD"]
        return ExternalResult("text", blocks=[{"type": "text", "text": text}], notes=notes)
    if isinstance(result, str):
        return ExternalResult("text", blocks=[{"type": "text", "text": result}])
    result = _dump_model(result)
    _check_json(result)
    if isinstance(result, dict) and _looks_like_result(result):
        has = "structuredContent" in result or "structured_content" in result
        meta = field_of(result, "_meta") if "_meta" in result else result.get("meta")
        return ExternalResult(
            "mcp",
            blocks=list(result.get("content") or []),
            structured=field_of(result, "structuredContent"),
            has_structured=has and field_of(result, "structuredContent") is not None,
            is_error=bool(field_of(result, "isError", False)),
            result_meta=meta if isinstance(meta, dict) else None,
        )
    if _is_block(result):
        return ExternalResult("mcp", blocks=[result])
    if isinstance(result, list) and result and all(_is_block(b) for b in result):
        return ExternalResult("mcp", blocks=list(result))
    return ExternalResult("json", structured=result, has_structured=True)


@dataclass
class Content:
    """The result's content read in order: text segments, media, and where each stands."""

    segments: list[str] = field(default_factory=list)
    order: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, index, block)
    media: list[MediaItem] = field(default_factory=list)
    annotations: list[dict[str, Any]] = field(default_factory=list)
    block_meta: list[dict[str, Any]] = field(default_factory=list)


def collect_content(ext: ExternalResult, store: Store) -> Content:
    """The result's blocks read in order: text segments, media kept or saved, annotations and ``_meta``."""
    c = Content()
    for i, block in enumerate(ext.blocks):
        kind = block.get("type")
        if block.get("annotations"):
            c.annotations.append({"block": i, "annotations": block["annotations"]})
        if block.get("_meta"):
            c.block_meta.append({"block": i, "_meta": block["_meta"]})
        seg: str | None = None
        item: MediaItem | None = None
        if kind == "text":
            seg = str(block.get("text", ""))
        elif kind in ("image", "audio"):
            item = keep_media(i, kind, block.get("data", ""), field_of(block, "mimeType"), store)
        elif kind == "resource" and isinstance(block.get("resource"), dict):
            res = block["resource"]
            uri, mime = res.get("uri"), field_of(res, "mimeType")
            if "blob" in res:
                item = keep_media(i, "resource", res.get("blob", ""), mime, store, uri=uri)
            else:
                seg = f"[resource {uri}{f' ({mime})' if mime else ''}]\n{res.get('text') or ''}"
        elif kind == "resource_link":
            size = block.get("size")
            facts = [str(x) for x in (field_of(block, "mimeType"), isinstance(size, int) and human_size(size)) if x]
            name = block.get("title") or block.get("name") or ""
            about = f" ({', '.join(facts)})" if facts else ""
            seg = f"[resource link: {name} — {block.get('uri')}{about}]"
            if block.get("description"):
                seg = seg[:-1] + f" — {block['description']}]"
        else:
            seg = f"[content block of type {kind!r}]\n{json.dumps(block, ensure_ascii=False)}"
        if item is not None:
            c.order.append(("media", len(c.media), i))
            c.media.append(item)
        else:
            c.order.append(("text", len(c.segments), i))
            c.segments.append(seg or "")
    if ext.is_error:  # the error text comes first, before any other content
        c.order.sort(key=lambda o: o[0] != "text")
    return c
