"""``wuu mcp serve`` over real stdio with the official ``mcp`` SDK client, and the result conversion."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")

import mcp_types as types
from _mcp_client import facts, run_client
from mcp import Client, StdioServerParameters

from wuu_tools import ToolResult
from wuu_tools.mcp.convert import to_mcp_result
from wuu_tools.toolset.toolset import MODEL_TOOLS


def wuu_command(*args: str) -> StdioServerParameters:
    """``wuu ARGS`` as a stdio server: the installed console script, else the module's entry point."""
    script = Path(sys.executable).with_name("wuu")
    if script.is_file():
        command, prefix = str(script), []
    else:
        command, prefix = sys.executable, ["-c", "from wuu_tools.cli import main; main()"]
    return StdioServerParameters(command=command, args=[*prefix, *args], env=dict(os.environ))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "root"
    base.mkdir()
    (base / "big.py").write_text("".join(f"value_{n} = {n} * 2  # a line of a big file\n" for n in range(1, 1201)))
    return base


def test_lists_the_model_tools_with_schemas(root: Path) -> None:
    async def body(client: Client) -> list[types.Tool]:
        return (await client.list_tools()).tools

    tools = run_client(wuu_command("mcp", "serve", "--root", str(root)), body)
    assert tuple(t.name for t in tools) == MODEL_TOOLS
    for tool in tools:
        assert tool.description and "read_saved(" in tool.description
        assert tool.input_schema["type"] == "object"
        assert all(p["description"] for p in tool.input_schema["properties"].values())
        assert tool.output_schema is None


def test_read_file_on_a_big_file_and_its_continuations(root: Path) -> None:
    async def body(client: Client) -> list[types.CallToolResult]:
        results = [await client.call_tool("read_file", {"path": "big.py"})]
        for _ in range(100):
            cont = facts(results[-1])["continuation"]
            if cont is None:
                break
            results.append(await client.call_tool(cont["tool"], cont["args"]))
        return results

    results = run_client(wuu_command("mcp", "serve", "--root", str(root), "--budget", "400"), body)
    first = results[0]
    assert not first.is_error
    assert first.structured_content is None
    assert [c.type for c in first.content] == ["text"]
    assert facts(first)["complete"] is False
    assert facts(first)["tokens"] <= 400
    assert "value_1 = 1" in first.content[0].text and "value_1200 = 1200" in first.content[0].text
    assert len(results) > 3
    assert facts(results[-1])["complete"] is True
    seen: list[int] = []
    for r in results:
        assert not r.is_error, r.content[0].text
        for a, b in facts(r)["meta"]["shown"]:
            seen.extend(range(a, b + 1))
    assert sorted(seen) == list(range(1, 1201))


def test_command_output_is_recovered_with_read_saved(root: Path) -> None:
    script = "for i in range(1, 4001): print(f'out {i}')"

    async def body(client: Client) -> tuple[types.CallToolResult, types.CallToolResult]:
        first = await client.call_tool("run_command", {"command": [sys.executable, "-c", script]})
        cont = facts(first)["continuation"]
        assert cont["tool"] == "read_saved"
        return first, await client.call_tool("read_saved", cont["args"])

    first, follow = run_client(wuu_command("mcp", "serve", "--root", str(root), "--budget", "300"), body)
    assert not first.is_error and not follow.is_error, follow.content[0].text
    assert facts(first)["source"] == facts(follow)["source"]
    assert "out " in follow.content[0].text


def test_failures_are_error_results(root: Path) -> None:
    async def body(client: Client) -> list[types.CallToolResult]:
        return [
            await client.call_tool("read_file", {"path": "../outside.txt"}),
            await client.call_tool("read_file", {"path": "nope.py"}),
            await client.call_tool("no_such_tool", {}),
            await client.call_tool("read_file", {"path": "big.py", "start_line": "x"}),
        ]

    outside, missing, unknown, bad = run_client(wuu_command("mcp", "serve", "--root", str(root)), body)
    for r in (outside, missing, unknown, bad):
        assert r.is_error
        assert r.content[0].text.startswith("error: ")
    assert "outside the allowed root" in outside.content[0].text
    assert "no such file" in missing.content[0].text
    assert "valid tools: read_file, list_dir" in unknown.content[0].text
    assert "must be an integer" in bad.content[0].text


