"""The turn index's shortcuts (issue 35's pass): each must read a line exactly as the whole-file reader does.

Every test here builds lines that take one shortcut, and lines that look like it but must not,
and compares the streamed session turn for turn with the whole-file reader
(:func:`test_conversations_stream.assert_same`).
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from test_conversations_stream import _rec, assert_same

from wuu_tools.conversations.jsonline import LOAD_AT_BYTES, load_line
from wuu_tools.conversations.turninfo import TEXT_KEEP, flat

MID = {"id": "m1", "model": "claude-x", "role": "assistant"}


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(lines))
    return path


def test_a_piece_of_several_blocks_joins_the_turn_its_message_started(tmp_path: Path) -> None:
    """A later line of the same message holding text and a call goes the reader's way and joins the turn."""
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls -la"}}
    lines = [
        _rec("user", 1, {"role": "user", "content": "list the files"}),
        _rec("assistant", 2, {**MID, "content": [{"type": "thinking", "thinking": "I will  list\nthem"}]}),
        _rec("assistant", 3, {**MID, "content": [{"type": "text", "text": "Listing."}, call]}),
        _rec(
            "assistant",
            4,
            {**MID, "content": [{"type": "thinking", "thinking": "more"}, {"type": "text", "text": " "}]},
        ),
        _rec("user", 5, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a b"}]}),
    ]
    conv = assert_same(_write(tmp_path / "s.jsonl", lines))
    assert [t.role for t in conv.turns] == ["user", "assistant"]
    assert conv.infos[1].text == "Listing." and conv.infos[1].thinking == "I will list them more"


_words = st.text(alphabet=st.sampled_from("ab \n\t\u00a0\u2028\u3000é😀"), max_size=40)


@given(st.lists(_words, max_size=60), st.integers(min_value=0, max_value=3 * TEXT_KEEP))
def test_flat_of_a_long_text_is_flat_of_all_of_it(parts: list[str], pad: int) -> None:
    """The head-only flattening of a long text gives what splitting all of it gives, whitespace at any cut."""
    text = "x" * pad + "".join(parts) * 9
    assert flat(text) == " ".join(text.split())[:TEXT_KEEP]
    spaced = " \u3000\n" * (pad + 300) + text  # a head of only whitespace: the whole text is split
    assert flat(spaced) == " ".join(spaced.split())[:TEXT_KEEP]


def _edge_lines() -> list[bytes]:
    """Lines of the common shapes written in ways the pass's typed decoding refuses or must read exactly."""
    head = b'{"type":"user","uuid":"u%d","sessionId":"s","timestamp":"2025-01-01T00:00:%02dZ",'
    call = b'"message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash",'
    result = b'"message":{"content":[{"type":"tool_result","tool_use_id":'
    lines = [
        head % (1, 1) + b'"message":{"role":"user","content":"start"}}\n',
        head.replace(b'"user"', b'"assistant"') % (2, 2) + call % (2, 2) + b'"input":{"command":"ls\\u00e9"}}]}}\n',
        head % (3, 3) + result + b'"t2","content":NaN}]}}\n',
        head % (4, 4) + b'"message":{"role":"user","content":"lone \\udc80 \\ud83d\\ude00 pair"}}\n',
        b"\xef\xbb\xbf" + head % (5, 5) + b'"message":{"role":"user","content":"after a BOM"}}\n',
        head % (6, 6) + b'"message":{"role":"user","content":"bad \xff byte"}}\n',
        head % (7, 7) + b'"toolUseResult":"bad \xfe byte","message":{"role":"user","content":"skipped bad byte"}}\n',
        head % (8, 8) + b'"isSidechain":1,"message":{"role":"user","content":"a sidechain of 1"}}\n',
        b'{"type":"user","uuid":"u9","timestamp":1735689609,"message":{"role":"user","content":"epoch time"}}\n',
        head % (10, 10) + b'"message":{"role":"user","content":["a string block",{"type":"text","text":"x"}]}}\n',
        head % (11, 11) + b'"type":7,"message":{"role":"user","content":"type given twice"}}\n',
        b'{"type":7,' + (head % (12, 12))[1:] + b'"message":{"role":"user","content":"type twice, last"}}\n',
        head % (13, 13) + b'"isMeta":true,"message":{"role":"user","content":"a meta line"}}\n',
        head % (14, 14) + b'"isCompactSummary":true,"message":{"role":"user","content":"summary of before"}}\n',
        head % (15, 15) + b'"message":{"role":"user","content":"<command-name>/clear</command-name>"}}\n',
        head % (16, 16) + b'"message":{"role":"user","content":" \\n\\t "}}\n',
        head.replace(b'"user"', b'"assistant"') % (17, 17)
        + call % (17, 17)
        + b'"input":{"n":123456789012345678901234567890,"x":1e400}}]}}\n',
        head % (18, 18) + result + b'"t17","is_error":1,"content":"x"}]}}\n',
        head % (19, 19) + result + b'"t2","content":"Exit code 2"}]}}\n',
        head % (20, 20) + result + b'"t9","content":[{"type":"image"}]}]}}\n',
        b'{"type":"progress","messageId":"p","data":{"x":[1,2,{"y":NaN}]}}\n',
        b'{"type":"queue-operation","operation":"enqueue"}\n',
        b"\x1c\n",  # blank to str.strip(), not to bytes.strip()
        b"\xc2\xa0 \r\n",
        b'{"type":"user","uuid":"u30","message":{"role":"user","content":"a uuid, no session id"}}\n',
        b'{"type":"user","parentUuid":null,"message":{"role":"user","content":"a null parentUuid only"}}\n',
        head % (21, 21) + b'"message":{"role":"user","content":"truncated',
    ]
    return lines


def test_lines_the_typed_decoding_refuses_or_reads_exactly_read_the_same(tmp_path: Path) -> None:
    """Lone surrogates, NaN, a BOM, bytes that are not UTF-8, keys of another type, given twice, unusual kinds."""
    lines = _edge_lines()
    conv = assert_same(_write(tmp_path / "s.jsonl", lines))
    assert conv.malformed_lines == [5, len(lines)]  # a BOM inside the file, the cut last line
    assert conv.unread_lines == [11, 22]  # "type" given twice, last a number; a queue line without ids
    for cut in range(1, len(lines)):  # and each appended to an index of the lines before it
        path = _write(tmp_path / "live.jsonl", lines[:cut])
        assert_same(path)
        with path.open("ab") as fh:
            fh.write(b"".join(lines[cut:]))
        assert_same(path)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda kids: st.lists(kids) | st.dictionaries(st.text(), kids),
        max_leaves=12,
    )
)
def test_a_line_is_read_as_json_reads_it(value: object) -> None:
    """Integers of any size, floats, strings of any code point: the fast decoder or its fallback gives json's value."""
    for pad in ("", "x" * LOAD_AT_BYTES):  # a short line (json until msgspec is loaded) and a long one (msgspec)
        raw = json.dumps({"v": value, "pad": pad}).encode()
        assert load_line(raw) == json.loads(raw)


def test_the_lines_the_fast_decoder_refuses_are_read_as_json_reads_them() -> None:
    pad = b' "pad": "' + b"x" * LOAD_AT_BYTES + b'",'
    for raw in (b'{"a": 123456789012345678901234567890}', b'{"a": NaN}', b'{"a": 1e400}', b'{"a": "\\ud800"}'):
        for line in (raw, raw[:1] + pad + raw[1:]):
            assert repr(load_line(line)) == repr(json.loads(line))
