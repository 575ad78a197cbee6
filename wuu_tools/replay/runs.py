"""Recorded runs of real coding agents, read into one model: messages in order, tool outputs with what came next.

The readers of two formats (``../shared/realdata/trajectories/INDEX.md`` describes both; ``codex.py`` reads
Codex rollouts into the same model, and ``sources.py`` tells a file's format and loads it):

- mini-swe-agent ``.traj.json``: OpenAI chat ``messages``; an assistant message's command is in
  ``extra.actions[].command`` (and again in ``tool_calls``); a ``tool`` message is
  ``<returncode>N</returncode>`` then ``<output>…</output>``, or, when mini-swe-agent cut it,
  ``<output_head>``, a warning and ``<output_tail>``.
- Claude Code session JSONL (``type`` user/assistant, ``message.content`` blocks): ``tool_use``
  {id, name, input} and ``tool_result`` {tool_use_id, content}. The outputs that count come from
  ``Bash``, ``Read``, ``Grep`` and ``Glob``.

The *items* of an output (INDEX.md's rule): the tokens (``[A-Za-z_][A-Za-z0-9_]{3,}`` and
``\\b\\d{2,}\\b``) that occur in the output, in the agent's next assistant message (its text, its
reasoning and its tool calls' arguments) and in no earlier message of the run.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}|\b\d{2,}\b")
CLAUDE_OUTPUT_TOOLS = ("Bash", "Read", "Grep", "Glob")

_RETURNCODE = re.compile(r"<returncode>(-?\d+)</returncode>")
_OUTPUT = re.compile(r"<output>\n?(.*?)\n?</output>", re.S)
_HEAD = re.compile(r"<output_head>\n?(.*?)\n?</output_head>", re.S)
_TAIL = re.compile(r"<output_tail>\n?(.*?)\n?</output_tail>", re.S)
_READ_NUMBER = re.compile(r"^ *(\d+)→", re.M)
_READ_RANGE = re.compile(r" (?:offset|limit)=\d+")
READ_DEFAULT_LINES = 2000
"""Claude Code's Read prints this many lines of a file when no limit is given."""


def tokens(text: str) -> set[str]:
    """The item-shaped tokens of ``text``."""
    return set(TOKEN.findall(text))


@dataclass
class Message:
    """One message of a run as the model's requests carried it.

    Attributes:
        role: ``system``, ``user``, ``assistant`` or ``tool``.
        text: What the requests re-send (an assistant's reasoning is not re-sent; its commands are).
        seen: Text whose tokens count as known after this message (reasoning included).
        output: For a tool message that is a counted tool's output: its index in ``Run.outputs``.
    """

    role: str
    text: str
    seen: str = ""
    output: int | None = None


@dataclass
class Output:
    """One tool output, the command that printed it, and the agent's next message."""

    run: str
    project: str
    tool: str
    command: str
    exit_code: int | None
    text: str
    next_text: str = ""
    cut_by_agent: bool = False
    items: set[str] = field(default_factory=set)
    message: int = 0


@dataclass
class Run:
    """A recorded run: its messages in order and the outputs among them."""

    name: str
    project: str
    source: str
    messages: list[Message]
    outputs: list[Output]


def project_of(instance_id: str) -> str:
    """The repository of a SWE-bench instance: ``django__django-10914`` -> ``django/django``."""
    name = instance_id.rsplit("-", 1)[0]
    owner, _, repo = name.partition("__")
    return f"{owner}/{repo}" if repo else owner


def fill_items(run: Run) -> None:
    """Fill each output's next message and items (INDEX.md's rule)."""
    seen: set[str] = set()
    pending: list[Output] = []
    for message in run.messages:
        if message.role == "assistant":
            for out in pending:
                out.next_text = message.seen
                out.items = (tokens(out.text) & tokens(message.seen)) - out.items
            pending = []
        if message.output is not None:
            out = run.outputs[message.output]
            out.items = set(seen)  # what was known before it; replaced by its items at the next message
            pending.append(out)
        seen |= tokens(message.seen or message.text)
    for out in pending:  # no next message: nothing was used
        out.items = set()


def _assistant_text(content: Any, reasoning: Any, commands: list[str]) -> tuple[str, str]:
    sent = "\n".join(x for x in [content if isinstance(content, str) else "", *commands] if x)
    seen = "\n".join(x for x in [sent, reasoning if isinstance(reasoning, str) else ""] if x)
    return sent, seen


