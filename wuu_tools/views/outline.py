"""Structured data shaped for a reader: bounded JSON outlines, readable renderings, duplicate checks.

* :func:`outline_lines` describes a JSON value without printing it: top-level shape, keys,
  array lengths, the ids or names of the first items, one sample item — a few lines whose
  size does not grow with the data (the caller fits them to a token share).
* :func:`render_readable` turns a JSON value into text a model reads easily: a compact
  table for a list of flat objects (also when it sits under an object's key), else pretty JSON.
* :func:`carries` tells whether a text already holds a JSON value — the same JSON, or a
  readable account that mentions most of its values — so the value need not be sent twice.

>>> outline_lines({"items": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}], "total": 2})[:2]
['object, 2 keys: items, total', '.items: array of 2 objects; keys: id, name']
>>> print(render_readable([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]))
| id | name |
|---|---|
| 1 | a |
| 2 | b |
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["carries", "is_flat_records", "outline_lines", "parse_json", "render_readable", "same_json"]

ID_KEYS = ("id", "name", "title", "key", "uri", "url", "path", "slug", "ref")
MAX_KEYS = 24
MAX_SCALAR_CHARS = 80
MAX_SAMPLE_CHARS = 400
MAX_TABLE_COLUMNS = 12
MAX_CELL_CHARS = 200
SAMPLE_LEAVES = 120


def parse_json(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is one JSON document (an object or array), else ``(False, None)``."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return False, None
    try:
        return True, json.loads(stripped)
    except ValueError:
        return False, None


def _compact(value: Any, limit: int) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def _keys_text(keys: list[str]) -> str:
    shown = ", ".join(keys[:MAX_KEYS])
    return shown + (f", … (+{len(keys) - MAX_KEYS} more)" if len(keys) > MAX_KEYS else "")


def _union_keys(items: list[dict[str, Any]]) -> tuple[list[str], dict[str, int]]:
    order: dict[str, int] = {}
    for item in items:
        for k in item:
            order[k] = order.get(k, 0) + 1
    return list(order), order


def _array_line(path: str, value: list[Any]) -> list[str]:
    n = len(value)
    if n == 0:
        return [f"{path}: empty array"]
    kinds = sorted({_type_name(v) for v in value})
    if kinds == ["object"]:
        keys, counts = _union_keys(value)
        partial = [k for k in keys if counts[k] < n]
        line = f"{path}: array of {n:,} object{'s' if n != 1 else ''}; keys: {_keys_text(keys)}"
        if partial:
            line += f" (not in every item: {_keys_text(partial)})"
        out = [line]
        id_key = next((k for k in ID_KEYS if counts.get(k) == n or counts.get(k, 0) >= n // 2 + 1), None)
        if id_key is not None:
            first = [_compact(v.get(id_key), 40) for v in value[:8]]
            more = " …" if n > 8 else ""
            out.append(f"  {id_key} of the first items: {', '.join(first)}{more}")
        out.append(f"  sample [0]: {_compact(value[0], MAX_SAMPLE_CHARS)}")
        return out
    kind = kinds[0] if len(kinds) == 1 else " / ".join(kinds)
    line = f"{path}: array of {n:,} {kind}{'s' if n != 1 and len(kinds) == 1 else ''}"
    return [line, f"  first: {_compact(value[:5], MAX_SAMPLE_CHARS)}"]


def outline_lines(value: Any, depth: int = 3) -> list[str]:
    """Lines describing ``value``'s shape, most important first (callers keep a leading share).

    Args:
        value: Any JSON value.
        depth: How many levels of nested objects to describe.

    Returns:
        Lines such as ``object, 3 keys: a, b, c`` and ``.a: array of 1,000 objects; keys: id, title``.
    """
    if isinstance(value, list):
        return _array_line("array", value) if value else ["empty array"]
    if not isinstance(value, dict):
        return [f"{_type_name(value)}: {_compact(value, MAX_SCALAR_CHARS)}"]
    out = [f"object, {len(value):,} key{'s' if len(value) != 1 else ''}: {_keys_text(list(value))}"]
    later: list[tuple[str, dict[str, Any], int]] = []
    for key, child in list(value.items())[: MAX_KEYS * 2]:
        out.extend(_member_lines(f".{key}", child, later, depth - 1))
    while later:
        path, obj, left = later.pop(0)
        for key, child in list(obj.items())[:MAX_KEYS]:
            out.extend(_member_lines(f"{path}.{key}", child, later, left - 1))
    return out


def _member_lines(path: str, child: Any, later: list[tuple[str, dict[str, Any], int]], left: int) -> list[str]:
    if isinstance(child, list):
        return _array_line(path, child)
    if isinstance(child, dict):
        values = list(child.values())
        if len(values) >= 3 and all(isinstance(v, dict) for v in values):
            keys, counts = _union_keys(values)
            if all(counts[k] == len(values) for k in keys):  # a map of like records: describe one
                first = next(iter(child))
                if left > 0:
                    later.append((f"{path}.{first}", values[0], left - 1))
                names = list(child)
                return [
                    f"{path}: object, {len(values):,} keys ({names[0]} … {names[-1]}), "
                    f"each an object with keys: {_keys_text(keys)}"
                ]
        if left > 0 and child:
            later.append((path, child, left))
        return [f"{path}: object, {len(child):,} keys: {_keys_text(list(child))}"]
    return [f"{path}: {_compact(child, MAX_SCALAR_CHARS)}"]


# -- readable renderings ---------------------------------------------------------------------


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def is_flat_records(value: Any) -> bool:
    """True for a non-empty list of objects whose values are all scalars, with few distinct keys."""
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) and v for v in value):
        return False
    if not all(_scalar(x) for item in value for x in item.values()):
        return False
    keys, _ = _union_keys(value)
    return len(keys) <= MAX_TABLE_COLUMNS


def _cell(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value)
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _table(rows: list[dict[str, Any]]) -> list[str]:
    keys, _ = _union_keys(rows)
    out = ["| " + " | ".join(_cell(k) for k in keys) + " |", "|" + "---|" * len(keys)]
    out.extend("| " + " | ".join(_cell(row.get(k)) for k in keys) + " |" for row in rows)
    return out


def render_readable(value: Any) -> str:
    """``value`` as readable text: tables for lists of flat objects, pretty JSON for the rest.

    Table cells longer than 200 characters are cut (the JSON is saved whole beside the
    rendering, so nothing is lost); ``|`` and line breaks in cells are escaped.
    """
    if is_flat_records(value):
        return "\n".join(_table(value))
    if isinstance(value, dict) and any(is_flat_records(v) for v in value.values()):
        out: list[str] = []
        for key, child in value.items():
            if is_flat_records(child):
                out.append(f"{key}: {len(child):,} item{'s' if len(child) != 1 else ''}")
                out.extend(_table(child))
            elif _scalar(child):
                out.append(f"{key}: {json.dumps(child, ensure_ascii=False)}")
            else:
                out.append(f"{key}: {json.dumps(child, ensure_ascii=False, indent=2)}")
        return "\n".join(out)
    return json.dumps(value, ensure_ascii=False, indent=2)


# -- duplicate detection ------------------------------------------------------------------------


def same_json(text: str, value: Any) -> bool:
    """True when ``text`` is a JSON document equal to ``value``."""
    ok, parsed = parse_json(text)
    if not ok and _scalar(value):
        try:
            ok, parsed = True, json.loads(text)
        except ValueError:
            return False
    return ok and parsed == value


def _leaves(value: Any, out: list[str], limit: int) -> None:
    """Up to ``limit`` distinctive scalar leaves, spread over the first items of every array."""
    if len(out) >= limit:
        return
    if isinstance(value, dict):
        for child in value.values():
            _leaves(child, out, limit)
    elif isinstance(value, list):
        step = max(1, len(value) // 40)
        for child in value[::step]:
            _leaves(child, out, limit)
    elif isinstance(value, str):
        if len(value.strip()) >= 3:
            out.append(value.strip()[:60])
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 10:
        out.append(json.dumps(value))


def carries(text: str, value: Any) -> bool:
    """True when ``text`` already holds ``value``: the same JSON, or most of its values written out.

    A readable account counts as carrying the value when at least 80% of a spread sample
    of its strings and larger numbers occur in the text. A value with no such leaves (all
    booleans and small numbers) is carried only as the same JSON.
    """
    if same_json(text, value):
        return True
    sample: list[str] = []
    _leaves(value, sample, SAMPLE_LEAVES)
    if not sample:
        return False
    found = sum(1 for leaf in sample if leaf in text)
    return found >= 0.8 * len(sample)
