"""The common shapes of Claude Code session lines, read straight into the turn index.

Most lines of a session are one of three shapes: an assistant line holding one ``text``,
``thinking`` or ``tool_use`` block (the API splits a message into a line per block), a user
line holding only ``tool_result`` blocks, and a user message of plain text. The reader
(:func:`.claude.read_record`) builds a :class:`~.model.Turn` for each line and the indexer
folds it into the columns; here those shapes go into the columns directly, with the same
joins, call pairing, failure marks and kinds, and anything else returns ``False`` for the
reader to take. ``tests/test_conversations_stream.py`` holds the two ways to the same turns.

A session's pass runs these a few hundred thousand times, on each line decoded as a
:class:`.turnline.Line` (only the keys read here, typed; a line with a key of another type is not
a ``Line`` and goes the reader's way, decoded whole).
:func:`fast_reader` binds what the shapes touch (the columns' appends, the open calls) once, in a closure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .blocks import classify_user_text, failure, key_argument
from .claude import command_text
from .model import norm_time
from .render import clip_key
from .turncols import O_RAW, O_TEXT, O_THINK, SPAN, Columns
from .turninfo import TEXT_KEEP, flat

if TYPE_CHECKING:  # the lines are decoded by turnline.py, loaded by the pass only (msgspec)
    from .turnline import Block, Line

__all__ = [
    "SPAN_JOIN",
    "SPAN_ORPHAN",
    "SPAN_RESULTS",
    "SPAN_START",
    "FastLine",
    "fast_reader",
    "joined",
    "orphan_result",
    "pair_result",
]

SPAN_START, SPAN_JOIN, SPAN_RESULTS, SPAN_ORPHAN = 0, 1, 2, 3

FastLine = Callable[["Line", str, int, int, int], bool]
"""``read(line, kind, lineno, off, length)``: True when ``line`` (its ``type`` ``kind``) went into the index."""


def _time(value: str | None) -> str | None:
    """:func:`.model.norm_time` of a line's time (text or nothing: another type fails the decoding)."""
    if value is not None and len(value) >= 19 and value[4] == "-" and value[10] in "T ":
        return value[:10] + " " + value[11:19]
    return norm_time(value)


def _result_failed(block: Block) -> bool | None:
    """Whether a ``tool_result`` block failed; None for a block of another shape (the reader reads it then)."""
    if block.type != "tool_result":
        return None
    head = _result_text(block.content)
    if head is None:
        return None
    return bool(block.is_error) or ("code" in head and failure(head)[0])


