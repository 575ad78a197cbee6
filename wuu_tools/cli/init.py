"""``wuu init AGENT [--global] [--uninstall]``: install wuu's hook in an agent's settings file.

It reads the settings file (the project's, or the user's with ``--global``; :mod:`.agents`), adds
the entry that runs ``wuu hook AGENT`` before each shell call, keeps everything else as it is,
and writes it back only when that changed something; it prints what it did. A second run says
"nothing changed". ``--uninstall`` removes wuu's entry (any entry whose command runs ``… hook
AGENT`` of a wuu program) and nothing else. A file that is not a JSON object is left alone
(exit 1): wuu does not guess what its owner meant.

The command in the entry finds this wuu wherever the agent runs it: the absolute path of the
running ``wuu`` executable, or ``python -m wuu_tools.cli`` with this interpreter's absolute path.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from .params import Argument, Option, command

__all__ = ["hook_command", "init", "install", "is_wuu_entry", "uninstall"]

_OURS = re.compile(r"(?:^|[/\s'\"])(?:wuu|wuu_tools\.cli)['\"]?\s+hook\s+(\w+)")


def hook_command(agent: str, allow: bool = False) -> str:
    """The command the agent runs: this wuu, by absolute path, with ``hook AGENT``."""
    from .hook import wuu_program

    return f"{wuu_program()} hook {agent}" + (" --allow" if allow else "")


def _commands(entry: Any) -> list[str]:
    if not isinstance(entry, dict):
        return []
    found = [entry["command"]] if isinstance(entry.get("command"), str) else []
    for h in entry.get("hooks") or []:
        if isinstance(h, dict) and isinstance(h.get("command"), str):
            found.append(h["command"])
    return found


def is_wuu_entry(entry: Any, agent: str) -> bool:
    """Whether a settings entry is wuu's hook for ``agent``."""
    return any(m.group(1) == agent for c in _commands(entry) for m in [_OURS.search(c)] if m)


def install(settings: dict[str, Any], agent: str, entry: dict[str, Any], event: str) -> tuple[dict[str, Any], str]:
    """``settings`` with wuu's entry in place of any older one, and what changed (``""``: nothing)."""
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError('"hooks" is not a JSON object')
    entries = hooks.setdefault(event, [])
    if not isinstance(entries, list):
        raise ValueError(f'"hooks.{event}" is not a JSON array')
    ours = [e for e in entries if is_wuu_entry(e, agent)]
    if ours == [entry]:
        return settings, ""
    hooks[event] = [e for e in entries if not is_wuu_entry(e, agent)] + [entry]
    return settings, ("replaced wuu's entry in" if ours else "added wuu's entry to") + f" hooks.{event}"


def uninstall(settings: dict[str, Any], agent: str, event: str) -> tuple[dict[str, Any], str]:
    """``settings`` without wuu's entry, and what changed (``""``: nothing)."""
    hooks = settings.get("hooks")
    entries = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(entries, list) or not any(is_wuu_entry(e, agent) for e in entries):
        return settings, ""
    kept = [e for e in entries if not is_wuu_entry(e, agent)]
    assert isinstance(hooks, dict)
    if kept:
        hooks[event] = kept
    else:
        del hooks[event]
        if not hooks:
            del settings["hooks"]
    return settings, f"removed wuu's entry from hooks.{event}"


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("it is not a JSON object")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.wuu-{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


@command("init")
def init(
    agent: str = Argument(..., metavar="AGENT", help="claude, codex, gemini or cursor."),
    global_: bool = Option(False, "--global", "-g", help="The user's settings file, not the project's."),
    uninstall_: bool = Option(False, "--uninstall", help="Remove wuu's hook (and nothing else)."),
    allow: bool = Option(False, "--allow", help="The hook approves every rewritten line (skips the agent's prompt)."),
) -> None:
    """Install wuu's hook in an agent's settings file (merged, idempotent); --uninstall removes it."""
    from .agents import agent_named

    spec = agent_named(agent)
    path = spec.settings(global_)
    try:
        settings = _read(path)
        if uninstall_:
            settings, change = uninstall(settings, agent, spec.event)
        else:
            if spec.flat:
                settings.setdefault("version", 1)  # Cursor's hooks.json says its format version
            settings, change = install(settings, agent, spec.entry(hook_command(agent, allow)), spec.event)
    except (ValueError, OSError) as exc:
        print(f"wuu: {path}: left as it is: {exc}", file=sys.stderr)
        sys.exit(1)
    if not change:
        print(f"{path}: nothing changed ({spec.title} hook {'not installed' if uninstall_ else 'already installed'})")
        return
    _write(path, settings)
    print(f"{path}: {change}")
    if not uninstall_:
        print(f"  {spec.title} now runs its shell lines through wuu run; remove with: wuu init {agent} --uninstall")
