"""``wuu mcp serve``: the wuu-tools tools over MCP stdio, on the SDK's low-level ``Server``.

Every call goes through a :class:`~wuu_tools.Toolset` (root, budget, store), run in a
worker thread so a long command never blocks the connection. A result is its text block,
then its attachments as image/audio/resource blocks, with the envelope's facts in
``_meta["io.wuu-tools/result"]``; there is no ``structuredContent`` (it would duplicate the
text), and failures come back as ``isError`` results with a one-line readable text.
stdout carries the protocol only; logs go to stderr.

A call can be stopped. Each runs under its own :class:`~wuu_tools.commands.stop.Stop`:
``notifications/cancelled`` (the SDK cancels the handler) sets it, the command's whole tree
is ended as on timeout and its log saved, and the request gets no answer, as the MCP
specification says. When the client closes stdin every running call is stopped that way
before the server exits; SIGTERM, SIGHUP or SIGINT stop them too, their results (``[cancelled
by SIGTERM …]``) are still sent, and the server exits 128+N. A line that is not JSON-RPC is
answered with a JSON-RPC error with a null id (-32700 parse error, -32600 invalid request),
and the server goes on.

Run it in-process with :func:`build_server` (an ``mcp.Client`` takes the server object
directly), or as a process with :func:`serve`.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from .. import __version__
from ..commands.stop import STOP_SIGNALS, Stop, stopping
from ..toolset.toolset import Toolset
from .convert import to_mcp_result

__all__ = ["Calls", "build_server", "serve"]

INSTRUCTIONS = (
    "wuu-tools: reading and running tools that return a small first view of a file, directory, "
    "command output or transcript, plus the exact call that reads what was left out. Follow that "
    "call (often read_saved) to read on; nothing is lost and nothing is re-run."
)
CANCELLED_BY_CLIENT = "the MCP client (notifications/cancelled)"
CLOSED_BY_CLIENT = "the MCP client closing the connection"
STOP_WAIT_S = 30.0
"""How long a stopped call is waited for (ending a tree takes a few seconds at most)."""


class Calls:
    """The calls running now, each with its Stop, and why the server is stopping (if it is)."""

    def __init__(self) -> None:
        self.running: dict[Stop, threading.Event] = {}
        self.closing: str | None = None

    def stop_all(self, reason: str) -> None:
        """Stop every running call because of ``reason``; later cancels say it too."""
        self.closing = self.closing or reason
        for stop in list(self.running):
            stop.set(reason)

    async def idle(self, timeout: float = STOP_WAIT_S) -> None:
        """Wait (at most ``timeout`` seconds) until no call is running."""
        with anyio.move_on_after(timeout):
            while self.running:
                await anyio.sleep(0.01)


def build_server(toolset: Toolset, calls: Calls | None = None) -> Server[Any]:
    """A low-level MCP ``Server`` offering ``toolset``'s tools; ``calls`` tracks the running ones."""
    calls = calls if calls is not None else Calls()
    tools = [
        types.Tool(name=s["name"], description=s["description"], input_schema=s["inputSchema"])
        for s in toolset.schemas("mcp")
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        stop, done = Stop(), threading.Event()

        def work() -> Any:
            try:
                with stopping(stop):
                    return toolset.call(params.name, params.arguments or {})
            finally:
                done.set()

        calls.running[stop] = done
        try:
            result = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            # Cancelled by the client, or the connection is closing: end the command's tree
            # and save its log before letting go (no answer is sent for a cancelled request).
            stop.set(calls.closing or CANCELLED_BY_CLIENT)
            with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_WAIT_S):
                while not done.is_set():
                    await anyio.sleep(0.01)
            raise
        finally:
            del calls.running[stop]
            if done.is_set():
                stop.close()
        return to_mcp_result(result)

    return Server(
        "wuu-tools",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _bad_line(exc: Exception) -> SessionMessage:
    """The JSON-RPC answer to a line that could not be read as a message: its id is unknown, so null."""
    errors = getattr(exc, "errors", None)
    kinds = {e.get("type") for e in errors()} if callable(errors) else set()
    if "json_invalid" in kinds or not kinds:
        error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error: the line is not valid JSON")
    else:
        error = types.ErrorData(code=types.INVALID_REQUEST, message="Invalid Request: not a JSON-RPC 2.0 message")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


async def _relay(
    source: ObjectReceiveStream[SessionMessage | Exception],
    target: ObjectSendStream[SessionMessage | Exception],
    answer: ObjectSendStream[SessionMessage],
    calls: Calls,
) -> None:
    """Pass the client's messages on; answer an unreadable line here; note the end of the input."""
    async with target:
        async for item in source:
            if isinstance(item, Exception):
                try:
                    await answer.send(_bad_line(item))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
                continue
            await target.send(item)
        calls.closing = calls.closing or CLOSED_BY_CLIENT


async def _watch_signals(calls: Calls) -> None:
    """On SIGTERM, SIGHUP or SIGINT: stop every call, let their results go out, and exit 128+N."""
    with anyio.open_signal_receiver(*STOP_SIGNALS) as received:
        async for signum in received:
            calls.stop_all(signal.Signals(signum).name)
            await calls.idle()
            await anyio.sleep(0.2)  # the results of the stopped calls are written meanwhile
            os._exit(128 + signum)  # the stdin reader may be blocked in a read no cancel reaches


async def _run(server: Server[Any], calls: Calls) -> None:
    async with stdio_server() as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_watch_signals, calls)
            tg.start_soon(_relay, read_stream, send, write_stream, calls)
            await server.run(receive, write_stream, server.create_initialization_options())
            tg.cancel_scope.cancel()


def serve(toolset: Toolset) -> None:
    """Serve ``toolset`` over stdio until the client closes the connection (or a signal stops it)."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="wuu mcp serve: %(message)s")
    calls = Calls()
    anyio.run(_run, build_server(toolset, calls), calls)
