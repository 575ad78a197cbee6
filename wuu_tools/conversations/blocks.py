"""Shared pieces of the readers: message content blocks, injected markup, failure marks, key arguments.

Anthropic-style content (Claude Code lines, Anthropic Messages lists) and OpenAI-style
content parts (chat completions, Responses items) are turned into text, reasoning, tool
calls, tool results and media attachments here, once. :func:`classify_user_text` tells a
human instruction from the markup agents inject into user messages (caveats, slash-command
tags, environment context, IDE state, reminders), and :func:`failure` reads an exit code
or error mark out of a tool's output when the format has no error flag.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .model import ToolOutput

__all__ = [
    "Blocks",
    "classify_user_text",
    "content_blocks",
    "content_parts",
    "failure",
    "key_argument",
    "result_output",
    "to_text",
]


@dataclass
class Blocks:
    """The parts of one message's content."""

    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    calls: list[tuple[str | None, str, Any]] = field(default_factory=list)
    results: list[tuple[str | None, ToolOutput]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)


def to_text(value: Any) -> str:
    """Any JSON value as text: strings as they are, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _media(block: dict[str, Any]) -> dict[str, Any] | None:
    """An attachment from an Anthropic ``image``/``document`` block or an OpenAI image/file part."""
    kind = block.get("type", "")
    source = block.get("source")
    if isinstance(source, dict):
        media = "image" if kind == "image" else "file"
        mime = source.get("media_type") or ("image/*" if media == "image" else "application/octet-stream")
        if source.get("type") == "base64" and isinstance(source.get("data"), str):
            return {"type": media, "mime_type": mime, "data": source["data"]}
        if isinstance(source.get("url"), str):
            return {"type": media, "mime_type": mime, "uri": source["url"]}
        if source.get("type") == "text" and isinstance(source.get("data"), str):
            return None
        return {"type": media, "mime_type": mime, "uri": to_text(source)[:200]}
    url = block.get("image_url")
    if isinstance(url, dict):
        url = url.get("url")
    if isinstance(url, str):
        if url.startswith("data:") and ";base64," in url:
            head, data = url.split(",", 1)
            return {"type": "image", "mime_type": head[5:].split(";")[0] or "image/*", "data": data}
        return {"type": "image", "mime_type": "image/*", "uri": url}
    if kind in ("input_file", "file"):
        payload = block.get("file") if isinstance(block.get("file"), dict) else block
        name = payload.get("filename") or payload.get("file_id") or "file"
        return {"type": "file", "mime_type": "application/octet-stream", "uri": str(name)}
    if kind == "input_audio" and isinstance(block.get("input_audio"), dict):
        audio = block["input_audio"]
        return {
            "type": "audio",
            "mime_type": f"audio/{audio.get('format', '*')}",
            "data": audio.get("data", ""),
        }
    return None


def result_output(content: Any, is_error: bool = False) -> ToolOutput:
    """A tool result's content (a string, or a list of text/image blocks) as a :class:`ToolOutput`."""
    texts: list[str] = []
    attachments: list[dict[str, Any]] = []
    items = content if isinstance(content, list) else [content]
    for item in items:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict):
            media = _media(item) if item.get("type") in ("image", "document", "image_url", "input_image") else None
            if media is not None:
                attachments.append(media)
                texts.append(f"[{media['type']}: {media['mime_type']}]")
            elif isinstance(item.get("text"), str):
                texts.append(item["text"])
            elif item.get("type") == "tool_reference":
                texts.append(f"[tool reference: {item.get('tool_name', '?')}]")
            elif item:
                texts.append(to_text(item))
        elif item is not None:
            texts.append(to_text(item))
    text = "\n".join(texts)
    failed, code = failure(text)
    return ToolOutput(text=text, is_error=bool(is_error) or failed, exit_code=code, attachments=attachments)


def content_blocks(content: Any) -> Blocks:
    """Anthropic Messages content (a string or a list of blocks) split into its parts."""
    out = Blocks()
    if isinstance(content, str):
        out.text.append(content)
        return out
    if not isinstance(content, list):
        if content is not None:
            out.text.append(to_text(content))
        return out
    for block in content:
        if isinstance(block, str):
            out.text.append(block)
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type", "")
        if kind == "text":
            out.text.append(to_text(block.get("text")))
        elif kind == "thinking":
            out.thinking.append(to_text(block.get("thinking")))
        elif kind == "redacted_thinking":
            out.thinking.append("[redacted thinking]")
        elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            name = str(block.get("name") or "?")
            if kind == "mcp_tool_use" and block.get("server_name"):
                name = f"{block['server_name']}.{name}"
            out.calls.append((block.get("id"), name, block.get("input")))
        elif kind == "tool_result" or kind.endswith("_tool_result"):
            output = result_output(block.get("content"), bool(block.get("is_error")))
            inner = block.get("content")
            if isinstance(inner, dict) and str(inner.get("type", "")).endswith("_error"):
                output.is_error = True
            out.results.append((block.get("tool_use_id"), output))
        elif kind in ("image", "document"):
            media = _media(block)
            if media is not None:
                out.attachments.append(media)
            elif isinstance(block.get("source"), dict):
                out.text.append(to_text(block["source"].get("data")))
        elif block.get("text") is not None:
            out.text.append(to_text(block.get("text")))
    return out


