"""Reader for Gemini CLI's headless stream (``gemini -p … --output-format stream-json``).

One JSON object per line, ``type`` in init / message / tool_use / tool_result / error /
result (gemini-cli ``JsonStreamEventType``). ``init`` names the session and model;
``message`` carries ``role`` user or assistant and ``content`` (assistant text may arrive
as ``delta`` chunks, joined here); ``tool_use`` {tool_name, tool_id, parameters} is paired
with ``tool_result`` {tool_id, status, output, error} by id; ``error`` events (warnings and
errors) become system turns, and the final ``result`` gives the header its facts (status,
token and tool-call counts). The model's text and the calls it makes between two tool
results form one assistant turn.
"""

from __future__ import annotations

from typing import Any

from .blocks import classify_user_text, failure, to_text
from .model import Conversation, ToolCall, ToolOutput, Turn, TurnBuilder, norm_time

__all__ = ["marks_gemini_stream", "read_gemini_stream", "reads_gemini_stream"]

_KEYS = {
    "init": ("session_id", "model"),
    "tool_use": ("tool_name", "tool_id"),
    "tool_result": ("tool_id", "status"),
    "result": ("status", "stats"),
    "error": ("severity", "message"),
}


def marks_gemini_stream(rec: dict[str, Any]) -> bool:
    """True for an event only Gemini CLI's stream writes (init, tool_use, tool_result, result, error)."""
    keys = _KEYS.get(str(rec.get("type")))
    return keys is not None and any(k in rec for k in keys)


def reads_gemini_stream(rec: dict[str, Any]) -> bool:
    """True for an event of Gemini CLI's stream: the marked ones, and user / assistant messages."""
    if marks_gemini_stream(rec):
        return True
    return rec.get("type") == "message" and rec.get("role") in ("user", "assistant") and "content" in rec


def _when(rec: dict[str, Any]) -> str | None:
    return norm_time(rec.get("timestamp") or rec.get("ts"))


def read_gemini_stream(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read Gemini CLI stream-json events (``(line, event)`` pairs) into a conversation."""
    b = TurnBuilder()
    facts: dict[str, Any] = {}
    current: Turn | None = None  # the assistant turn the next text or call joins
    model: str | None = None
    bad = list(malformed)
    for n, (line, rec) in enumerate(records, 1):
        kind = rec.get("type")
        ts = _when(rec)
        if kind == "init":
            if isinstance(rec.get("model"), str):
                model = rec["model"]
                if model not in b.models:
                    b.models.append(model)
            if isinstance(rec.get("session_id"), str):
                facts.setdefault("session", rec["session_id"])
        elif kind == "message" and rec.get("role") == "user":
            current = None
            kind_, text = classify_user_text(to_text(rec.get("content")))
            b.add(Turn(role="user", text=text, kind=kind_, timestamp=ts, line=line))
        elif kind == "message":
            text = to_text(rec.get("content"))
            if current is None:
                current = b.add(Turn(role="assistant", timestamp=ts, model=model, line=line))
            joiner = "" if rec.get("delta") or not current.text else "\n\n"
            current.text += joiner + text
        elif kind == "tool_use":
            if current is None:
                current = b.add(Turn(role="assistant", timestamp=ts, model=model, line=line))
            name = str(rec.get("tool_name") or "?")
            b.call(current, ToolCall(id=_id(rec.get("tool_id")), name=name, args=rec.get("parameters")))
        elif kind == "tool_result":
            b.result(_id(rec.get("tool_id")), _output(rec), ts, line)
            current = None
        elif kind == "error":
            current = None
            severity = rec.get("severity") or "error"
            b.add(Turn(role="system", kind="meta", text=f"{severity}: {to_text(rec.get('message'))}", timestamp=ts))
        elif kind == "result":
            current = None
            _result(b, rec, facts, ts, line)
        else:
            bad.append(line if line is not None else n)
    return b.finish("gemini-cli", bad, facts)


def _id(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _output(rec: dict[str, Any]) -> ToolOutput:
    """A ``tool_result``: its output, else its error's message; ``status: error`` marks a failure."""
    error = rec.get("error") if isinstance(rec.get("error"), dict) else {}
    text = to_text(rec.get("output"))
    if not text.strip() and error:
        text = to_text(error.get("message"))
    failed, code = failure(text)
    return ToolOutput(text=text, is_error=rec.get("status") == "error" or failed, exit_code=code)


def _result(b: TurnBuilder, rec: dict[str, Any], facts: dict[str, Any], ts: str | None, line: int | None) -> None:
    """The run's final event: its stats go to the header; a failed run is said in a system turn."""
    stats = rec.get("stats") if isinstance(rec.get("stats"), dict) else {}
    if isinstance(stats.get("total_tokens"), int):
        facts["tokens_used"] = stats["total_tokens"]
    if rec.get("status") == "error":
        error = rec.get("error") if isinstance(rec.get("error"), dict) else {}
        message = to_text(error.get("message")) or "the run failed"
        b.add(Turn(role="system", kind="meta", text=f"result: error: {message}", timestamp=ts, line=line))
