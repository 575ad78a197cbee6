"""Readers for Gemini CLI's saved chats: session records and Gemini API ``Content`` lists.

**Sessions** (``~/.gemini/tmp/<project>/chats/session-*.json`` or ``.jsonl``; gemini-cli
``ConversationRecord``): messages ``{id, timestamp, type, content}`` with ``type`` user /
gemini / info / error / warning; a ``gemini`` message holds the model's ``thoughts``
(subject and description), its ``toolCalls`` (``{id, name, args, result, status}``, each
with its result inside) and the ``model``. The JSON Lines form starts with a metadata line
(``sessionId``, ``projectHash``), writes a message again when it changes (same ``id``),
and has ``{"$set": …}`` metadata updates and ``{"$rewindTo": id}`` lines that drop the
messages from ``id`` on; the conversation read is the one the CLI would resume.

**Contents** (``/chat save`` checkpoints ``checkpoint-*.json``, ``{"history": [...]}`` or a
bare list, and Gemini API request ``contents``): ``{role: user | model, parts}`` with
``text`` parts (``thought: true`` for reasoning), ``functionCall`` and ``functionResponse``
parts paired by ``id`` (by name, in order, when a part has no id).
"""

from __future__ import annotations

from typing import Any

from .blocks import classify_user_text, failure, to_text
from .model import Conversation, ToolCall, ToolOutput, Turn, TurnBuilder, norm_time

__all__ = [
    "marks_gemini_contents",
    "marks_gemini_session",
    "read_gemini_contents",
    "read_gemini_session",
    "reads_gemini_contents",
]

MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
_FAILED = frozenset({"error", "cancelled"})


def marks_gemini_session(rec: dict[str, Any]) -> bool:
    """True for a line of a Gemini CLI session: metadata, ``$set``, ``$rewindTo``, or a message record."""
    if isinstance(rec.get("sessionId"), str) and isinstance(rec.get("projectHash"), str):
        return True
    if isinstance(rec.get("$set"), dict) or isinstance(rec.get("$rewindTo"), str):
        return True
    return (
        isinstance(rec.get("id"), str)
        and str(rec.get("type")) in MESSAGE_TYPES
        and ("content" in rec or "toolCalls" in rec)
        and "role" not in rec
    )


def marks_gemini_contents(rec: dict[str, Any]) -> bool:
    """True for a Gemini API ``Content``: a role and a list of ``parts``."""
    return rec.get("role") in ("user", "model", "function") and isinstance(rec.get("parts"), list)


reads_gemini_contents = marks_gemini_contents


# -- parts -------------------------------------------------------------------------------------------


def _parts(content: Any) -> list[Any]:
    if content is None:
        return []
    return content if isinstance(content, list) else [content]


def _media(part: dict[str, Any]) -> dict[str, Any] | None:
    inline = part.get("inlineData") or part.get("inline_data")
    if isinstance(inline, dict):
        mime = str(inline.get("mimeType") or inline.get("mime_type") or "application/octet-stream")
        media = "image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else "file"
        return {"type": media, "mime_type": mime, "data": str(inline.get("data") or "")}
    file = part.get("fileData") or part.get("file_data")
    if isinstance(file, dict):
        mime = str(file.get("mimeType") or file.get("mime_type") or "application/octet-stream")
        return {"type": "image" if mime.startswith("image/") else "file", "mime_type": mime, "uri": file.get("fileUri")}
    return None


def _response_output(response: Any, status: Any = None) -> ToolOutput:
    """A ``functionResponse.response`` (``{output}`` or ``{error}``, or anything) as a tool output."""
    is_error = str(status) in _FAILED
    if isinstance(response, dict):
        if "output" in response:
            text = to_text(response["output"])
        elif "error" in response:
            text, is_error = to_text(response["error"]), True
        elif "content" in response:
            text = "\n".join(_split(response["content"]).text)
        else:
            text = to_text(response)
    else:
        text = to_text(response)
    failed, code = failure(text)
    return ToolOutput(text=text, is_error=is_error or failed, exit_code=code)


class _Split:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.calls: list[tuple[str | None, str, Any]] = []
        self.results: list[tuple[str | None, str, ToolOutput]] = []
        self.attachments: list[dict[str, Any]] = []


def _split(content: Any) -> _Split:
    """A ``PartListUnion`` (a string, a part, or a list of them) split into text, thoughts, calls, results."""
    out = _Split()
    for part in _parts(content):
        if isinstance(part, str):
            out.text.append(part)
        elif not isinstance(part, dict):
            continue
        elif isinstance(part.get("functionCall"), dict):
            fc = part["functionCall"]
            out.calls.append((fc.get("id"), str(fc.get("name") or "?"), fc.get("args")))
        elif isinstance(part.get("functionResponse"), dict):
            fr = part["functionResponse"]
            out.results.append((fr.get("id"), str(fr.get("name") or ""), _response_output(fr.get("response"))))
        elif isinstance(part.get("text"), str):
            (out.thinking if part.get("thought") else out.text).append(part["text"])
        else:
            media = _media(part)
            if media is not None:
                out.attachments.append(media)
            elif part.get("executableCode") or part.get("codeExecutionResult"):
                out.text.append(to_text(part.get("executableCode") or part.get("codeExecutionResult")))
    return out


def _pair(b: TurnBuilder, pending: list[ToolCall], call_id: str | None, name: str, output: ToolOutput) -> None:
    """Attach a result to its call: by id, else the oldest unanswered call of that name."""
    if call_id is not None and any(c.id == call_id for c in pending):
        b.result(call_id, output)
        pending[:] = [c for c in pending if c.output is None]
        return
    for call in pending:
        if call.output is None and (not name or call.name == name):
            call.output = output
            pending.remove(call)
            return
    b.result(call_id, output)


