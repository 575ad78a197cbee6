"""``wuu mcp proxy`` over real stdio: in front of a small Python MCP server, and of server-everything.

The Python upstream (``tests/_upstream_server.py``) crashes, hangs, fails and pages its
tool list on request. ``@modelcontextprotocol/server-everything`` (npm, pinned, installed by
``.ci/run``; ``WUU_TEST_EVERYTHING_SERVER`` names its ``dist/index.js``) is the reference
server; its tests are skipped, with the reason, where it is not installed.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")

import mcp_types as types
from _mcp_client import facts, run_client
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

UPSTREAM = str(Path(__file__).with_name("_upstream_server.py"))
REPO = Path(__file__).resolve().parents[1]
EVERYTHING_IN_CHECKOUT = REPO / ".ci/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def wuu_args(*args: str) -> tuple[str, list[str]]:
    script = Path(sys.executable).with_name("wuu")
    if script.is_file():
        return str(script), list(args)
    return sys.executable, ["-c", "from wuu_tools.cli import main; main()", *args]


def proxy(*upstream: str, budget: int = 200, timeout: float | None = None) -> StdioServerParameters:
    options = ["--budget", str(budget)] + (["--timeout", str(timeout)] if timeout else [])
    command, args = wuu_args("mcp", "proxy", *options, "--", *upstream)
    return StdioServerParameters(command=command, args=args, env=dict(os.environ))


def python_upstream(**kw: Any) -> StdioServerParameters:
    return proxy(sys.executable, UPSTREAM, **kw)


def text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def follow(client: Client, result: types.CallToolResult, limit: int = 500) -> list[types.CallToolResult]:
    """The result and every view its continuation chain leads to."""
    chain = [result]
    for _ in range(limit):
        cont = facts(chain[-1])["continuation"]
        if cont is None:
            return chain
        assert cont["tool"] == "read_saved"
        chain.append(await client.call_tool("read_saved", cont["args"]))
    raise AssertionError("the continuation chain did not end")


def lines_seen(chain: list[types.CallToolResult]) -> str:
    return "\n".join(text(r) for r in chain)


# -- in front of a Python upstream ------------------------------------------------------------


def test_lists_every_page_adds_read_saved_and_drops_output_schemas() -> None:
    async def body(client: Client) -> list[types.Tool]:
        return (await client.list_tools()).tools

    tools = run_client(python_upstream(), body)
    assert [t.name for t in tools] == ["pid", "crash", "sleep", "fail", "weather", "rows", "read_saved"]
    assert all(t.output_schema is None for t in tools)
    assert "nothing is lost" in tools[-1].description


def test_large_text_is_projected_and_recoverable() -> None:
    async def body(client: Client) -> list[types.CallToolResult]:
        return await follow(client, await client.call_tool("rows", {"n": 3000}))

    chain = run_client(python_upstream(budget=500), body)
    first = chain[0]
    assert not first.is_error
    assert facts(first)["complete"] is False
    assert facts(first)["tokens"] <= 500
    assert facts(first)["source"] and 'read_saved(ref="' in text(first)
    assert len(chain) > 2
    everything = lines_seen(chain)
    for i in range(1, 3001):
        assert f"row {i}\n" in everything + "\n", i


def test_small_results_pass_whole_and_errors_stay_errors() -> None:
    async def body(client: Client) -> tuple[types.CallToolResult, ...]:
        return (
            await client.call_tool("pid", {}),
            await client.call_tool("fail", {}),
            await client.call_tool("nope", {}),
        )

    pid, fail, nope = run_client(python_upstream(), body)
    assert not pid.is_error and text(pid).strip().isdigit()
    assert facts(pid)["complete"] is True
    assert fail.is_error and "disk on fire" in text(fail)
    assert nope.is_error and "unknown tool nope" in text(nope)


def test_structured_content_validates_on_the_client() -> None:
    async def body(client: Client) -> types.CallToolResult:
        await client.list_tools()
        return await client.call_tool("weather", {})  # the SDK client validates against a listed schema

    result = run_client(python_upstream(), body)
    assert not result.is_error
    assert "21.5" in text(result)
    assert result.structured_content in (None, {"temperature": 21.5, "city": "Lisbon"})


def test_upstream_crash_is_an_error_result_and_it_restarts() -> None:
    async def body(client: Client) -> tuple[str, types.CallToolResult, str]:
        before = text(await client.call_tool("pid", {}))
        crashed = await client.call_tool("crash", {})
        after = await client.call_tool("pid", {})
        assert not after.is_error, text(after)
        return before, crashed, text(after)

    before, crashed, after = run_client(python_upstream(), body)
    assert crashed.is_error
    assert "closed the connection" in text(crashed) and "restarted on the next call" in text(crashed)
    assert after.strip().isdigit() and after != before


def test_upstream_timeout_is_an_error_result_and_the_proxy_goes_on() -> None:
    async def body(client: Client) -> tuple[types.CallToolResult, types.CallToolResult]:
        return await client.call_tool("sleep", {"seconds": 30}), await client.call_tool("pid", {})

    slow, pid = run_client(python_upstream(timeout=1), body)
    assert slow.is_error
    assert "did not answer within 1 s" in text(slow)
    assert not pid.is_error


def test_resources_and_prompts_pass_through() -> None:
    async def body(client: Client) -> tuple[Any, ...]:
        resources = (await client.list_resources()).resources
        read = await client.read_resource("test://greeting")
        prompts = (await client.list_prompts()).prompts
        prompt = await client.get_prompt("greet", {"who": "you"})
        with pytest.raises(MCPError, match="no resource test://other"):
            await client.read_resource("test://other")
        return resources, read, prompts, prompt

    resources, read, prompts, prompt = run_client(python_upstream(), body)
    assert [r.uri for r in resources] == ["test://greeting"]
    assert read.contents[0].text == "hello"
    assert [p.name for p in prompts] == ["greet"]
    assert prompt.messages[0].content.text == "hello {'who': 'you'}"


def test_an_upstream_that_cannot_start_fails_clearly() -> None:
    command, args = wuu_args("mcp", "proxy", "--", "/nonexistent/mcp-server", "--flag")
    done = subprocess.run(
        [command, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert "cannot start the upstream server `/nonexistent/mcp-server --flag`" in done.stderr
    assert done.stdout == ""


# -- in front of @modelcontextprotocol/server-everything --------------------------------------


@pytest.fixture
def everything() -> list[str]:
    """The command that starts server-everything over stdio (skips when it is not installed)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: server-everything needs it (.ci/run installs the server)")
    configured = os.environ.get("WUU_TEST_EVERYTHING_SERVER")
    path = Path(configured) if configured else EVERYTHING_IN_CHECKOUT
    if not path.is_file():
        pytest.skip(
            f"@modelcontextprotocol/server-everything is not installed at {path}: .ci/run installs it "
            "(npm install --prefix .ci/npm) and sets WUU_TEST_EVERYTHING_SERVER"
        )
    return [node, str(path), "stdio"]


