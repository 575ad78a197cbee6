"""The framework functions registered, unchanged, in real agent frameworks (test extras).

Each framework derives its own schema from the functions; every parameter must come out
named and described, and invoking the framework's tool must return the projection text.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import json
import re
from pathlib import Path
from typing import Any

import _docs
import pytest

from wuu_tools import Toolset
from wuu_tools.toolset.schema import tool_spec
from wuu_tools.toolset.toolset import TOOLS


@pytest.fixture
def toolset(tmp_path: Path) -> Toolset:
    (tmp_path / "big.txt").write_text("".join(f"row {n}\n" for n in range(1, 3001)))
    return Toolset(tmp_path, budget=200, tools=list(TOOLS))


def _described(properties: dict[str, Any], toolset: Toolset, name: str) -> None:
    spec = toolset.spec(name)
    assert list(properties) == [p.name for p in spec.params], name
    for p in spec.params:
        assert properties[p.name]["description"] == p.description, (name, p.name)


def test_openai_agents_function_tool(toolset: Toolset) -> None:
    agents = pytest.importorskip("agents", reason="openai-agents (a test dependency) is not installed")
    from agents.tool_context import ToolContext

    tools = {fn.__name__: agents.function_tool(fn) for fn in toolset.functions()}
    assert list(tools) == list(toolset.tools)
    for name, tool in tools.items():
        assert tool.name == name
        assert tool.strict_json_schema
        _described(tool.params_json_schema["properties"], toolset, name)
        assert "nothing is lost" in tool.description

    tool = tools["read_file"]
    args = json.dumps({"path": "big.txt"})
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=args)
    out = asyncio.run(tool.on_invoke_tool(ctx, args))
    assert out == toolset.call("read_file", {"path": "big.txt"}).text
    assert "row 1\n" in out and 'read_file(path="' in out


def test_langchain_structured_tool(toolset: Toolset) -> None:
    tools_module = pytest.importorskip("langchain_core.tools", reason="langchain-core (a test dependency) is missing")
    tools = {fn.__name__: tools_module.StructuredTool.from_function(fn) for fn in toolset.functions()}
    for name, tool in tools.items():
        assert tool.name == name
        _described(tool.args, toolset, name)
        schema = tool.tool_call_schema.model_json_schema()
        _described(schema["properties"], toolset, name)
        assert "nothing is lost" in tool.description
    out = tools["read_file"].invoke({"path": "big.txt"})
    assert out == toolset.call("read_file", {"path": "big.txt"}).text
    saved = tools["run_command"].invoke({"command": "seq 1 5000"})
    assert "read_saved(ref=" in saved
    assert tools["read_file"].invoke({"path": "missing.txt"}).startswith("error: read_file: ")


def test_anthropic_beta_tool(toolset: Toolset) -> None:
    anthropic = pytest.importorskip("anthropic", reason="anthropic (a test dependency) is not installed")
    for fn in toolset.functions():
        tool = anthropic.beta_tool(fn)
        definition = tool.to_dict()
        assert definition["name"] == fn.__name__
        _described(definition["input_schema"]["properties"], toolset, fn.__name__)
    read = anthropic.beta_tool(toolset.functions()[0])
    assert read.call({"path": "big.txt"}) == toolset.call("read_file", {"path": "big.txt"}).text


def test_mcp_server_add_tool(toolset: Toolset) -> None:
    mcp = pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")
    from mcp.server import MCPServer

    server = MCPServer("frameworks-test")
    for fn in toolset.functions():
        server.add_tool(fn)

    async def session() -> tuple[list[Any], str]:
        async with mcp.Client(server) as client:
            listed = (await client.list_tools()).tools
            result = await client.call_tool("read_file", {"path": "big.txt"})
            return listed, result.content[0].text

    listed, text = asyncio.run(session())
    for tool in listed:
        _described(tool.input_schema["properties"], toolset, tool.name)
    assert text == toolset.call("read_file", {"path": "big.txt"}).text


def _readme_registration(framework: str) -> str:
    """The README's one-line registration of the functions in ``framework`` (an expression)."""
    match = re.search(rf"^# {re.escape(framework)}:\s+(\[.*\])\s*$", _docs.all_text(), re.M)
    assert match, f"the docs show how to register the functions in {framework}"
    return match.group(1)


def test_langchain_as_the_readme_registers_it_has_no_args_block(toolset: Toolset) -> None:
    langchain_core = pytest.importorskip("langchain_core", reason="langchain-core (a test dependency) is missing")
    importlib.import_module("langchain_core.tools")
    functions = toolset.functions()
    tools = eval(_readme_registration("LangChain"), {"langchain_core": langchain_core, "functions": functions})
    assert [t.name for t in tools] == list(toolset.tools)
    for tool in tools:
        assert "Args:" not in tool.description and "Returns:" not in tool.description, tool.description
        assert tool.description.split() == toolset.description(tool.name).split()  # its paragraphs joined
        _described(tool.tool_call_schema.model_json_schema()["properties"], toolset, tool.name)
    assert tools[0].invoke({"path": "big.txt"}) == toolset.call("read_file", {"path": "big.txt"}).text


def test_smolagents_tools_export_with_to_dict(toolset: Toolset) -> None:
    smolagents = pytest.importorskip("smolagents", reason="smolagents (a test dependency) is not installed")
    tools = eval(_readme_registration("smolagents"), {"smolagents": smolagents, "functions": toolset.functions()})
    for tool in tools:
        exported = tool.to_dict()  # raised "Name '_call' is undefined" when the body used a closure
        code = exported["code"]
        ast.parse(code)
        assert f"root={str(toolset.root)!r}" in code and "budget=200" in code
        assert "wuu_tools" in exported["requirements"]
        assert set(tool.inputs) == {p.name for p in toolset.spec(tool.name).params}
    read = next(t for t in tools if t.name == "read_file")
    assert read(path="big.txt") == toolset.call("read_file", {"path": "big.txt"}).text
    run = next(t for t in tools if t.name == "run_command")
    assert "row 1" in run(command="head -1 big.txt")  # cwd defaults to the toolset's root


def test_path_arguments_are_described_against_the_root(toolset: Toolset) -> None:
    from wuu_tools import run_command

    cwd = next(p for p in toolset.spec("run_command").params if p.name == "cwd")
    assert "root" in cwd.description and "current directory" not in cwd.description
    direct = tool_spec(run_command)  # the Python function itself: the current directory, which is true there
    assert "current directory" in next(p for p in direct.params if p.name == "cwd").description
    for schema in toolset.schemas("mcp"):
        for name, prop in schema["inputSchema"]["properties"].items():
            if name in ("path", "cwd"):
                assert "workspace root" in prop["description"], (schema["name"], name)
    ran = toolset.call("run_command", {"command": "pwd"})
    assert str(toolset.root) in ran.text
