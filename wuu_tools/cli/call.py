"""``wuu call NAME 'ARGS_JSON'`` and ``wuu schema``: any tool by name, and the tool definitions.

``wuu call`` dispatches through a :class:`~wuu_tools.Toolset`, so a result's continuation
can be pasted as it is: ``wuu call read_saved '{"ref": "log-…", "start_line": 40}'``.
"""

from __future__ import annotations

import json

import typer

from ..core.errors import InvalidArgument, WuuError
from ..toolset.toolset import SCHEMA_FORMATS, TOOLS, Toolset
from .output import emit, fail


def _toolset(root: str, budget: int | None, tools: list[str] | None = None) -> Toolset:
    try:
        return Toolset(root=root, budget=budget, allow_outside_root=True, tools=tools)
    except InvalidArgument as exc:
        fail(exc.message, 2)
    except WuuError as exc:
        fail(exc.message, 1)


def register(app: typer.Typer) -> None:
    @app.command("call")
    def call(
        name: str = typer.Argument(..., help="Tool name: " + ", ".join(TOOLS) + "."),
        args_json: str = typer.Argument("{}", metavar="'ARGS_JSON'", help="The arguments as a JSON object."),
        root: str = typer.Option(".", "--root", help="Directory relative paths resolve against."),
        budget: int | None = typer.Option(None, "--budget", "-b", help="Budget when ARGS_JSON has none."),
        as_json: bool = typer.Option(False, "--json", help="Print the result envelope as JSON."),
    ) -> None:
        """Call any tool by name with JSON arguments (paste a result's continuation here)."""
        try:
            args = json.loads(args_json)
        except json.JSONDecodeError as exc:
            fail(f"ARGS_JSON is not valid JSON: {exc.msg} at character {exc.pos}", 2)
        if not isinstance(args, dict):
            fail('ARGS_JSON must be a JSON object of named arguments, like \'{"path": "a.py"}\'', 2)
        # A whole continuation ({"tool": ..., "args": {...}}) is accepted as well.
        if set(args) == {"tool", "args"} and args["tool"] == name and isinstance(args["args"], dict):
            args = args["args"]
        result = _toolset(root, budget, list(TOOLS)).call(name, args)
        if result.is_error:
            kind = result.meta["error"]["kind"]
            code = 2 if kind in ("invalid_argument", "invalid_reference") else 1
            if as_json:
                emit(result, True)
                raise typer.Exit(code)
            fail(result.text.removeprefix("error: "), code)
        emit(result, as_json)

    @app.command("schema")
    def schema(
        fmt: str = typer.Option("openai", "--format", "-f", help="One of: " + ", ".join(SCHEMA_FORMATS) + "."),
    ) -> None:
        """Print the tool definitions a Toolset offers a model, as JSON for a provider API or MCP."""
        try:
            specs = _toolset(".", None).schemas(fmt)
        except InvalidArgument as exc:
            fail(exc.message, 2)
        typer.echo(json.dumps(specs, ensure_ascii=False, indent=2))
