"""Reader for Anthropic managed-agent session events (``GET /v1/sessions/{id}/events``).

Events are ``{id, type, processed_at, …}`` with ``type`` ``{domain}.{action}``: ``user.*``
(message, define_outcome, interrupt, tool_confirmation, custom_tool_result, tool_result),
``agent.*`` (message, thinking, tool_use / mcp_tool_use / custom_tool_use and their results,
thread messages to and from sub-agents, context compaction), ``session.*`` (status, errors,
threads, usage) and ``span.*`` (model requests, outcome evaluation); ``system.message``
changes the system prompt. They are read as listed by the API (a JSON list, or under
``data``), one per line, or in an exporter's wrapper ``{role, kind, content, time, raw}``
whose ``raw`` is the event.

The task is the first ``user.message`` or ``user.define_outcome`` (its description, then its
rubric). One model request (``span.model_request_start`` to ``…_end``) is one assistant turn:
its text, and the tool calls it made, each paired with the ``agent.*_tool_result`` or
``user.*_tool_result`` that answers it by event id. ``agent.thinking`` is a progress
signal without text and adds nothing; status, usage and model-request spans carry no
conversation; an outcome evaluation's verdict becomes a system turn.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .blocks import content_blocks, result_output, to_text
from .model import Conversation, ToolCall, Turn, TurnBuilder, norm_time

__all__ = ["event_of", "marks_agent_event", "read_agent_events", "reads_agent_event"]

_TYPE = re.compile(r"^(user|agent|session|span|system)\.[a-z_]+$")
_ROLE_DOMAIN = {"user": "user", "agent": "agent"}  # a wrapper's role: the event's domain
_CALLS = frozenset({"agent.tool_use", "agent.mcp_tool_use", "agent.custom_tool_use"})
_RESULTS = {
    "agent.tool_result": "tool_use_id",
    "agent.mcp_tool_result": "mcp_tool_use_id",
    "user.custom_tool_result": "custom_tool_use_id",
    "user.tool_result": "tool_use_id",
}
KNOWN = frozenset(
    {
        "user.message",
        "user.define_outcome",
        "user.interrupt",
        "user.tool_confirmation",
        "agent.message",
        "agent.thinking",
        "agent.thread_message_sent",
        "agent.thread_message_received",
        "agent.thread_context_compacted",
        "system.message",
        *_CALLS,
        *_RESULTS,
    }
)
"""Event types that carry conversation; ``session.*`` and ``span.*`` events are read as bookkeeping."""


def event_of(rec: dict[str, Any]) -> dict[str, Any] | None:
    """The session event a record holds: the record itself, an exporter wrapper's ``raw``, or one rebuilt."""
    if isinstance(rec.get("type"), str) and _TYPE.match(rec["type"]):
        return rec
    raw = rec.get("raw")
    if isinstance(raw, dict) and isinstance(raw.get("type"), str) and _TYPE.match(raw["type"]):
        return raw
    domain = _domain(rec.get("role"), rec.get("kind"))
    if domain and ("time" in rec or "raw" in rec):
        event = {"type": f"{domain}.{rec['kind']}", "processed_at": rec.get("time")}
        if rec["kind"] in ("tool_use", "mcp_tool_use", "custom_tool_use"):
            event["name"] = rec.get("tool")
            event["input"] = _json(rec.get("content"))
        else:
            event["content"] = rec.get("content")
        return event
    return None


def _domain(role: Any, kind: Any) -> str | None:
    """The event domain of a wrapper's ``role`` and ``kind`` (its ``system`` is ``session`` or ``span``)."""
    if not isinstance(kind, str) or not kind:
        return None
    if role == "system":
        if kind == "message":
            return "system"
        return "span" if kind.startswith(("model_request", "outcome_evaluation")) else "session"
    return _ROLE_DOMAIN.get(str(role))


def marks_agent_event(rec: dict[str, Any]) -> bool:
    """True for a managed-agent session event, bare or wrapped."""
    return event_of(rec) is not None


def reads_agent_event(rec: dict[str, Any]) -> bool:
    """True for an event this reader reads: a known conversation event, or session / span bookkeeping."""
    event = event_of(rec)
    if event is None:
        return False
    kind = str(event.get("type"))
    return kind in KNOWN or kind.startswith(("session.", "span."))


