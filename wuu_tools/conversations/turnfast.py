"""The common shapes of Claude Code session lines, read straight into the turn index.

Most lines of a session are one of three shapes: an assistant line holding one ``text``,
``thinking`` or ``tool_use`` block (the API splits a message into a line per block), a user
line holding only ``tool_result`` blocks, and a bookkeeping line (``file-history-snapshot``,
``progress``, ``queue-operation``) that holds no turn. The reader
(:func:`.claude.read_record`) builds a :class:`~.model.Turn` for each line and the indexer
folds it into the columns; here those three shapes go into the columns directly, with the
same joins, call pairing and failure marks, and anything else returns ``False`` for the reader
to take. ``tests/test_conversations_stream.py`` holds the two ways to the same turns.
"""

from __future__ import annotations

from typing import Any

from .blocks import failure
from .claude import SKIPPED
from .model import norm_time
from .turncols import O_RAW, O_TEXT, O_THINK, Columns
from .turninfo import TEXT_KEEP, call_info, flat

__all__ = [
    "SPAN_JOIN",
    "SPAN_ORPHAN",
    "SPAN_RESULTS",
    "SPAN_START",
    "fast_line",
    "joined",
    "orphan_result",
    "pair_result",
]

SPAN_START, SPAN_JOIN, SPAN_RESULTS, SPAN_ORPHAN = 0, 1, 2, 3


def fast_line(st: dict[str, Any], rec: dict[str, Any], kind: Any, lineno: int, off: int, length: int) -> bool:
    """Read line ``rec`` (at byte ``off``, ``length`` long) into the state when it has a common shape.

    ``kind`` is the line's ``type``. Returns False, having changed nothing, for any other
    line: the reader reads it then.
    """
    if kind == "assistant":
        return _assistant(st, rec, lineno, off, length)
    if kind == "user":
        return _results(st, rec, lineno, off, length)
    if kind in SKIPPED:
        st["skipped"] += 1
        return True
    return False


def _assistant(st: dict[str, Any], rec: dict[str, Any], lineno: int, off: int, length: int) -> bool:
    msg = rec.get("message")
    if type(msg) is not dict:
        return False
    content = msg.get("content")
    if type(content) is not list or len(content) != 1 or type(content[0]) is not dict:
        return False
    block = content[0]
    btype = block.get("type")
    if btype == "text":
        body = block.get("text")
    elif btype == "thinking":
        body = block.get("thinking")
    elif btype == "tool_use":
        body = ""
    else:
        return False
    key = msg.get("id") or rec.get("uuid")
    model = msg.get("model")
    if type(body) is not str or not (type(key) is str or not key) or not (model is None or type(model) is str):
        return False
    cols: Columns = st["cols"]
    if key and key == st["last_key"]:  # a later block of the newest turn's message
        idx = cols.count - 1
        cols.add_span(idx, off, length, SPAN_JOIN, -1)
        e = cols.open
        assert e is not None
        if btype == "text" and body.strip():
            e[O_TEXT] = joined(e[O_TEXT], body)
            e[O_RAW] = True
        elif btype == "thinking":
            think = body.strip()
            if think:
                e[O_THINK] = joined(e[O_THINK], think)
    else:
        idx = cols.add("assistant", "", bool(rec.get("isSidechain")), norm_time(rec.get("timestamp")), lineno, model)
        cols.add_span(idx, off, length, SPAN_START, -1)
        st["last_key"] = key or None
        if model and not model.startswith("<") and model not in st["models"]:
            st["models"].append(model)
        e = cols.open
        assert e is not None
        if btype == "text" and body.strip():
            e[O_TEXT] = flat(body)
            e[O_RAW] = True
        elif btype == "thinking":
            e[O_THINK] = flat(body.strip())
    if btype == "tool_use":
        name = str(block.get("name") or "?")
        info = call_info(name, block.get("input"), False)
        at = cols.add_call(info.name, info.key, info.short_key)
        call_id = block.get("id")
        if call_id:
            st["calls"][call_id] = (idx, at)
    return True


def _result_text(content: Any) -> str | None:
    """The head of a tool result's text, where its failure mark is read; None for content of another shape."""
    if type(content) is str:
        return content[:400]
    if type(content) is not list:
        return None
    texts = []
    size = 0
    for item in content:
        if type(item) is not dict or item.get("type") != "text" or type(item.get("text")) is not str:
            return None
        if size <= 400:
            texts.append(item["text"])
            size += len(item["text"]) + 1
    return "\n".join(texts)[:400]


def _results(st: dict[str, Any], rec: dict[str, Any], lineno: int, off: int, length: int) -> bool:
    msg = rec.get("message")
    if type(msg) is not dict:
        return False
    content = msg.get("content")
    if type(content) is not list or not content:
        return False
    found = []
    for block in content:
        if type(block) is not dict or block.get("type") != "tool_result":
            return False
        head = _result_text(block.get("content"))
        if head is None:
            return False
        found.append((block.get("tool_use_id"), bool(block.get("is_error")) or failure(head)[0]))
    calls = st["calls"]
    spanned: set[int] = set()
    for ordinal, (call_id, failed) in enumerate(found):
        hit = calls.get(call_id) if call_id else None
        if hit is not None:
            pair_result(st["cols"], hit, failed, spanned, off, length)
        else:
            orphan_result(st, failed, spanned, off, length, ordinal, norm_time(rec.get("timestamp")), lineno)
    return True


def pair_result(cols: Columns, hit: tuple[int, int], failed: bool, spanned: set[int], off: int, length: int) -> None:
    """A result of call ``hit`` (its entry, its index): marks the call, and the line as one of the entry's once."""
    failed_col, output_col = cols.cols["failed"], cols.cols["output"]
    at = hit[1]
    failed_col[at] = failed if not output_col[at] else failed_col[at] or failed
    output_col[at] = True
    if hit[0] not in spanned:
        spanned.add(hit[0])
        cols.add_span(hit[0], off, length, SPAN_RESULTS, -1)


def orphan_result(
    st: dict[str, Any], failed: bool, spanned: set[int], off: int, length: int, ordinal: int, ts: str | None, line: int
) -> None:
    """A result whose call is not known: a ``tool`` entry of its own, the ``ordinal``-th result of its line."""
    cols: Columns = st["cols"]
    idx = cols.add("tool", "", False, ts, line, None)
    cols.add_call("(result)", "", "", failed, True)
    spanned.add(idx)
    cols.add_span(idx, off, length, SPAN_ORPHAN, ordinal)
    st["last_key"] = None


def joined(old: str, new: str) -> str:
    """Flattened text ``old`` with a later piece's text ``new`` after it, cut to :data:`TEXT_KEEP`."""
    return " ".join(x for x in (old, flat(new)) if x)[:TEXT_KEEP]
