"""Readers for message lists: OpenAI chat completions and Anthropic Messages.

OpenAI chat: ``system`` / ``developer`` / ``user`` / ``assistant`` / ``tool`` messages;
assistant ``tool_calls`` (and the legacy ``function_call``) are paired with ``role: tool``
messages by ``tool_call_id``. Anthropic Messages: ``user`` / ``assistant`` messages whose
content blocks carry ``tool_use`` / ``server_tool_use`` / ``mcp_tool_use`` calls and
``tool_result`` / ``*_tool_result`` / ``mcp_tool_result`` results, paired by id.

Agent trajectories that keep such a list (SWE-agent ``history``, mini-swe-agent
``messages``) add their own marks, read here too: ``is_demo`` or a ``demonstration``
message type, observations sent as user messages, and mini-swe-agent's final ``exit``
message with the submission.
"""

from __future__ import annotations

import json
from typing import Any

from .blocks import classify_user_text, content_blocks, content_parts, result_output
from .model import Conversation, ToolCall, Turn, TurnBuilder, norm_time

__all__ = ["ANTHROPIC_BLOCKS", "read_anthropic", "read_chat"]

ANTHROPIC_BLOCKS = frozenset(
    {
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "mcp_tool_use",
        "mcp_tool_result",
    }
)


def _when(msg: dict[str, Any]) -> str | None:
    extra = msg.get("extra") if isinstance(msg.get("extra"), dict) else {}
    return norm_time(msg.get("timestamp") or msg.get("created_at") or extra.get("timestamp"))


def _model(msg: dict[str, Any]) -> str | None:
    extra = msg.get("extra") if isinstance(msg.get("extra"), dict) else {}
    response = extra.get("response") if isinstance(extra.get("response"), dict) else {}
    model = msg.get("model") or response.get("model")
    return model if isinstance(model, str) else None


def _user_kind(msg: dict[str, Any], text: str) -> tuple[str, str]:
    kind, cleaned = classify_user_text(text)
    if msg.get("is_demo") or msg.get("message_type") == "demonstration":
        kind = "demo"
    elif msg.get("message_type") == "observation" and kind == "":
        kind = "observation"
    return kind, cleaned


def _args(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def read_chat(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read OpenAI chat-completions messages (``(line, message)`` pairs) into a conversation."""
    b = TurnBuilder()
    bad = list(malformed)
    last_assistant: Turn | None = None
    for n, (line, msg) in enumerate(records, 1):
        role = msg.get("role")
        ts = _when(msg)
        text, attachments = content_parts(msg.get("content"))
        if role == "assistant":
            thinking = msg.get("reasoning_content") or msg.get("thought") or ""
            turn = b.add(
                Turn(
                    role="assistant",
                    text=text,
                    thinking=thinking if isinstance(thinking, str) and thinking != text else "",
                    attachments=attachments,
                    timestamp=ts,
                    model=_model(msg),
                    line=line,
                )
            )
            for call in msg.get("tool_calls") or []:
                if isinstance(call, dict):
                    fn = call.get("function") if isinstance(call.get("function"), dict) else {}
                    name = str(fn.get("name") or call.get("type") or "?")
                    b.call(turn, ToolCall(id=call.get("id"), name=name, args=_args(fn.get("arguments"))))
            legacy = msg.get("function_call")
            if isinstance(legacy, dict):
                b.call(
                    turn,
                    ToolCall(id=None, name=str(legacy.get("name") or "?"), args=_args(legacy.get("arguments"))),
                )
            last_assistant = turn
        elif role in ("tool", "function"):
            output = result_output(msg.get("content"))
            call_id = msg.get("tool_call_id")
            if call_id is None and last_assistant is not None:  # legacy function role: pair by name
                for call in last_assistant.calls:
                    if call.output is None and call.name == msg.get("name"):
                        call.output = output
                        break
                else:
                    b.result(None, output, ts, line)
            else:
                b.result(call_id, output, ts, line)
        elif role == "user":
            kind, cleaned = _user_kind(msg, text)
            b.add(Turn(role="user", text=cleaned, kind=kind, attachments=attachments, timestamp=ts, line=line))
        elif role in ("system", "developer"):
            kind = "demo" if msg.get("is_demo") else "meta"
            label = "developer: " if role == "developer" else ""
            b.add(Turn(role="system", kind=kind, text=label + text, timestamp=ts, line=line))
        elif role == "exit":
            extra = msg.get("extra") if isinstance(msg.get("extra"), dict) else {}
            status = extra.get("exit_status")
            label = f"exit ({status}): " if status else "exit: "
            b.add(Turn(role="assistant", kind="exit", text=label + text, timestamp=ts, line=line))
        elif isinstance(role, str):
            b.add(Turn(role="system", kind="meta", text=f"{role}: {text}", timestamp=ts, line=line))
        else:
            bad.append(line if line is not None else n)
    return b.finish("openai-chat", bad)


def read_anthropic(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read Anthropic Messages (``(line, message)`` pairs) into a conversation."""
    b = TurnBuilder()
    bad = list(malformed)
    for n, (line, msg) in enumerate(records, 1):
        role = msg.get("role")
        ts = _when(msg)
        blocks = content_blocks(msg.get("content"))
        text = "\n\n".join(t for t in blocks.text if t.strip())
        if role == "assistant":
            turn = b.add(
                Turn(
                    role="assistant",
                    text=text,
                    thinking="\n\n".join(blocks.thinking),
                    attachments=blocks.attachments,
                    timestamp=ts,
                    model=_model(msg),
                    line=line,
                )
            )
            for call_id, name, args in blocks.calls:
                b.call(turn, ToolCall(id=call_id, name=name, args=args))
            for call_id, output in blocks.results:  # server tools answer inside the same message
                b.result(call_id, output, ts, line)
        elif role == "user":
            for call_id, output in blocks.results:
                b.result(call_id, output, ts, line)
            if text.strip() or blocks.attachments:
                kind, cleaned = _user_kind(msg, text)
                b.add(
                    Turn(
                        role="user",
                        text=cleaned,
                        kind=kind,
                        attachments=blocks.attachments,
                        timestamp=ts,
                        line=line,
                    )
                )
        elif role == "system":
            b.add(Turn(role="system", kind="meta", text=text, timestamp=ts, line=line))
        else:
            bad.append(line if line is not None else n)
    return b.finish("anthropic-messages", bad)
