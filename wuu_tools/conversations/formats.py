"""The transcript formats: for each, the records only it writes, the records its reader reads, and the reader.

A format is claimed only on its own *marks* — a Claude Code line's ``uuid``, a Codex
``payload``, a Gemini ``tool_id``, a session event's ``agent.tool_use`` type — never
because records carry a ``role`` key. Among the formats whose marks are present, the one
whose reader *reads* the most records wins (ties go to the more specific format, the
order of :data:`JSON_FORMATS`). The records it does not read are left out and named by
kind in the view; a transcript of which it reads less than half is refused instead.

The Markdown formats are told from text: ``aider`` by its session line, ``markdown-chat``
by user and assistant headings at one level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .aider import looks_like_aider, read_aider
from .anthropic_agent import marks_agent_event, read_agent_events, reads_agent_event
from .chat import ANTHROPIC_BLOCKS, read_anthropic, read_chat
from .claude import looks_like_claude, read_claude
from .codex import looks_like_codex, read_codex
from .gemini_session import (
    marks_gemini_contents,
    marks_gemini_session,
    read_gemini_contents,
    read_gemini_session,
    reads_gemini_contents,
)
from .gemini_stream import marks_gemini_stream, read_gemini_stream, reads_gemini_stream
from .kinds import line_kind
from .markdown_chat import looks_like_markdown_chat, read_markdown_chat
from .model import Conversation
from .openhands import looks_like_openhands, read_openhands
from .responses import ITEM_TYPES, read_responses

__all__ = ["FORMATS", "JSON_FORMATS", "TEXT_FORMATS", "JsonFormat", "TextFormat", "line_kind"]

Record = dict[str, Any]
Records = list[tuple[int | None, Record]]


@dataclass(frozen=True)
class JsonFormat:
    """A format of JSON records (JSON Lines, or a JSON list of items)."""

    name: str
    description: str
    marks: Callable[[Record], bool]
    reads: Callable[[Record], bool]
    read: Callable[[Records, list[int]], Conversation]


@dataclass(frozen=True)
class TextFormat:
    """A format of text (Markdown exports)."""

    name: str
    description: str
    looks_like: Callable[[str], bool]
    read: Callable[[str, list[int]], Conversation]


# -- the marks of the message-list formats ----------------------------------------------------------

CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function", "exit"})
_CHAT_PARTS = frozenset({"text", "image_url", "input_audio", "file", "refusal"})
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image", "input_file", "input_audio"})
_ANTHROPIC_TEXT = frozenset({"text", "image", "document", "search_result"})


def _part_types(content: Any) -> set[str] | None:
    """The ``type`` of each part of a list content (``""`` for an untyped one), None for other content."""
    if not isinstance(content, list):
        return None
    return {str(p.get("type") or "") for p in content if isinstance(p, dict)}


def _anthropic_only(block_types: set[str]) -> bool:
    return any(t in ANTHROPIC_BLOCKS or t.endswith(("_tool_result", "_tool_use")) for t in block_types)


def marks_chat(rec: Record) -> bool:
    """An OpenAI chat message: a chat role, no other ``type`` than message, text or chat parts (or tool calls)."""
    if str(rec.get("role")) not in CHAT_ROLES or rec.get("type") not in (None, "message"):
        return False
    if not any(k in rec for k in ("content", "tool_calls", "function_call")):
        return False
    types = _part_types(rec.get("content"))
    return types is None or types <= _CHAT_PARTS | {""}


def marks_anthropic(rec: Record) -> bool:
    """An Anthropic message holding a block only Anthropic writes (tool_use, tool_result, thinking, …)."""
    types = _part_types(rec.get("content"))
    return rec.get("role") in ("user", "assistant") and types is not None and _anthropic_only(types)


def reads_anthropic(rec: Record) -> bool:
    """An Anthropic message: user / assistant (or system), text or Anthropic content blocks, no OpenAI keys."""
    if rec.get("role") not in ("user", "assistant", "system") or "tool_calls" in rec or "tool_call_id" in rec:
        return False
    content = rec.get("content")
    types = _part_types(content)
    if types is None:
        return isinstance(content, str)
    return all(
        t in _ANTHROPIC_TEXT or t in ANTHROPIC_BLOCKS or t.endswith(("_tool_result", "_tool_use")) for t in types
    )


def marks_responses(rec: Record) -> bool:
    """A Responses item: a call, output or reasoning item, or a message with Responses content parts."""
    kind = rec.get("type")
    if isinstance(kind, str) and kind in ITEM_TYPES and kind != "message":
        return True
    types = _part_types(rec.get("content"))
    return kind in ("message", None) and bool(types and types & _RESPONSES_PARTS)


def reads_responses(rec: Record) -> bool:
    """A Responses item, or a plain message (the Responses input accepts ``{role, content}``)."""
    if marks_responses(rec):
        return True
    return rec.get("type") in ("message", None) and rec.get("role") in ("user", "assistant", "system", "developer")


JSON_FORMATS: tuple[JsonFormat, ...] = (
    JsonFormat(
        "claude-code",
        "Claude Code session JSONL (sub-agent files too)",
        looks_like_claude,
        looks_like_claude,
        read_claude,
    ),
    JsonFormat("codex", "Codex CLI rollout JSONL", looks_like_codex, looks_like_codex, read_codex),
    JsonFormat("openhands", "OpenHands event list", looks_like_openhands, looks_like_openhands, read_openhands),
    JsonFormat(
        "gemini-cli",
        "Gemini CLI stream-json events (--output-format stream-json)",
        marks_gemini_stream,
        reads_gemini_stream,
        read_gemini_stream,
    ),
    JsonFormat(
        "gemini-session",
        "Gemini CLI saved session (session-*.json / .jsonl)",
        marks_gemini_session,
        marks_gemini_session,
        read_gemini_session,
    ),
    JsonFormat(
        "anthropic-agent",
        "Anthropic managed-agent session events",
        marks_agent_event,
        reads_agent_event,
        read_agent_events,
    ),
    JsonFormat(
        "gemini-contents",
        "Gemini API contents (Gemini CLI /chat save checkpoints)",
        marks_gemini_contents,
        reads_gemini_contents,
        read_gemini_contents,
    ),
    JsonFormat("openai-responses", "OpenAI Responses items", marks_responses, reads_responses, read_responses),
    JsonFormat("anthropic-messages", "Anthropic Messages list", marks_anthropic, reads_anthropic, read_anthropic),
    JsonFormat("openai-chat", "OpenAI chat-completions messages", marks_chat, marks_chat, read_chat),
)
"""The JSON formats, the more specific first (a tie in records read goes to the earlier one)."""

TEXT_FORMATS: tuple[TextFormat, ...] = (
    TextFormat("aider", "aider chat history (.aider.chat.history.md)", looks_like_aider, read_aider),
    TextFormat(
        "markdown-chat",
        "Markdown chat export with user / assistant headings (Amp threads and the like)",
        looks_like_markdown_chat,
        read_markdown_chat,
    ),
)
"""The Markdown formats, in the order they are tried."""

FORMATS: dict[str, str] = {f.name: f.description for f in (*JSON_FORMATS, *TEXT_FORMATS)}
"""The ``format=`` names and what each reads."""
