"""The turn index's shortcuts (issue 35's pass): each must read a line exactly as the whole-file reader does.

Every test here builds lines that take one shortcut, and lines that look like it but must not,
and compares the streamed session turn for turn with the whole-file reader
(:func:`test_conversations_stream.assert_same`).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from test_conversations_stream import _rec, assert_same

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
        _rec("assistant", 4, {**MID, "content": [{"type": "thinking", "thinking": "more"}, {"type": "text", "text": ""}]}),
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
