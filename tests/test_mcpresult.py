"""_mcpresult: every accepted input read into one shape; the fixture generator is deterministic."""

from __future__ import annotations

from pathlib import Path

import pytest
from _external_helpers import generator

from wuu_tools import InvalidArgument
from wuu_tools.external.mcpresult import read_result


def test_inputs_are_read_into_one_shape() -> None:
    r = read_result({"content": [], "structuredContent": {"a": 1}, "isError": True, "_meta": {"m": 1}})
    assert (r.origin, r.blocks, r.structured, r.has_structured, r.is_error, r.result_meta) == (
        "mcp",
        [],
        {"a": 1},
        True,
        True,
        {"m": 1},
    )
    assert read_result({"structuredContent": None, "content": []}).has_structured is False
    assert read_result("text").blocks == [{"type": "text", "text": "text"}]
    assert read_result({"content": "not blocks"}).origin == "json"
    assert read_result({"content": [], "other": 1}).origin == "json"  # unknown keys: just JSON
    j = read_result([1, 2])
    assert j.origin == "json" and j.structured == [1, 2] and j.has_structured


def test_non_json_values_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="not"):
        read_result(object())


def test_fixture_generator_is_deterministic(tmp_path: Path) -> None:
    gen = generator()
    a = gen.generate(tmp_path / "a")
    b = gen.generate(tmp_path / "b")
    assert sorted(a) == [
        "error_trace",
        "media_mix",
        "resource_link",
        "search_1000",
        "snapshot_540k",
        "structured_nested",
        "structured_table",
    ]
    for name in a:
        assert a[name].read_bytes() == b[name].read_bytes(), name
    assert a["snapshot_540k"].stat().st_size > 540_000
