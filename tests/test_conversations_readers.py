"""The transcript readers: each format into the one model of turns, detection, malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wuu_tools import UnsupportedFormat
from wuu_tools.conversations.detect import parse_transcript
from wuu_tools.conversations.model import Conversation

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def parse(name: str, fmt: str | None = None) -> Conversation:
    return parse_transcript((FIXTURES / name).read_bytes(), name, fmt)


def humans(conv: Conversation) -> list[str]:
    return [t.text for t in conv.turns if t.is_human]


def test_claude_code_session() -> None:
    conv = parse("claude_session.jsonl")
    assert conv.format == "claude-code"
    assert conv.malformed == 1 and conv.malformed_lines == [12]
    assert conv.facts["skipped_records"] == 2  # progress and snapshot lines are not turns
    # caveats, slash commands, command output, reminders, compaction summaries and interrupts are not instructions
    assert humans(conv) == [
        "Fix the flaky test in tests/test_parser.py: it fails one run in ten.",
        "Here is the screenshot of the failure",
        "Don't change the test; sort the output in the parser instead.",
    ]
    kinds = {t.number: t.kind for t in conv.turns}
    assert [kinds[n] for n in (1, 2, 3, 4)] == ["summary", "meta", "command", "command"]
    assert conv.turns[2].text == "/clear"
    # one API message split over three lines is one turn: thinking, text and the call, paired with its result
    turn = conv.turns[5]
    assert (turn.role, turn.text, turn.thinking) == (
        "assistant",
        "Let me run the test a few times.",
        "The flakiness is probably ordering.",
    )
    (call,) = turn.calls
    assert call.name == "Bash" and call.output is not None
    assert call.output.is_error and call.output.exit_code == 1
    # images are attachments, compaction is marked, sidechain lines in a main session are sub-agent turns
    assert conv.turns[7].attachments[0]["mime_type"] == "image/png"
    assert [t.kind for t in conv.turns[8:11]] == ["compaction", "compaction", "interrupt"]
    assert "155,000 tokens" in conv.turns[8].text
    assert [t.kind for t in conv.turns[13:15]] == ["sub-agent", "sub-agent"]
    assert [t.number for t in conv.turns] == list(range(1, 17))


def test_codex_rollout_wrapped() -> None:
    conv = parse("codex_rollout.jsonl")
    assert conv.format == "codex" and conv.models == ["gpt-5-codex"]
    assert conv.facts["context_window"] == 272000 and conv.facts["cli_version"] == "0.40.0"
    assert conv.malformed_lines == [18]
    # the IDE context block keeps only the request; environment context is not an instruction
    assert humans(conv) == [
        "Migrate the services package from supabase-js to prisma in phases.",
        "Keep supabase for auth.",
    ]
    first_call = conv.turns[2].calls[0]
    assert first_call.args["command"] == ["bash", "-lc", "rg supabase"]
    assert first_call.output is not None and first_call.output.text.startswith("src/db.ts")
    failed = conv.turns[3].calls[0].output
    assert failed is not None and failed.is_error and failed.exit_code == 1
    assert conv.turns[2].thinking == "**Looking around**"
    assert conv.turns[4].kind == "interrupt"
    assert conv.turns[6].calls[0].name == "apply_patch"
    assert conv.turns[-1].text.startswith("**Plan**")  # the event_msg copy is not a second turn
    assert len(conv.turns) == 8


def test_codex_bare_old_format() -> None:
    conv = parse("codex_bare.jsonl")
    assert conv.format == "codex"
    assert humans(conv) == ["List the files."]
    call = conv.turns[1].calls[0]
    assert call.name == "shell" and call.args["command"] == ["ls", "-la"]
    assert call.output is not None and call.output.text == "a.py\nb.py"


def test_openai_responses_items_with_instructions() -> None:
    conv = parse("responses_items.json")
    assert conv.format == "openai-responses" and conv.models == ["gpt-5"]
    assert conv.turns[0].role == "system" and conv.turns[0].text == "You are terse."
    call = conv.turns[2].calls[0]
    assert (call.name, call.args) == ("get_weather", {"city": "Paris"})
    assert conv.turns[2].thinking == "Need the weather tool."
    mcp = conv.turns[3].calls[0]
    assert mcp.name == "docs.search" and mcp.output is not None and mcp.output.is_error


def test_anthropic_server_and_mcp_tools() -> None:
    conv = parse("anthropic_server_tools.json")
    assert conv.format == "anthropic-messages"
    assert conv.turns[0].text == "Answer with sources."
    search, lookup = conv.turns[2].calls
    assert search.name == "web_search" and search.output is not None and "example.org" in search.output.text
    assert lookup.name == "fide.lookup" and lookup.output is not None and lookup.output.is_error


def test_swe_agent_history_wrapper() -> None:
    conv = parse("swe_agent.traj.json")
    assert conv.format == "openai-chat"
    assert [t.kind for t in conv.turns] == ["meta", "demo", "", "", "observation", ""]
    assert humans(conv)[0].startswith("We're currently solving the following issue")
    assert conv.turns[3].calls[0].output is not None


def test_openhands_events() -> None:
    conv = parse("openhands_events.json")
    assert conv.format == "openhands"
    assert humans(conv) == ["Make a todo app in /workspace/todo."]
    assert conv.turns[1].text == "First, a directory."
    assert conv.turns[1].calls[0].args == {"command": "mkdir -p /workspace/todo"}
    failed = conv.turns[2].calls[0].output
    assert failed is not None and failed.is_error and failed.exit_code == 1
    assert conv.turns[-1].text == "The todo app is ready in /workspace/todo."


def test_chat_completions_request_and_response(tmp_path: Path) -> None:
    body = {
        "_source": "test",
        "request_body": {
            "model": "gpt-4o",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Look"},
                        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
                    ],
                },
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "done"},
            ],
        },
        "response_body": {"choices": [{"message": {"role": "assistant", "content": "All done."}}]},
    }
    path = tmp_path / "x.json"
    path.write_text(json.dumps(body))
    conv = parse_transcript(path.read_bytes(), str(path))
    assert conv.format == "openai-chat" and conv.models == ["gpt-4o"]
    assert conv.turns[0].attachments == [{"type": "image", "mime_type": "image/jpeg", "data": "AAAA"}]
    assert conv.turns[1].calls[0].args == {"x": 1}
    assert conv.turns[-1].text == "All done."


def test_forced_format_and_wrong_forced_format() -> None:
    data = (FIXTURES / "codex_rollout.jsonl").read_bytes()
    assert parse_transcript(data, "x", "codex").format == "codex"
    with pytest.raises(UnsupportedFormat) as info:
        parse_transcript(data, "x", "openhands")
    # a forced format that reads under half the lines is refused, naming the kinds seen and the format they look like
    assert "only 0 of 19 lines are of kinds it reads" in info.value.message
    assert "type=response_item ×12" in info.value.message and "looks like Codex CLI rollout JSONL" in info.value.message


@pytest.mark.parametrize(
    "content",
    [b"", b"   \n\n", b"just some text\nand more\n", b"[1, 2, 3]", b'{"hello": "world"}', b"\x89PNG\r\n\x1a\n\x00\x00"],
)
def test_unknown_formats_name_what_was_tried(content: bytes) -> None:
    with pytest.raises(UnsupportedFormat) as info:
        parse_transcript(content, "t.jsonl")
    message = info.value.message
    assert message.startswith("t.jsonl:")
    assert "empty" in message or ("Claude Code" in message and "Codex" in message and "OpenHands" in message)


def test_malformed_lines_are_counted_not_fatal() -> None:
    lines = (FIXTURES / "claude_session.jsonl").read_text().splitlines()
    broken = "\n".join([*lines[:5], "{not json", "[1, 2]", lines[5][: len(lines[5]) // 2], *lines[5:]])
    conv = parse_transcript(broken.encode(), "x")
    assert conv.malformed == 4  # the three added lines and the fixture's own broken line
    assert len(conv.turns) == len(parse("claude_session.jsonl").turns)


def test_truncated_last_line_of_a_live_session() -> None:
    data = (FIXTURES / "codex_rollout.jsonl").read_bytes()
    conv = parse_transcript(data[:-40], "x")
    assert conv.malformed == 2  # the file's own bad line and the cut last one
    assert conv.turns[-1].text != "**Plan**"


# -- the real transcripts -------------------------------------------------------------------------

REAL = {
    "agentcmd_full-session-four.jsonl": ("claude-code", "Can you add the first two initials"),
    "subagent_agent-95ed9ff0.jsonl": ("claude-code", None),
    "claude-history_v2.1.29_agent-aae161c.jsonl": ("claude-code", "Fix two lint errors"),
    "rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl": ("codex", "I want to migrate this app"),
    "kvsankar_real_session_codex_0.135.0_redacted.jsonl": ("codex", "[REDACTED_PROMPT]"),
    "openai_multiple_agent_tool_calls.request.json": ("openai-chat", "What is the capital of France?"),
    "anthropic_deferred_capability_tool_callable.request.json": ("anthropic-messages", "First load the refunds"),
    "anthropic_mixed_strict_tool_run.request.json": ("anthropic-messages", "Use the registered tools"),
    "mini-swe-agent_astropy__astropy-12907.traj.json": ("openai-chat", "<pr_description>"),
    "basic_gui_mode.json": ("openhands", "I want to create a VueJS app"),
}


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_transcripts(realdata: Path, name: str) -> None:
    fmt, request = REAL[name]
    conv = parse_transcript((realdata / "transcripts" / name).read_bytes(), name)
    assert conv.format == fmt and conv.malformed == 0
    first = next((t for t in conv.turns if t.is_human), None)
    if request is None:
        assert first is None  # a sub-agent file that starts with the agent's own message
    else:
        assert first is not None and first.text.startswith(request)
    calls = [c for t in conv.turns for c in t.calls]
    unanswered = [c for c in calls if c.output is None]
    assert len(unanswered) <= 1  # every call paired with its result (mini-swe-agent's last call exits instead)


@pytest.mark.realdata
def test_real_claude_details(realdata: Path) -> None:
    conv = parse_transcript((realdata / "transcripts" / "agentcmd_full-session-four.jsonl").read_bytes(), "x")
    assert [t.text for t in conv.turns if t.is_human][1:] == [
        "does it get the logged in user from the authStore?",
        "The username I am logged in with is jnarowski but the menu says Guest User. "
        "We should use the initials from the username if name isn't present",
    ]
    sub = parse_transcript((realdata / "transcripts" / "subagent_agent-95ed9ff0.jsonl").read_bytes(), "x")
    errors = [c.output.text for t in sub.turns for c in t.calls if c.output and c.output.is_error]
    assert any("TS6133" in e for e in errors)
    codex = parse_transcript(
        (
            realdata / "transcripts" / "rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl"
        ).read_bytes(),
        "x",
    )
    assert sum(len(t.calls) for t in codex.turns) == 84
