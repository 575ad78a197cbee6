"""``wuu mcp serve`` and ``wuu mcp proxy -- SERVER_CMD``: the MCP faces (extra ``wuu-tools[mcp]``).

The ``mcp`` SDK is imported only when one of these commands runs, with a clear message
naming the extra when it is missing.
"""

from __future__ import annotations

import os
import sys

from ..core.errors import InvalidArgument, WuuError
from .output import fail
from .params import Argument, Option, command, group

MISSING = "the MCP commands need the mcp package: pip install 'wuu-tools[mcp]'"


def _require_mcp() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        fail(MISSING, 1)


group("mcp", help="Serve the tools over MCP, or put wuu-tools in front of another MCP server.")


@command("serve", group="mcp")
def serve(
    root: str = Option(".", "--root", help="Directory paths resolve against and must stay in."),
    budget: int | None = Option(None, "--budget", "-b", help="Token budget of a view."),
    allow_outside_root: bool = Option(
        False, "--allow-outside-root", help="Let paths leave --root (symlinks are resolved first)."
    ),
) -> None:
    """Serve read_file, list_dir, run_command, read_conversation and read_saved over stdio."""
    _require_mcp()
    from ..mcp.server import serve as run
    from ..toolset.toolset import Toolset

    try:
        toolset = Toolset(root=root, budget=budget, allow_outside_root=allow_outside_root)
    except InvalidArgument as exc:
        fail(exc.message, 2)
    except WuuError as exc:
        fail(exc.message, 1)
    run(toolset)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)  # at once: the interpreter's teardown took ~1 s after the client left


@command("proxy", group="mcp", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def proxy(
    command: list[str] = Argument(..., metavar="-- SERVER_CMD [ARGS]...", help="The upstream server."),
    budget: int | None = Option(None, "--budget", "-b", help="Token budget of a projected result."),
    timeout: float = Option(300.0, "--timeout", help="Seconds to wait for the upstream per call."),
) -> None:
    """Run an MCP server behind wuu-tools: its results projected, read_saved added."""
    _require_mcp()
    from ..core.budget import resolve_budget
    from ..mcp.proxy import run_proxy

    try:
        if budget is not None:
            resolve_budget(budget)
    except InvalidArgument as exc:
        fail(exc.message, 2)
    if timeout <= 0:
        fail(f"--timeout must be more than 0 seconds, not {timeout:g}", 2)
    sys.exit(run_proxy(command[0], command[1:], budget=budget, timeout=timeout))
