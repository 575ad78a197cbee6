"""Tool specs derived from signatures and Google docstrings, and the provider schemas built on them."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wuu_tools import InvalidArgument, Toolset
from wuu_tools.toolset.schema import json_schema_for, parse_docstring, tool_spec
from wuu_tools.toolset.toolset import TOOLS

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (a test dependency) is not installed")


def sample(path: str, count: int = 3, mode: Literal["a", "b"] = "a", tags: list[str] | None = None) -> str:
    """Do a sample thing.

    A second paragraph that
    spans two lines.

    Args:
        path: The path to use,
            continued on the next line.
        count (int): How many.
        mode: Which mode.
        tags: Labels to attach.

    Returns:
        Something.
    """
    return path


def test_parse_docstring_keeps_paragraphs_and_joins_continuations() -> None:
    description, args = parse_docstring(sample.__doc__)
    assert description == "Do a sample thing.\n\nA second paragraph that spans two lines."
    assert args == {
        "path": "The path to use, continued on the next line.",
        "count": "How many.",
        "mode": "Which mode.",
        "tags": "Labels to attach.",
    }


def test_parse_docstring_turns_rst_literals_into_markdown() -> None:
    _, args = parse_docstring("Summary.\n\nArgs:\n    x: Use ``start_char`` here.\n")
    assert args["x"] == "Use `start_char` here."


def test_tool_spec_derives_the_schema_once_from_the_signature() -> None:
    spec = tool_spec(sample)
    assert spec.name == "sample"
    assert spec.summary == "Do a sample thing."
    assert spec.input_schema == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The path to use, continued on the next line."},
            "count": {"type": "integer", "description": "How many.", "default": 3},
            "mode": {"enum": ["a", "b"], "description": "Which mode.", "default": "a"},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels to attach."},
        },
        "required": ["path"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("hint", "schema"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (int | None, {"type": "integer"}),
        (str | list[str], {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
        (dict[str, Any], {"type": "object"}),
        (Any, {}),
        (Literal["x", "y"], {"enum": ["x", "y"]}),
    ],
)
def test_json_schema_for_the_hints_tools_use(hint: Any, schema: dict[str, Any]) -> None:
    assert json_schema_for(hint) == schema


def test_json_schema_for_refuses_hints_without_a_json_form() -> None:
    with pytest.raises(InvalidArgument, match="no JSON schema"):
        json_schema_for(complex)


def test_tool_spec_refuses_undocumented_untyped_and_variadic_functions() -> None:
    def undocumented(path: str) -> str:
        """Nothing about path."""
        return path

    def untyped(path) -> str:  # type: ignore[no-untyped-def]
        """Untyped.

        Args:
            path: A path.
        """
        return str(path)

    def variadic(*paths: str) -> str:
        """Variadic.

        Args:
            paths: Paths.
        """
        return ""

    with pytest.raises(InvalidArgument, match="'path' is not documented"):
        tool_spec(undocumented)
    with pytest.raises(InvalidArgument, match="no type hint"):
        tool_spec(untyped)
    with pytest.raises(InvalidArgument, match=r"\*args"):
        tool_spec(variadic)


def test_check_args_names_the_valid_arguments() -> None:
    spec = tool_spec(sample)
    with pytest.raises(InvalidArgument, match=r"unknown argument 'pth'; valid arguments: path \(required\), count=3"):
        spec.check_args({"pth": "x"})
    with pytest.raises(InvalidArgument, match="missing required argument 'path'"):
        spec.check_args({})
    with pytest.raises(InvalidArgument, match="'count' must be an integer, not \"3\""):
        spec.check_args({"path": "x", "count": "3"})
    with pytest.raises(InvalidArgument, match="'count' must be an integer, not true"):
        spec.check_args({"path": "x", "count": True})
    with pytest.raises(InvalidArgument, match='\'mode\' must be one of "a", "b"'):
        spec.check_args({"path": "x", "mode": "c"})
    with pytest.raises(InvalidArgument, match="'tags' must be a list of strings"):
        spec.check_args({"path": "x", "tags": ["ok", 3]})
    with pytest.raises(InvalidArgument, match="must be an object"):
        spec.check_args(["x"])  # type: ignore[arg-type]


def test_check_args_drops_nulls_of_optional_arguments() -> None:
    spec = tool_spec(sample)
    assert spec.check_args({"path": "x", "tags": None, "count": 2}) == {"path": "x", "count": 2}
    with pytest.raises(InvalidArgument, match="'path' must be a string, not null"):
        spec.check_args({"path": None})


@given(st.dictionaries(st.text(min_size=1, max_size=8), st.integers() | st.text() | st.none(), max_size=4))
def test_check_args_either_accepts_or_raises_invalid_argument(args: dict[str, Any]) -> None:
    spec = tool_spec(sample)
    try:
        out = spec.check_args(args)
    except InvalidArgument as exc:
        assert exc.message
    else:
        assert set(out) <= {"path", "count", "mode", "tags"}
        assert "path" in out


def _all_tools() -> Toolset:
    return Toolset(tools=list(TOOLS))


@pytest.mark.parametrize("fmt", ["openai", "openai-responses", "anthropic", "mcp"])
def test_every_schema_is_valid_json_schema(fmt: str) -> None:
    specs = _all_tools().schemas(fmt)
    assert {"read_file", "read_saved"} <= {_name(s) for s in specs}
    for s in specs:
        schema = _parameters(s)
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft7Validator.check_schema(schema)
        assert schema["type"] == "object"
        for prop in schema["properties"].values():
            assert prop["description"], f"{_name(s)}: every parameter has a description"
        assert "nothing is lost" in _description(s)


def test_read_file_schema_accepts_a_continuation_and_rejects_junk() -> None:
    ts = _all_tools()
    schema = next(_parameters(s) for s in ts.schemas("anthropic") if _name(s) == "read_file")
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"path": "a.py", "start_line": 9, "end_line": 20, "revision": "abc", "budget": 500})
    assert not validator.is_valid({"path": "a.py", "start_line": "9"})
    assert not validator.is_valid({"start_line": 9})
    assert not validator.is_valid({"path": "a.py", "bogus": 1})


def test_openai_shapes_load_into_the_openai_sdk_types() -> None:
    pydantic = pytest.importorskip("pydantic")
    chat = pytest.importorskip("openai.types.chat", reason="openai (a test dependency) is not installed")
    responses = pytest.importorskip("openai.types.responses")
    ts = _all_tools()
    chat_tools = pydantic.TypeAdapter(list[chat.ChatCompletionToolUnionParam]).validate_python(ts.schemas("openai"))
    assert [t["function"]["name"] for t in chat_tools] == list(ts.tools)
    resp_tools = pydantic.TypeAdapter(list[responses.FunctionToolParam]).validate_python(ts.schemas("openai-responses"))
    assert [t["name"] for t in resp_tools] == list(ts.tools)
    assert _strict_keys(chat.ChatCompletionFunctionToolParam, ts.schemas("openai")[0])
    assert _strict_keys(responses.FunctionToolParam, ts.schemas("openai-responses")[0])


def test_anthropic_shape_loads_into_the_anthropic_sdk_type() -> None:
    pydantic = pytest.importorskip("pydantic")
    anthropic_types = pytest.importorskip("anthropic.types", reason="anthropic (a test dependency) is not installed")
    ts = _all_tools()
    tools = pydantic.TypeAdapter(list[anthropic_types.ToolParam]).validate_python(ts.schemas("anthropic"))
    assert [t["name"] for t in tools] == list(ts.tools)
    assert _strict_keys(anthropic_types.ToolParam, ts.schemas("anthropic")[0])


def test_mcp_shape_loads_into_the_mcp_tool_type() -> None:
    mcp_types = pytest.importorskip("mcp_types", reason="mcp (the [mcp] extra) is not installed")
    for s in _all_tools().schemas("mcp"):
        tool = mcp_types.Tool.model_validate(s)
        assert tool.input_schema == s["inputSchema"]


def test_unknown_schema_format_names_the_valid_ones() -> None:
    with pytest.raises(InvalidArgument, match="valid formats: openai, openai-responses, anthropic, mcp"):
        Toolset().schemas("gemini")


def _strict_keys(typed_dict: Any, value: dict[str, Any]) -> bool:
    """Every key of ``value`` is a field of the SDK's TypedDict (TypeAdapter ignores extras)."""
    return set(value) <= set(typed_dict.__annotations__)


def _name(spec: dict[str, Any]) -> str:
    return spec["function"]["name"] if "function" in spec else spec["name"]


def _description(spec: dict[str, Any]) -> str:
    return spec["function"]["description"] if "function" in spec else spec["description"]


def _parameters(spec: dict[str, Any]) -> dict[str, Any]:
    if "function" in spec:
        return spec["function"]["parameters"]
    return spec.get("parameters") or spec.get("input_schema") or spec["inputSchema"]
