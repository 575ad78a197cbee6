"""Continuations as ``wuu`` shell commands, for an agent whose only tool is its shell.

Under an agent's hook (``WUU_CONTINUE_AS=shell``, set by the command ``wuu hook`` writes) a
view ends with the command line that shows the next part, not with a call of a tool the agent
does not have::

    [… lines 724-99,839 omitted (571.4 KiB): wuu saved log-40c3e75f --start-line 724 --end-line 99839  # any …]

Each tool maps to the ``wuu`` command that calls it (:data:`COMMANDS`: ``read_saved`` is ``wuu
saved``, ``read_file`` is ``wuu read``, ...), each argument to that command's option; a
continuation that does not map (an argument the command has no option for, a value no option
spells) is printed as ``wuu call '<the call>'``, which runs any call. Every word is quoted for
the shell (:func:`shlex.quote`), so the line runs as printed. A line that reads by line number
ends with a shell comment (:data:`HINTS`) saying that the same line reads from any line and
searches: an agent that wants line 50,000 of the omitted middle changes one number.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import sys
from typing import Any

from ..core.result import Continuation, plain_call_text

__all__ = ["COMMANDS", "ENV", "program", "shell_text", "use_shell_continuations"]

ENV = "WUU_CONTINUE_AS"
"""The environment variable that asks for continuations as shell commands (value ``shell``)."""

COMMANDS: dict[str, tuple[str, str, dict[str, str]]] = {
    "read_saved": (
        "saved",
        "ref",
        {
            "start_line": "--start-line",
            "end_line": "--end-line",
            "pattern": "--pattern",
            "raw": "--raw",
            "budget": "--budget",
            "fresh": "--fresh",
        },
    ),
    "read_file": (
        "read",
        "path",
        {
            "start_line": "--start-line",
            "end_line": "--end-line",
            "start_char": "--start-char",
            "revision": "--revision",
            "budget": "--budget",
            "symbol": "--symbol",
            "fresh": "--fresh",
        },
    ),
    "list_dir": (
        "ls",
        "path",
        {
            "depth": "--depth",
            "include_ignored": "--all",
            "cursor": "--cursor",
            "revision": "--revision",
            "budget": "--budget",
        },
    ),
    "read_conversation": (
        "conv",
        "path",
        {
            "before_turn": "--before-turn",
            "pattern": "--pattern",
            "format": "--format",
            "revision": "--revision",
            "budget": "--budget",
            "instructions": "--instructions",
        },
    ),
}
"""Tool -> (``wuu`` command, the argument given as its positional word, {argument: option})."""

FLAGS = frozenset({"--raw", "--fresh", "--all", "--instructions"})

HINTS = {
    "read_saved": "  # any line N: --start-line N, search: --pattern RE",
    "read_file": "  # any line N: --start-line N",
}
"""What a line that reads by line number adds, as a shell comment: the same line reads from any other line
too. The comment keeps the line runnable as printed, up to the end of the view's own bracket."""


@functools.cache
def program() -> str:
    """How the printed lines start: ``wuu`` when that is this program on PATH, else its absolute path.

    Run as ``python -m wuu_tools.cli``, the lines start with that interpreter and ``-m wuu_tools.cli``.
    """
    argv0 = sys.argv[0] if sys.argv else ""
    if not argv0 or argv0.endswith(("__main__.py", "-c")) or os.path.basename(argv0) == "__main__.py":
        return shlex.join([sys.executable, "-m", "wuu_tools.cli"])
    here = os.path.realpath(shutil.which(argv0) or argv0)
    on_path = shutil.which("wuu")
    if on_path and os.path.realpath(on_path) == here:
        return "wuu"
    return shlex.quote(here)


def _word(value: Any) -> str | None:
    """``value`` as one option value, or None when no option spells it."""
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        return None
    return str(value)


def shell_text(cont: Continuation) -> str:
    """The continuation as a ``wuu`` command line a shell runs as printed."""
    tool, args = cont["tool"], dict(cont["args"])
    mapped = COMMANDS.get(tool)
    words: list[str] | None = None
    if mapped is not None:
        name, positional, options = mapped
        words = [name]
        head = args.pop(positional, None)
        for key, value in args.items():
            flag = options.get(key)
            if flag is None:
                words = None
                break
            if flag in FLAGS:
                if value is not True:
                    if value is False:
                        continue
                    words = None
                    break
                words.append(flag)
                continue
            word = _word(value)
            if word is None:
                words = None
                break
            words.append(f"{flag}={word}" if word.startswith("-") else flag)
            if not word.startswith("-"):
                words.append(word)
        if words is not None and head is not None:
            word = _word(head)
            if word is None:
                words = None
            else:
                words += ["--", word] if word.startswith("-") else [word]
                if not word.startswith("-"):  # the positional word right after the command reads best
                    words.insert(1, words.pop())
    hint = ""
    if words is None:
        words = ["call", plain_call_text(cont)]
    elif "start_line" in cont["args"] and tool in HINTS:
        hint = HINTS[tool]
    return " ".join([program(), *(shlex.quote(w) for w in words)]) + hint


def use_shell_continuations() -> bool:
    """Print continuations as shell commands from now on, when ``WUU_CONTINUE_AS=shell`` asks for it."""
    if os.environ.get(ENV, "").strip().lower() != "shell":
        return False
    from ..core.result import render_calls_with

    render_calls_with(shell_text)
    return True
