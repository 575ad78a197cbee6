"""read_conversation: first view, the before_turn chain, pattern search, budgets, revisions, failures."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from _transcripts import transcript_generator
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from wuu_tools import InvalidArgument, NotAFile, SourceNotFound, read_conversation, read_saved
from wuu_tools.core.result import ToolResult
from wuu_tools.views.ceiling import TOO_SMALL

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "transcripts"
TARGETS = json.loads((FIXTURES / "realdata_targets.json").read_text())


gen = transcript_generator()


def chain(first: ToolResult, limit: int = 500) -> list[ToolResult]:
    """The first view and every view its continuations lead to."""
    views = [first]
    while views[-1].continuation is not None:
        assert len(views) < limit, "the chain does not end"
        views.append(read_conversation(**views[-1].continuation["args"]))
    return views


def shown(result: ToolResult) -> list[int]:
    return [n for a, b in result.meta["shown_turns"] for n in range(a, b + 1)]


def check_budget(result: ToolResult, budget: int) -> None:
    """The budget is a ceiling, notices included; a budget too small for the header and a turn says so."""
    assert result.tokens <= budget or (TOO_SMALL in result.text and result.meta["budget_too_small"]["budget"] == budget)
    assert len(result.text.encode()) <= 51200


# -- the first view ---------------------------------------------------------------------------------


def test_small_conversation_is_complete() -> None:
    result = read_conversation(str(FIXTURES / "openhands_events.json"))
    assert result.complete and result.continuation is None
    assert result.meta["total_turns"] == 4 and result.meta["shown_turns"] == [[1, 4]]
    assert result.meta["anchor_turns"] == [1]
    assert result.text.startswith("[conversation: openhands · 4 turns · 2025-01-20 20:29:32 → 20:30:35 UTC")
    assert "  ← error · exit 1 · npm ERR! missing script: test" in result.text


def test_first_view_has_anchor_index_and_latest_turns() -> None:
    path = str(FIXTURES / "claude_session.jsonl")
    result = read_conversation(path, budget=400)
    check_budget(result, 400)
    text = result.text
    assert not result.complete
    assert result.meta["anchor_turns"] == [5, 8, 12]
    assert "[task · turn 5 · first request · 2026-01-05 09:00:03]\nFix the flaky test" in text
    assert "turn 12: Don't change the test; sort the output in the parser instead." in text
    assert "1 unreadable line skipped (12)" in text.split("\n")[0]
    assert text.rstrip().endswith("]") and "read_conversation(" in text.split("\n")[-1]
    last = result.meta["shown_turns"][-1][1]
    assert last == 16 and "Fixed: the parser now sorts its output" in text
    start = result.meta["shown_turns"][0][0]
    assert result.continuation == {
        "tool": "read_conversation",
        "args": {"path": path, "before_turn": start, "revision": result.revision, "budget": 400},
    }


def test_big_tool_result_is_projected_and_recoverable(tmp_path: Path) -> None:
    big = "\n".join(f"row {i}: " + "x" * 90 for i in range(1, 1001))  # ~100 KB
    steps = [
        gen.Step("user", "Summarise the table."),
        gen.Step("assistant", "Reading it.", [gen.Call("Read", {"file_path": "/t.csv"}, big)]),
        gen.Step("assistant", "The table has 1,000 rows."),
    ]
    path = gen.write_claude(steps, tmp_path / "big.jsonl")
    result = read_conversation(str(path))
    assert result.complete and result.tokens < 600
    assert "  ← 1,000 lines, 97.6 KiB" in result.text
    assert "row 1: " in result.text and "row 1000: " in result.text and "row 500: " not in result.text
    ref = result.text.split('read_saved(ref="')[1].split('"')[0]
    saved = read_saved(ref, pattern="^row 500: ")
    assert "row 500: " in saved.text


def test_deterministic_and_revision_is_stable(tmp_path: Path) -> None:
    path = gen.write_claude(gen.session(seed=3, steps=40), tmp_path / "s.jsonl")
    a = read_conversation(str(path))
    b = read_conversation(str(path))
    assert a.to_json() == b.to_json()
    assert a.revision is not None and a.revision.startswith("b2-")


def test_revision_change_is_said_on_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    gen.write_claude(gen.session(seed=5, steps=40), path)
    first = read_conversation(str(path))
    assert first.continuation is not None
    before = read_conversation(**first.continuation["args"])
    with path.open("a") as fh:  # the session goes on: new turns are appended
        fh.write(
            json.dumps({"type": "user", "uuid": "late", "message": {"role": "user", "content": "One more thing."}})
            + "\n"
        )
    after = read_conversation(**first.continuation["args"])
    head = after.text.split("\n")[0]
    assert head.startswith(f"[the transcript changed since revision {first.revision} (now {after.revision})")
    assert after.revision != first.revision
    assert after.meta["revision_changed"] == {"from": first.revision, "to": after.revision}
    # turns keep their numbers: the same turns, rendered the same, lead up to the continuation point
    last = shown(before)[-1]
    assert shown(after)[-1] == last
    block = before.text.split(f"── turn {last} ")[1].split("\n[")[0]
    assert block in after.text
    assert "revision_changed" not in before.meta


def test_sub_agent_file_without_prompt_uses_first_agent_message(tmp_path: Path) -> None:
    lines = (FIXTURES / "claude_session.jsonl").read_text().splitlines()
    side = [json.loads(x) for x in lines if '"isSidechain": true' in x]
    assistant_only = [x for x in side if x["type"] == "assistant"]
    (tmp_path / "agent-ag1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in assistant_only))
    result = read_conversation(str(tmp_path / "agent-ag1.jsonl"))
    assert "sub-agent ag1" in result.text.split("\n")[0]
    assert "The parser returns items in set order." in result.text


# -- the chain --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(gen.WRITERS))
def test_chain_shows_every_turn_exactly_once(tmp_path: Path, fmt: str) -> None:
    path = gen.WRITERS[fmt](gen.session(seed=11, steps=80), tmp_path / f"s.{fmt}")
    views = chain(read_conversation(str(path)))
    total = views[0].meta["total_turns"]
    seen = [n for v in views for n in shown(v)]
    assert sorted(seen) == list(range(1, total + 1))
    assert len(views) > 2
    for view in views:
        check_budget(view, 2000)
    for view in views[1:-1]:  # efficient: every view but the last fills most of its budget
        assert view.tokens >= 0.7 * 2000
    assert views[-1].complete and "[start of the conversation]" in views[-1].text


step_strategy = st.builds(
    lambda role, words, calls, big, failed: gen.Step(
        role,
        " ".join(words) or "ok",
        [
            gen.Call("Bash", {"command": f"run {i}"}, ("line\n" * big) + ("error: boom" if failed else "fine"), failed)
            for i in range(calls)
        ]
        if role == "assistant"
        else [],
    ),
    st.sampled_from(["user", "assistant", "assistant"]),
    st.lists(st.sampled_from(["alpha", "beta", "gamma", "δέλτα", "x" * 300, "\n", "{}", "—"]), max_size=40),
    st.integers(0, 3),
    st.integers(0, 400),
    st.booleans(),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(step_strategy, min_size=1, max_size=40),
    fmt=st.sampled_from(sorted(gen.WRITERS)),
    budget=st.integers(150, 4000),
)
def test_property_chain_budget_determinism(steps: list, fmt: str, budget: int) -> None:
    # A Markdown chat is told apart from any other Markdown file by its user and assistant headings both.
    assume(fmt != "markdown-chat" or {"user", "assistant"} <= {s.role for s in steps})
    with tempfile.TemporaryDirectory() as tmp:
        path = gen.WRITERS[fmt](steps, Path(tmp) / "t")
        views = chain(read_conversation(str(path), budget=budget))
        total = views[0].meta["total_turns"]
        seen = [n for v in views for n in shown(v)]
        assert sorted(seen) == list(range(1, total + 1))  # every turn exactly once
        for view in views:
            check_budget(view, budget)
            assert view.complete == (view.continuation is None)
        for view in views[1:]:
            assert shown(view)  # each call shows something new
        again = read_conversation(**views[-1].continuation["args"]) if views[-1].continuation else None
        assert again is None
        assert read_conversation(str(path), budget=budget).text == views[0].text


def test_tiny_and_huge_budgets_hold_the_invariant(tmp_path: Path) -> None:
    path = gen.write_claude(gen.session(seed=2, steps=30, big_lines=3000), tmp_path / "s.jsonl")
    for budget in (20, 50, 100, 200_000, 1_000_000):
        result = read_conversation(str(path), budget=budget)
        check_budget(result, budget)
        assert shown(result)


def test_pattern_finds_failed_commands_and_chains(tmp_path: Path) -> None:
    path = gen.write_claude(gen.session(seed=4, steps=120), tmp_path / "s.jsonl")
    views = chain(read_conversation(str(path), pattern=r"^error: test_\d+ failed", budget=300))
    matched = [n for v in views for n in v.meta["matched_turns"]]
    assert len(matched) == len(set(matched)) > 3
    text = "\n".join(v.text for v in views)
    assert text.count("\n    error: test_") == len(matched)
    assert text.count("\n  → Bash: pytest tests/test_") == len(matched)
    for view in views:
        check_budget(view, 300)
        assert view.text.split("\n")[0].endswith("turns matching /^error: test_\\d+ failed/]") or "before" in view.text
    assert views[-1].text.rstrip().endswith("[no more matching turns]")
    none = read_conversation(str(path), pattern="no such words anywhere")
    assert none.complete and "(no turn matches /no such words anywhere/ in all" in none.text


# -- errors ----------------------------------------------------------------------------------------------


def test_errors_are_clear(tmp_path: Path) -> None:
    path = str(FIXTURES / "claude_session.jsonl")
    with pytest.raises(SourceNotFound, match="no such file"):
        read_conversation(str(tmp_path / "missing.jsonl"))
    with pytest.raises(NotAFile, match="is a directory"):
        read_conversation(str(tmp_path))
    with pytest.raises(InvalidArgument, match="before_turn must be between 1 and 17"):
        read_conversation(path, before_turn=40)
    with pytest.raises(InvalidArgument, match="not a valid regular expression"):
        read_conversation(path, pattern="(unclosed")
    with pytest.raises(InvalidArgument, match="format must be one of"):
        read_conversation(path, format="yaml")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="budget"):
        read_conversation(path, budget=0)
    start = read_conversation(path, before_turn=1)
    assert start.complete and "start of the conversation" in start.text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
def test_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(NotAFile, match="not a regular file"):
        read_conversation(str(fifo))


def test_store_failure_points_back_into_the_transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "store-is-a-file"
    blocker.write_text("")
    monkeypatch.setenv("WUU_STORE", str(blocker))
    result = read_conversation(str(FIXTURES / "claude_session.jsonl"), before_turn=8)
    assert "read_saved" not in result.text
    assert "the whole turn is at line 13 of the transcript: read_file(" in result.text
    assert "saving a copy failed" in result.text


# -- the real transcripts ------------------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(k for k in TARGETS if not k.startswith("_")))
def test_real_first_view_has_request_and_last_gist(realdata: Path, name: str) -> None:
    result = read_conversation(str(realdata / "transcripts" / name), budget=2000)
    check_budget(result, 2000)
    assert result.tokens <= 2000
    assert _flat(TARGETS[name]["anchor"]) in _flat(result.text)
    assert _flat(TARGETS[name]["gist"]) in _flat(result.text)


@pytest.mark.realdata
def test_real_chain_and_pattern(realdata: Path) -> None:
    path = str(realdata / "transcripts" / "subagent_agent-95ed9ff0.jsonl")
    views = chain(read_conversation(path))
    assert sorted(n for v in views for n in shown(v)) == list(range(1, views[0].meta["total_turns"] + 1))
    found = read_conversation(path, pattern="TS6133")
    assert found.meta["matched_turns"] and "error TS6133: 'User' is declared" in found.text


def test_images_of_shown_turns_are_attachments() -> None:
    result = read_conversation(str(FIXTURES / "claude_session.jsonl"), before_turn=9)
    assert 8 in shown(result)
    (image,) = result.attachments
    assert image["type"] == "image" and image["mime_type"] == "image/png" and image["turn"] == 8
    assert image["data"].startswith("iVBORw0KGgo")
    assert "  [image: image/png, 70 B; kept as an attachment]" in result.text
    assert "iVBORw0KGgo" not in result.text
    latest = read_conversation(str(FIXTURES / "claude_session.jsonl"), budget=400)
    assert latest.attachments == ()  # turn 8 is not shown there
