"""Codex CLI rollouts (``rollout-*.jsonl``) read into a replay :class:`~.runs.Run`.

The rollout is parsed by the transcript reader (:func:`wuu_tools.conversations.codex.read_codex`, the
``{timestamp, type, payload}`` lines and the older bare ones); its turns become the run's messages in
order: an assistant turn (its text and its calls' arguments sent, its reasoning seen), then the output
of each of its calls. The outputs that count are the shell's: ``shell`` (``command`` a list such as
``["bash", "-lc", "ls"]``), ``shell_command`` and ``exec_command`` (``cmd`` a string) and
``local_shell_call``. Newer Codex wraps a command's output in a header (``Chunk ID``, ``Wall time``,
``Process exited with code N``, ``Original token count``, then ``Output:``); the header is dropped (it
stays the same whichever view the command's output gets) and its exit code kept.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from ..conversations.codex import looks_like_codex, looks_like_old_codex, read_codex
from ..conversations.model import ToolCall
from .runs import Message, Output, Run

__all__ = ["SHELL_TOOLS", "looks_like_rollout", "read_rollout"]

SHELL_TOOLS = frozenset({"shell", "shell_command", "exec_command", "local_shell", "container.exec"})
_HEADER = re.compile(
    r"\A(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?"
    r"(?:(?:Process exited with code|Exit code:?) (-?\d+)\n|Process running with session ID [^\n]*\n)?"
    r"(?:Wall time: [^\n]*\n)?(?:Original token count: [^\n]*\n)?Output:\n"
)
_SHELLS = ("bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash", "/usr/bin/zsh")


def looks_like_rollout(records: list[dict[str, Any]]) -> bool:
    """True when the first lines are a Codex rollout's (wrapped, or the bare format's session line)."""
    return bool(records) and (any(looks_like_codex(r) for r in records[:5]) or looks_like_old_codex(records[0]))


def command_of(call: ToolCall) -> str:
    """The shell line a call ran: ``bash -lc LINE`` gives LINE, an argument list is joined with shell quoting."""
    args = call.args if isinstance(call.args, dict) else {}
    raw = args.get("cmd", args.get("command"))
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list) and all(isinstance(w, str) for w in raw):
        if len(raw) == 3 and raw[0] in _SHELLS and raw[1] in ("-lc", "-c"):
            return raw[2]
        return shlex.join(raw)
    return ""


def _body(text: str, code: int | None) -> tuple[str, int | None]:
    m = _HEADER.match(text)
    if m is None:
        return text, code
    return text[m.end() :], int(m.group(1)) if m.group(1) is not None else code


def read_rollout(path: Path, records: list[tuple[int | None, dict[str, Any]]]) -> Run:
    """The run of a Codex rollout already split into ``(line, object)`` records."""
    conv = read_codex(records, [])
    run = Run(name=path.name.removesuffix(".jsonl"), project="codex", source="codex", messages=[], outputs=[])
    for turn in conv.turns:
        if turn.role != "assistant":
            text = turn.text
            for call in turn.calls:  # a result whose call is not in the rollout
                if call.output is not None:
                    text = "\n".join(t for t in (text, call.output.text) if t)
            if text:
                run.messages.append(Message("tool" if turn.role == "tool" else turn.role, text))
            continue
        args = [json.dumps(c.args, ensure_ascii=False) if not isinstance(c.args, str) else c.args for c in turn.calls]
        sent = "\n".join(x for x in (turn.text, *args) if x)
        seen = "\n".join(x for x in (sent, turn.thinking) if x)
        run.messages.append(Message("assistant", sent, seen))
        for call in turn.calls:
            if call.output is None:
                continue
            text, code = _body(call.output.text, call.output.exit_code)
            msg = Message("tool", text)
            if call.name in SHELL_TOOLS:
                out = Output(
                    run=run.name,
                    project=run.project,
                    tool="bash",
                    command=command_of(call),
                    exit_code=code if code is not None else (1 if call.output.is_error else 0),
                    text=text,
                )
                msg.output = len(run.outputs)
                out.message = len(run.messages)
                run.outputs.append(out)
            run.messages.append(msg)
    return run