def _mini_commands(message: dict[str, Any]) -> list[str]:
    extra = message.get("extra") or {}
    actions = extra.get("actions") if isinstance(extra, dict) else None
    if actions:
        return [str(a.get("command", "")) for a in actions]
    calls = message.get("tool_calls") or []
    if isinstance(calls, str):
        return re.findall(r'"command":\s*"((?:[^"\\]|\\.)*)"', calls)
    out = []
    for call in calls:
        try:
            out.append(json.loads(call["function"]["arguments"]).get("command", ""))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def read_trajectory(path: Path, data: dict[str, Any]) -> Run:
    """The run of a mini-swe-agent trajectory (``data``: its JSON, with ``messages``)."""
    instance = str(data.get("instance_id") or path.name.removesuffix(".traj.json"))
    name = f"{path.parent.name}/{instance}"
    run = Run(name=name, project=project_of(instance), source="mini-swe-agent", messages=[], outputs=[])
    commands: list[str] = []
    for message in data["messages"]:
        role = message.get("role")
        content = message.get("content") if isinstance(message.get("content"), str) else ""
        if role == "assistant":
            commands = _mini_commands(message)
            sent, seen = _assistant_text(content, message.get("reasoning_content"), commands)
            run.messages.append(Message("assistant", sent, seen))
        elif role == "tool" or (role == "user" and "<returncode>" in content and run.messages):
            command = commands.pop(0) if commands else ""
            out = _mini_output(run, content, command)
            msg = Message("tool", content)
            if out is not None:
                msg.output = len(run.outputs)
                out.message = len(run.messages)
                run.outputs.append(out)
            run.messages.append(msg)
        elif role in ("system", "user"):
            run.messages.append(Message(role, content))
    return run


def _mini_output(run: Run, content: str, command: str) -> Output | None:
    code = _RETURNCODE.search(content)
    whole = _OUTPUT.search(content)
    cut = False
    if whole is not None:
        text = whole.group(1)
    else:
        head, tail = _HEAD.search(content), _TAIL.search(content)
        if head is None and tail is None:
            return None
        text = "\n".join(m.group(1) for m in (head, tail) if m is not None)
        cut = True
    return Output(
        run=run.name,
        project=run.project,
        tool="bash",
        command=command,
        exit_code=int(code.group(1)) if code else None,
        text=text,
        cut_by_agent=cut,
    )


def is_claude_entry(entry: Any) -> bool:
    """A line of a Claude Code session that the replay reads (``type`` user or assistant)."""
    return isinstance(entry, dict) and entry.get("type") in ("user", "assistant")


def read_claude(path: Path, entries: list[Any]) -> Run | None:
    """The run of a Claude Code session (``entries``: its JSON lines), or None when no line is a message."""
    lines = [e for e in entries if is_claude_entry(e)]
    if not lines:
        return None
    run = Run(
        name=path.name.removesuffix(".jsonl"), project="claude-code", source="claude-code", messages=[], outputs=[]
    )
    uses: dict[str, tuple[str, dict[str, Any]]] = {}
    assistant: list[tuple[str, str]] = []  # (sent, seen) pieces of the assistant message being read

    def close_assistant() -> None:
        if assistant:
            sent = "\n".join(s for s, _ in assistant if s)
            seen = "\n".join(s for _, s in assistant if s)
            run.messages.append(Message("assistant", sent, seen))
            assistant.clear()

    for entry in lines:
        message = entry.get("message") or {}
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
        if entry["type"] == "assistant":
            for block in blocks:
                kind = block.get("type")
                if kind == "text":
                    assistant.append((block.get("text", ""), block.get("text", "")))
                elif kind == "thinking":
                    assistant.append(("", block.get("thinking", "")))
                elif kind == "tool_use":
                    args = json.dumps(block.get("input", {}), ensure_ascii=False)
                    uses[block.get("id", "")] = (block.get("name", ""), block.get("input") or {})
                    assistant.append((args, args))
            continue
        close_assistant()
        for block in blocks:
            if block.get("type") != "tool_result":
                text = block.get("text", "") if isinstance(block.get("text"), str) else ""
                if text:
                    run.messages.append(Message("user", text))
                continue
            text = _result_text(block.get("content"))
            name, given = uses.get(block.get("tool_use_id", ""), ("", {}))
            msg = Message("tool", text)
            if name in CLAUDE_OUTPUT_TOOLS:
                command = _claude_command(name, given)
                out = Output(
                    run=run.name,
                    project=run.project,
                    tool=name,
                    command=command,
                    exit_code=1 if block.get("is_error") else 0,
                    text=text,
                )
                msg.output = len(run.outputs)
                out.message = len(run.messages)
                run.outputs.append(out)
            run.messages.append(msg)
    close_assistant()
    return run


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _claude_command(name: str, given: dict[str, Any]) -> str:
    if name == "Bash":
        return str(given.get("command", ""))
    if name == "Read":  # (a range asked for is kept: without one, Read printed the whole file)
        asked = "".join(f" {k}={given[k]}" for k in ("offset", "limit") if isinstance(given.get(k), int))
        return f"Read {given.get('file_path', '')}{asked}"
    if name == "Grep":
        return f"Grep {given.get('pattern', '')} {given.get('path', '')}".strip()
    return f"Glob {given.get('pattern', '')} {given.get('path', '')}".strip()


# ---------------------------------------------------------------- what kind of command, which file it read


