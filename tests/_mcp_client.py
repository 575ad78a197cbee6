"""Shared by the MCP tests: run a real SDK client over stdio, and read wuu-tools' facts from a result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from wuu_tools.mcp.convert import RESULT_META_KEY

T = TypeVar("T")


def run_client(params: StdioServerParameters, body: Callable[[Client], Awaitable[T]]) -> T:
    """Start the server of ``params``, run ``body`` with a connected client, stop; at most 120 s."""

    async def main() -> T:
        with anyio.fail_after(120):
            async with Client(params) as client:
                return await body(client)

    return anyio.run(main)


def facts(result: types.CallToolResult) -> dict[str, Any]:
    """The projection facts wuu-tools put in the result's ``_meta``."""
    assert result.meta is not None, "wuu-tools puts its facts in _meta"
    return result.meta[RESULT_META_KEY]
