"""Telling a transcript's format from its content, and reading it with the matching reader.

A file is one JSON document (a list of messages, items or events, or an object that wraps
one under ``messages`` / ``history`` / ``input`` / ``contents`` / ``events`` / ``data`` / ``trajectory``,
or an extracted API exchange ``{"request_body", "response_body"}``), JSON Lines (lines that
do not parse, or are not objects, are skipped and counted, never fatal), or Markdown (an
aider history or a chat export with user / assistant headings). The format is chosen by
the marks only it writes (see :mod:`.formats`): the claimed format reads its own kinds of
records, the others are left out and named by kind, and a transcript of which it would read
less than half is refused with the formats tried and the kinds of lines seen. ``format=``
forces a reader, under the same rule.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ..core.errors import InvalidArgument, UnsupportedFormat, clip, quote
from .claude import looks_like_claude
from .codex import looks_like_codex, looks_like_old_codex
from .formats import FORMATS, JSON_FORMATS, TEXT_FORMATS, JsonFormat, Records, line_kind
from .model import Conversation, Turn
from .responses import ITEM_TYPES

__all__ = ["FORMATS", "parse_transcript"]

_BY_NAME = {f.name: f for f in JSON_FORMATS}
_TEXT_BY_NAME = {f.name: f for f in TEXT_FORMATS}
_WRAPPER_KEYS = ("messages", "history", "input", "contents", "events", "data", "trajectory", "items", "conversation")
_TRIED = (
    "tried: "
    + ", ".join(FORMATS.values())
    + ", and JSON objects wrapping such a list under "
    + "/".join(_WRAPPER_KEYS)
    + " or request_body"
)
_FEW_KINDS = 6


def parse_transcript(data: bytes, what: str, fmt: str | None = None) -> Conversation:
    """Read transcript bytes into a :class:`Conversation`; ``fmt`` forces a reader (see :data:`FORMATS`)."""
    if fmt is not None and fmt not in FORMATS:
        raise InvalidArgument(f"format must be one of {', '.join(FORMATS)} (or omitted), not {quote(fmt)}")
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    if not text.strip():
        raise UnsupportedFormat(f"{clip(what)}: the file is empty; there is no conversation to read")
    if fmt in _TEXT_BY_NAME:
        return _read_text(text, what, fmt)
    doc = _whole_document(text)
    if isinstance(doc, dict) and (looks_like_claude(doc) or looks_like_codex(doc)):
        doc = None  # a JSON Lines file with a single line
    if doc is not None:
        records, extra, facts = _unwrap(doc)
        malformed: list[int] = []
    else:
        records, malformed = _json_lines(text)
        extra, facts = [], {}
        markdown = bool(malformed) and fmt is None and any(f.looks_like(text) for f in TEXT_FORMATS)
        if not records or len(malformed) > len(records) or markdown:  # Markdown may hold lines of JSON
            return _read_text(text, what, fmt, malformed, len(records))
    spec, reads = _choose(records, what, fmt)
    kept = [r for r, ok in zip(records, reads, strict=True) if ok]
    conv = spec.read(kept + extra, malformed)
    _note_unread(conv, [r for r, ok in zip(records, reads, strict=True) if not ok])
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


def _read_text(
    text: str, what: str, fmt: str | None, malformed: list[int] | None = None, objects: int = 0
) -> Conversation:
    """A Markdown transcript (forced, or told by its marks); anything else is refused, saying why."""
    for spec in TEXT_FORMATS:
        if (fmt is None or fmt == spec.name) and spec.looks_like(text):
            return spec.read(text, [])
    bad = len(malformed or [])
    if fmt is not None:
        why = _TEXT_MARKS.get(fmt) or f"{bad:,} of {bad + objects:,} non-empty lines are not JSON objects"
        raise UnsupportedFormat(f"{clip(what)}: read as {FORMATS[fmt]} it holds no turns: {why}")
    raise UnsupportedFormat(
        f"{clip(what)}: not a conversation transcript: neither one JSON document, nor JSON Lines "
        f"({bad:,} of {bad + objects:,} non-empty lines are not JSON objects), nor a Markdown chat ({_TRIED})"
    )


_TEXT_MARKS = {
    "aider": "no '# aider chat started at' line",
    "markdown-chat": "no user and assistant headings (## User, ## Assistant) at one level",
}


def _choose(records: Records, what: str, fmt: str | None) -> tuple[JsonFormat, list[bool]]:
    """The format to read ``records`` with, and which records it reads; refused when it reads under half."""
    if not records:
        raise UnsupportedFormat(
            f"{clip(what)}: not a conversation transcript in a known format: it holds no JSON objects; {_TRIED}"
        )
    bare = looks_like_old_codex(records[0][1]) and len(records) > 1
    if fmt is not None:
        spec = _BY_NAME[fmt]
    elif bare:
        spec = _BY_NAME["codex"]
    else:
        spec = _best(records)
    if spec is None:
        raise UnsupportedFormat(
            f"{clip(what)}: not a conversation transcript in a known format: {_kinds_text(records)}; {_TRIED}"
        )
    if spec.name == "codex" and bare:
        reads = [n == 0 or _bare_codex(r) for n, (_, r) in enumerate(records)]
    else:
        reads = [spec.reads(r) for _, r in records]
    count = sum(reads)
    if count * 2 < len(records):
        detected = _best(records) if fmt is not None else None
        hint = f"; it looks like {detected.description} ({detected.name})" if detected and detected is not spec else ""
        raise UnsupportedFormat(
            f"{clip(what)}: not read as {spec.description} ({spec.name}): only {count:,} of "
            f"{len(records):,} {_unit(records)} are of kinds it reads; {_kinds_text(records)}{hint}"
            + ("" if fmt is not None else f"; {_TRIED}")
        )
    return spec, reads


def _best(records: Records) -> JsonFormat | None:
    """The format whose marks are present and whose reader reads the most records (the more specific on a tie)."""
    best: JsonFormat | None = None
    best_count = 0
    for spec in JSON_FORMATS:
        if not any(spec.marks(r) for _, r in records):
            continue
        count = sum(1 for _, r in records if spec.reads(r))
        if count > best_count:
            best, best_count = spec, count
        if count == len(records):
            break  # none after it can read more, and a tie goes to the earlier one
    return best


def _bare_codex(rec: dict[str, Any]) -> bool:
    return bool(rec.get("record_type")) or str(rec.get("type")) in ITEM_TYPES or "role" in rec


def _unit(records: Records) -> str:
    return "lines" if records and records[0][0] is not None else "items"


def _kinds_text(records: Records) -> str:
    kinds = Counter(line_kind(r) for _, r in records)
    shown = ", ".join(f"{k} ×{n:,}" for k, n in kinds.most_common(_FEW_KINDS))
    more = f", and {len(kinds) - _FEW_KINDS:,} more kinds" if len(kinds) > _FEW_KINDS else ""
    return f"its {len(records):,} {_unit(records)} are {shown}{more}"


def _note_unread(conv: Conversation, left: Records) -> None:
    """Record the records the reader was not given: how many, of which kinds, and where."""
    if not left:
        return
    kinds = Counter(line_kind(r) for _, r in left)
    conv.unread += len(left)
    for kind, n in kinds.most_common():
        conv.unread_kinds[kind] = conv.unread_kinds.get(kind, 0) + n
    conv.unread_lines = [n for n, _ in left if n is not None][:10]


def _whole_document(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] not in "[{":
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def _json_lines(text: str) -> tuple[Records, list[int]]:
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
        system = doc.get("system") or doc.get("instructions") or doc.get("systemInstruction")
        if isinstance(system, dict):  # a Gemini API system instruction: {"parts": [{"text"}]}
            system = system.get("parts")
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


def _prepend_system(conv: Conversation, text: str) -> None:
    """Put a request's top-level system prompt first, renumbering the turns."""
    conv.turns.insert(0, Turn(role="system", kind="meta", text=text))
    for n, turn in enumerate(conv.turns, 1):
        turn.number = n
