"""``wuu mcp proxy -- SERVER_CMD ARGS...``: any MCP server, with every result projected.

The proxy starts the upstream server as a subprocess over stdio and serves its tools
downstream over stdio:

- ``tools/list`` walks every upstream page and adds ``read_saved``. Any upstream result may
  be shortened, so ``outputSchema`` is removed from every upstream tool: a client that sees
  a schema rejects a result without ``structuredContent`` (and Claude Code or Codex would
  inline the full JSON instead of the projection).
- ``tools/call`` forwards the call, then projects the result with ``project_result``: the
  text becomes the projection, media blocks pass through unchanged right after it,
  ``isError`` is kept, and ``structuredContent`` is dropped whenever the projection left
  something out or folded it into the text (the whole JSON is saved; ``read_saved`` reads
  it). The projection's facts go in ``_meta["io.wuu-tools/result"]``; the upstream's own
  ``_meta`` is kept.
- ``read_saved`` reads what a projection saved; it never calls the upstream again.
- Resources and prompts, when the upstream has them, are passed through unchanged.
- The upstream crashing is reported as an error result, and it is restarted on the next
  call. A call the upstream does not answer within the timeout becomes an error result too.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp import Client, StdioServerParameters
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from .. import __version__
from ..core.errors import SourceError
from ..core.result import ToolResult
from ..toolset.toolset import Toolset
from .convert import RESULT_META_KEY, attachment_block, result_facts, to_mcp_result

__all__ = ["DEFAULT_TIMEOUT", "Upstream", "build_proxy_server", "open_proxy", "run_proxy"]

DEFAULT_TIMEOUT = 300.0
"""Seconds the proxy waits for the upstream to answer one call."""
MAX_PAGES = 1000
"""Most ``tools/list`` pages read from the upstream (a paginator that never ends cannot hang)."""

log = logging.getLogger("wuu_tools.mcp.proxy")
T = TypeVar("T")


class UpstreamUnavailable(SourceError):
    """The upstream server could not be started or reached."""

    kind = "upstream_unavailable"


class Upstream:
    """The upstream server: one process at a time, started on demand, restarted after it dies.

    Args:
        params: How to start it.
        tg: The task group that holds the connection open between calls.
    """

    def __init__(self, params: StdioServerParameters, tg: TaskGroup) -> None:
        self.params = params
        self._tg = tg
        self._client: Client | None = None
        self._stop: anyio.Event | None = None
        self._lock = anyio.Lock()
        self.starts = 0

    @property
    def command_line(self) -> str:
        return " ".join([self.params.command, *self.params.args])

    async def client(self) -> Client:
        """The live connection, starting the server first when there is none.

        Raises:
            UpstreamUnavailable: The server cannot be started or does not complete the handshake.
        """
        async with self._lock:
            if self._client is None:
                try:
                    await self._tg.start(self._hold)
                except Exception as exc:
                    raise UpstreamUnavailable(
                        f"cannot start the upstream server `{self.command_line}`: {_reason(exc)}"
                    ) from exc
            assert self._client is not None
            return self._client

    async def _hold(self, *, task_status: TaskStatus[None]) -> None:
        """Keep one connection open until :meth:`drop` (runs in the task group)."""
        stop = anyio.Event()
        started = False
        try:
            async with Client(self.params, cache=None) as client:
                self._client, self._stop = client, stop
                self.starts += 1
                started = True
                task_status.started()
                await stop.wait()
        except Exception:
            if not started:
                raise
            log.warning("upstream connection to `%s` ended with an error", self.command_line, exc_info=True)
        finally:
            if self._stop is stop:
                self._client, self._stop = None, None

    def drop(self) -> None:
        """Close the current connection (its process is ended); the next call starts a new one."""
        if self._stop is not None:
            self._stop.set()
        self._client, self._stop = None, None

    async def list_tools(self) -> list[types.Tool]:
        """Every tool of the upstream, all pages."""
        client = await self.client()
        tools: list[types.Tool] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools += page.tools
            cursor = page.next_cursor
            if not cursor or cursor in seen:
                break
            seen.add(cursor)
        return tools


def _reason(exc: BaseException) -> str:
    """The innermost message of an exception (task groups wrap them in groups)."""
    inner = getattr(exc, "exceptions", None)
    while inner is not None and len(inner) == 1:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return str(exc) or type(exc).__name__


def _error(text: str, kind: str) -> types.CallToolResult:
    result = ToolResult(text=f"error: {text}", complete=True, meta={"error": {"kind": kind, "message": text}})
    return to_mcp_result(result)


def _project(toolset: Toolset, name: str, raw: types.CallToolResult) -> types.CallToolResult:
    """The upstream result projected: projection text, original media blocks, facts in ``_meta``."""
    payload = raw.model_dump(by_alias=True, mode="json", exclude_none=True)
    result = toolset.call("project_result", {"result": payload, "tool": name})
    if result.is_error:  # never lose the upstream's answer to a projection failure
        log.warning("could not project the result of %s: %s", name, result.text)
        return raw
    originals: dict[str, types.ContentBlock] = {}
    for block in raw.content:
        if isinstance(block, (types.ImageContent, types.AudioContent)):
            originals.setdefault(block.data, block)
        elif isinstance(block, types.EmbeddedResource) and isinstance(block.resource, types.BlobResourceContents):
            originals.setdefault(block.resource.blob, block)
    content: list[types.ContentBlock] = [types.TextContent(text=result.text)]
    for n, att in enumerate(result.attachments, 1):
        original = originals.get(att.get("data")) if isinstance(att.get("data"), str) else None
        content.append(original if original is not None else attachment_block(att, n))
    meta = dict(raw.meta or {})
    meta[RESULT_META_KEY] = result_facts(result)
    return types.CallToolResult(
        content=content,
        structured_content=raw.structured_content if _keeps_structured(result) else None,
        is_error=raw.is_error,
        _meta=meta,
    )


def _keeps_structured(result: ToolResult) -> bool:
    """Whether the upstream's ``structuredContent`` goes on: only when nothing was left out and the
    projection did not fold it into the text (then the text, or its saved copy, stands for it)."""
    return result.complete and "structured" not in result.meta


def _passthrough(upstream: Upstream, capabilities: types.ServerCapabilities | None) -> dict[str, Any]:
    """Handlers that forward resources and prompts unchanged, for the capabilities the upstream has."""

    async def forward(call: Callable[[Client], Awaitable[T]]) -> T:
        try:
            return await call(await upstream.client())
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                upstream.drop()
            raise
        except (UpstreamUnavailable, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            upstream.drop()
            raise MCPError(CONNECTION_CLOSED, f"the upstream server is not available: {_reason(exc)}") from exc

    def cursor(params: types.PaginatedRequestParams | None) -> str | None:
        return params.cursor if params else None

    async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return await forward(lambda c: c.list_resources(cursor=cursor(params)))

    async def list_resource_templates(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return await forward(lambda c: c.list_resource_templates(cursor=cursor(params)))

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return await forward(lambda c: c.read_resource(str(params.uri)))

    async def list_prompts(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return await forward(lambda c: c.list_prompts(cursor=cursor(params)))

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return await forward(lambda c: c.get_prompt(params.name, params.arguments))

    handlers: dict[str, Any] = {}
    if capabilities is not None and capabilities.resources is not None:
        handlers |= {
            "on_list_resources": list_resources,
            "on_list_resource_templates": list_resource_templates,
            "on_read_resource": read_resource,
        }
    if capabilities is not None and capabilities.prompts is not None:
        handlers |= {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}
    return handlers


def _failure(name: str, exc: Exception, upstream: Upstream, timeout: float) -> types.CallToolResult:
    """A failed upstream call as a readable error result; a broken connection is dropped."""
    if isinstance(exc, UpstreamUnavailable):
        return _error(f"{name}: {exc.message}; it will be tried again on the next call", exc.kind)
    if isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT:
        return _error(
            f"{name}: the upstream server did not answer within {timeout:g} s; the call was abandoned "
            "(wuu mcp proxy --timeout sets the limit)",
            "upstream_timeout",
        )
    if isinstance(exc, MCPError) and exc.code != CONNECTION_CLOSED:
        return _error(f"{name}: the upstream server answered with error {exc.code}: {exc.message}", "upstream")
    if isinstance(exc, RuntimeError):  # e.g. structured content that fails the tool's own schema
        return _error(f"{name}: the upstream call failed: {exc}", "upstream")
    upstream.drop()
    return _error(
        f"{name}: the upstream server `{upstream.command_line}` closed the connection (it exited or "
        f"crashed) before answering ({_reason(exc)}); it will be restarted on the next call",
        "upstream_crashed",
    )


def build_proxy_server(
    upstream: Upstream,
    toolset: Toolset,
    timeout: float = DEFAULT_TIMEOUT,
    capabilities: types.ServerCapabilities | None = None,
) -> Server[Any]:
    """The downstream server: the upstream's tools, projected, plus ``read_saved``.

    Args:
        upstream: The upstream connection.
        toolset: Runs ``project_result`` and ``read_saved`` (its budget and store apply).
        timeout: Seconds to wait for the upstream to answer one call.
        capabilities: The upstream's; its resources and prompts are passed through when present.
    """
    own = next(s for s in toolset.schemas("mcp") if s["name"] == "read_saved")
    read_saved = types.Tool(name="read_saved", description=own["description"], input_schema=own["inputSchema"])

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = [t.model_copy(update={"output_schema": None}) for t in await upstream.list_tools()]
        if any(t.name == "read_saved" for t in tools):
            log.warning("the upstream's own read_saved tool is hidden by the proxy's")
            tools = [t for t in tools if t.name != "read_saved"]
        return types.ListToolsResult(tools=[*tools, read_saved])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        if params.name == "read_saved":
            return to_mcp_result(await anyio.to_thread.run_sync(toolset.call, "read_saved", args))
        try:
            client = await upstream.client()
            raw = await client.call_tool(params.name, args, read_timeout_seconds=timeout)
        except (UpstreamUnavailable, MCPError, RuntimeError, OSError, anyio.BrokenResourceError) as exc:
            return _failure(params.name, exc, upstream, timeout)
        except anyio.ClosedResourceError as exc:
            return _failure(params.name, exc, upstream, timeout)
        return await anyio.to_thread.run_sync(_project, toolset, params.name, raw)

    return Server(
        "wuu-tools-proxy",
        **_passthrough(upstream, capabilities),
        version=__version__,
        instructions=(
            f"Tools of `{upstream.command_line}` behind wuu-tools: large results are shortened to a first "
            "view that ends with the call that reads on (read_saved); nothing is lost."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


@asynccontextmanager
async def open_proxy(
    command: str,
    args: list[str],
    budget: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    toolset: Toolset | None = None,
) -> AsyncIterator[Server[Any]]:
    """Start the upstream and yield the proxy ``Server`` (serve it on any transport).

    Raises:
        UpstreamUnavailable: The upstream server cannot be started.
    """
    params = StdioServerParameters(command=command, args=list(args), env=dict(os.environ))
    toolset = toolset or Toolset(budget=budget, allow_outside_root=True, tools=["read_saved"])
    async with anyio.create_task_group() as tg:
        upstream = Upstream(params, tg)
        capabilities = (await upstream.client()).server_capabilities
        try:
            yield build_proxy_server(upstream, toolset, timeout, capabilities)
        finally:
            upstream.drop()
            tg.cancel_scope.cancel()


async def _serve(command: str, args: list[str], budget: int | None, timeout: float) -> int:
    try:
        async with open_proxy(command, args, budget, timeout) as server, stdio_server() as (reader, writer):
            await server.run(reader, writer, server.create_initialization_options())
    except UpstreamUnavailable as exc:
        log.error("%s", exc)
        return 1
    return 0


def run_proxy(command: str, args: list[str], budget: int | None = None, timeout: float = DEFAULT_TIMEOUT) -> int:
    """Serve the proxy over stdio until the client closes the connection; returns an exit code."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="wuu mcp proxy: %(message)s")
    return anyio.run(_serve, command, args, budget, timeout)