def test_everything_tools_are_all_listed(everything: list[str]) -> None:
    async def listing(client: Client) -> list[types.Tool]:
        return (await client.list_tools()).tools

    direct = run_client(StdioServerParameters(command=everything[0], args=everything[1:]), listing)
    proxied = run_client(proxy(*everything), listing)
    assert [t.name for t in proxied] == [t.name for t in direct] + ["read_saved"]
    assert any(t.output_schema for t in direct), "server-everything advertises an output schema"
    assert all(t.output_schema is None for t in proxied)


def test_everything_large_echo_is_projected_and_recoverable(everything: list[str]) -> None:
    message = "".join(f"echo line {i}\n" for i in range(1, 2001))

    async def body(client: Client) -> list[types.CallToolResult]:
        return await follow(client, await client.call_tool("echo", {"message": message}))

    chain = run_client(proxy(*everything, budget=400), body)
    assert facts(chain[0])["complete"] is False
    assert len(text(chain[0]).encode()) < len(message) / 5
    everything_seen = lines_seen(chain)
    for i in range(1, 2001):
        assert f"echo line {i}\n" in everything_seen + "\n", i


def test_everything_image_arrives_as_an_image(everything: list[str]) -> None:
    async def body(client: Client) -> types.CallToolResult:
        return await client.call_tool("get-tiny-image", {})

    direct = run_client(StdioServerParameters(command=everything[0], args=everything[1:]), body)
    proxied = run_client(proxy(*everything), body)
    direct_images = [c for c in direct.content if isinstance(c, types.ImageContent)]
    proxied_images = [c for c in proxied.content if isinstance(c, types.ImageContent)]
    assert proxied_images == direct_images and len(proxied_images) == 1
    assert base64.b64decode(proxied_images[0].data).startswith(b"\x89PNG")
    assert isinstance(proxied.content[0], types.TextContent)
    assert proxied.content.index(proxied_images[0]) > 0  # after the text it belongs to


def test_everything_structured_content_validates_on_the_client(everything: list[str]) -> None:
    async def body(client: Client) -> types.CallToolResult:
        await client.list_tools()
        return await client.call_tool("get-structured-content", {"location": "Chicago"})

    result = run_client(proxy(*everything), body)
    assert not result.is_error
    assert "temperature" in text(result)


def test_everything_errors_stay_errors(everything: list[str]) -> None:
    async def body(client: Client) -> types.CallToolResult:
        return await client.call_tool("echo", {})

    result = run_client(proxy(*everything), body)
    assert result.is_error
    assert "message" in text(result)