@dataclass
class FileRead:
    """A command that printed one file or a range of it, and the file's lines as it printed them."""

    path: str
    first: int  # number of the first line printed
    last: int | None  # the range asked for, or None for "to the end"
    lines: list[str]  # the lines, numbers removed


def _segments(command: str) -> list[str]:
    """The command's parts joined by ``&&`` or ``;``, without ``cd DIR`` steps."""
    parts = [p.strip() for p in re.split(r"&&|;|\n", command) if p.strip()]
    return [p for p in parts if not re.match(r"^cd(\s|$)", p)]


def kind_of(out: Output) -> str:
    """``read``, ``search``, ``run``, ``git``, ``list`` or ``other``."""
    if out.tool == "Read":
        return "read"
    if out.tool in ("Grep", "Glob"):
        return "search"
    parts = _segments(out.command)
    if not parts:
        return "other"
    first = parts[0]
    words = first.split()
    head = words[0] if words else ""
    if read_of(out) is not None:
        return "read"
    if head == "git":
        return "git"
    if head in ("grep", "rg", "ag", "egrep", "fgrep", "find", "ack") or re.search(r"\|\s*(grep|rg)\b", first):
        return "search"
    if head in ("ls", "tree", "du"):
        return "list"
    if head in ("cat", "head", "tail", "sed", "nl", "awk", "less", "more"):
        return "read"
    if head in ("python", "python3", "pytest", "tox", "make", "npm", "node", "bash", "sh", "./runtests.py") or (
        head.endswith(".py") or head.endswith(".sh")
    ):
        return "run"
    return "other"


_SED_RANGE = re.compile(r"^(\d+)(?:,(\d+|\$))?p$")


def read_of(out: Output) -> FileRead | None:
    """The file a single-file read printed (``cat``, ``cat -n``, ``head``, ``sed -n 'a,bp'``, ``nl``, Read)."""
    if out.cut_by_agent:
        return None
    text = out.text
    if out.tool == "Read":
        numbers = _READ_NUMBER.findall(text)
        if not numbers:
            return None
        lines = [_READ_NUMBER.sub("", line, count=1) for line in text.split("\n") if _READ_NUMBER.match(line)]
        path, ranged = _READ_RANGE.subn("", out.command.removeprefix("Read "))
        first = int(numbers[0])
        # A Read without offset or limit printed the whole file (up to its default of 2,000 lines).
        whole = not ranged and first == 1 and len(lines) < READ_DEFAULT_LINES
        return FileRead(path, first, None if whole else first + len(lines) - 1, lines)
    if out.tool != "bash" and out.tool != "Bash":
        return None
    parts = _segments(out.command)
    if len(parts) != 1 or re.search(r"[|<>`$(]", parts[0].replace("$p", "")):
        return None
    try:
        argv = shlex.split(parts[0])
    except ValueError:
        return None
    if not argv:
        return None
    prog, rest = argv[0], argv[1:]
    files = [a for a in rest if not a.startswith("-")]
    flags = [a for a in rest if a.startswith("-")]
    lines = text.split("\n")
    if prog == "cat" and len(files) == 1 and flags in ([], ["-n"]):
        if flags == ["-n"]:
            return _numbered(files[0], lines)
        return FileRead(files[0], 1, None, lines)
    if prog == "nl" and len(files) == 1:
        return _numbered(files[0], lines)
    if prog == "head" and len(files) >= 1:
        names = [a for a in rest if not a.startswith("-") and not a.isdigit()]
        if len(names) != 1:
            return None
        return FileRead(names[0], 1, len(lines), lines)
    if prog == "sed" and flags == ["-n"] and len(files) == 2:
        m = _SED_RANGE.match(files[0])
        if m is None:
            return None
        first = int(m.group(1))
        last = None if m.group(2) in (None, "$") else int(m.group(2) or first)
        return FileRead(files[1], first, last, lines)
    return None


def _numbered(path: str, lines: list[str]) -> FileRead | None:
    """A ``cat -n`` / ``nl`` listing: the numbers give the lines' places (``nl`` leaves blank lines unnumbered)."""
    out: list[str] = []
    first = None
    for line in lines:
        m = re.match(r"^ *(\d+)\t(.*)$", line)
        if m:
            number = int(m.group(1))
            if first is None:
                first = number
            while first + len(out) < number:
                out.append("")
            out.append(m.group(2))
        elif first is not None and not line.strip():
            out.append("")
    if first is None:
        return None
    return FileRead(path, first, first + len(out) - 1, out)


def outputs_of(runs: list[Run]) -> tuple[list[Output], dict[str, int]]:
    """Every output of ``runs`` in order, and where each run's outputs start among them (by run name)."""
    outputs: list[Output] = []
    offsets: dict[str, int] = {}
    for run in runs:
        offsets[run.name] = len(outputs)
        outputs.extend(run.outputs)
    return outputs, offsets


def iter_outputs(runs: list[Run]) -> Iterator[Output]:
    for run in runs:
        yield from run.outputs
