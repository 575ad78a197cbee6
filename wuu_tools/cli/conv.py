"""``wuu conv PATH``: a transcript's task, latest turns and index; older turns or matches on request."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..core.result import ToolResult
from .output import run_tool
from .params import Argument, Option, command

if TYPE_CHECKING:
    from rich.console import Console

_ROLE_STYLE = {"user": "bold green", "assistant": "bold blue", "system": "magenta", "tool": "yellow"}
_TURN = re.compile(r"^── turn \d+ · (\w+)")
_INDEX = re.compile(r"^(\s*\d+ )(user|assistant|system|tool)(.*)$")


def _rich(result: ToolResult, console: Console | None = None) -> None:
    """Roles coloured, tool calls and their results dimmed, section lines highlighted."""
    from rich.console import Console
    from rich.text import Text

    console = console or Console(highlight=False, soft_wrap=True)
    for line in result.text.split("\n"):
        turn = _TURN.match(line)
        index = _INDEX.match(line)
        if turn:
            console.print(Text(line, style=_ROLE_STYLE.get(turn.group(1), "bold")))
        elif line.startswith("[") and line.endswith("]"):
            console.print(Text(line, style="bold cyan"))
        elif line.startswith("  ← ") and "error" in line.split("·")[0]:
            console.print(Text(line, style="red dim"))
        elif line.startswith(("  → ", "  ← ", "    ", "  (")):
            console.print(Text(line, style="dim"))
        elif index:
            out = Text(index.group(1), style="dim")
            out.append(index.group(2), style=_ROLE_STYLE.get(index.group(2), ""))
            out.append(index.group(3), style="dim" if index.group(2) != "user" else "")
            console.print(out)
        else:
            console.print(Text(line))


def _read(path: str, **kwargs: Any) -> ToolResult:
    from ..conversations import read_conversation

    return read_conversation(path, **kwargs)


@command("conv")
def conv(
    path: str = Argument(..., help="Transcript file (Claude Code / Codex JSONL, chat or Messages JSON, ...)."),
    before_turn: int | None = Option(None, "--before-turn", "-t", help="Show the turns before this turn."),
    pattern: str | None = Option(None, "--pattern", "-p", help="Show the lines of turns matching a regex."),
    fmt: str | None = Option(
        None,
        "--format",
        "-f",
        help="Force a reader by name (claude-code, codex, openai-chat, ...); an unknown name lists them all.",
    ),
    revision: str | None = Option(None, "--revision", help="Revision the caller last saw."),
    budget: int | None = Option(None, "--budget", "-b", help="Token budget of the view."),
    instructions: bool = Option(False, "--instructions", help="List every human instruction, one line each."),
    as_json: bool = Option(False, "--json", help="Print the result envelope as JSON."),
) -> None:
    """Show a conversation: the task anchor, an index of the middle, the latest turns in full."""
    run_tool(
        lambda: _read(
            path,
            before_turn=before_turn,
            revision=revision,
            budget=budget,
            pattern=pattern,
            format=fmt,
            instructions=instructions,
        ),
        as_json,
        _rich,
    )
