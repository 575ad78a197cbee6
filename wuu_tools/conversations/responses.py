"""Reader for OpenAI Responses items (also the items inside a Codex CLI rollout).

Items are ``message`` (role user / assistant / system / developer; content parts
``input_text`` / ``output_text`` / images / files), ``reasoning`` (summary texts),
``function_call`` / ``custom_tool_call`` / ``local_shell_call`` / ``web_search_call`` /
``mcp_call`` and the like, and their ``*_output`` items paired by ``call_id``. The model's
reasoning, messages and calls between two tool outputs form one assistant turn.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from .blocks import classify_user_text, content_parts, failure, to_text
from .model import Conversation, ToolCall, ToolOutput, Turn, TurnBuilder, norm_time

__all__ = ["CALL_TYPES", "ITEM_TYPES", "ItemReader", "read_responses"]

CALL_TYPES = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "mcp_call",
        "code_interpreter_call",
        "image_generation_call",
        "tool_search_call",
    }
)
OUTPUT_TYPES = frozenset(
    {
        "function_call_output",
        "custom_tool_call_output",
        "local_shell_call_output",
        "computer_call_output",
        "tool_search_output",
    }
)
ITEM_TYPES = CALL_TYPES | OUTPUT_TYPES | {"message", "reasoning"}


def codex_output(raw: Any) -> ToolOutput:
    """A call's output: Codex wraps it as JSON text ``{"output", "metadata": {"exit_code"}}``."""
    value = raw
    if isinstance(raw, str) and raw[:1] == "{":
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
    if isinstance(value, dict):
        meta = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
        code = meta.get("exit_code") if isinstance(meta.get("exit_code"), int) else None
        body = value.get("output", value.get("content", value))
        if isinstance(body, list):
            text, attachments = content_parts(body)
        else:
            text, attachments = to_text(body), []
        failed = (code not in (None, 0)) or value.get("success") is False
        if code is None:
            failed_text, code = failure(text)
            failed = failed or failed_text
        return ToolOutput(text=text, is_error=failed, exit_code=code, attachments=attachments)
    if isinstance(value, list):
        text, attachments = content_parts(value)
        return ToolOutput(text=text, attachments=attachments)
    text = to_text(value)
    failed, code = failure(text)
    return ToolOutput(text=text, is_error=failed, exit_code=code)


def _call(item: dict[str, Any]) -> tuple[str, Any]:
    """``(name, arguments)`` of a call item; JSON argument strings are decoded."""
    kind = item.get("type", "")
    if kind == "function_call":
        args: Any = item.get("arguments")
        if isinstance(args, str):
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        return str(item.get("name") or "?"), args
    if kind == "custom_tool_call":
        return str(item.get("name") or "?"), item.get("input")
    if kind == "mcp_call":
        name = str(item.get("name") or "?")
        if item.get("server_label"):
            name = f"{item['server_label']}.{name}"
        args = item.get("arguments")
        if isinstance(args, str):
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        return name, args
    action = item.get("action")
    if kind == "local_shell_call" and isinstance(action, dict):
        return "shell", {"command": action.get("command"), "workdir": action.get("working_directory")}
    if kind == "web_search_call":
        query = action.get("query") if isinstance(action, dict) else None
        return "web_search", {"query": query} if query else action
    rest = {k: v for k, v in item.items() if k not in ("type", "id", "call_id", "status")}
    return kind.removesuffix("_call"), rest


class ItemReader:
    """Feeds Responses items, one at a time, into a :class:`TurnBuilder`."""

    def __init__(self, builder: TurnBuilder) -> None:
        self.b = builder
        self.current: Turn | None = None
        self.after_output = False

    def _assistant(self, ts: str | None, line: int | None, model: str | None) -> Turn:
        if self.current is None or self.after_output:
            self.current = self.b.add(Turn(role="assistant", timestamp=ts, line=line, model=model))
            self.after_output = False
        return self.current

    def item(
        self, item: dict[str, Any], ts: str | None = None, line: int | None = None, model: str | None = None
    ) -> bool:
        """Read one item; returns False when it is of no known type."""
        kind = item.get("type") or ("message" if "role" in item else "")
        if not isinstance(kind, str):
            return False
        if kind == "message":
            self._message(item, ts, line, model)
        elif kind == "reasoning":
            parts = item.get("summary") or item.get("content") or []
            texts = [to_text(p.get("text")) for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
            turn = self._assistant(ts, line, model)
            if texts:
                turn.thinking = "\n\n".join([t for t in (turn.thinking, *texts) if t])
        elif kind in CALL_TYPES:
            turn = self._assistant(ts, line, model)
            name, args = _call(item)
            call = ToolCall(id=item.get("call_id") or item.get("id"), name=name, args=args)
            self.b.call(turn, call)
            if kind == "mcp_call" and (item.get("output") is not None or item.get("error")):
                call.output = codex_output(item.get("output") or "")
                if item.get("error"):
                    call.output.is_error = True
                    call.output.text = (call.output.text + "\n" + to_text(item["error"])).strip()
        elif kind in OUTPUT_TYPES:
            self.b.result(item.get("call_id"), codex_output(item.get("output")), ts, line)
            self.after_output = True
        else:
            return False
        return True

    def _message(self, item: dict[str, Any], ts: str | None, line: int | None, model: str | None) -> None:
        role = item.get("role")
        text, attachments = content_parts(item.get("content"))
        if role == "assistant":
            turn = self._assistant(ts, line, model)
            turn.text = "\n\n".join(t for t in (turn.text, text) if t.strip())
            turn.attachments.extend(attachments)
            return
        self.current = None
        if role == "user":
            kind, cleaned = classify_user_text(text)
            self.b.add(Turn(role="user", text=cleaned, kind=kind, attachments=attachments, timestamp=ts, line=line))
        else:
            label = f"{role}: " if role not in (None, "system") else ""
            self.b.add(Turn(role="system", kind="meta", text=label + text, timestamp=ts, line=line))


def read_responses(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read a list of Responses items (``(line, item)`` pairs) into a conversation."""
    b = TurnBuilder()
    reader = ItemReader(b)
    bad = list(malformed)
    for n, (line, item) in enumerate(records, 1):
        if not reader.item(item, norm_time(item.get("created_at") or item.get("timestamp")), line):
            bad.append(line if line is not None else n)
    return b.finish("openai-responses", bad)