# -- Content lists ---------------------------------------------------------------------------------


def read_gemini_contents(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read Gemini API contents (``(line, content)`` pairs) into a conversation."""
    b = TurnBuilder()
    pending: list[ToolCall] = []
    for line, rec in records:
        parts = _split(rec.get("parts"))
        ts = norm_time(rec.get("timestamp"))
        for call_id, name, output in parts.results:
            _pair(b, pending, call_id, name, output)
        text = "\n".join(t for t in parts.text if t.strip())
        if rec.get("role") == "model":
            turn = b.add(
                Turn(
                    role="assistant",
                    text=text,
                    thinking="\n\n".join(parts.thinking),
                    attachments=parts.attachments,
                    timestamp=ts,
                    line=line,
                )
            )
            for call_id, name, args in parts.calls:
                call = ToolCall(id=call_id, name=name, args=args)
                b.call(turn, call)
                pending.append(call)
        elif text.strip() or parts.attachments:
            kind, cleaned = classify_user_text(text)
            b.add(Turn(role="user", text=cleaned, kind=kind, attachments=parts.attachments, timestamp=ts, line=line))
    return b.finish("gemini-contents", list(malformed))


# -- sessions ----------------------------------------------------------------------------------------


def _messages(records: list[tuple[int | None, dict[str, Any]]]) -> tuple[list[tuple[int | None, dict]], dict]:
    """The messages a resumed session holds (later writes of an id replace it, rewinds drop), and metadata."""
    order: dict[str, tuple[int | None, dict[str, Any]]] = {}
    meta: dict[str, Any] = {}
    for line, rec in records:
        if isinstance(rec.get("$rewindTo"), str):
            ids = list(order)
            cut = ids.index(rec["$rewindTo"]) if rec["$rewindTo"] in order else 0
            for key in ids[cut:]:
                del order[key]
        elif isinstance(rec.get("$set"), dict):
            update = rec["$set"]
            meta.update({k: v for k, v in update.items() if k != "messages"})
            if isinstance(update.get("messages"), list):
                order = {str(m["id"]): (line, m) for m in update["messages"] if isinstance(m, dict) and "id" in m}
        elif isinstance(rec.get("id"), str):
            first = order.get(rec["id"])
            order[rec["id"]] = (first[0] if first else line, rec)
        else:
            meta.update(rec)
    return list(order.values()), meta


def read_gemini_session(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read a Gemini CLI session (metadata and message records, ``(line, record)`` pairs)."""
    b = TurnBuilder()
    messages, meta = _messages(records)
    calls: dict[str, ToolCall] = {}
    facts: dict[str, Any] = {}
    if meta.get("kind") == "subagent":
        facts["sub_agent"] = str(meta.get("sessionId") or "yes")
    for line, msg in messages:
        kind = msg.get("type")
        ts = norm_time(msg.get("timestamp"))
        if kind == "gemini":
            _gemini(b, msg, calls, ts, line)
        elif kind == "user":
            shown = msg.get("displayContent") or msg.get("content")
            parts = _split(shown)
            text = "\n".join(t for t in parts.text if t.strip())
            for call_id, _name, output in _split(msg.get("content")).results:  # a history turn answering calls
                call = calls.get(str(call_id))
                if call is None:
                    b.result(call_id, output, ts, line)
                elif call.output is None:
                    call.output = output
            if text.strip() or parts.attachments:
                k, cleaned = classify_user_text(text)
                b.add(Turn(role="user", text=cleaned, kind=k, attachments=parts.attachments, timestamp=ts, line=line))
        else:
            text = "\n".join(_split(msg.get("content")).text)
            b.add(Turn(role="system", kind="meta", text=f"{kind}: {text}", timestamp=ts, line=line))
    return b.finish("gemini-session", list(malformed), facts)


def _gemini(b: TurnBuilder, msg: dict[str, Any], calls: dict[str, ToolCall], ts: str | None, line: int | None) -> None:
    parts = _split(msg.get("content"))
    thoughts = [
        ": ".join(x for x in (to_text(t.get("subject")), to_text(t.get("description"))) if x)
        for t in msg.get("thoughts") or []
        if isinstance(t, dict)
    ]
    model = msg.get("model") if isinstance(msg.get("model"), str) else None
    turn = b.add(
        Turn(
            role="assistant",
            text="\n".join(t for t in parts.text if t.strip()),
            thinking="\n\n".join(t for t in [*thoughts, *parts.thinking] if t),
            attachments=parts.attachments,
            timestamp=ts,
            model=model,
            line=line,
        )
    )
    for record in msg.get("toolCalls") or []:
        if not isinstance(record, dict):
            continue
        call_id = record.get("id")
        call = ToolCall(
            id=str(call_id) if call_id else None, name=str(record.get("name") or "?"), args=record.get("args")
        )
        turn.calls.append(call)
        call.output = _call_output(record)
        if call.id:
            calls[call.id] = call


def _call_output(record: dict[str, Any]) -> ToolOutput | None:
    """A recorded tool call's result: its ``functionResponse`` parts, else what the CLI displayed."""
    status = record.get("status")
    results = _split(record.get("result")).results
    if results:
        output = results[0][2]
        for _id, _name, more in results[1:]:
            output.text += "\n" + more.text
        output.is_error = output.is_error or str(status) in _FAILED
        return output
    display = record.get("resultDisplay")
    if isinstance(display, dict):
        display = display.get("fileDiff") or display.get("output") or to_text(display)
    if display in (None, "") and status in (None, "scheduled", "executing", "validating", "awaiting_approval"):
        return None
    text = to_text(display) or to_text(record.get("result"))
    failed, code = failure(text)
    return ToolOutput(text=text, is_error=str(status) in _FAILED or failed, exit_code=code)
