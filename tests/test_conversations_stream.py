"""Large Claude Code sessions are indexed once and read turn by turn (issue 35); what they read must not change.

The streamed reader (:mod:`wuu_tools.conversations.turnindex` and ``lazy``) must build every
turn exactly as the whole-file reader does: the same turns, numbers, kinds, calls and results,
the same header facts. ``WUU_CONV_STREAM_MIN=0`` makes any session streamed, so the real
sessions and generated ones of a few hundred KB stand for the 100 MB ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from array import array
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from _transcripts import transcript_generator

from wuu_tools.conversations import read_conversation, turncols
from wuu_tools.conversations.detect import parse_transcript
from wuu_tools.conversations.lazy import LazyTurns, lazy_conversation
from wuu_tools.conversations.model import Conversation
from wuu_tools.conversations.render import hit_lines
from wuu_tools.conversations.turnindex import index_session
from wuu_tools.conversations.turninfo import info_of
from wuu_tools.core.pattern import compile_pattern

gen = transcript_generator()
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude_session.jsonl"
REAL = (
    "agentcmd_full-session-four.jsonl",
    "claude-history_v2.1.29_agent-aae161c.jsonl",
    "subagent_agent-95ed9ff0.jsonl",
)


def _streamed(path: Path) -> tuple[Conversation, dict[str, Any]]:
    with open(path, "rb") as fh:
        st = index_session(str(path), fh, os.fstat(fh.fileno()))
    return lazy_conversation(str(path), st), st


def assert_same(path: Path) -> Conversation:
    whole = parse_transcript(path.read_bytes(), str(path))
    lazy, _ = _streamed(path)
    assert isinstance(lazy.turns, LazyTurns)
    for attr in ("format", "malformed", "malformed_lines", "unread", "unread_kinds", "unread_lines", "models"):
        assert getattr(lazy, attr) == getattr(whole, attr), attr
    assert lazy.facts == whole.facts
    assert len(lazy.turns) == len(whole.turns)
    assert list(lazy.infos) == [info_of(t) for t in whole.turns]
    for mine, theirs in zip(lazy.turns, whole.turns, strict=True):
        assert asdict(mine) == asdict(theirs), mine.number
    return lazy


@pytest.mark.parametrize("name", REAL)
def test_real_sessions_read_the_same_streamed(realdata: Path, name: str) -> None:
    assert_same(realdata / "transcripts" / name)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_and_fixture_sessions_read_the_same_streamed(tmp_path: Path, seed: int) -> None:
    assert_same(FIXTURE)
    path = gen.write_claude(gen.session(seed=seed, steps=80), tmp_path / "s.jsonl")
    conv = assert_same(path)
    assert len(conv.turns) > 80


def test_entries_written_in_small_batches_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries reach the columns in batches of PENDING_MAX; a batch boundary anywhere changes nothing."""
    monkeypatch.setattr(turncols, "PENDING_MAX", 3)
    path = gen.write_claude(gen.session(seed=4, steps=40), tmp_path / "s.jsonl")
    conv = assert_same(path)
    assert len(conv.turns) > 3 * 10


