"""Telling a transcript's format from its content, and reading it with the matching reader.

A file is either one JSON document (a list of messages, items or events, or an object that
wraps one under ``messages`` / ``history`` / ``input`` / ``events`` / ``trajectory``, or an
extracted API exchange ``{"request_body", "response_body"}``) or JSON Lines. JSON Lines
that do not parse, or are not objects, are skipped and counted, never fatal. The format is
chosen by the shape of the records; ``format=`` forces a reader, and a file that fits none
gets an :class:`UnsupportedFormat` naming every format tried.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..core.errors import InvalidArgument, UnsupportedFormat, clip, quote
from .chat import ANTHROPIC_BLOCKS, read_anthropic, read_chat
from .claude import looks_like_claude, read_claude
from .codex import looks_like_codex, looks_like_old_codex, read_codex
from .model import Conversation, Turn
from .openhands import looks_like_openhands, read_openhands
from .responses import ITEM_TYPES, read_responses

__all__ = ["FORMATS", "parse_transcript"]

Records = list[tuple[int | None, dict[str, Any]]]
Reader = Callable[[Records, list[int]], Conversation]

FORMATS: dict[str, str] = {
    "claude-code": "Claude Code session JSONL (sub-agent files too)",
    "codex": "Codex CLI rollout JSONL",
    "openai-chat": "OpenAI chat-completions messages",
    "openai-responses": "OpenAI Responses items",
    "anthropic-messages": "Anthropic Messages list",
    "openhands": "OpenHands event list",
}
"""The ``format=`` names and what each reads."""

READERS: dict[str, Reader] = {
    "claude-code": read_claude,
    "codex": read_codex,
    "openai-chat": read_chat,
    "openai-responses": read_responses,
    "anthropic-messages": read_anthropic,
    "openhands": read_openhands,
}
_WRAPPER_KEYS = ("messages", "history", "input", "events", "trajectory", "items", "conversation")
_TRIED = (
    "tried: "
    + ", ".join(FORMATS.values())
    + ", and JSON objects wrapping such a list under "
    + "/".join(_WRAPPER_KEYS)
    + " or request_body"
)


def parse_transcript(data: bytes, what: str, fmt: str | None = None) -> Conversation:
    """Read transcript bytes into a :class:`Conversation`; ``fmt`` forces a reader (see :data:`FORMATS`)."""
    if fmt is not None and fmt not in READERS:
        raise InvalidArgument(f"format must be one of {', '.join(sorted(READERS))} (or omitted), not {quote(fmt)}")
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    if not text.strip():
        raise UnsupportedFormat(f"{clip(what)}: the file is empty; there is no conversation to read")
    doc = _whole_document(text)
    if isinstance(doc, dict) and (looks_like_claude(doc) or looks_like_codex(doc)):
        doc = None  # a JSON Lines file with a single line
    if doc is not None:
        records, extra, facts = _unwrap(doc)
        malformed: list[int] = []
    else:
        records, malformed = _json_lines(text, what)
        extra, facts = [], {}
    name = fmt or _detect(records)
    if name is None:
        raise UnsupportedFormat(f"{clip(what)}: not a conversation transcript in a known format ({_TRIED})")
    records = records + extra
    conv = READERS[name](records, malformed)
    if fmt is not None and not conv.turns and records:
        raise UnsupportedFormat(
            f"{clip(what)}: read as {FORMATS[fmt]} it holds no turns; is it another format? ({_TRIED})"
        )
    for key, value in facts.items():
        conv.facts.setdefault(key, value)
    if "system" in facts:
        _prepend_system(conv, str(facts.pop("system")))
        conv.facts.pop("system", None)
    if isinstance(facts.get("model"), str) and facts["model"] not in conv.models:
        conv.models.insert(0, facts["model"])
    conv.facts.pop("model", None)
    return conv


def _whole_document(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] not in "[{":
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def _json_lines(text: str, what: str) -> tuple[Records, list[int]]:
    records: Records = []
    malformed: list[int] = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            malformed.append(n)
            continue
        if isinstance(obj, dict):
            records.append((n, obj))
        else:
            malformed.append(n)
    if not records or len(malformed) > len(records):
        raise UnsupportedFormat(
            f"{clip(what)}: not a conversation transcript: neither one JSON document nor JSON Lines "
            f"({len(malformed):,} of {len(malformed) + len(records):,} non-empty lines are not JSON objects; "
            f"{_TRIED})"
        )
    return records, malformed


def _unwrap(doc: Any) -> tuple[Records, Records, dict[str, Any]]:
    """``(records, records appended after them, facts)`` from a JSON document."""
    facts: dict[str, Any] = {}
    extra: Records = []
    if isinstance(doc, dict) and isinstance(doc.get("request_body"), dict):
        response = doc.get("response_body")
        doc = doc["request_body"]
        extra = [(None, m) for m in _response_messages(response)]
    if isinstance(doc, dict):
        for key in ("model", "instance_id"):
            if isinstance(doc.get(key), str):
                facts[key] = doc[key]
        system = doc.get("system") or doc.get("instructions")
        if isinstance(system, list):
            system = "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
        if isinstance(system, str) and system.strip():
            facts["system"] = system
        for key in _WRAPPER_KEYS:
            if isinstance(doc.get(key), list):
                doc = _steps(doc[key]) if key == "trajectory" and "history" not in doc else doc[key]
                break
        else:
            doc = [doc] if "role" in doc or "type" in doc else []
    if not isinstance(doc, list):
        return [], extra, facts
    return [(None, item) for item in doc if isinstance(item, dict)], extra, facts


def _steps(steps: list[Any]) -> list[dict[str, Any]]:
    """SWE-agent ``trajectory`` steps (thought, action, observation) as chat messages."""
    out: list[dict[str, Any]] = []
    for n, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        call = {
            "id": f"step-{n}",
            "type": "function",
            "function": {"name": "action", "arguments": json.dumps({"command": step.get("action", "")})},
        }
        out.append(
            {
                "role": "assistant",
                "content": step.get("thought") or step.get("response") or "",
                "tool_calls": [call],
            }
        )
        out.append({"role": "tool", "tool_call_id": f"step-{n}", "content": step.get("observation") or ""})
    return out


def _response_messages(response: Any) -> list[dict[str, Any]]:
    """The assistant message(s) of a recorded API response (chat completion, Anthropic message, Responses)."""
    if not isinstance(response, dict):
        return []
    if isinstance(response.get("choices"), list):
        return [
            c["message"] for c in response["choices"][:1] if isinstance(c, dict) and isinstance(c.get("message"), dict)
        ]
    if response.get("role") == "assistant" and "content" in response:
        return [{"role": "assistant", "content": response["content"], "model": response.get("model")}]
    if isinstance(response.get("output"), list):
        return [o for o in response["output"] if isinstance(o, dict)]
    return []


def _detect(records: Records) -> str | None:
    """The format the records' shapes vote for, or None."""
    if not records:
        return None
    sample = [r for _, r in records[:200]]
    if looks_like_old_codex(sample[0]) and len(sample) > 1:
        return "codex"
    votes: Counter[str] = Counter()
    for rec in sample:
        if looks_like_codex(rec):
            votes["codex"] += 1
        elif looks_like_claude(rec):
            votes["claude-code"] += 1
        elif looks_like_openhands(rec):
            votes["openhands"] += 1
        elif rec.get("type") in ITEM_TYPES and (rec.get("type") != "message" or _responses_parts(rec)):
            votes["openai-responses"] += 1
        elif "role" in rec:
            votes[_message_style(rec)] += 1
    if not votes:
        return None
    if votes["openai-responses"] and not votes["codex"] and not votes["claude-code"]:
        return "openai-responses"
    if "anthropic-messages" in votes and "openai-chat" in votes:
        strong = any(r.get("tool_calls") or r.get("role") in ("tool", "function") for r in sample)
        return "openai-chat" if strong else "anthropic-messages"
    return votes.most_common(1)[0][0]


def _responses_parts(rec: dict[str, Any]) -> bool:
    content = rec.get("content")
    return isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "input_image") for p in content
    )


def _message_style(rec: dict[str, Any]) -> str:
    content = rec.get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in ANTHROPIC_BLOCKS for b in content):
        return "anthropic-messages"
    if _responses_parts(rec):
        return "openai-responses"
    if isinstance(content, list) and any(isinstance(b, dict) and isinstance(b.get("source"), dict) for b in content):
        return "anthropic-messages"
    return "openai-chat"


def _prepend_system(conv: Conversation, text: str) -> None:
    """Put a request's top-level system prompt first, renumbering the turns."""
    conv.turns.insert(0, Turn(role="system", kind="meta", text=text))
    for n, turn in enumerate(conv.turns, 1):
        turn.number = n
