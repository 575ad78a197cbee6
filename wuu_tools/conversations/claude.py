"""Reader for Claude Code session JSONL, main sessions and sub-agent (sidechain) files alike.

One JSON object per line, ``type`` in user / assistant / system / summary / progress /
file-history-snapshot / queue-operation. An API message is split over several lines (one
content block each) sharing ``message.id``; those are joined into one turn. ``tool_use``
blocks are paired with the ``tool_result`` blocks of later user lines by id. Lines marked
``isMeta``, slash-command markup, local command output, caveats and injected reminders are
kept as turns but are not human instructions; ``compact_boundary`` system lines and
``isCompactSummary`` user lines mark compactions. Progress, snapshot and queue lines carry
no conversation and are skipped. In a main session that also holds sidechain lines, those
are marked as sub-agent turns; a file that is all sidechain (a sub-agent's own file) is
read as an ordinary conversation whose first prompt came from the parent agent.
"""

from __future__ import annotations

import re
from typing import Any

from .blocks import classify_user_text, content_blocks
from .model import Conversation, ToolCall, Turn, TurnBuilder, norm_time

__all__ = ["command_text", "looks_like_claude", "read_claude", "read_record"]

TYPES = frozenset({"user", "assistant", "system", "summary", "progress", "file-history-snapshot", "queue-operation"})
SKIPPED = frozenset({"progress", "file-history-snapshot", "queue-operation"})
_TAG = re.compile(
    r"<(command-name|command-args|local-command-stdout|local-command-stderr|bash-input|bash-stdout|bash-stderr)>(.*?)</\1>",
    re.S,
)


def looks_like_claude(record: dict[str, Any]) -> bool:
    """True for a line of a Claude Code session file."""
    kind = record.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        return False
    return (
        "uuid" in record
        or "sessionId" in record
        or "messageId" in record
        or "leafUuid" in record
        or "parentUuid" in record
    )


def command_text(text: str) -> str:
    """``<command-name>/clear</command-name><command-args>x</command-args>`` -> ``/clear x``."""
    parts = {name: body.strip() for name, body in _TAG.findall(text)}
    if "command-name" in parts:
        return " ".join(p for p in (parts["command-name"], parts.get("command-args", "")) if p)
    for name in ("local-command-stdout", "bash-stdout", "local-command-stderr", "bash-stderr", "bash-input"):
        if name in parts:
            label = "command output" if "stdout" in name else "command error" if "stderr" in name else "shell"
            return f"({label}) {parts[name]}".strip()
    return text


def read_claude(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read Claude Code session lines (``(line number, object)`` pairs) into a conversation."""
    b = TurnBuilder()
    facts: dict[str, Any] = {}
    chat = [r for _, r in records if r.get("type") in ("user", "assistant")]
    mixed = any(r.get("isSidechain") for r in chat) and not all(r.get("isSidechain") for r in chat)
    if chat and all(r.get("isSidechain") for r in chat):
        facts["sub_agent"] = str(chat[0].get("agentId") or "yes")
    skipped = 0
    for line, rec in records:
        for key in ("cwd", "gitBranch", "version"):
            if key not in facts and isinstance(rec.get(key), str):
                facts[key] = rec[key]
        if not read_record(b, rec, line, mixed):
            skipped += 1
    if skipped:
        facts["skipped_records"] = skipped
    return b.finish("claude-code", malformed, facts)


def read_record(b: TurnBuilder, rec: dict[str, Any], line: int | None, mixed: bool) -> bool:
    """Feed one session line to ``b``; False for a line of a kind that holds no turn (counted as skipped).

    ``mixed``: the session holds both main and sub-agent (sidechain) lines, so sidechain turns are marked.
    """
    kind = rec.get("type")
    ts = norm_time(rec.get("timestamp"))
    side = "sub-agent" if mixed and rec.get("isSidechain") else ""
    msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
    if kind == "assistant":
        _assistant(b, msg, rec, ts, line, side)
    elif kind == "user":
        _user(b, msg, rec, ts, line, side)
    elif kind == "system":
        _system(b, rec, ts, line)
    elif kind == "summary" and isinstance(rec.get("summary"), str):
        b.add(Turn(role="system", kind="summary", text=f"session title: {rec['summary']}", timestamp=ts, line=line))
    else:
        return False
    return True


def _assistant(
    b: TurnBuilder, msg: dict[str, Any], rec: dict[str, Any], ts: str | None, line: int | None, side: str
) -> None:
    blocks = content_blocks(msg.get("content"))
    key = msg.get("id") or rec.get("uuid")
    turn = b.joined(key)
    if turn is None or turn is not b.last():
        turn = b.add(
            Turn(role="assistant", kind=side, timestamp=ts, model=msg.get("model"), line=line),
            key=str(key) if key else None,
        )
    texts = [t for t in blocks.text if t.strip()]
    if texts:
        turn.text = "\n\n".join([turn.text, *texts]) if turn.text else "\n\n".join(texts)
    if blocks.thinking:
        turn.thinking = "\n\n".join([turn.thinking, *blocks.thinking]).strip()
    turn.attachments.extend(blocks.attachments)
    for call_id, name, args in blocks.calls:
        b.call(turn, ToolCall(id=call_id, name=name, args=args))
    for call_id, output in blocks.results:
        b.result(call_id, output, ts, line)


def _user(
    b: TurnBuilder, msg: dict[str, Any], rec: dict[str, Any], ts: str | None, line: int | None, side: str
) -> None:
    blocks = content_blocks(msg.get("content"))
    for call_id, output in blocks.results:
        b.result(call_id, output, ts, line)
    text = "\n".join(t for t in blocks.text if t.strip())
    if not text.strip() and not blocks.attachments:
        return
    kind, cleaned = classify_user_text(text)
    if kind == "command":
        cleaned = command_text(cleaned)
    if rec.get("isCompactSummary"):
        kind = "compaction"
    elif rec.get("isMeta") and kind == "":
        kind = "meta"
    elif side and kind == "":
        kind = side
    b.add(Turn(role="user", text=cleaned, kind=kind, attachments=blocks.attachments, timestamp=ts, line=line))


def _system(b: TurnBuilder, rec: dict[str, Any], ts: str | None, line: int | None) -> None:
    subtype = rec.get("subtype") or ""
    content = rec.get("content") if isinstance(rec.get("content"), str) else ""
    if subtype == "compact_boundary":
        info = rec.get("compactMetadata") if isinstance(rec.get("compactMetadata"), dict) else {}
        detail = ", ".join(
            part
            for part in (
                str(info.get("trigger") or ""),
                f"{info['preTokens']:,} tokens before" if isinstance(info.get("preTokens"), int) else "",
            )
            if part
        )
        text = "compaction boundary: earlier turns were summarised" + (f" ({detail})" if detail else "")
        b.add(Turn(role="system", kind="compaction", text=text, timestamp=ts, line=line))
        return
    if not content.strip():
        return
    if "<command-name>" in content or "<local-command-stdout>" in content:
        b.add(Turn(role="system", kind="command", text=command_text(content), timestamp=ts, line=line))
        return
    label = f"{subtype}: " if subtype and subtype != "informational" else ""
    b.add(Turn(role="system", kind="meta", text=f"{label}{content.strip()}", timestamp=ts, line=line))
