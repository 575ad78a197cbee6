"""The agents ``wuu hook`` and ``wuu init`` know: their pre-tool payloads, replies and settings files.

Each agent runs a command before its shell tool runs a line, gives it the call as JSON on stdin
and reads its reply on stdout (``docs/hooks.md``; the recorded payloads of each agent's
documentation are in ``fixtures/hooks/``):

=========== ================================ ================================================ =========================
agent       payload (stdin)                  reply that changes the line                      no decision
=========== ================================ ================================================ =========================
claude      ``PreToolUse``, ``tool_name``    ``hookSpecificOutput.updatedInput`` (the whole   nothing
            ``Bash``, ``tool_input.command`` input, the command changed)
codex       the same as Claude Code          the same, with ``permissionDecision: "allow"``   nothing
                                             (Codex takes a rewrite only with it)
gemini      ``BeforeTool``, ``tool_name``    ``hookSpecificOutput.tool_input`` (merged into   ``{}``
            ``run_shell_command``            the model's arguments)
cursor      ``preToolUse``, ``tool_name``    ``updated_input``, ``permission``                ``{}``
            ``Shell``, ``tool_input.command``
=========== ================================ ================================================ =========================

A rewritten line never approves itself unless the agent would not ask anyway: Claude Code gets
``permissionDecision: "allow"`` only in its ``bypassPermissions`` mode (otherwise its own rules
judge the new line); Codex gets a rewrite only in that mode (it accepts none without ``allow``, and
``allow`` would skip its approval); Gemini CLI and Cursor keep their own confirmation.
``wuu hook AGENT --allow`` (installed by ``wuu init AGENT --allow``) approves every rewritten line.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["AGENTS", "Agent", "Call", "agent_named"]

BYPASS = "bypassPermissions"


@dataclass(frozen=True)
class Call:
    """What a payload asks to run: the shell line, the session, whether the agent would ask first."""

    line: str
    session: str | None
    tool_input: dict[str, Any]
    unasked: bool  # the agent runs it without asking (a bypass mode): a rewrite may say allow


@dataclass(frozen=True)
class Agent:
    """One agent: how to read its payload, reply to it, and where its settings file is."""

    name: str
    title: str
    shell_tools: frozenset[str]
    event: str  # the settings key of the pre-tool event
    matcher: str
    flat: bool  # Cursor's entries are flat {"command", "matcher"}; the others nest {"matcher", "hooks": [...]}
    project_file: str
    global_file: str
    no_decision: str  # what to print when the line is left as it is

    def call(self, payload: Any) -> Call | None:
        """The line this payload asks to run, or None when it is not a shell call (or is malformed)."""
        if not isinstance(payload, dict) or payload.get("tool_name") not in self.shell_tools:
            return None
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, dict) or not isinstance(tool_input.get("command"), str):
            return None
        session = payload.get("conversation_id" if self.name == "cursor" else "session_id")
        return Call(
            line=tool_input["command"],
            session=session if isinstance(session, str) and session.strip() else None,
            tool_input=tool_input,
            unasked=payload.get("permission_mode") == BYPASS,
        )

    def reply(self, call: Call, command: str, allow: bool) -> dict[str, Any] | None:
        """The reply that makes the agent run ``command`` instead; None when this agent cannot take it."""
        updated = {**call.tool_input, "command": command}
        allow = allow or call.unasked
        if self.name == "claude":
            out: dict[str, Any] = {"hookEventName": "PreToolUse", "updatedInput": updated}
            if allow:
                out["permissionDecision"] = "allow"
                out["permissionDecisionReason"] = "wuu: the line runs through wuu run"
            return {"hookSpecificOutput": out}
        if self.name == "codex":
            if not allow:
                return None
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "wuu: the line runs through wuu run",
                    "updatedInput": updated,
                }
            }
        if self.name == "gemini":
            reply: dict[str, Any] = {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": updated}}
            if allow:
                reply["decision"] = "allow"
            return reply
        reply = {"updated_input": updated}
        if allow:
            reply["permission"] = "allow"
        return reply

    def settings(self, global_: bool, cwd: Path | None = None) -> Path:
        """The settings file ``wuu init`` writes: the project's, or the user's with ``--global``."""
        if not global_:
            return (cwd or Path.cwd()) / self.project_file
        if self.name == "codex" and os.environ.get("CODEX_HOME"):
            return Path(os.environ["CODEX_HOME"]) / "hooks.json"
        return Path.home() / self.global_file

    def entry(self, command: str) -> dict[str, Any]:
        """The settings entry that runs ``command`` before each shell call."""
        if self.flat:
            return {"command": command, "matcher": self.matcher}
        hook: dict[str, Any] = {"type": "command", "command": command}
        if self.name == "gemini":
            hook = {"name": "wuu", **hook, "timeout": 10000}
        return {"matcher": self.matcher, "hooks": [hook]}


AGENTS: dict[str, Agent] = {
    a.name: a
    for a in (
        Agent(
            "claude",
            "Claude Code",
            frozenset({"Bash"}),
            "PreToolUse",
            "Bash",
            False,
            ".claude/settings.json",
            ".claude/settings.json",
            "",
        ),
        Agent(
            "codex",
            "Codex",
            frozenset({"Bash", "shell", "local_shell", "exec_command"}),
            "PreToolUse",
            "Bash",
            False,
            ".codex/hooks.json",
            ".codex/hooks.json",
            "",
        ),
        Agent(
            "gemini",
            "Gemini CLI",
            frozenset({"run_shell_command"}),
            "BeforeTool",
            "run_shell_command",
            False,
            ".gemini/settings.json",
            ".gemini/settings.json",
            "{}",
        ),
        Agent(
            "cursor",
            "Cursor",
            frozenset({"Shell"}),
            "preToolUse",
            "Shell",
            True,
            ".cursor/hooks.json",
            ".cursor/hooks.json",
            "{}",
        ),
    )
}
"""Every agent, by the name ``wuu hook`` and ``wuu init`` take."""


def agent_named(name: str, exit_code: int = 2) -> Agent:
    """The agent ``name`` (``wuu hook NAME``, ``wuu init NAME``); an unknown one ends the command with ``exit_code``."""
    spec = AGENTS.get(name)
    if spec is None:
        print(f"wuu: unknown agent {name!r}; one of: {', '.join(AGENTS)}", file=sys.stderr)
        sys.exit(exit_code)
    return spec
