"""Reader for OpenHands event lists (a trajectory saved as a JSON list of events).

Each event is an *action* (``source`` user / agent / environment, ``action`` message /
run / edit / read / browse / finish / ...) or an *observation* whose ``cause`` names the
action it answers. Messages become user or assistant turns; tool actions become assistant
turns whose text is the action's ``thought`` and whose call is the action (actions from one
model response are joined); observations are attached to their action as its result.
Agent-state changes and empty observations carry no conversation and are skipped.
"""

from __future__ import annotations

from typing import Any

from .blocks import classify_user_text, to_text
from .model import Conversation, ToolCall, ToolOutput, Turn, TurnBuilder, norm_time

__all__ = ["looks_like_openhands", "read_openhands"]

_SKIP_ACTIONS = frozenset({"change_agent_state", "null"})
_SKIP_OBSERVATIONS = frozenset({"agent_state_changed", "null"})
_NOISE_ARGS = frozenset(
    {
        "thought",
        "is_input",
        "blocking",
        "hidden",
        "confirmation_state",
        "impl_source",
        "translated_ipython_code",
        "security_risk",
        "wait_for_response",
        "include_extra",
        "kernel_init_code",
    }
)


def looks_like_openhands(item: dict[str, Any]) -> bool:
    """True for an OpenHands event."""
    return ("action" in item or "observation" in item) and ("source" in item or "cause" in item)


def _metadata(event: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """``(function name, model, response id)`` from an event's ``tool_call_metadata``."""
    meta = event.get("tool_call_metadata")
    if not isinstance(meta, dict):
        return None, None, None
    response = meta.get("model_response") if isinstance(meta.get("model_response"), dict) else {}
    return meta.get("function_name"), response.get("model"), response.get("id")


def read_openhands(records: list[tuple[int | None, dict[str, Any]]], malformed: list[int]) -> Conversation:
    """Read OpenHands events (``(line, event)`` pairs) into a conversation."""
    b = TurnBuilder()
    bad = list(malformed)
    for n, (line, event) in enumerate(records, 1):
        ts = norm_time(event.get("timestamp"))
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        if "action" in event:
            action = event.get("action")
            if str(action) in _SKIP_ACTIONS:
                continue
            _action(b, event, str(action), args, ts, line)
        elif "observation" in event:
            if str(event.get("observation")) in _SKIP_OBSERVATIONS:
                continue
            _observation(b, event, ts, line)
        else:
            bad.append(line if line is not None else n)
    return b.finish("openhands", bad)


def _action(
    b: TurnBuilder, event: dict[str, Any], action: str, args: dict[str, Any], ts: str | None, line: int | None
) -> None:
    source = event.get("source")
    function, model, response_id = _metadata(event)
    if action == "message":
        text = to_text(args.get("content") if "content" in args else event.get("message"))
        attachments = [
            {"type": "image", "mime_type": "image/*", "uri": url}
            for url in args.get("image_urls") or []
            if isinstance(url, str)
        ]
        if source == "user":
            kind, cleaned = classify_user_text(text)
            b.add(Turn(role="user", text=cleaned, kind=kind, attachments=attachments, timestamp=ts, line=line))
        else:
            b.add(Turn(role="assistant", text=text, attachments=attachments, timestamp=ts, model=model, line=line))
        return
    if action == "system":
        b.add(
            Turn(
                role="system",
                kind="meta",
                text=to_text(args.get("content") or event.get("message")),
                line=line,
            )
        )
        return
    thought = to_text(args.get("thought"))
    if action == "finish":
        text = to_text(args.get("final_thought") or args.get("outputs") or event.get("message"))
        b.add(
            Turn(
                role="assistant",
                text="\n\n".join(t for t in (thought, text) if t),
                timestamp=ts,
                model=model,
                line=line,
            )
        )
        return
    if action == "think":
        b.add(Turn(role="assistant", thinking=thought, timestamp=ts, model=model, line=line))
        return
    turn = b.joined(response_id)
    if turn is None or turn is not b.last():
        turn = b.add(Turn(role="assistant", timestamp=ts, model=model, line=line), key=response_id)
    if thought and thought not in turn.text:
        turn.text = "\n\n".join(t for t in (turn.text, thought) if t)
    call_args = {k: v for k, v in args.items() if k not in _NOISE_ARGS and v not in (None, "", [], {})}
    b.call(turn, ToolCall(id=str(event.get("id")), name=str(function or action), args=call_args))


def _observation(b: TurnBuilder, event: dict[str, Any], ts: str | None, line: int | None) -> None:
    extras = event.get("extras") if isinstance(event.get("extras"), dict) else {}
    meta = extras.get("metadata") if isinstance(extras.get("metadata"), dict) else {}
    code = meta.get("exit_code") if isinstance(meta.get("exit_code"), int) else None
    text = to_text(event.get("content")) or to_text(event.get("message"))
    failed = event.get("observation") == "error" or event.get("success") is False or code not in (None, 0)
    cause = event.get("cause")
    b.result(
        str(cause) if cause is not None else None,
        ToolOutput(text=text, is_error=failed, exit_code=code),
        ts,
        line,
    )
