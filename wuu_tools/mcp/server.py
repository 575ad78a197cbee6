"""``wuu mcp serve``: the wuu-tools tools over MCP stdio, on the SDK's low-level ``Server``.

Every call goes through a :class:`~wuu_tools.Toolset` (root, budget, store), run in a
worker thread so a long command never blocks the connection. A result is its text block,
then its attachments as image/audio/resource blocks, with the envelope's facts in
``_meta["io.wuu-tools/result"]``; there is no ``structuredContent`` (it would duplicate the
text), and failures come back as ``isError`` results with a one-line readable text.
stdout carries the protocol only; logs go to stderr.

Run it in-process with :func:`build_server` (an ``mcp.Client`` takes the server object
directly), or as a process with :func:`serve`.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from .. import __version__
from ..toolset.toolset import Toolset
from .convert import to_mcp_result

__all__ = ["build_server", "serve"]

INSTRUCTIONS = (
    "wuu-tools: reading and running tools that return a small first view of a file, directory, "
    "command output or transcript, plus the exact call that reads what was left out. Follow that "
    "call (often read_saved) to read on; nothing is lost and nothing is re-run."
)


def build_server(toolset: Toolset) -> Server[Any]:
    """A low-level MCP ``Server`` offering ``toolset``'s tools."""
    tools = [
        types.Tool(name=s["name"], description=s["description"], input_schema=s["inputSchema"])
        for s in toolset.schemas("mcp")
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        result = await anyio.to_thread.run_sync(toolset.call, params.name, params.arguments or {})
        return to_mcp_result(result)

    return Server(
        "wuu-tools",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _run(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(toolset: Toolset) -> None:
    """Serve ``toolset`` over stdio until the client closes the connection."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="wuu mcp serve: %(message)s")
    anyio.run(_run, build_server(toolset))