def test_the_common_line_shapes_skip_the_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Assistant lines of one block, user messages and user lines of tool results go straight into the index.

    The reader takes the rest, and a line the pass's decoding refuses (a lone surrogate), as it would.
    """
    from wuu_tools.conversations import turnindex

    taken: list[int] = []
    real = turnindex.read_record
    monkeypatch.setattr(
        turnindex, "read_record", lambda b, rec, line, mixed: taken.append(line) or real(b, rec, line, mixed)
    )
    path = gen.write_claude(gen.session(seed=6, steps=60), tmp_path / "s.jsonl")
    two = [{"type": "text", "text": "two blocks"}, {"type": "tool_use", "id": "t9", "name": "Read", "input": {}}]
    others = [
        _rec("system", 90, {}, subtype="informational", content="a note"),
        _rec("summary", 91, {}, summary="the title"),
        _rec("assistant", 92, {"id": "m92", "role": "assistant", "content": two}),
        _rec("user", 93, {"role": "user", "content": "a lone \udc80 surrogate"}),
        _rec("user", 94, {"role": "user", "content": [{"type": "text", "text": "text, no result"}]}),
    ]
    with path.open("ab") as fh:
        fh.write(b"".join(others))
    assert_same(path)
    lines = path.read_bytes().count(b"\n")
    assert taken == list(range(lines - len(others) + 1, lines + 1))  # the rest took the fast way


def _session_lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_an_appended_session_reads_only_its_new_lines(tmp_path: Path) -> None:
    src = gen.write_claude(gen.session(seed=5, steps=60), tmp_path / "src.jsonl")
    lines = _session_lines(src)
    path = tmp_path / "live.jsonl"
    cut = len(lines) // 2
    while json.loads(lines[cut - 1]).get("type") != "assistant":  # cut between a call and its result
        cut += 1
    path.write_bytes(b"".join(lines[:cut]))
    assert_same(path)
    half = lines[cut][: len(lines[cut]) // 2]
    with path.open("ab") as fh:  # a line being written: unreadable for now, as the whole reader says
        fh.write(half)
    assert assert_same(path).malformed == 1
    _, st = _streamed(path)
    assert st["fed"] == 1  # the indexed prefix kept; only the partial line read again
    with path.open("ab") as fh:
        fh.write(lines[cut][len(half) :] + b"".join(lines[cut + 1 :]))
    conv = assert_same(path)
    assert conv.malformed == 0
    _, st = _streamed(path)
    assert st["fed"] == 0  # nothing new since the last read
    path.write_bytes(path.read_bytes().replace(b"pytest", b"PYTEST", 1))  # rewritten, same size: read again
    assert_same(path)
    _, st = _streamed(path)
    assert st["fed"] == 0


def test_an_appended_session_was_extended_not_rebuilt(tmp_path: Path) -> None:
    src = gen.write_claude(gen.session(seed=6, steps=40), tmp_path / "src.jsonl")
    lines = _session_lines(src)
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(lines[:-10]))
    _streamed(path)
    with path.open("ab") as fh:
        fh.write(b"".join(lines[-10:]))
    _, st = _streamed(path)
    assert st["fed"] == 10
    assert_same(path)


def _views(path: Path, **args: Any) -> list[Any]:
    views = [read_conversation(str(path), **args)]
    while views[-1].continuation is not None and len(views) < 200:
        views.append(read_conversation(**views[-1].continuation["args"]))
    return views


def test_pattern_search_on_the_raw_bytes_finds_the_same_turns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = gen.write_claude(gen.session(seed=4, steps=120), tmp_path / "s.jsonl")
    found = {}
    for streamed in (False, True):
        monkeypatch.setenv("WUU_CONV_STREAM_MIN", "0" if streamed else str(1 << 40))
        for pattern in ("error", "test_1[0-9]", "failed|passed"):
            views = _views(path, pattern=pattern, budget=600)
            found[streamed, pattern] = sorted(n for v in views for n in v.meta["matched_turns"])
            assert found[streamed, pattern]
    assert all(found[True, p] == found[False, p] for p in ("error", "test_1[0-9]", "failed|passed"))


def _many_instructions(path: Path, n: int) -> Path:
    base = {"sessionId": "s1", "cwd": "/w", "version": "2.0.0", "isSidechain": False, "userType": "external"}
    out = []
    for k in range(n):
        ts = f"2025-01-01T10:{k // 60:02d}:{k % 60:02d}.000Z"
        out.append(
            {
                **base,
                "type": "user",
                "uuid": f"u{k}",
                "timestamp": ts,
                "message": {"role": "user", "content": f"please do step {k} now"},
            }
        )
        reply = {
            "role": "assistant",
            "id": f"m{k}",
            "model": "claude-x",
            "content": [{"type": "text", "text": f"done step {k}"}],
        }
        out.append({**base, "type": "assistant", "uuid": f"a{k}", "timestamp": ts, "message": reply})
    path.write_text("".join(json.dumps(r) + "\n" for r in out))
    return path


@pytest.mark.parametrize("streamed", [False, True])
def test_a_long_list_of_instructions_is_summarised_and_listed_by_its_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    monkeypatch.setenv("WUU_CONV_STREAM_MIN", "0" if streamed else str(1 << 40))
    path = _many_instructions(tmp_path / "s.jsonl", 300)
    first = read_conversation(str(path), budget=800)
    summary = next(line for line in first.text.split("\n") if line.startswith("(+"))
    assert "instructions=true" in summary and "turns 3–" in summary and ", 5, " not in summary
    assert len(summary) < 300
    later = [n for n in first.meta["anchor_turns"] if n != 1]
    views = _views(path, instructions=True, budget=300)
    listed = sorted(n for v in views for n in (m for a, b in v.meta["instruction_turns"] for m in range(a, b + 1)))
    assert listed == list(range(1, 601, 2))  # every human turn once, along the chain
    assert views[-1].text.endswith("[no earlier instructions]")
    assert set(later) <= set(listed)


def test_wuu_conv_lists_instructions(tmp_path: Path) -> None:
    path = _many_instructions(tmp_path / "s.jsonl", 12)
    r = subprocess.run(
        [sys.executable, "-m", "wuu_tools.cli", "conv", str(path), "--instructions", "--budget", "200"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "turn 23: please do step 11 now" in r.stdout
    assert "instructions=true" in r.stdout  # the continuation


def _rec(kind: str, n: int, message: dict[str, Any], **extra: Any) -> bytes:
    rec = {
        "type": kind,
        "uuid": f"u{n}",
        "sessionId": "s",
        "timestamp": f"2025-01-01T00:00:{n:02d}Z",
        "message": message,
    }
    return (json.dumps({**rec, **extra}) + "\n").encode()


def _tricky_session() -> list[bytes]:
    """Lines the columns must store and give back exactly: escapes, non-BMP and lone surrogates, joined pieces."""
    text = 'a "quoted" \\ path C:\\x, tab\t, emoji \U0001f600, lone \udc80 surrogate, 日本語'
    lines = [_rec("user", 1, {"role": "user", "content": text})]
    for n in range(2, 12, 3):
        mid = {"id": f"msg{n}", "model": "claude-x", "role": "assistant"}
        lines.append(_rec("assistant", n, {**mid, "content": [{"type": "thinking", "thinking": f"think \u00e9 {n}"}]}))
        lines.append(_rec("assistant", n + 1, {**mid, "content": [{"type": "text", "text": f'say "{n}" \\n'}]}))
        call = {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": f'echo "\u2603 {n}"'}}
        lines.append(_rec("assistant", n + 2, {**mid, "content": [call]}))
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": f"Exit code {n % 2}\n\udc81 out"}
        lines.append(_rec("user", n + 2, {"role": "user", "content": [result]}))
    orphan = {"type": "tool_result", "tool_use_id": "nobody", "content": "late \U0001f680"}
    lines.append(_rec("user", 30, {"role": "user", "content": [orphan]}))
    lines.append(_rec("user", 31, {"role": "user", "content": "and now? \u2028 done"}, isSidechain=True))
    return lines


def test_escapes_surrogates_and_joined_pieces_read_the_same_at_every_append_point(tmp_path: Path) -> None:
    lines = _tricky_session()
    path = tmp_path / "live.jsonl"
    for cut in range(1, len(lines)):
        path.write_bytes(b"".join(lines[:cut]))
        assert_same(path)
        with path.open("ab") as fh:  # the rest appended: the saved index reopened at its newest turn
            fh.write(b"".join(lines[cut:]))
        conv = assert_same(path)
        assert [t.role for t in conv.turns][:3] == ["user", "assistant", "assistant"]
    assert "\udc80" in conv.turns[0].text and "\U0001f600" in conv.infos[0].text


def test_the_real_session_reads_the_same_appended_at_every_line(realdata: Path, tmp_path: Path) -> None:
    lines = _session_lines(realdata / "transcripts" / REAL[0])
    path = tmp_path / "live.jsonl"
    first = next(n for n, line in enumerate(lines, 1) if json.loads(line).get("type") == "user")
    for cut in range(first, len(lines), 4):
        path.write_bytes(b"".join(lines[:cut]))
        _streamed(path)
        with path.open("ab") as fh:
            fh.write(b"".join(lines[cut:]))
        assert_same(path)


@pytest.mark.parametrize("block", [256, 1 << 23])
def test_pattern_search_in_small_blocks_and_without_a_last_newline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Blocks end at a line end (a line longer than a block is searched whole); a last line needs no newline."""
    from wuu_tools.conversations import lazy

    monkeypatch.setattr(lazy, "_SEARCH_BLOCK", block)
    lines = _session_lines(gen.write_claude(gen.session(seed=7, steps=60), tmp_path / "src.jsonl"))
    path = tmp_path / "s.jsonl"
    last_line = _rec("user", 59, {"role": "user", "content": "zebra words at the very end"})
    path.write_bytes(b"".join(lines) + last_line.rstrip(b"\n"))
    conv, _ = _streamed(path)
    assert isinstance(conv.turns, LazyTurns)
    whole = parse_transcript(path.read_bytes(), str(path))
    for pattern in ("error", "test_1[0-9]", "failed|passed"):
        rx = compile_pattern(pattern)
        expected = [t.number for t in whole.turns if hit_lines(t, rx, 1 << 30)[1]]
        got = conv.turns.candidates(pattern)
        assert got is not None and set(expected) <= set(got), pattern
    assert conv.turns.candidates("zebra") == [len(conv.turns)]  # the last line, without a newline


def test_an_unchanged_session_is_viewed_in_place(tmp_path: Path) -> None:
    path = gen.write_claude(gen.session(seed=8, steps=30), tmp_path / "s.jsonl")
    _, built = _streamed(path)
    assert isinstance(built["cols"].cols["line"], array)  # built in memory
    _, st = _streamed(path)
    assert st["fed"] == 0
    assert all(isinstance(col, memoryview) for col in (st["cols"].cols["line"], st["cols"].cols["text"].data))
    assert_same(path)


@pytest.mark.parametrize("name", ["codex_bare.jsonl", "codex_rollout.jsonl", "gemini_stream.jsonl"])
def test_lines_of_another_format_are_read_whole_after_the_pass_gave_up(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The pass reads the file through a reader of its own; the whole-file reader after it reads from the start."""
    path = FIXTURE.parent / name
    views = {}
    for streamed in (False, True):
        monkeypatch.setenv("WUU_CONV_STREAM_MIN", "0" if streamed else str(1 << 40))
        views[streamed] = read_conversation(str(path), budget=800).text
    assert views[True] == views[False] and "turn" in views[True]