def fast_reader(st: dict[str, Any]) -> FastLine:
    """The reader of the common shapes into ``st``'s columns (made again when the columns' span rows are replaced).

    The function returned reads an ``assistant`` or ``user`` line (a :class:`.turnline.Line`, at byte
    ``off``, ``length`` long) when it has a common shape and returns False, having changed nothing, for any other.
    """
    cols: Columns = st["cols"]
    c = cols.cols
    calls: dict[Any, tuple[int, int]] = st["calls"]
    models: list[str] = st["models"]
    entry_add, off_add, len_add, code_add, ord_add = (c[k].append for k in SPAN)
    name_add, failed_add, output_add = c["name"].append, c["failed"].append, c["output"].append
    failed_col, output_col = c["failed"], c["output"]
    key_col, short_col = c["key"], c["short"]
    key_data, key_ends, short_data, short_ends = key_col.data, key_col.ends, short_col.data, short_col.ends
    sid, new_entry = cols.sid, cols.add

    def assistant(line: Line, lineno: int, off: int, length: int) -> bool:
        msg = line.message
        if msg is None:
            return False
        content = msg.content
        if type(content) is not list or len(content) != 1:
            return False
        block = content[0]
        btype = block.type
        body: Any
        if btype == "text":
            body = block.text
        elif btype == "thinking":
            body = block.thinking
        elif btype == "tool_use":
            body = ""
        else:
            return False
        key: Any = msg.id or line.uuid_value()
        model = msg.model
        if type(body) is not str or not (type(key) is str or not key):
            return False
        if key and key == st["last_key"]:  # a later block of the newest turn's message
            idx = cols.count - 1
            code = SPAN_JOIN
            if body:
                e = cols.open
                assert e is not None
                if btype == "text":
                    if not body.isspace():
                        e[O_TEXT] = joined(e[O_TEXT], body)
                        e[O_RAW] = True
                elif not body.isspace():
                    e[O_THINK] = joined(e[O_THINK], body)
        else:
            idx = new_entry("assistant", "", bool(line.isSidechain), _time(line.timestamp), lineno, model)
            code = SPAN_START
            st["last_key"] = key or None
            if model and model not in models and not model.startswith("<"):
                models.append(model)
            if body:
                text = flat(body)  # empty for a body of only whitespace
                if text:
                    e = cols.open
                    assert e is not None
                    if btype == "text":
                        e[O_TEXT] = text
                        e[O_RAW] = True
                    else:
                        e[O_THINK] = text
        entry_add(idx)
        off_add(off)
        len_add(length)
        code_add(code)
        ord_add(-1)
        if btype == "tool_use":  # Columns.add_call, bound
            name = block.name or "?"
            arg = key_argument(name, block.input)
            name_add(sid(name))
            key_data.extend(clip_key(arg, 60).encode("utf-8", "surrogatepass"))
            key_ends.append(len(key_data))
            short_data.extend(clip_key(arg, 36).encode("utf-8", "surrogatepass"))
            short_ends.append(len(short_data))
            failed_add(False)
            output_add(False)
            if block.id:
                calls[block.id] = (idx, len(failed_col) - 1)
        return True

    def user(line: Line, lineno: int, off: int, length: int) -> bool:
        msg = line.message
        if msg is None:
            return False
        content = msg.content
        if type(content) is str:  # a message: what claude._user makes of text without blocks
            if not content or content.isspace():
                return True  # no turn
            kind, text = classify_user_text(content)
            if kind == "command":
                text = command_text(text)
            if line.isCompactSummary:
                kind = "compaction"
            elif line.isMeta and kind == "":
                kind = "meta"
            new_entry("user", kind, bool(line.isSidechain), _time(line.timestamp), lineno, None)
            entry_add(cols.count - 1)
            off_add(off)
            len_add(length)
            code_add(SPAN_START)
            ord_add(-1)
            st["last_key"] = None
            if text:
                e = cols.open
                assert e is not None
                e[O_TEXT] = flat(text)
                e[O_RAW] = True
            return True
        if type(content) is not list or not content:
            return False
        if len(content) == 1:  # the common case: one result, of a known call
            block = content[0]
            failed = _result_failed(block)
            if failed is None:
                return False
            call_id = block.tool_use_id
            hit = calls.get(call_id) if call_id else None
            if hit is None:
                orphan_result(st, failed, set(), off, length, 0, _time(line.timestamp), lineno)
                return True
            at = hit[1]
            failed_col[at] = failed if not output_col[at] else failed_col[at] or failed
            output_col[at] = True
            entry_add(hit[0])
            off_add(off)
            len_add(length)
            code_add(SPAN_RESULTS)
            ord_add(-1)
            return True
        found = []
        for block in content:
            failed = _result_failed(block)
            if failed is None:
                return False
            found.append((block.tool_use_id, failed))
        spanned: set[int] = set()
        for ordinal, (call_id, failed) in enumerate(found):
            hit = calls.get(call_id) if call_id else None
            if hit is not None:
                pair_result(cols, hit, failed, spanned, off, length)
            else:
                orphan_result(st, failed, spanned, off, length, ordinal, _time(line.timestamp), lineno)
        return True

    def read(line: Line, kind: str, lineno: int, off: int, length: int) -> bool:
        if kind == "assistant":
            return assistant(line, lineno, off, length)
        return kind == "user" and user(line, lineno, off, length)

    return read


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
    if len(old) >= TEXT_KEEP:
        return old[:TEXT_KEEP]  # full already: nothing of the new piece fits
    return " ".join(x for x in (old, flat(new)) if x)[:TEXT_KEEP]
