"""Per-call latency of an MCP tool, direct and through ``wuu mcp proxy``, for ``scripts/bench.py``.

The upstream is ``@modelcontextprotocol/server-everything`` when it is installed under
``.ci/npm`` (its ``echo`` tool), else a small local Python MCP server with the same tool.
Both sides use the official SDK's ``Client`` over stdio and discard ten warm-up calls.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from .support import wuu_argv

__all__ = ["measure"]

LOCAL_SERVER = '''
from mcp.server import MCPServer

app = MCPServer("bench-upstream")


@app.tool()
def echo(message: str) -> str:
    """Echo the message back."""
    return f"Echo: {message}"


app.run()
'''


def _upstream(everything: Path, tmp: Path) -> tuple[str, list[str]]:
    node = shutil.which("node")
    if everything.is_file() and node:  # its start-up banner on stderr is dropped
        return "server-everything", ["sh", "-c", 'exec "$0" "$@" 2>/dev/null', node, str(everything), "stdio"]
    script = tmp / "upstream_server.py"
    script.write_text(LOCAL_SERVER)
    return "local Python server", [sys.executable, str(script)]


async def _latencies(argv: list[str], calls: int) -> list[float]:
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
    times = []
    with anyio.fail_after(300):
        async with Client(params) as client:
            for _ in range(10):
                await client.call_tool("echo", {"message": "warm up"})
            for i in range(calls):
                started = time.perf_counter()
                result = await client.call_tool("echo", {"message": f"call {i}"})
                times.append(time.perf_counter() - started)
                if result.is_error:
                    raise RuntimeError(f"echo failed: {result.content}")
    return times


def measure(calls: int, everything: Path, tmp: Path) -> tuple[str, list[float], list[float]]:
    """The upstream's name, and per-call seconds direct and through the proxy."""
    label, upstream = _upstream(everything, tmp)
    direct = anyio.run(_latencies, upstream, calls)
    proxied = anyio.run(_latencies, [*wuu_argv(), "mcp", "proxy", "--", *upstream], calls)
    return label, direct, proxied