def _json(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _flat(content: Any) -> list[Any]:
    """Content blocks with documents and search results turned into text (their title, source and text)."""
    if not isinstance(content, list):
        return [content] if content not in (None, "") else []
    out: list[Any] = []
    for block in content:
        if not isinstance(block, dict):
            out.append(block)
            continue
        kind = block.get("type")
        source = block.get("source")
        if kind == "search_result":
            inner = "\n".join(
                to_text(b.get("text")) for b in block.get("content") or [] if isinstance(b, dict) and b.get("text")
            )
            head = " · ".join(to_text(x) for x in (block.get("title"), source) if x)
            out.append({"type": "text", "text": f"[{head}]\n{inner}".strip()})
        elif kind == "document" and isinstance(source, dict) and source.get("type") == "text":
            title = f"[document: {block['title']}]\n" if block.get("title") else ""
            out.append({"type": "text", "text": (title + to_text(source.get("data"))).strip()})
        else:
            out.append(block)
    return out


class _Reader:
    def __init__(self) -> None:
        self.b = TurnBuilder()
        self.current: Turn | None = None
        self.after_result = False
        self.facts: dict[str, Any] = {}
        self.pending: list[ToolCall] = []  # calls without a result yet, oldest first

    def assistant(self, ts: str | None, line: int | None) -> Turn:
        if self.current is None or self.after_result:
            self.current = self.b.add(Turn(role="assistant", timestamp=ts, line=line))
            self.after_result = False
        return self.current

    def event(self, event: dict[str, Any], line: int | None) -> None:
        kind = str(event.get("type"))
        ts = norm_time(event.get("processed_at"))
        if kind == "span.model_request_start":
            self.current = None
        elif kind == "agent.message":
            text = "\n\n".join(t for t in content_blocks(_flat(event.get("content"))).text if t.strip())
            turn = self.assistant(ts, line)
            turn.text = "\n\n".join(t for t in (turn.text, text) if t)
        elif kind == "agent.thinking":
            thought = to_text(event.get("thinking") or event.get("content"))
            if thought.strip():
                turn = self.assistant(ts, line)
                turn.thinking = "\n\n".join(t for t in (turn.thinking, thought) if t)
        elif kind in _CALLS:
            name = str(event.get("name") or "?")
            if kind == "agent.mcp_tool_use" and event.get("mcp_server_name"):
                name = f"{event['mcp_server_name']}.{name}"
            call = ToolCall(id=event.get("id"), name=name, args=event.get("input"))
            self.b.call(self.assistant(ts, line), call)
            self.pending.append(call)
        elif kind in _RESULTS:
            self.result(
                event.get(_RESULTS[kind]), result_output(_flat(event.get("content")), bool(event.get("is_error")))
            )
            self.after_result = True
        else:
            self.current = None
            self.other(kind, event, ts, line)

    def result(self, call_id: Any, output: Any) -> None:
        """Pair by event id; a result without one (a wrapper that dropped ``raw``) answers the oldest open call."""
        call = next((c for c in self.pending if call_id and c.id == call_id), None)
        if call is None and not call_id and self.pending:
            call = self.pending[0]
        if call is None:
            self.b.result(call_id, output)
            return
        call.output = output
        self.pending.remove(call)

    def other(self, kind: str, event: dict[str, Any], ts: str | None, line: int | None) -> None:
        add = self.b.add
        if kind in ("user.message", "user.define_outcome"):
            blocks = content_blocks(_flat(event.get("content")))
            parts = [t for t in blocks.text if t.strip()]
            if kind == "user.define_outcome":
                rubric = event.get("rubric")
                rubric = rubric.get("content") or rubric.get("text") if isinstance(rubric, dict) else rubric
                parts = [to_text(event.get("description")), *parts]
                if rubric:
                    parts.append("Rubric (how the outcome is graded):\n" + to_text(rubric))
            text = "\n\n".join(p for p in parts if p.strip())
            add(Turn(role="user", text=text, attachments=blocks.attachments, timestamp=ts, line=line))
        elif kind == "user.interrupt":
            add(Turn(role="user", kind="interrupt", text="[interrupted by the user]", timestamp=ts, line=line))
        elif kind == "user.tool_confirmation":
            verdict = to_text(event.get("result") or "confirmation")
            text = f"tool confirmation: {verdict} ({to_text(event.get('tool_use_id'))})"
            add(Turn(role="user", kind="meta", text=text, timestamp=ts, line=line))
        elif kind in ("agent.thread_message_sent", "agent.thread_message_received"):
            text = "\n\n".join(t for t in content_blocks(_flat(event.get("content"))).text if t.strip())
            sent = kind.endswith("sent")
            peer = event.get("to_agent_name" if sent else "from_agent_name") or "another thread"
            label = f"to {peer}: " if sent else f"from {peer}: "
            add(
                Turn(role="assistant" if sent else "user", kind="sub-agent", text=label + text, timestamp=ts, line=line)
            )
        elif kind == "agent.thread_context_compacted":
            add(Turn(role="system", kind="compaction", text="context compacted", timestamp=ts, line=line))
        elif kind == "system.message":
            text = "\n".join(content_blocks(_flat(event.get("content"))).text)
            add(Turn(role="system", kind="meta", text=text, timestamp=ts, line=line))
        elif kind == "session.error":
            error = event.get("error") if isinstance(event.get("error"), dict) else {}
            text = f"error: {to_text(error.get('message') or error.get('type') or event.get('content'))}"
            add(Turn(role="system", kind="meta", text=text, timestamp=ts, line=line))
        elif kind == "span.outcome_evaluation_end":
            iteration, verdict = event.get("iteration"), event.get("result")
            head = "outcome evaluation" + (f" {iteration}" if iteration is not None else "")
            head += f": {to_text(verdict)}" if verdict else ""
            explanation = to_text(event.get("explanation") or event.get("content"))
            add(Turn(role="system", text=f"{head}\n{explanation}".strip(), timestamp=ts, line=line))
        elif kind.endswith("_status_running") or kind.endswith("_status_idle"):
            name = event.get("agent_name")
            if isinstance(name, str):
                self.facts.setdefault("agent", name)


def read_agent_events(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read managed-agent session events (``(line, record)`` pairs) into a conversation."""
    reader = _Reader()
    bad = list(malformed)
    for n, (line, rec) in enumerate(records, 1):
        event = event_of(rec)
        if event is None:
            bad.append(line if line is not None else n)
            continue
        reader.event(event, line)
    return reader.b.finish("anthropic-agent", bad, reader.facts)
