"""Reader for Markdown chat exports: sections under user / assistant headings (Amp threads and the like).

The shape: optional YAML front matter (title, thread id, creation time, model), an
optional ``# Title``, then one section per message under a heading that names its role —
``## User`` / ``## Assistant`` (also Human, You, AI, Agent, Model, Claude, ChatGPT,
Gemini, Codex, Amp, System, Tool; a timestamp or number after the role name is allowed,
emoji and punctuation are ignored; a role alone on a line as ``_**User**_``, the way
SpecStory writes it, counts as a heading). Only headings at the level the role headings use,
and naming a role, start a message; an answer's own ``## Summary`` stays in the answer.

Inside a section, tool traffic is written as a bold marker and a fenced block:
``**Tool Use:** `name``` (optionally `` (`id`)``) before the arguments (JSON when it
parses), ``**Tool Result:** `id``` before the output (Amp writes ``{"output",
"exitCode"}`` JSON; an exit code or ``error`` there marks a failure). Results are paired
with calls by id, else in order with the calls of the last assistant section. A
``**Thinking**`` paragraph (a bare marker takes the block after it; a quote right after it
too) or a ``<details>`` block summarised "Thinking" is the turn's reasoning. A file is
taken for this format only when it has both a user and an assistant heading at one level.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from .blocks import classify_user_text, failure, to_text
from .mdblocks import Block, front_matter, md_blocks
from .model import Conversation, ToolCall, ToolOutput, Turn, TurnBuilder, norm_time

__all__ = ["looks_like_markdown_chat", "read_markdown_chat"]

ROLES = {
    **dict.fromkeys(("user", "human", "you", "me", "prompt"), "user"),
    **dict.fromkeys(
        (
            "assistant",
            "ai",
            "agent",
            "model",
            "bot",
            "claude",
            "chatgpt",
            "gpt",
            "gemini",
            "codex",
            "amp",
            "copilot",
            "cursor",
            "response",
        ),
        "assistant",
    ),
    **dict.fromkeys(("system", "developer"), "system"),
    **dict.fromkeys(("tool", "tool result", "tool results", "function", "observation"), "tool"),
}
_WORDS = re.compile(r"[A-Za-z]+|\d[\d:\-T.Z/+]*")
_QUICK = re.compile(r"^(?:#{1,6}[^\S\n]+|_\*\*)[^\w\n]*([A-Za-z]+)", re.M)
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_ROLE_LINE = re.compile(r"^_\*\*([^*\n]{1,60})\*\*_\s*$")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$", re.S)
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?")
_USE = re.compile(r"^\*\*(?:Tool (?:Use|Call)|Function Call):\*\*\s*`([^`]+)`(?:\s*\(`([^`]+)`\))?\s*(.*)$", re.S)
_RESULT = re.compile(r"^\*\*(?:Tool Result|Tool Output|Function Result):\*\*\s*(?:`([^`]+)`)?\s*(.*)$", re.S)
_THINKING = re.compile(r"^\*\*(?:Thinking|Reasoning|Thought)s?:?\*\*:?\s*(.*)$", re.S | re.I)
_DETAILS = re.compile(
    r"^\s*<details>\s*<summary>\s*(?:Thinking|Reasoning)[^<]*</summary>(.*?)(?:</details>\s*)?$", re.S | re.I
)
_TAGS = re.compile(r"<[^>]+>")


def role_of(heading: str) -> str | None:
    """The role a heading names (``"user"``, ``"assistant"``, ``"system"``, ``"tool"``), or None.

    After the role name may come a time, a number, or anything in brackets (a model's name).
    """
    words = _WORDS.findall(_BRACKETS.sub(" ", heading))
    if not words or not words[0][0].isalpha():
        return None
    for size in (2, 1):
        name = " ".join(words[:size]).lower()
        rest = words[size:]
        if name in ROLES and all(w[0].isdigit() or w.lower() in ("at", "on", "message", "utc") for w in rest):
            return ROLES[name]
    return None


def _role_level(blocks: list[Block]) -> int | None:
    """The heading level of the role headings, when user and assistant headings are both there."""
    seen: dict[int, set[str]] = {}
    for block in blocks:
        if block.kind == "heading":
            role = role_of(block.text)
            if role:
                seen.setdefault(block.level, set()).add(role)
    levels = [level for level, roles in seen.items() if {"user", "assistant"} <= roles]
    return min(levels) if levels else None


@lru_cache(maxsize=2)
def _parsed(text: str) -> tuple[list[str], dict[str, str], list[Block]]:
    """``(lines, front matter, blocks)``, parsed once for the look and the read that follows it.

    A role written as a line of its own (``_**User**_``, SpecStory's way) is made a heading.
    """
    lines = text.split("\n")
    facts, body = front_matter(lines)
    out = md_blocks(lines, body)
    for block in out:
        m = _ROLE_LINE.match(block.text) if block.kind == "paragraph" else None
        if m and role_of(m.group(1)):
            block.kind, block.level, block.text = "heading", 7, m.group(1).strip()
    return lines, facts, out


def looks_like_markdown_chat(text: str) -> bool:
    """True when ``text`` has user and assistant headings at one level (a cheap look at heading lines first)."""
    seen = {ROLES.get(m.group(1).lower()) for m in _QUICK.finditer(text)}
    if not {"user", "assistant"} <= seen:
        return False
    return _role_level(_parsed(text)[2]) is not None


def _stamp(text: str) -> str | None:
    m = _STAMP.search(text)
    if not m:
        return None
    value = m.group(0)
    return norm_time(value if len(value) >= 19 else value + ":00")


def _output(body: str, note: str) -> ToolOutput:
    """A result's fenced body: Amp's ``{"output", "exitCode"}`` JSON is unwrapped; anything else kept as it is."""
    value: Any = None
    if body.lstrip()[:1] == "{":
        try:
            value = json.loads(body)
        except ValueError:
            value = None
    is_error = "error" in note.lower()
    code: int | None = None
    text = body.rstrip("\n")
    if isinstance(value, dict) and ("output" in value or "error" in value):
        for key in ("exitCode", "exit_code", "returncode"):
            if isinstance(value.get(key), int):
                code = value[key]
        if value.get("error"):
            is_error = True
        text = to_text(value.get("output") if "output" in value else value.get("error"))
    if code is None:
        failed, code = failure(text)
        is_error = is_error or failed
    return ToolOutput(text=text, is_error=is_error or code not in (None, 0), exit_code=code)


def _args(body: str, info: str) -> Any:
    if info.startswith("json") or body.lstrip()[:1] in "{[":
        try:
            return json.loads(body)
        except ValueError:
            pass
    return body.rstrip("\n")


class _Reader:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.b = TurnBuilder()
        self.pending: list[ToolCall] = []  # calls of the last assistant section still without a result

    def section(self, role: str, blocks: list[Block], ts: str | None, line: int) -> None:
        texts: list[str] = []
        thinking: list[str] = []
        calls: list[ToolCall] = []
        i = 0
        while i < len(blocks):
            block = blocks[i]
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            body = nxt if nxt is not None and nxt.kind == "fence" else None
            use = _USE.match(block.text) if block.kind == "paragraph" else None
            result = _RESULT.match(block.text) if block.kind == "paragraph" and not use else None
            think = _THINKING.match(block.text) if block.kind == "paragraph" else None
            details = _DETAILS.match(block.text) if block.kind == "other" else None
            if use:
                args = _args(body.text, body.info) if body else (use.group(3).strip() or None)
                calls.append(ToolCall(id=use.group(2), name=use.group(1).strip(), args=args))
                i += 2 if body else 1
            elif result:
                content = body.text if body else result.group(2)
                self.result(result.group(1), _output(content, result.group(2) if body else ""), ts, block.start + 1)
                i += 2 if body else 1
            elif think:
                thinking.append(think.group(1).strip())
                follows = nxt is not None and not self._marker(nxt)
                if nxt is not None and follows and (nxt.kind == "quote" or not thinking[-1]):
                    thinking.append(re.sub(r"^>\s?", "", nxt.text, flags=re.M).strip())  # the marker's body
                    i += 1
                i += 1
            elif details:
                thinking.append(_TAGS.sub("", details.group(1)).strip())
                i += 1
            else:
                run = [block]
                while i + 1 < len(blocks) and not self._marker(blocks[i + 1]):
                    i += 1
                    run.append(blocks[i])
                while run and _RULE.match(run[-1].text):  # a rule between two messages belongs to neither
                    run.pop()
                if run:
                    texts.append("\n".join(self.lines[run[0].start : run[-1].end]).strip())
                i += 1
        self.turn(role, "\n\n".join(t for t in texts if t), "\n\n".join(t for t in thinking if t), calls, ts, line)

    @staticmethod
    def _marker(block: Block) -> bool:
        if block.kind == "paragraph":
            return bool(_USE.match(block.text) or _RESULT.match(block.text) or _THINKING.match(block.text))
        return block.kind == "other" and bool(_DETAILS.match(block.text))

    def turn(self, role: str, text: str, thinking: str, calls: list[ToolCall], ts: str | None, line: int) -> None:
        if role == "assistant":
            turn = self.b.add(Turn(role="assistant", text=text, thinking=thinking, timestamp=ts, line=line))
            for call in calls:
                self.b.call(turn, call)
            self.pending = list(calls)
        elif role == "user" and text.strip():
            kind, cleaned = classify_user_text(text)
            self.b.add(Turn(role="user", text=cleaned, kind=kind, timestamp=ts, line=line))
        elif role == "system" and text.strip():
            self.b.add(Turn(role="system", kind="meta", text=text, timestamp=ts, line=line))
        elif text.strip() or calls:  # a tool section's own words, or calls outside an assistant section
            turn = self.b.add(Turn(role="tool" if role == "tool" else "assistant", text=text, timestamp=ts, line=line))
            for call in calls:
                self.b.call(turn, call)

    def result(self, call_id: str | None, output: ToolOutput, ts: str | None, line: int) -> None:
        """Pair by id when the call has one; else with the oldest unanswered call of the last assistant section."""
        match = next((c for c in self.pending if call_id and c.id == call_id), None)
        if match is None:
            match = next((c for c in self.pending if c.id is None), None)
        if match is None:
            self.b.result(call_id, output, ts, line)
            return
        match.output = output
        self.pending.remove(match)


def read_markdown_chat(text: str, malformed: list[int]) -> Conversation:
    """Read a Markdown chat export into a conversation; text outside the role sections is counted as unread."""
    lines, facts, blocks = _parsed(text)
    level = _role_level(blocks)
    reader = _Reader(lines)
    conv_facts: dict[str, Any] = {}
    for key in ("title", "threadId", "thread_id", "id"):
        if facts.get(key):
            conv_facts.setdefault("title" if key == "title" else "thread", facts[key])
    created = norm_time(facts.get("created") or facts.get("date") or facts.get("created_at"))
    unread: list[int] = []
    section: tuple[str, Block] | None = None
    inside: list[Block] = []
    for block in [*blocks, None]:
        role = role_of(block.text) if block is not None and block.kind == "heading" and block.level == level else None
        if block is not None and role is None:
            if section is not None:
                inside.append(block)
            elif _COMMENT.match(block.text) or _RULE.match(block.text):
                continue  # an exporter's comment or a rule shows nothing
            elif not (block.kind == "heading" and block.level < (level or 2)):
                unread.append(block.start + 1)
            elif "title" not in conv_facts:
                conv_facts["title"] = block.text
            continue
        if section is not None:
            name, heading = section
            ts = _stamp(heading.text) or (created if not reader.b.turns else None)
            reader.section(name, inside, ts, heading.start + 1)
        if block is not None and role is not None:
            section, inside = (role, block), []
    conv = reader.b.finish("markdown-chat", list(malformed), conv_facts)
    model = facts.get("model")
    if model:
        conv.models.insert(0, model)
    if unread:
        conv.unread = len(unread)
        conv.unread_kinds = {"text before the first role heading": len(unread)}
        conv.unread_lines = unread[:10]
    return conv
