"""A small real MCP server over stdio, the upstream of the proxy tests (run as a script).

Its tool listing comes in pages of two; its tools crash the process, hang, fail, return
structured content, or return a large text, so the proxy can be tested against each.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

PAGE = 2
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"temperature": {"type": "number"}, "city": {"type": "string"}},
    "required": ["temperature", "city"],
}
TOOLS = [
    types.Tool(name="pid", description="The server's process id.", input_schema={"type": "object"}),
    types.Tool(name="crash", description="Exit at once.", input_schema={"type": "object"}),
    types.Tool(
        name="sleep",
        description="Sleep, then answer.",
        input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
    ),
    types.Tool(name="fail", description="An error result.", input_schema={"type": "object"}),
    types.Tool(
        name="weather",
        description="Structured content.",
        input_schema={"type": "object"},
        output_schema=WEATHER_SCHEMA,
    ),
    types.Tool(
        name="rows",
        description="Many lines of text.",
        input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    ),
]


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    start = int(params.cursor) if params and params.cursor else 0
    end = start + PAGE
    return types.ListToolsResult(tools=TOOLS[start:end], next_cursor=str(end) if end < len(TOOLS) else None)


def text(value: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=value)], is_error=is_error)


async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "pid":
        return text(str(os.getpid()))
    if params.name == "crash":
        os._exit(3)
    if params.name == "sleep":
        await anyio.sleep(float(args.get("seconds", 1)))
        return text("slept")
    if params.name == "fail":
        return text("the thing failed: disk on fire", is_error=True)
    if params.name == "weather":
        data = {"temperature": 21.5, "city": "Lisbon"}
        return types.CallToolResult(
            content=[types.TextContent(text='{"temperature": 21.5, "city": "Lisbon"}')], structured_content=data
        )
    if params.name == "rows":
        return text("".join(f"row {i}\n" for i in range(1, int(args.get("n", 5000)) + 1)))
    return text(f"unknown tool {params.name}", is_error=True)


async def list_resources(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(name="greeting", uri="test://greeting")])


async def read_resource(
    ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    if str(params.uri) != "test://greeting":
        raise MCPError(types.INVALID_PARAMS, f"no resource {params.uri}")
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri="test://greeting", text="hello")])


async def list_prompts(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[types.Prompt(name="greet", description="Say hello.")])


async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
    message = types.PromptMessage(role="user", content=types.TextContent(text=f"hello {params.arguments}"))
    return types.GetPromptResult(messages=[message])


async def main() -> None:
    server = Server(
        "upstream-test",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    print("upstream test server starting", file=sys.stderr)
    anyio.run(main)
