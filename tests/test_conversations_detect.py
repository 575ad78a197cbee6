"""No silent misread: a format is claimed on its own marks, lines it does not read are named, a poor fit is refused."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest
from _transcripts import transcript_generator
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from wuu_tools import UnsupportedFormat, read_conversation
from wuu_tools.conversations import FORMATS
from wuu_tools.conversations.detect import parse_transcript
from wuu_tools.conversations.tool import FormatName

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
gen = transcript_generator()
JSONL = ("claude-code", "codex", "gemini-cli", "gemini-session", "anthropic-agent")


def test_every_format_has_a_writer_and_a_format_name() -> None:
    assert sorted(gen.WRITERS) == sorted(FORMATS)
    assert sorted(FormatName.__args__) == sorted(FORMATS)  # the schema's format= values


def test_a_role_key_claims_nothing(tmp_path: Path) -> None:
    lines = [{"role": "narrator", "kind": "scene", "content": f"scene {n}"} for n in range(5)]
    path = tmp_path / "story.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(UnsupportedFormat) as info:
        parse_transcript(path.read_bytes(), "story.jsonl")
    message = info.value.message
    assert message.startswith("story.jsonl: not a conversation transcript in a known format: its 5 lines are")
    assert "role=narrator kind=scene ×5" in message and "tried: Claude Code session JSONL" in message


def test_a_format_that_reads_under_half_is_refused_with_what_was_seen(tmp_path: Path) -> None:
    chat = [{"role": "user", "content": "Deploy the site."}, {"role": "assistant", "content": "Deploying."}]
    steps = [{"type": "step_started", "step": n, "detail": {"cmd": "make"}} for n in range(6)]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [*chat, *steps]))
    with pytest.raises(UnsupportedFormat) as info:
        read_conversation(str(path))
    message = info.value.message
    assert (
        "not read as OpenAI chat-completions messages (openai-chat): only 2 of 8 lines are of kinds it reads" in message
    )
    assert "type=step_started ×6, role=user ×1, role=assistant ×1" in message and "tried:" in message


def test_lines_of_other_kinds_are_named_in_the_view(tmp_path: Path) -> None:
    lines = (FIXTURES / "claude_session.jsonl").read_text().splitlines()
    foreign = [json.dumps({"type": "attachment", "uuid": f"x{n}", "attachment": {"kind": "file"}}) for n in range(3)]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([*lines[:4], *foreign, *lines[4:]]) + "\n")
    view = read_conversation(str(path))
    header = view.text.split("\n")[0]
    assert "conversation: claude-code" in header
    assert "3 lines of kinds this format does not hold left out: type=attachment ×3" in header
    assert view.meta["unread_lines"] == 3 and view.meta["unread_kinds"] == {"type=attachment": 3}
    items = json.loads((FIXTURES / "anthropic_server_tools.json").read_text())["messages"]
    items.insert(1, {"kind": "note", "body": "exported by a viewer"})
    doc = tmp_path / "list.json"
    doc.write_text(json.dumps(items))
    listed = read_conversation(str(doc))
    assert "conversation: anthropic-messages" in listed.text.split("\n")[0]
    assert "1 item of kinds this format does not hold left out: {body,kind} ×1" in listed.text.split("\n")[0]
    plain = read_conversation(str(FIXTURES / "claude_session.jsonl"))
    assert "left out" not in plain.text and "unread_lines" not in plain.meta


def test_the_two_old_misreads(tmp_path: Path) -> None:
    """A Gemini stream and wrapped managed-agent events were shown as openai-chat, losing the tools or the task."""
    gemini = parse_transcript((FIXTURES / "gemini_stream.jsonl").read_bytes(), "g")
    assert gemini.format == "gemini-cli" and sum(len(t.calls) for t in gemini.turns) == 4
    events = json.loads((FIXTURES / "anthropic_agent_events.json").read_text())["data"]
    wrapped = [{"role": e["type"].split(".")[0], "kind": e["type"].split(".")[1], "raw": e} for e in events]
    path = tmp_path / "w.jsonl"
    path.write_text("".join(json.dumps(w) + "\n" for w in wrapped))
    agent = parse_transcript(path.read_bytes(), "w")
    assert agent.format == "anthropic-agent" and agent.turns[0].is_human
    assert not any(t.role == "system" and t.text.startswith(("session", "span")) for t in agent.turns)
    with pytest.raises(UnsupportedFormat, match=r"only \d+ of 24 lines are of kinds it reads"):
        parse_transcript(path.read_bytes(), "w", "openai-chat")


# -- the property: a transcript of one format never reads as another ---------------------------------------

_WORDS = st.sampled_from(["alpha", "beta", "δέλτα", "x" * 120, "{}", "—", "role", "type", "user", "## note", "\n"])
step_strategy = st.builds(
    lambda role, words, calls, failed: gen.Step(
        role,
        " ".join(words).strip() or "ok",
        [
            gen.Call(
                "Bash", {"command": f"run {i}"}, "line\n" * (i + 1) + ("error: boom" if failed else "fine"), failed
            )
            for i in range(calls)
        ]
        if role == "assistant"
        else [],
    ),
    st.sampled_from(["user", "assistant", "assistant"]),
    st.lists(_WORDS, max_size=12),
    st.integers(0, 3),
    st.booleans(),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(step_strategy, min_size=1, max_size=12),
    fmt=st.sampled_from(sorted(gen.WRITERS)),
    foreign=st.integers(0, 3),
    seed=st.integers(0, 1000),
)
def test_property_one_format_never_parses_as_another(steps: list, fmt: str, foreign: int, seed: int) -> None:
    if not any(s.role == "user" for s in steps):
        steps = [gen.Step("user", "start"), *steps]
    # A Markdown chat is told apart from any other Markdown file by its user and assistant headings both.
    assume(fmt != "markdown-chat" or any(s.role == "assistant" for s in steps))
    with tempfile.TemporaryDirectory() as tmp:
        path = gen.WRITERS[fmt](steps, Path(tmp) / "t")
        data = path.read_bytes()
        conv = parse_transcript(data, "t")
        # A bare list of Anthropic messages holding only text blocks is also a valid OpenAI chat list (text
        # parts): nothing in the bytes tells them apart, and both read the same turns.
        ambiguous = fmt == "anthropic-messages" and not any(s.calls for s in steps)
        assert conv.format == fmt or (ambiguous and conv.format == "openai-chat")
        assert conv.unread == 0 and conv.malformed == 0
        assert sum(len(t.calls) for t in conv.turns) == sum(len(s.calls) for s in steps) or fmt == "aider"
        if fmt in JSONL and foreign:  # lines of an unknown kind are left out, named, and change nothing else
            lines = data.decode().splitlines()
            # A file with more lines of unknown kinds than of its own is rightly not read as that format.
            assume(foreign <= len(lines))
            rng = random.Random(seed)
            for n in range(foreign):
                lines.insert(
                    rng.randint(1, len(lines)), json.dumps({"type": f"zz_unknown_{n}", "uuid": "u", "id": "i"})
                )
            mixed = parse_transcript(("\n".join(lines) + "\n").encode(), "t")
            assert mixed.format == fmt and mixed.unread == foreign
            assert [t.text for t in mixed.turns] == [t.text for t in conv.turns]


# -- hostile input: odd records and Markdown never crash a reader -----------------------------------------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from(["", "user", "assistant", "model", "agent", "system", "message", "tool_use", "tool_result"]),
    st.sampled_from(["init", "result", "gemini", "agent.tool_use", "agent.tool_result", "user.define_outcome", "t1"]),
)
_KEYS = st.sampled_from(
    [
        "type",
        "role",
        "kind",
        "raw",
        "content",
        "parts",
        "tool_id",
        "tool_name",
        "parameters",
        "status",
        "output",
        "id",
        "sessionId",
        "projectHash",
        "messages",
        "toolCalls",
        "thoughts",
        "$set",
        "$rewindTo",
        "functionCall",
        "functionResponse",
        "name",
        "args",
        "response",
        "text",
        "thought",
        "delta",
        "time",
        "tool_use_id",
        "input",
        "is_error",
        "rubric",
        "description",
        "uuid",
        "payload",
        "action",
        "observation",
        "tool_calls",
        "data",
    ]
)
_VALUES = st.recursive(
    _SCALARS, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(_KEYS, c, max_size=4)), max_leaves=8
)
_MD = st.sampled_from(
    [
        "## User",
        "## Assistant",
        "_**User**_",
        "#### hi",
        "# aider chat started at 2026-01-01 10:00:00",
        "> Applied edit to a.py",
        "```",
        "```json",
        "**Tool Use:** `Bash`",
        "**Tool Result:** `t1`",
        "**Thinking**",
        "text",
        "",
        "---",
        "a.py",
        "<<<<<<< SEARCH",
        ">>>>>>> REPLACE",
        '{"output": "o", "exitCode": 2}',
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    records=st.lists(st.dictionaries(_KEYS, _VALUES, max_size=6), min_size=1, max_size=6),
    as_list=st.booleans(),
    fmt=st.sampled_from([None, "gemini-cli", "gemini-session", "gemini-contents", "anthropic-agent", "openai-chat"]),
)
def test_property_odd_records_are_read_or_refused(records: list, as_list: bool, fmt: str | None) -> None:
    data = json.dumps(records) if as_list else "\n".join(json.dumps(r) for r in records)
    try:
        parse_transcript(data.encode(), "odd", fmt)
    except UnsupportedFormat as exc:
        assert exc.message.startswith("odd:")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_MD, min_size=1, max_size=24), fmt=st.sampled_from([None, "markdown-chat", "aider"]))
def test_property_odd_markdown_is_read_or_refused(lines: list[str], fmt: FormatName | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.md"
        path.write_text("\n".join(lines))
        try:
            view = read_conversation(str(path), budget=300, format=fmt)
        except UnsupportedFormat:
            return
        assert view.tokens <= 300


def test_markdown_holding_json_lines_is_markdown(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text('## User\n\nrun it\n\n## Assistant\n\n{"output": "o", "exitCode": 2}\n{"output": "p"}\n')
    assert parse_transcript(path.read_bytes(), "t").format == "markdown-chat"