def test_allow_outside_root(root: Path) -> None:
    (root.parent / "outside.txt").write_text("beyond\n")

    async def body(client: Client) -> types.CallToolResult:
        return await client.call_tool("read_file", {"path": "../outside.txt"})

    result = run_client(wuu_command("mcp", "serve", "--root", str(root), "--allow-outside-root"), body)
    assert not result.is_error and "beyond" in result.content[0].text


def test_result_conversion_keeps_media_after_the_text() -> None:
    result = ToolResult(
        text="view",
        complete=False,
        continuation={"tool": "read_saved", "args": {"ref": "result-" + "0" * 32, "start_line": 5}},
        source="result-" + "0" * 32,
        attachments=(
            {"type": "image", "mime_type": "image/png", "data": "iVBORw0KGgo="},
            {"type": "audio", "mime_type": "audio/wav", "data": "UklGRg=="},
            {"type": "resource", "mime_type": "application/pdf", "data": "JVBERg==", "uri": "file:///r.pdf"},
            {"type": "resource", "mime_type": "text/html", "uri": "https://example.invalid/page"},
        ),
        meta={"total_lines": 9},
    )
    converted = to_mcp_result(result)
    assert [c.type for c in converted.content] == ["text", "image", "audio", "resource", "resource_link"]
    assert converted.content[1].data == "iVBORw0KGgo=" and converted.content[1].mime_type == "image/png"
    assert converted.content[3].resource.uri == "file:///r.pdf"
    assert converted.structured_content is None
    assert converted.is_error is False
    meta = facts(converted)
    assert meta["continuation"] == result.continuation and meta["source"] == result.source
    assert meta["meta"] == {"total_lines": 9}
    wire = converted.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert "structuredContent" not in wire
    assert to_mcp_result(ToolResult.from_error(__import__("wuu_tools").SourceNotFound("x"))).is_error


def _png(width: int, height: int) -> bytes:
    """A real PNG file (grey pixels), built with zlib."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def test_read_file_of_an_image_is_an_image_block(root: Path) -> None:
    import base64

    png = _png(4, 3)
    (root / "shot.png").write_bytes(png)

    async def body(client: Client) -> types.CallToolResult:
        return await client.call_tool("read_file", {"path": "shot.png"})

    result = run_client(wuu_command("mcp", "serve", "--root", str(root)), body)
    assert not result.is_error
    text, image = result.content
    assert isinstance(text, types.TextContent) and "PNG image" in text.text and "attachments" in text.text
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == png


def test_unknown_tool_names_only_the_listed_tools(root: Path) -> None:
    async def body(client: Client) -> tuple[list[types.Tool], types.CallToolResult]:
        return (await client.list_tools()).tools, await client.call_tool("read_fil", {"path": "big.py"})

    tools, result = run_client(wuu_command("mcp", "serve", "--root", str(root)), body)
    assert result.is_error
    message = result.content[0].text
    listed = ", ".join(t.name for t in tools)
    assert message == f"error: unknown tool 'read_fil'; valid tools: {listed}"
    assert "project_result" not in message


def test_a_connection_is_one_session(root: Path) -> None:
    async def body(client: Client) -> list[str]:
        texts = []
        for _ in range(2):
            result = await client.call_tool("read_file", {"path": "big.py", "start_line": 1, "end_line": 30})
            texts.append(result.content[0].text)  # type: ignore[union-attr]
        return texts

    first, again = run_client(wuu_command("mcp", "serve", "--root", str(root)), body)
    assert "value_15 = 15" in first
    assert "unchanged since call 1" in again and "value_15 = 15" not in again
    other = run_client(wuu_command("mcp", "serve", "--root", str(root)), body)
    assert other[0] == first  # a new connection is a new session
