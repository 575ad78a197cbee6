"""``wuu project``: project an external tool's result read from stdin (MCP result JSON, any JSON, or text).

``--kind auto`` (the default) reads stdin as JSON when it parses; else a text shaped as a command's
output (a failing log, search results, a diff, JSON lines, a table) is saved and shown in its shape
(:func:`wuu_tools.logs.output.project_output`), any other text as a text result. ``text`` and ``json``
force one reading; ``log`` saves stdin as a log and shows its error-first view.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Any

from ..core.budget import resolve_budget
from ..core.errors import StoreError
from ..core.result import ToolResult
from ..core.store import current_store
from .output import fail, run_tool
from .params import Option, command

OUTPUT_SHAPES = ("failing log", "search results", "diff", "JSON lines", "table")
"""Shapes of a text on stdin that ``--kind auto`` shows as a command's output (the others as a text result)."""


class Kind(str, Enum):
    """How stdin is read."""

    auto = "auto"
    text = "text"
    json = "json"
    log = "log"


def _read_stdin() -> bytes:
    if sys.stdin.isatty():
        fail("wuu project reads the result from stdin: pipe it in (wuu project < result.json)", 2)
    return sys.stdin.buffer.read()


def _parse(data: bytes, kind: Kind) -> Any:
    """The value to project: parsed JSON, or the text (``bytes`` when it is not valid UTF-8)."""
    if kind in (Kind.auto, Kind.json):
        try:
            return json.loads(data)
        except ValueError as exc:
            if kind is Kind.json:
                where = f" at character {exc.pos}" if isinstance(exc, json.JSONDecodeError) else ""
                msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                fail(f"stdin is not valid JSON: {msg}{where} (use --kind text to project it as text)", 2)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _project_log(data: bytes, tool: str | None, budget: int | None, forced: bool = True) -> ToolResult:
    """``data`` saved as a command's output and shown error-first (``forced``) or in the shape it has."""
    from ..logs.output import project_output
    from ..logs.view import project_log
    from ..views.ceiling import fit_ceiling

    resolved = resolve_budget(budget)
    try:
        ref = current_store().save(data, "log", {"tool": tool} if tool else None)
    except StoreError:
        return project_result(data, tool=tool, budget=budget)  # says the rest could not be saved
    meta = {"tool": tool} if tool else None
    if forced:
        return fit_ceiling(
            lambda inner: project_log(ref, budget=inner, explicit_budget=budget, verdict=None, meta=meta), resolved
        )
    view = project_output(ref, budget=resolved, explicit_budget=budget, meta=meta)
    assert view is not None
    return view


def _output_shape(text: str) -> str:
    """The shape :mod:`wuu_tools.logs.shape` sees in a text (from its first and last lines)."""
    from ..logs.shape import SAMPLE_LINES, classify

    lines = text.split("\n")
    return classify(lines[:SAMPLE_LINES], lines[-SAMPLE_LINES:], exit_code=None).kind


def project_result(result: Any, tool: str | None = None, budget: int | None = None) -> ToolResult:
    """``wuu_tools.project_result``, imported when a command needs it (keeps ``wuu`` quick to start)."""
    from ..external.project import project_result as project

    return project(result, tool=tool, budget=budget)


@command("project")
def project(
    tool: str | None = Option(None, "--tool", "-t", help="Name of the tool that produced the result."),
    kind: Kind = Option(Kind.auto, "--kind", "-k", help="How to read stdin: auto, text, json or log."),
    budget: int | None = Option(None, "--budget", "-b", help="Token budget of the view."),
    as_json: bool = Option(False, "--json", help="Print the result envelope as JSON (with attachments)."),
) -> None:
    """Project a tool result read from stdin: MCP CallToolResult JSON, any JSON, or text."""
    data = _read_stdin()
    if kind is Kind.log:
        run_tool(lambda: _project_log(data, tool, budget), as_json)
        return
    value = _parse(data, kind)
    if kind is Kind.auto and isinstance(value, str) and _output_shape(value) in OUTPUT_SHAPES:
        run_tool(lambda: _project_log(data, tool, budget, forced=False), as_json)
        return
    run_tool(lambda: project_result(value, tool=tool, budget=budget), as_json)
