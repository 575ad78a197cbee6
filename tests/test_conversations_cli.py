"""`wuu conv` as a user runs it: a real process with piped output, JSON, errors, and the terminal colours."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import _docs
from rich.console import Console

from tests._cli import wuu
from wuu_tools import read_conversation
from wuu_tools.cli.conv import _rich

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
SESSION = str(FIXTURES / "claude_session.jsonl")


def test_piped_output_is_the_exact_text() -> None:
    r = wuu("conv", SESSION, "--budget", "400")
    assert r.returncode == 0, r.stderr
    assert r.stdout == read_conversation(SESSION, budget=400).text + "\n"


def test_json_envelope_and_continuation_options() -> None:
    first = json.loads(wuu("conv", SESSION, "--budget", "400", "--json").stdout)
    args = first["continuation"]["args"]
    assert first["meta"]["total_turns"] == 16 and first["complete"] is False
    r = wuu(
        "conv",
        SESSION,
        "--before-turn",
        str(args["before_turn"]),
        "--revision",
        args["revision"],
        "--budget",
        "400",
        "--json",
    )
    older = json.loads(r.stdout)
    assert older["meta"]["shown_turns"][-1][1] == args["before_turn"] - 1


def test_pattern_and_format_options() -> None:
    r = wuu("conv", SESSION, "--pattern", "FAILED", "--format", "claude-code")
    assert r.returncode == 0 and "FAILED tests/test_parser.py::test_order" in r.stdout
    assert "── turn 6 · assistant" in r.stdout


def test_errors_exit_with_one_line() -> None:
    missing = wuu("conv", str(FIXTURES / "nope.jsonl"))
    assert missing.returncode == 1 and missing.stderr.strip().endswith("no such file or directory")
    bad = wuu("conv", SESSION, "--pattern", "(")
    assert bad.returncode == 2 and "not a valid regular expression" in bad.stderr
    unknown = wuu("conv", str(FIXTURES / "generate.py"))
    assert unknown.returncode == 1 and "not a conversation transcript" in unknown.stderr
    as_json = wuu("conv", str(FIXTURES / "nope.jsonl"), "--json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["meta"]["error"]["kind"] == "not_found"


def test_terminal_view_colours_roles_and_dims_tool_calls() -> None:
    console = Console(record=True, force_terminal=True, color_system="standard", width=200)
    _rich(read_conversation(SESSION, before_turn=8), console)
    styled = console.export_text(styles=True, clear=False)
    plain = console.export_text()
    assert "── turn 5 · user" in plain
    user_line = next(x for x in styled.split("\n") if "── turn 5 · user" in x)
    call_line = next(x for x in styled.split("\n") if "→ Bash" in x)
    assert "\x1b[1;32m" in user_line  # bold green user
    assert "\x1b[2m" in call_line  # dimmed tool call


def test_readme_example_is_current() -> None:
    section = _docs.section("conv")
    command = section.split("```bash\n")[1].split("\n```")[0]
    shown = section.split("```text\n")[1].split("\n```")[0]
    assert command.startswith("wuu conv ")
    r = subprocess.run(
        [sys.executable, "-m", "wuu_tools.cli", *command.split()[1:]],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=FIXTURES.parents[1],
    )
    assert r.returncode == 0 and r.stdout.rstrip("\n") == shown