def content_parts(content: Any) -> tuple[str, list[dict[str, Any]]]:
    """OpenAI content (a string, or parts: text, input_text, output_text, images, files) as text and media."""
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return to_text(content), []
    texts: list[str] = []
    attachments: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            continue
        kind = part.get("type", "")
        if kind in ("text", "input_text", "output_text") or (not kind and "text" in part):
            texts.append(to_text(part.get("text")))
        elif kind == "refusal":
            texts.append(f"[refusal] {to_text(part.get('refusal'))}")
        else:
            media = _media(part)
            if media is not None:
                attachments.append(media)
            elif part:
                texts.append(to_text(part))
    return "\n".join(texts), attachments


# -- what a user message is ------------------------------------------------------------------

_STRIP = re.compile(
    r"<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|user-prompt-submit-hook)>.*?</\1>\s*",
    re.S,
)
_COMMAND = re.compile(
    r"^\s*<(command-name|command-message|local-command-stdout|local-command-stderr|bash-input|bash-stdout|bash-stderr)>"
)
_META_START = (
    "Caveat: The messages below were generated by the user",
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<user_shell_command>",
    "<turn_aborted>",
)
_INTERRUPT = re.compile(r"^\[Request interrupted by user[^\]]*\]\s*$")
_IDE_REQUEST = re.compile(r"^## My request for Codex:\s*$", re.M)
_OBSERVATION = re.compile(r"^\s*(<returncode>|OBSERVATION:|Observation:)")


def classify_user_text(text: str) -> tuple[str, str]:
    """``(kind, text)`` for a user message: kind is empty for a human instruction.

    Injected reminders and IDE state are removed from the text; an IDE context block keeps
    only the request under ``## My request for Codex:``.
    """
    cleaned = _STRIP.sub("", text).strip() if "<" in text else text.strip()
    if not cleaned:
        return "meta", text.strip()
    if _COMMAND.match(cleaned):
        return "command", cleaned
    if cleaned.startswith(_META_START):
        return "meta", cleaned
    if _INTERRUPT.match(cleaned):
        return "interrupt", cleaned
    if cleaned.startswith("This session is being continued from a previous conversation"):
        return "compaction", cleaned
    if _OBSERVATION.match(cleaned):
        return "observation", cleaned
    if cleaned.startswith("# Context from my IDE setup:"):
        m = _IDE_REQUEST.search(cleaned)
        if m:
            return "", cleaned[m.end() :].strip()
        return "meta", cleaned
    return "", cleaned


# -- failures and key arguments ----------------------------------------------------------------

_EXIT = re.compile(
    r"<returncode>\s*(-?\d+)\s*</returncode>"
    r"|^(?:Error: )?Exit code:?\s*(-?\d+)"
    r"|^Process exited with code (-?\d+)",
    re.M,
)


def failure(text: str) -> tuple[bool, int | None]:
    """``(failed, exit_code)`` read from the head of a tool's output (``<returncode>``, ``Exit code N``)."""
    head = text[:400]
    m = _EXIT.search(head) if "code" in head else None  # each of the marks holds "code"
    if not m:
        return False, None
    code = int(next(g for g in m.groups() if g is not None))
    return code != 0, code


_KEYS = (
    "command",
    "cmd",
    "file_path",
    "path",
    "notebook_path",
    "pattern",
    "query",
    "url",
    "description",
    "prompt",
    "code",
    "input",
)


def key_argument(name: str, args: Any) -> str:
    """The one argument that says what a call did: the command, the file, the pattern, the query."""
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            args = parsed
        else:
            return _one_line(args)
    if not isinstance(args, dict):
        return "" if args is None else _one_line(to_text(args))
    if name == "TodoWrite" and isinstance(args.get("todos"), list):
        return f"{len(args['todos'])} todos"
    if name == "update_plan" and isinstance(args.get("plan"), list):
        steps = [s for s in args["plan"] if isinstance(s, dict)]
        active = [s.get("step", "") for s in steps if s.get("status") == "in_progress"]
        return f"{len(steps)} steps" + (f", now: {active[0]}" if active else "")
    for key in _KEYS:
        value = args.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = _shell_words(value)
        if isinstance(value, str) and value.strip():
            if key == "pattern" and isinstance(args.get("path"), str):
                return _one_line(f"{value} in {args['path']}")
            return _one_line(value)
    for value in args.values():
        if isinstance(value, str) and value.strip():
            return _one_line(value)
    return ""


def _shell_words(words: list[str]) -> str:
    """``["bash", "-lc", "ls"]`` -> ``ls``; other argument vectors are joined with spaces."""
    if len(words) == 3 and words[1] in ("-lc", "-c") and words[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh"):
        return words[2]
    return " ".join(words)


def _one_line(text: str) -> str:
    return " ".join(text.split())
