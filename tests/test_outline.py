"""_outline: bounded JSON outlines, readable renderings, and telling whether a text carries a value."""

from __future__ import annotations

import json

from wuu_tools.views.outline import carries, is_flat_records, outline_lines, parse_json, render_readable, same_json


def test_outline_names_shape_keys_counts_ids_and_a_sample() -> None:
    value = {"total": 3, "hits": [{"id": f"h{i}", "title": f"T{i}", "extra": i} for i in range(3)]}
    lines = outline_lines(value)
    assert lines[0] == "object, 2 keys: total, hits"
    assert ".total: 3" in lines
    assert ".hits: array of 3 objects; keys: id, title, extra" in lines
    assert '  id of the first items: "h0", "h1", "h2"' in lines
    assert lines[-1].startswith('  sample [0]: {"id": "h0"')


def test_outline_size_does_not_grow_with_the_data() -> None:
    small = outline_lines({"rows": [{"a": i, "b": "x"} for i in range(10)]})
    big = outline_lines({"rows": [{"a": i, "b": "x"} for i in range(100_000)]})
    assert len(big) == len(small)
    assert sum(map(len, big)) < 600


def test_outline_marks_keys_missing_from_some_items_and_mixed_arrays() -> None:
    lines = outline_lines([{"a": 1}, {"a": 2, "b": 3}])
    assert lines[0] == "array: array of 2 objects; keys: a, b (not in every item: b)"
    assert outline_lines([1, "x", None])[0] == "array: array of 3 null / number / string"
    assert outline_lines("plain") == ['string: "plain"']


def test_flat_records_render_as_a_table_and_the_rest_as_pretty_json() -> None:
    assert is_flat_records([{"a": 1}, {"b": None}])
    assert not is_flat_records([{"a": [1]}]) and not is_flat_records([]) and not is_flat_records({"a": 1})
    assert render_readable([{"a": 1}, {"b": True}]) == "| a | b |\n|---|---|\n| 1 |  |\n|  | true |"
    nested = {"a": {"b": [1, 2]}}
    assert render_readable(nested) == json.dumps(nested, indent=2)


def test_parse_json_only_takes_documents() -> None:
    assert parse_json(' {"a": 1} ') == (True, {"a": 1})
    assert parse_json("42") == (False, None)
    assert parse_json("{broken") == (False, None)


def test_same_json_and_readable_accounts() -> None:
    value = {"items": [{"name": "alpha-widget", "price": 1250}, {"name": "beta-gadget", "price": 990}]}
    assert same_json(json.dumps(value, indent=4), value)
    assert carries(json.dumps(value), value)
    assert carries("alpha-widget costs 1250; beta-gadget costs 990", value)
    assert not carries("two items found", value)
    assert not carries("true", {"ok": True, "n": 1})  # nothing distinctive to look for
    assert same_json("true", True)
