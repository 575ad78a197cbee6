"""Reader for Codex CLI rollout JSONL: the wrapped format (0.3x and later, 2026 too) and the older bare one.

Wrapped lines are ``{timestamp, type, payload}`` with ``type`` in session_meta /
turn_context / response_item / event_msg (and ``compacted``). The conversation is in the
``response_item`` payloads (Responses items, read by :class:`ItemReader`); the ``event_msg``
copies of user and agent messages are duplicates and are skipped, while ``turn_aborted``,
``error`` and compaction events become system turns. ``session_meta`` and
``turn_context`` give the header its facts (cli version, working directory, model,
context window). The older bare format (before 0.3) is a first line of session facts
followed by the Responses items themselves, one per line.
"""

from __future__ import annotations

from typing import Any

from .blocks import to_text
from .model import Conversation, Turn, TurnBuilder, norm_time
from .responses import ITEM_TYPES, ItemReader

__all__ = ["looks_like_codex", "looks_like_old_codex", "read_codex"]

WRAPPED = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_EVENTS_SKIPPED = frozenset(
    {"user_message", "agent_message", "agent_reasoning", "token_count", "task_started", "task_complete"}
)


def looks_like_codex(record: dict[str, Any]) -> bool:
    """True for a line of a wrapped Codex rollout."""
    kind = record.get("type")
    return isinstance(kind, str) and kind in WRAPPED and isinstance(record.get("payload"), dict)


def looks_like_old_codex(first: dict[str, Any]) -> bool:
    """True for the first line of a bare (pre-0.3) rollout: session facts, no ``type``."""
    return (
        "type" not in first and "id" in first and "timestamp" in first and ("instructions" in first or "git" in first)
    )


def read_codex(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read Codex rollout lines (``(line number, object)`` pairs) into a conversation."""
    b = TurnBuilder()
    reader = ItemReader(b)
    facts: dict[str, Any] = {}
    model: str | None = None
    bad = list(malformed)
    for n, (line, rec) in enumerate(records, 1):
        where = line if line is not None else n
        ts = norm_time(rec.get("timestamp"))
        kind = rec.get("type")
        payload = rec.get("payload") if isinstance(rec.get("payload"), dict) else None
        if payload is None:  # the bare format: the line is the item
            if rec.get("record_type") or (n == 1 and looks_like_old_codex(rec)):
                _facts(facts, rec)
            elif str(rec.get("type")) in ITEM_TYPES or "role" in rec:
                reader.item(rec, ts, line, model)
            else:
                bad.append(where)
            continue
        if kind == "session_meta":
            _facts(facts, payload)
        elif kind == "turn_context":
            if isinstance(payload.get("model"), str):
                model = payload["model"]
                if model not in b.models:
                    b.models.append(model)
        elif kind == "response_item":
            reader.item(payload, ts, line, model)
        elif kind == "compacted":
            text = to_text(payload.get("message")) or "earlier turns were summarised"
            reader.current = None
            b.add(Turn(role="system", kind="compaction", text=f"compaction: {text}", timestamp=ts, line=line))
        elif kind == "event_msg":
            _event(b, reader, payload, facts, ts, line)
        else:
            bad.append(where)
    return b.finish("codex", bad, facts)


def _facts(facts: dict[str, Any], payload: dict[str, Any]) -> None:
    for key in ("cli_version", "cwd", "originator", "model_provider"):
        if isinstance(payload.get(key), str) and key not in facts:
            facts[key] = payload[key]
    git = payload.get("git")
    if isinstance(git, dict) and isinstance(git.get("branch"), str):
        facts.setdefault("branch", git["branch"])


def _event(
    b: TurnBuilder,
    reader: ItemReader,
    payload: dict[str, Any],
    facts: dict[str, Any],
    ts: str | None,
    line: int | None,
) -> None:
    kind = payload.get("type")
    window = payload.get("model_context_window")
    info = payload.get("info") if isinstance(payload.get("info"), dict) else {}
    window = window or info.get("model_context_window")
    if isinstance(window, int):
        facts["context_window"] = window
    usage = info.get("total_token_usage") if isinstance(info.get("total_token_usage"), dict) else {}
    if isinstance(usage.get("total_tokens"), int):
        facts["tokens_used"] = usage["total_tokens"]
    if not isinstance(kind, str) or kind in _EVENTS_SKIPPED:
        return
    if kind == "turn_aborted":
        reader.current = None
        reason = payload.get("reason") or "aborted"
        b.add(Turn(role="system", kind="interrupt", text=f"turn aborted ({reason})", timestamp=ts, line=line))
    elif kind in ("context_compacted", "compacted"):
        reader.current = None
        b.add(Turn(role="system", kind="compaction", text="context compacted", timestamp=ts, line=line))
    elif kind in ("error", "stream_error"):
        reader.current = None
        b.add(
            Turn(
                role="system",
                kind="meta",
                text=f"error: {to_text(payload.get('message'))}",
                timestamp=ts,
                line=line,
            )
        )
