"""The first view of structured data on stdout: a bounded outline, then the head.

* ``JSON``: the document is parsed (up to :data:`PARSE_BYTES`) and described by
  :func:`~wuu_tools.views.outline.outline_lines`, as ``project_result`` describes a JSON
  result: shape, keys, lengths, the ids of the first items, one sample item.
* ``JSON lines``: one object a line; the keys and a sample of the first
  :data:`NDJSON_SAMPLE` lines, and the number of lines.
* ``YAML``: the top-level keys with the line each starts on, and the documents (``---``).

The outline takes at most :data:`OUTLINE_SHARE` of the budget; the lines under it are the
head of the output, read on forward by the continuation. :func:`data_frame` returns None
when the output does not parse after all (the caller then shows head and tail).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.lines import LineFile
from ..core.text import human_size, plural
from ..views.outline import outline_lines
from .frame import Frame, cut, fit_share
from .lineiter import OutputLines

__all__ = ["NDJSON_SAMPLE", "OUTLINE_SHARE", "PARSE_BYTES", "data_frame"]

PARSE_BYTES = 32 << 20
NDJSON_SAMPLE = 1000
OUTLINE_SHARE = 0.35
YAML_LINES = 200_000
_TOP_KEY = re.compile(r"^([\w\"'./-][\w\"'./ -]{0,60}):(?:\s|$)")


def data_frame(lf: LineFile, kind: str, budget: int) -> Frame | None:
    """The outline frame of ``kind`` (``JSON``, ``JSON lines`` or ``YAML``), or None when it does not parse."""
    share = max(40, int(budget * OUTLINE_SHARE))
    if kind == "JSON":
        return _json(lf, share)
    if kind == "JSON lines":
        return _ndjson(lf, share)
    return _yaml(lf, share)


def _outline(lines: list[str], share: int) -> list[str]:
    return fit_share(["[outline:]", *(cut(f"  {s}") for s in lines)], share)


def _json(lf: LineFile, share: int) -> Frame | None:
    if lf.size > PARSE_BYTES:
        facts = f"{human_size(lf.size)}: too large to outline (over {human_size(PARSE_BYTES)}); the head"
        return Frame("JSON", facts, [], "head", {"outlined": False})
    try:
        value = json.loads(lf.pread(0, lf.size).decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(value, (dict, list)):
        return None
    facts = _shape_words(value)
    if lf.total_lines == 1 and lf.size > 2048:
        facts += f" · on one line of {human_size(lf.size)}"
    return Frame("JSON", facts, _outline(outline_lines(value), share), "head", {"outlined": True})


def _shape_words(value: Any) -> str:
    if isinstance(value, list):
        kinds = {type(v).__name__ for v in value}
        what = "objects" if kinds == {"dict"} else "items"
        return f"array of {len(value):,} {what}"
    return f"object with {plural(len(value), 'key')}"


def _ndjson(lf: LineFile, share: int) -> Frame | None:
    sample: list[Any] = []
    bad = 0
    lines = OutputLines(lf, limit=8 << 20)
    for text in lines:
        if len(sample) >= NDJSON_SAMPLE:
            break
        if not text.strip():
            continue
        try:
            sample.append(json.loads(text))
        except ValueError:
            bad += 1
            if bad > 3:
                return None
    if not sample:
        return None
    total = lf.total_lines
    outline = outline_lines(sample)
    head = outline[0].split("; ", 1)
    first = f"{plural(total, 'line')}, one JSON value each"
    first += f"; {head[1]}" if len(head) == 2 else ""
    if len(sample) < total:
        first += f" (keys from the first {len(sample):,})"
    facts = f"{plural(total, 'line')}" + (f", {bad} not JSON" if bad else "")
    return Frame("JSON lines", facts, _outline([first, *outline[1:]], share), "head", {"outlined": True})


def _yaml(lf: LineFile, share: int) -> Frame | None:
    keys: list[tuple[str, int]] = []
    docs = 0
    for n, text in enumerate(OutputLines(lf, limit=16 << 20), start=1):
        if n > YAML_LINES:
            break
        if text.startswith("---"):
            docs += 1
            continue
        m = _TOP_KEY.match(text)
        if m:
            keys.append((m.group(1), n))
    if not keys:
        return None
    items = [f"{k} ({n:,})" for k, n in keys]
    summary = ["top-level keys (line):", *("  " + ", ".join(items[i : i + 12]) for i in range(0, len(items), 12))]
    facts = plural(len(keys), "top-level key") + (f" in {plural(docs, 'document')}" if docs > 1 else "")
    return Frame("YAML", facts, _outline(summary, share), "head", {"outlined": True})
