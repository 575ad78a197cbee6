"""``wuu call`` and ``wuu schema``: any tool by name, and the tool definitions.

``wuu call`` dispatches through a :class:`~wuu_tools.Toolset`, so a result's continuation
can be pasted as it is, in the words a view prints it or as JSON, or read from stdin with ``-``::

    wuu call 'read_saved(ref="log-…", start_line=40, budget=400)'
    wuu call read_saved '{"ref": "log-…", "start_line": 40}'
    echo 'read_file(path="a.py", start_line=9)' | wuu call -
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ..core.calls import parse_call
from ..core.errors import InvalidArgument, WuuError
from ..toolset.toolset import SCHEMA_FORMATS, TOOLS, Toolset
from .output import emit, fail
from .params import Argument, Option, command


def _toolset(root: str, budget: int | None, tools: list[str] | None = None) -> Toolset:
    try:
        session = os.environ.get("WUU_SESSION", "").strip() or False  # one call alone remembers nothing
        return Toolset(root=root, budget=budget, allow_outside_root=True, tools=tools, session=session)
    except InvalidArgument as exc:
        fail(exc.message, 2)
    except WuuError as exc:
        fail(exc.message, 1)


def _stdin() -> str:
    text = sys.stdin.read()
    if not text.strip():
        fail('stdin is empty; give a call like read_file(path="a.py") or JSON arguments', 2)
    return text


def _from_json(text: str, name: str | None) -> tuple[str, dict[str, Any]]:
    """JSON arguments of ``name``, or a whole continuation ``{"tool": ..., "args": {...}}``."""
    try:
        args = json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"ARGS_JSON is not valid JSON: {exc.msg} at character {exc.pos}", 2)
    if not isinstance(args, dict):
        fail('ARGS_JSON must be a JSON object of named arguments, like \'{"path": "a.py"}\'', 2)
    whole = set(args) == {"tool", "args"} and isinstance(args["tool"], str) and isinstance(args["args"], dict)
    if whole and (name is None or args["tool"] == name):
        return args["tool"], args["args"]
    if name is None:
        fail('JSON on stdin must be a continuation like {"tool": "read_file", "args": {...}}', 2)
    return name, args


def _from_call(text: str, name: str | None) -> tuple[str, dict[str, Any]]:
    try:
        parsed = parse_call(text, tuple(TOOLS))
    except InvalidArgument as exc:
        fail(exc.message, 2)
    if name is not None and parsed["tool"] != name:
        fail(f"the call is to {parsed['tool']}, not {name}", 2)
    return parsed["tool"], parsed["args"]


def _parse(first: str, second: str | None) -> tuple[str, dict[str, Any]]:
    """The tool and its arguments from ``wuu call``'s one or two arguments (see the module docstring)."""
    if first == "-":
        if second is not None:
            fail("with - the call is read from stdin; give no second argument", 2)
        text = _stdin()
        return _from_json(text, None) if text.lstrip().startswith("{") else _from_call(text, None)
    if "(" in first:
        if second is not None:
            fail('a call written out, like read_file(path="a.py"), takes no second argument', 2)
        return _from_call(first, None)
    if second == "-":
        text = _stdin()
        return _from_json(text, first) if text.lstrip().startswith("{") else _from_call(text, first)
    return _from_json("{}" if second is None else second, first)


@command("call")
def call(
    name: str = Argument(
        ...,
        metavar="CALL|NAME",
        help="A call as views print it, like 'read_file(path=\"a.py\", start_line=9)'; or a tool name ("
        + ", ".join(TOOLS)
        + "); or - to read the call from stdin.",
    ),
    args_json: str | None = Argument(
        None, metavar="['ARGS_JSON']", help="With a tool name: the arguments as a JSON object, or - for stdin."
    ),
    root: str = Option(".", "--root", help="Directory relative paths resolve against."),
    budget: int | None = Option(None, "--budget", "-b", help="Budget when the call gives none."),
    as_json: bool = Option(False, "--json", help="Print the result envelope as JSON."),
) -> None:
    """Call any tool: paste a continuation as a view prints it, or give a name and JSON arguments."""
    tool, args = _parse(name, args_json)
    result = _toolset(root, budget, list(TOOLS)).call(tool, args)
    if result.is_error:
        kind = result.meta["error"]["kind"]
        code = 2 if kind in ("invalid_argument", "invalid_reference") else 1
        if as_json:
            emit(result, True)
            sys.exit(code)
        fail(result.text.removeprefix("error: "), code)
    emit(result, as_json)
    if tool == "read_saved":  # a continuation pasted: a recovery read for wuu gain
        from .gain import note_read

        note_read(result, tool, args)


@command("schema")
def schema(
    fmt: str = Option("openai", "--format", "-f", help="One of: " + ", ".join(SCHEMA_FORMATS) + "."),
) -> None:
    """Print the tool definitions a Toolset offers a model, as JSON for a provider API or MCP."""
    try:
        specs = _toolset(".", None).schemas(fmt)
    except InvalidArgument as exc:
        fail(exc.message, 2)
    print(json.dumps(specs, ensure_ascii=False, indent=2), flush=True)
