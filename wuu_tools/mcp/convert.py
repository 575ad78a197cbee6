"""A :class:`~wuu_tools.ToolResult` as an MCP ``CallToolResult``, and back again.

The text is one text block; attachments follow it as image, audio or embedded-resource
blocks; the envelope's facts (complete, continuation, source, revision, tokens, meta) go in
``_meta`` under ``io.wuu-tools/result``. No ``structuredContent`` is sent: it would repeat
the text, and clients that show it would show the material twice.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from ..core.result import ToolResult
from . import META_PREFIX

__all__ = ["RESULT_META_KEY", "attachment_block", "to_mcp_result"]

RESULT_META_KEY = f"{META_PREFIX}result"


def attachment_block(att: dict[str, Any], number: int) -> types.ContentBlock:
    """One attachment as an MCP content block (image, audio, embedded blob, or a link)."""
    kind = att.get("type")
    mime = att.get("mime_type") or "application/octet-stream"
    data = att.get("data")
    uri = att.get("uri") or f"wuu-tools://attachment/{number}"
    if data is not None and kind == "image":
        return types.ImageContent(data=data, mime_type=mime)
    if data is not None and kind == "audio":
        return types.AudioContent(data=data, mime_type=mime)
    if data is not None:
        return types.EmbeddedResource(resource=types.BlobResourceContents(uri=uri, mime_type=mime, blob=data))
    return types.ResourceLink(name=str(att.get("name") or uri), uri=uri, mime_type=mime)


def result_facts(result: ToolResult) -> dict[str, Any]:
    """The envelope without its text and attachments: what a program needs to carry on."""
    return {
        "complete": result.complete,
        "continuation": result.continuation,
        "source": result.source,
        "revision": result.revision,
        "tokens": result.tokens,
        "meta": result.meta,
    }


def to_mcp_result(result: ToolResult) -> types.CallToolResult:
    """``result`` as a ``CallToolResult``: text first, then the attachments; ``isError`` kept."""
    content: list[types.ContentBlock] = [types.TextContent(text=result.text)]
    content += [attachment_block(a, n) for n, a in enumerate(result.attachments, 1)]
    return types.CallToolResult(
        content=content,
        is_error=result.is_error,
        _meta={RESULT_META_KEY: result_facts(result)},
    )
