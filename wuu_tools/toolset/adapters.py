"""A :class:`~wuu_tools.ToolResult` in the shape each provider API takes as a tool's answer.

- :func:`to_anthropic`: one Messages API ``tool_result`` block, its content the text and then
  the images (put it in the next ``user`` message).
- :func:`to_openai_chat`: Chat Completions messages: the ``role: tool`` message (text only, as
  that API requires) and, when there are images, a ``user`` message right after it carrying
  them as ``image_url`` parts with a line naming the call they came from.
- :func:`to_openai_responses`: Responses API input items: one ``function_call_output`` whose
  output is the text, or the text followed by ``input_image`` parts when there are images.

Media a provider cannot take in that place (audio, files, images of another type or over
its size limit) are saved in the store and named by location instead, and the text says
which were not attached, so nothing is silently dropped.

>>> r = ToolResult(text="done", complete=True)
>>> to_anthropic(r, "toolu_1")
{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [{'type': 'text', 'text': 'done'}]}
>>> to_openai_chat(r, "call_1")
[{'role': 'tool', 'tool_call_id': 'call_1', 'content': 'done'}]
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from ..core.errors import StoreError
from ..core.result import ToolResult
from ..core.store import Store, current_store
from ..core.text import human_size

__all__ = ["to_anthropic", "to_openai_chat", "to_openai_responses"]

IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""Image types both the Anthropic and the OpenAI APIs accept."""
ANTHROPIC_IMAGE_MAX_BYTES = 5 * 1024 * 1024
"""Largest image the Anthropic Messages API takes (5 MB per image)."""
OPENAI_IMAGE_MAX_BYTES = 20 * 1024 * 1024
"""Largest image the OpenAI APIs take in one input (20 MB per image)."""


@dataclass(frozen=True)
class _Image:
    mime_type: str
    data: str  # base64

    @property
    def data_url(self) -> str:
        return f"data:{self.mime_type};base64,{self.data}"


def _sort_media(result: ToolResult, provider: str, max_bytes: int, store: Store | None) -> tuple[list[_Image], str]:
    """The attachable images, and the text with a line for each attachment that was not attached."""
    images: list[_Image] = []
    notes: list[str] = []
    for n, att in enumerate(result.attachments, 1):
        kind = str(att.get("type", "file"))
        mime = str(att.get("mime_type") or att.get("mimeType") or "application/octet-stream")
        raw, problem = _decode(att.get("data"))
        label = f"attachment {n} ({kind}, {mime}{', ' + human_size(len(raw)) if raw is not None else ''})"
        if raw is None:
            where = att.get("uri")
            reason = problem or "it has no inline data"
            tail = f"; it is at {where}" if where else ""
            notes.append(f"[{label} not attached: {reason}{tail}]")
            continue
        if kind == "image" and mime in IMAGE_TYPES and len(raw) <= max_bytes:
            images.append(_Image(mime, base64.b64encode(raw).decode("ascii")))
            continue
        if kind != "image":
            why = f"{provider} tool results take images only"
        elif mime not in IMAGE_TYPES:
            why = f"{provider} takes {', '.join(sorted(IMAGE_TYPES))} images only"
        else:
            why = f"over {provider}'s {human_size(max_bytes)} image limit"
        notes.append(f"[{label} not attached ({why}): {_save(raw, att, store)}]")
    text = result.text or "(no output)"
    if notes:
        text = text.rstrip("\n") + "\n" + "\n".join(notes)
    return images, text


def _decode(data: Any) -> tuple[bytes | None, str | None]:
    if data is None:
        return None, None
    if isinstance(data, (bytes, bytearray)):
        return bytes(data), None
    try:
        return base64.b64decode(str(data), validate=True), None
    except (binascii.Error, ValueError):
        return None, "its data is not valid base64"


def _save(raw: bytes, att: dict[str, Any], store: Store | None) -> str:
    """Save the attachment's bytes and say where they are (or why they could not be saved)."""
    target = store or current_store()
    try:
        ref = target.save(raw, "media", {"mime_type": att.get("mime_type"), "type": att.get("type")})
        return f"saved as {ref} at {target.path(ref)}"
    except StoreError as exc:
        return f"it could not be saved either ({exc.message})"


def to_anthropic(result: ToolResult, tool_use_id: str, *, store: Store | None = None) -> dict[str, Any]:
    """``result`` as an Anthropic ``tool_result`` content block.

    Args:
        result: The tool's result.
        tool_use_id: The ``id`` of the model's ``tool_use`` block this answers.
        store: Where media that cannot be attached are saved (default: the current store).

    Returns:
        ``{"type": "tool_result", "tool_use_id", "content": [text, images...]}``, with
        ``"is_error": True`` for an error result.
    """
    images, text = _sort_media(result, "Anthropic", ANTHROPIC_IMAGE_MAX_BYTES, store)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [
        {"type": "image", "source": {"type": "base64", "media_type": im.mime_type, "data": im.data}} for im in images
    ]
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if result.is_error:
        block["is_error"] = True
    return block


def to_openai_chat(result: ToolResult, tool_call_id: str, *, store: Store | None = None) -> list[dict[str, Any]]:
    """``result`` as Chat Completions messages to append after the assistant's tool call.

    Args:
        result: The tool's result.
        tool_call_id: The ``id`` of the model's tool call this answers.
        store: Where media that cannot be attached are saved (default: the current store).

    Returns:
        ``[{"role": "tool", ...}]``, followed by a ``user`` message with the images when
        there are any (the ``tool`` role takes text only).
    """
    images, text = _sort_media(result, "OpenAI", OPENAI_IMAGE_MAX_BYTES, store)
    messages: list[dict[str, Any]] = [{"role": "tool", "tool_call_id": tool_call_id, "content": text}]
    if images:
        intro = f"The {_count(len(images))} returned by tool call {tool_call_id}:"
        parts: list[dict[str, Any]] = [{"type": "text", "text": intro}]
        parts += [{"type": "image_url", "image_url": {"url": im.data_url}} for im in images]
        messages.append({"role": "user", "content": parts})
    return messages


def to_openai_responses(result: ToolResult, call_id: str, *, store: Store | None = None) -> list[dict[str, Any]]:
    """``result`` as Responses API input items to send after the model's function call.

    Args:
        result: The tool's result.
        call_id: The ``call_id`` of the model's ``function_call`` item this answers.
        store: Where media that cannot be attached are saved (default: the current store).

    Returns:
        ``[{"type": "function_call_output", "call_id", "output"}]``: the output is the text,
        or ``[input_text, input_image...]`` when there are images.
    """
    images, text = _sort_media(result, "OpenAI", OPENAI_IMAGE_MAX_BYTES, store)
    output: str | list[dict[str, Any]] = text
    if images:
        output = [{"type": "input_text", "text": text}]
        output += [{"type": "input_image", "image_url": im.data_url, "detail": "auto"} for im in images]
    return [{"type": "function_call_output", "call_id": call_id, "output": output}]


def _count(n: int) -> str:
    return "image" if n == 1 else f"{n} images"
