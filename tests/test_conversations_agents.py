"""The readers of more agents: Gemini CLI (stream, sessions, checkpoints), managed-agent events, Markdown exports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wuu_tools import UnsupportedFormat, read_conversation
from wuu_tools.conversations.detect import parse_transcript
from wuu_tools.conversations.model import Conversation, ToolCall

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def parse(name: str, fmt: str | None = None) -> Conversation:
    return parse_transcript((FIXTURES / name).read_bytes(), name, fmt)


def calls(conv: Conversation) -> list[ToolCall]:
    return [c for t in conv.turns for c in t.calls]


def test_gemini_stream() -> None:
    conv = parse("gemini_stream.jsonl")
    assert conv.format == "gemini-cli" and conv.models == ["gemini-2.5-pro"] and conv.unread == 0
    assert conv.turns[0].is_human and conv.turns[0].text.startswith("Add a --dry-run flag")
    assert conv.turns[1].text == "I'll read the release script first."  # the deltas joined
    # two calls of one response, answered out of order, paired by tool_id
    replace, run = conv.turns[2].calls
    assert replace.output is not None and replace.output.text.startswith("Successfully modified")
    assert run.output is not None and run.output.is_error and "already exists" in run.output.text
    assert (conv.turns[3].role, conv.turns[3].kind) == ("system", "meta") and "Loop detection" in conv.turns[3].text
    assert conv.turns[-1].text.startswith("Done:") and conv.facts["tokens_used"] == 18234
    assert all(c.output is not None for c in calls(conv))


def test_gemini_session_json() -> None:
    conv = parse("gemini_session.json")
    assert conv.format == "gemini-session" and conv.models == ["gemini-2.5-flash"]
    first, answer, info, reads, last = conv.turns
    assert first.is_human and first.text == "Why does `make test` fail on a clean checkout?"
    assert answer.thinking == "Reproducing: Run the failing target before reading the Makefile."
    (shell,) = answer.calls
    assert shell.name == "run_shell_command" and shell.args == {"command": "make test"}
    assert shell.output is not None and "No rule to make target" in shell.output.text
    assert info.kind == "meta" and info.text.startswith("info: Switched to fallback model")
    makefile, glob = reads.calls
    assert makefile.output is not None and not makefile.output.is_error
    assert glob.output is not None and glob.output.is_error and "No files found" in glob.output.text
    assert last.text.startswith("`build/config.h` is generated")


def test_gemini_session_jsonl_rewrites_and_rewinds(tmp_path: Path) -> None:
    records = [
        {"sessionId": "s1", "projectHash": "ab" * 32, "startTime": "2026-01-01T00:00:00Z", "kind": "main"},
        {"id": "a", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": "first try"},
        {"id": "b", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "on it"},
        {"id": "b", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "on it, calling a tool",
         "toolCalls": [{"id": "t1", "name": "ls", "args": {}, "status": "success", "result": [
             {"functionResponse": {"id": "t1", "name": "ls", "response": {"output": "a.txt"}}}]}]},
        {"$set": {"lastUpdated": "2026-01-01T00:00:03Z"}},
        {"$rewindTo": "a"},  # the user rewound: both messages are gone
        {"id": "c", "timestamp": "2026-01-01T00:00:04Z", "type": "user", "content": [{"text": "second try"}]},
        {"id": "d", "timestamp": "2026-01-01T00:00:05Z", "type": "gemini", "content": [{"text": "done"}]},
    ]  # fmt: skip
    path = tmp_path / "session-2026-01-01T00-00-abcd1234.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    conv = parse_transcript(path.read_bytes(), str(path))
    assert conv.format == "gemini-session" and conv.unread == 0
    assert [(t.role, t.text) for t in conv.turns] == [("user", "second try"), ("assistant", "done")]


def test_gemini_checkpoints(tmp_path: Path) -> None:
    legacy = [  # the older checkpoint: a bare list of contents; calls without ids are paired by name, in order
        {"role": "user", "parts": [{"text": "What is in the repo?"}]},
        {"role": "model", "parts": [{"text": "Listing it.", "thought": True},
                                    {"functionCall": {"name": "ls", "args": {"path": "."}}},
                                    {"functionCall": {"name": "cat", "args": {"path": "README"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "cat", "response": {"output": "# Demo"}}},
                                   {"functionResponse": {"name": "ls", "response": {"output": "README\nsrc"}}}]},
        {"role": "model", "parts": [{"text": "A README and a src folder."}]},
    ]  # fmt: skip
    path = tmp_path / "checkpoint-demo.json"
    path.write_text(json.dumps(legacy))
    conv = parse_transcript(path.read_bytes(), str(path))
    assert conv.format == "gemini-contents"
    ls, cat = conv.turns[1].calls
    assert conv.turns[1].thinking == "Listing it." and not conv.turns[1].text
    assert ls.output is not None and ls.output.text == "README\nsrc"
    assert cat.output is not None and cat.output.text == "# Demo"
    assert conv.turns[-1].text == "A README and a src folder."
    path.write_text(json.dumps({"history": legacy, "authType": "oauth-personal"}))
    assert parse_transcript(path.read_bytes(), str(path)).format == "gemini-contents"
    # a Gemini API request body: contents and a system instruction
    path.write_text(json.dumps({"contents": legacy, "systemInstruction": {"parts": [{"text": "Be brief."}]}}))
    body = parse_transcript(path.read_bytes(), str(path))
    assert body.format == "gemini-contents" and (body.turns[0].role, body.turns[0].text) == ("system", "Be brief.")


def test_anthropic_agent_events_as_listed_and_wrapped(tmp_path: Path) -> None:
    conv = parse("anthropic_agent_events.json")  # the API's list: {"data": [...], "next_page": null}
    assert conv.format == "anthropic-agent" and conv.unread == 0
    labels = [(t.role, t.kind) for t in conv.turns]
    assert labels == [
        ("user", ""),
        ("assistant", ""),
        ("assistant", ""),
        ("system", "meta"),
        ("assistant", ""),
        ("system", "compaction"),
        ("assistant", ""),
        ("system", ""),
    ]
    assert conv.turns[0].text.startswith("Check that every link in docs/")
    (grep,) = conv.turns[1].calls
    assert grep.name == "bash" and grep.output is not None and "old-page" in grep.output.text
    (fetch,) = conv.turns[2].calls
    assert fetch.name == "web.fetch_url" and fetch.output is not None and fetch.output.is_error
    (issue,) = conv.turns[4].calls  # a custom tool answered by the client's user.custom_tool_result
    assert issue.output is not None and issue.output.text == "Created issue #212"
    assert conv.turns[7].text.startswith("outcome evaluation 0: needs_revision")
    # an exporter's wrapper {role, kind, content, time, raw} around the same events reads the same
    events = json.loads((FIXTURES / "anthropic_agent_events.json").read_text())["data"]
    wrapped = [
        {"role": e["type"].split(".")[0], "kind": e["type"].split(".")[1], "time": e["processed_at"], "raw": e}
        for e in events
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(w) + "\n" for w in wrapped))
    again = parse_transcript(path.read_bytes(), str(path))
    assert again.format == "anthropic-agent"
    assert [(t.role, t.kind, t.text) for t in again.turns] == [(t.role, t.kind, t.text) for t in conv.turns]
    # a wrapper without raw: text and tool input in content, tool name in tool; results answer calls in order
    bare = []
    for e in events:
        role, kind = e["type"].split(".")
        row = {"role": "system" if role in ("session", "span") else role, "kind": kind, "time": e["processed_at"]}
        if "content" in e:
            row["content"] = "\n".join(b["text"] for b in e["content"])
        if "input" in e:
            row["tool"], row["content"] = e["name"], json.dumps(e["input"])
        bare.append(row)
    path.write_text("".join(json.dumps(b) + "\n" for b in bare))
    plain = parse_transcript(path.read_bytes(), str(path))
    assert plain.format == "anthropic-agent" and plain.unread == 0
    assert plain.turns[0].is_human and plain.turns[0].text == conv.turns[0].text
    assert [(c.name, c.output.text if c.output else None) for c in calls(plain)] == [
        ("bash", "https://example.org/guide\nhttps://example.org/old-page\n"),
        ("fetch_url", "HTTP 404 Not Found"),
        ("create_issue", "Created issue #212"),
    ]


def test_define_outcome_is_the_task_and_its_rubric_waits(tmp_path: Path) -> None:
    rubric = "\n".join(f"{n}. criterion {n} must hold in the output files" for n in range(1, 60))
    events = [
        {"role": "user", "kind": "define_outcome", "time": "2026-01-01T00:00:00Z",
         "raw": {"type": "user.define_outcome", "id": "e1", "processed_at": "2026-01-01T00:00:00Z",
                 "description": "Write a haiku about tests into out/haiku.md",
                 "rubric": {"type": "text", "content": rubric}}},
        *[{"role": "agent", "kind": "tool_use", "tool": "bash", "content": json.dumps({"command": f"echo {n}"}),
           "time": "2026-01-01T00:00:01Z"} for n in range(40)],
        {"role": "agent", "kind": "message", "content": "Wrote out/haiku.md.", "time": "2026-01-01T00:00:02Z"},
    ]  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    view = read_conversation(str(path), budget=800)
    assert view.text.startswith("[conversation: anthropic-agent")
    body = view.text.split("\n")
    task = body.index(next(x for x in body if x.startswith("[task · turn 1 · first request")))
    assert body[task + 1] == "Write a haiku about tests into out/haiku.md"
    assert (
        "criterion 9 " not in view.text and "(the instructions continue:" in view.text
    )  # the rubric is left for the saved copy
    assert "Wrote out/haiku.md." in view.text


def test_amp_thread() -> None:
    conv = parse("amp_thread.md")
    assert conv.format == "markdown-chat" and conv.unread == 0
    assert conv.facts["title"] == "Fix the date parsing in the CSV importer"
    first = conv.turns[0]
    assert first.is_human and first.timestamp == "2026-02-11 14:02:17"  # the export's creation time
    assert first.text.startswith("The importer in `src/importer.py` drops rows")
    reading = conv.turns[1]
    assert (
        reading.thinking.startswith("The parser probably calls")
        and reading.text == "I'll look at the importer and its tests."
    )
    read, grep = reading.calls  # results carry ids the calls lack: paired in order
    assert read.args == {"path": "/home/dev/ledger/src/importer.py"} and read.output is not None
    assert "absolutePath" in read.output.text and grep.output is not None and grep.output.text.startswith("[")
    test_run = conv.turns[2].calls[1]
    assert test_run.output is not None and test_run.output.is_error and test_run.output.exit_code == 1
    assert test_run.output.text.startswith("F.\n====")  # Amp's {"output", "exitCode"} unwrapped
    later = [t.text for t in conv.turns if t.is_human][1:]
    assert later == ["Also print a warning for rows that still cannot be parsed, instead of raising."]
    assert "## User\nthis heading is inside a code block" in conv.turns[5].text  # a fenced heading is text
    assert conv.turns[-1].text.startswith("## Summary")  # an answer's own heading stays in the answer
    assert len(conv.turns) == 7 and all(c.output is not None for c in calls(conv))


def test_markdown_chat_of_other_exporters(tmp_path: Path) -> None:
    text = "\n".join(
        [
            "Exported with some-tool 1.2",
            "",
            "### 👤 User (2026-03-01 09:30:00)",
            "",
            "Rename `getUser` to `fetchUser` everywhere.",
            "",
            "### 🤖 Claude (2026-03-01 09:30:05)",
            "",
            "**Tool Use:** `bash` (`tool_01`)",
            "```json",
            '{"command": "rg -l getUser"}',
            "```",
            "**Tool Use:** `bash` (`tool_02`)",
            "```json",
            '{"command": "git status --short"}',
            "```",
            "",
            "### 👤 User",
            "",
            "**Tool Result:** `tool_02`",
            "```",
            "M src/api.ts",
            "```",
            "**Tool Result:** `tool_01` (error)",
            "```",
            "rg: command not found",
            "```",
            "",
            "### 🤖 Claude",
            "",
            "`rg` is missing; using grep instead.",
        ]
    )
    path = tmp_path / "chat.md"
    path.write_text(text)
    conv = parse_transcript(path.read_bytes(), str(path))
    assert conv.format == "markdown-chat"
    assert conv.turns[0].timestamp == "2026-03-01 09:30:00" and conv.turns[1].timestamp == "2026-03-01 09:30:05"
    rg, status = conv.turns[1].calls
    assert rg.output is not None and rg.output.is_error and rg.output.text == "rg: command not found"
    assert status.output is not None and status.output.text == "M src/api.ts"
    # the line before the first role heading is not part of any message: left out, and said so
    assert conv.unread == 1 and conv.unread_kinds == {"text before the first role heading": 1}
    view = read_conversation(str(path))
    assert "1 line of kinds this format does not hold left out: text before the first role heading ×1" in view.text


def test_markdown_chat_with_role_lines(tmp_path: Path) -> None:
    """SpecStory writes a role alone on a line in bold italics, messages separated by rules."""
    text = "\n".join(
        [
            "<!-- Generated by SpecStory -->",
            "",
            "# Add a retry to fetchJson (2026-02-03 11:20Z)",
            "",
            "_**User (2026-02-03 11:20Z)**_",
            "",
            "Retry `fetchJson` three times with backoff.",
            "",
            "---",
            "",
            "_**Agent (some-model-2)**_",
            "",
            "Wrapped the call in a loop; the delay doubles from 200 ms.",
            "",
            "---",
            "",
            "_**User**_",
            "",
            "Make it five.",
        ]
    )
    path = tmp_path / "history.md"
    path.write_text(text)
    conv = parse_transcript(path.read_bytes(), str(path))
    assert conv.format == "markdown-chat" and conv.unread == 0 and conv.facts["title"].startswith("Add a retry")
    assert [(t.role, t.text) for t in conv.turns] == [
        ("user", "Retry `fetchJson` three times with backoff."),
        ("assistant", "Wrapped the call in a loop; the delay doubles from 200 ms."),
        ("user", "Make it five."),
    ]
    assert conv.turns[0].timestamp == "2026-02-03 11:20:00"


def test_aider_history() -> None:
    conv = parse("aider_history.md")
    assert conv.format == "aider" and conv.models == ["anthropic/claude-sonnet-4"]
    kinds = [(t.role, t.kind) for t in conv.turns]
    assert kinds[:6] == [
        ("system", "meta"),
        ("system", "meta"),
        ("user", "command"),
        ("system", "meta"),
        ("user", ""),
        ("assistant", ""),
    ]
    assert conv.turns[0].timestamp == "2026-01-19 16:40:05"
    request = conv.turns[4]
    assert request.text == (
        "median() returns the wrong value for lists with an even number of items.\n"
        "It should average the two middle values."
    )
    edits = calls(conv)
    assert [(c.name, c.args["path"]) for c in edits] == [("edit", "stats.py")] * 3
    assert [c.output.is_error for c in edits if c.output] == [False, True, False]
    assert "failed to match" in edits[1].output.text  # type: ignore[union-attr]
    answer = conv.turns[9]  # a fenced '#### ' and '> ' inside an answer are code, not a message or output
    assert "# #### ValueError" in answer.text and "# > python" in answer.text
    humans = [t.text for t in conv.turns if t.is_human]
    assert humans == [request.text, "also handle an empty list", "fix the failing test in mode()"]
    assert conv.turns[-1].text.startswith("The test expects the most common value")
    assert sum(t.text.startswith("aider chat started at") for t in conv.turns) == 2


@pytest.mark.parametrize(
    "text",
    [
        "# Project\n\n## Usage\n\nRun it.\n\n## User\n\nSomeone who runs it.\n",  # no assistant heading
        "#### a heading\n\n#### another\n\nPlain text.\n",  # aider-like lines without aider's session line
        "## Assistant\n\n```\n## User\n```\n",  # the user heading is inside a fence
    ],
)
def test_markdown_that_is_not_a_chat_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "notes.md"
    path.write_text(text)
    with pytest.raises(UnsupportedFormat) as info:
        parse_transcript(path.read_bytes(), str(path))
    assert "nor a Markdown chat" in info.value.message and "aider chat history" in info.value.message


def test_forced_markdown_formats(tmp_path: Path) -> None:
    assert parse("amp_thread.md", "markdown-chat").format == "markdown-chat"
    with pytest.raises(UnsupportedFormat, match="no '# aider chat started at' line"):
        parse("amp_thread.md", "aider")
    with pytest.raises(UnsupportedFormat, match="no user and assistant headings"):
        parse("gemini_stream.jsonl", "markdown-chat")
    with pytest.raises(
        UnsupportedFormat, match=r"read as Claude Code .* holds no turns: \d+ of \d+ non-empty lines are not JSON"
    ):
        parse("amp_thread.md", "claude-code")


# -- the real samples ------------------------------------------------------------------------------------

REAL = {
    "gemini_cli/figma-eval-d00f7a9b_stream.jsonl": "gemini-cli",
    "anthropic_sessions/there-is-more-to-context-than-location_events.jsonl": "anthropic-agent",
}


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(REAL))
def test_wuu_conv_on_the_real_samples(realdata: Path, name: str) -> None:
    path = realdata / "transcripts" / name
    run = subprocess.run(
        [sys.executable, "-m", "wuu_tools.cli", "conv", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    view = json.loads(run.stdout)
    text, meta = view["text"], view["meta"]
    conv = parse_transcript(path.read_bytes(), name)
    # the header names the format; nothing was left unread
    assert text.startswith(f"[conversation: {REAL[name]} · {len(conv.turns)} turns") and "left out" not in text
    # the task anchor holds the first request (its first lines, as written)
    first = next(t for t in conv.turns if t.is_human)
    assert meta["anchor_turns"][0] == first.number
    task = text.split("\n")
    start = task.index(next(x for x in task if x.startswith(f"[task · turn {first.number} · first request")))
    assert task[start + 1 : start + 4] == first.text.split("\n")[:3]
    # the last turn is shown in full
    total = meta["total_turns"]
    assert meta["shown_turns"][-1][1] == total and f"── turn {total} · " in text
    # tool calls are counted in the index: each indexed turn names its calls, the summarised ones are counted
    index = text[text.index("in short: one line each") : text.index("[latest turns")].split("\n")[1:]
    by_number = {t.number: t for t in conv.turns}
    listed = [x for x in index if x.strip()[:1].isdigit() and "not indexed here" not in x]
    for line in listed:
        turn = by_number[int(line.split()[0])]
        assert all(c.name in line for c in turn.calls[:1])
    summary = [x for x in index if "not indexed here" in x]
    if summary:
        span = summary[0].split()[0]
        lo, hi = (int(x) for x in span.split("–")) if "–" in span else (int(span), int(span))
        summarised = sum(len(by_number[n].calls) for n in range(lo, hi + 1))
        assert summarised == 0 or "tool calls:" in summary[0]
    assert sum(len(t.calls) for t in conv.turns) > 0
