"""Helpers shared by the project_result tests: the generated fixtures and following continuations."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from wuu_tools import ToolResult, read_saved

ROOT = Path(__file__).resolve().parents[1]
NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")


def generator() -> ModuleType:
    """``fixtures/mcp/generate.py`` as a module (fixtures/ is not a package)."""
    spec = importlib.util.spec_from_file_location("mcp_fixture_generator", ROOT / "fixtures" / "mcp" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def follow(first: ToolResult, limit: int = 10_000) -> list[ToolResult]:
    """The views along the continuation chain from ``first`` (each must be a ``read_saved`` call)."""
    views = [first]
    while views[-1].continuation is not None:
        assert len(views) < limit, "the continuation chain does not end"
        cont = views[-1].continuation
        assert cont["tool"] == "read_saved", cont
        views.append(read_saved(**cont["args"]))
    return views


def recovered_lines(views: list[ToolResult]) -> dict[int, str]:
    """Every line the chain showed, by number; pieces of a line cut by character are joined in order."""
    whole: dict[int, str] = {}
    pieces: dict[int, list[str]] = {}
    asked_char = 0
    for i, view in enumerate(views):
        numbered = [(int(m.group(1)), m.group(2)) for ln in view.text.split("\n") if (m := NUMBERED.match(ln))]
        partial = view.meta.get("partial_line")
        for j, (n, text) in enumerate(numbered):
            if (j == 0 and asked_char) or n == partial:
                pieces.setdefault(n, []).append(text)
            else:
                whole[n] = text
        cont = view.continuation
        asked_char = cont["args"].get("start_char", 0) if cont is not None else 0
        del i
    for n, parts in pieces.items():
        whole.setdefault(n, "".join(parts))
    return whole


def reconstruct(first: ToolResult) -> tuple[str, list[ToolResult]]:
    """The saved text as the continuation chain from ``first`` shows it, and the views."""
    views = follow(first)
    lines = recovered_lines(views)
    total = first.meta["total_lines"]
    missing = [n for n in range(1, total + 1) if n not in lines]
    assert not missing, f"lines never shown along the chain: {missing[:10]}"
    return "\n".join(lines[n] for n in range(1, total + 1)), views


def assert_recovers(first: ToolResult, text: str) -> list[ToolResult]:
    """Following ``first``'s continuations shows every line of ``text`` (LF endings); returns the views."""
    recovered, views = reconstruct(first)
    assert recovered + ("\n" if text.endswith("\n") else "") == text
    return views
