"""``wuu hook AGENT``: an agent's pre-tool hook; its shell lines run through ``wuu run``.

It reads the agent's payload on stdin (:mod:`.agents`), decides whether the line goes through
``wuu run`` (:mod:`.rewrite`) and prints the agent's reply. It never blocks the agent: bad JSON,
a missing field, an empty stdin, a tool that is not the shell, anything unexpected — it prints
the agent's "no decision" reply and exits 0, and the line runs as the agent wrote it.

It loads nothing but ``json`` and ``shlex`` (a hook runs before every shell call).
"""

from __future__ import annotations

import json
import os
import shlex
import sys

from .params import Argument, Option, command

__all__ = ["hook", "wuu_program"]


def wuu_program() -> str:
    """How the rewritten line starts wuu: this executable's absolute path, or ``python -m wuu_tools.cli``."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0 and os.path.basename(argv0) != "__main__.py":
        import shutil

        found = shutil.which(argv0) if os.sep not in argv0 else argv0
        if found and os.access(found, os.X_OK):
            return shlex.quote(os.path.abspath(found))
    return shlex.join([sys.executable, "-m", "wuu_tools.cli"])


@command("hook")
def hook(
    agent: str = Argument(..., metavar="AGENT", help="claude, codex, gemini or cursor."),
    allow: bool = Option(False, "--allow", help="Approve every rewritten line (skips the agent's own prompt)."),
) -> None:
    """Read an agent's pre-tool payload on stdin and reply with its shell line run through wuu run."""
    from .agents import agent_named

    spec = agent_named(agent, exit_code=1)  # 2 would tell Claude Code and Gemini CLI to block the command
    reply: dict[str, object] | None = None
    try:
        payload = json.loads(sys.stdin.read() or "null")
        call = spec.call(payload)
        if call is not None:
            from .rewrite import rewrite

            line = rewrite(call.line, wuu_program(), call.session)
            if line is not None:
                reply = spec.reply(call, line, allow)
    except Exception as exc:  # never block the agent: its line runs as written
        print(f"wuu hook: left the line as it is ({type(exc).__name__}: {exc})", file=sys.stderr)
        reply = None
    if reply is not None:
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
    elif spec.no_decision:
        sys.stdout.write(spec.no_decision + "\n")
    sys.stdout.flush()
