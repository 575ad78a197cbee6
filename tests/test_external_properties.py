"""DESIGN.md's invariants for project_result as hypothesis properties.

Budget and hard cap (1), lossless chains for text results (3), determinism (6), the failure
fallback (7) and recovery without re-execution (8), over generated texts (long lines, CRLF,
unicode, markdown and YAML-like structure, JSON) and MCP results with media and structured content.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from _external_helpers import follow, recovered_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuu_tools import project_result
from wuu_tools.core.budget import HARD_CAP_BYTES
from wuu_tools.views.ceiling import TOO_SMALL

SETTINGS = settings(
    max_examples=int(os.environ.get("WUU_PROPERTY_EXAMPLES", "100")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

_chars = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x85\u2028\u2029")
_short = st.text(_chars, max_size=50)
_long = st.text(st.sampled_from("ab cd{}:=é→"), min_size=200, max_size=4000)
_struct = st.sampled_from(["# Title", "## Part", "- item: value", "  - nested [ref=e1]:", "key: 1", "", "{", "}"])
_line = st.one_of(_short, _short, _short, _struct, _long)
budgets = st.sampled_from([20, 60, 150, 400, 1000, 2000])


@st.composite
def texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(_line, max_size=400))
    if draw(st.booleans()) and lines:
        lines = lines * draw(st.integers(1, 8))  # bigger inputs
    return "\n".join(lines) + ("\n" if draw(st.booleans()) else "")


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(_chars, max_size=30)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=40), st.dictionaries(st.text(_chars, min_size=1, max_size=10), inner, max_size=12)
    ),
    max_leaves=300,
)

_png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(200)).decode()


@st.composite
def mcp_results(draw: st.DrawFn) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    for kind in draw(st.lists(st.sampled_from(["text", "text", "image", "audio", "link"]), max_size=6)):
        if kind == "text":
            blocks.append({"type": "text", "text": draw(texts())})
        elif kind == "link":
            blocks.append({"type": "resource_link", "uri": "file:///x", "name": "x"})
        else:
            blocks.append({"type": kind, "data": _png, "mimeType": f"{kind}/x"})
    result: dict[str, Any] = {"content": blocks, "isError": draw(st.booleans())}
    if draw(st.booleans()):
        result["structuredContent"] = draw(json_values)
    return result


inputs = st.one_of(texts(), mcp_results(), json_values)
tools = st.sampled_from([None, "edit", "browser_snapshot"])


@SETTINGS
@given(value=inputs, budget=budgets, tool=tools)
def test_budget_and_hard_cap(value: Any, budget: int, tool: str | None) -> None:
    r = project_result(value, tool=tool, budget=budget)
    # the budget is a ceiling, notices included; a budget too small for the header and a line says so
    assert r.tokens <= budget or (TOO_SMALL in r.text and r.meta["budget_too_small"]["budget"] == budget)
    assert len(r.text.encode("utf-8", "surrogatepass")) <= HARD_CAP_BYTES
    assert r.complete is (r.continuation is None)


@SETTINGS
@given(value=inputs, budget=budgets, tool=tools)
def test_deterministic(value: Any, budget: int, tool: str | None) -> None:
    a = project_result(value, tool=tool, budget=budget)
    b = project_result(json.loads(json.dumps(value)), tool=tool, budget=budget)
    assert a.to_dict() == b.to_dict()


@SETTINGS
@given(text=texts(), budget=budgets, tool=tools)
def test_text_chain_is_lossless_and_never_reexecutes(text: str, budget: int, tool: str | None) -> None:
    r = project_result(text, tool=tool, budget=budget)
    if r.complete:
        assert r.text == text
        return
    views = follow(r)
    for view in views[:-1]:
        assert view.continuation["tool"] == "read_saved"
    lines = recovered_lines(views)
    total = r.meta["total_lines"]
    assert [lines.get(n) for n in range(1, total + 1)] == text.split("\n")[:total]


@st.composite
def big_texts(draw: st.DrawFn) -> str:
    line = draw(st.text(_chars, min_size=1, max_size=80))
    return "\n".join(f"{i} {line}" for i in range(draw(st.integers(10, 4000))))


@SETTINGS
@given(text=big_texts(), budget=budgets)
def test_unwritable_store_returns_the_input_up_to_the_cap(
    text: str, budget: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    monkeypatch.setenv("WUU_STORE", str(blocker / "store"))
    r = project_result(text, budget=budget)
    assert len(r.text.encode("utf-8", "surrogatepass")) <= HARD_CAP_BYTES
    assert r.continuation is None and r.source is None
    if r.meta.get("view") == "whole":
        assert r.text == text
        return
    head, *body = r.text.split("\n")
    assert head.startswith("[the full result could not be saved")
    if r.meta["lost_bytes"]:
        assert body[-1].startswith("[… ") and "could not be shown or saved" in body[-1]
        shown = "\n".join(body[:-1])
        assert text.startswith(shown) and len(shown.encode()) >= HARD_CAP_BYTES - 2000 - 80
    else:
        assert "\n".join(body) == text and r.complete
    assert not os.path.exists(blocker / "store")
