"""One text for view, page and search: read_saved pages and greps what the first view showed.

A coloured test run (as pytest, cargo and jest print with ``--color`` or a forced TTY) is saved
by ``run_command``; its evidence shows clean lines, and the suggested search, a search for what
the view shows, and the pages of the saved log all see that same clean text with the same line
numbers. ``raw=True`` returns the stored bytes. Patterns follow ripgrep's smart case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wuu_tools import read_conversation, read_saved, run_command
from wuu_tools.core.calls import parse_call
from wuu_tools.core.pattern import compile_pattern
from wuu_tools.logs.evidence import classify, clean_line
from wuu_tools.logs.view import GREP_HINT, project_log

WUU = Path(sys.executable).with_name("wuu")
FAILED = "\x1b[31mFAILED\x1b[0m tests/test_b.py::test_parse - AssertionError: boom"

SCRIPT = f"""
import sys
for i in range(400):
    print(f"tests/test_a.py::test_{{i}} \\x1b[32mPASSED\\x1b[0m")
    if i == 200:
        print("collecting 10%\\rcollecting 50%\\rcollecting 100%")
print({FAILED!r})
print("E       assert 1 == 2")
print("\\x1b[31m=== 1 failed, 400 passed in 2.00s ===\\x1b[0m")
sys.exit(1)
"""


@pytest.fixture
def coloured(tmp_path: Path) -> str:
    script = tmp_path / "colour.py"
    script.write_text(SCRIPT)
    result = run_command([sys.executable, str(script)], budget=400)
    assert result.meta["exit_code"] == 1 and result.source
    # pytest's view by tool (issue 33): the PASSED lines folded, the failure as printed
    assert "\nFAILED tests/test_b.py::test_parse - AssertionError: boom" in result.text
    return result.source


def test_the_views_own_search_finds_the_failure_it_shows(coloured: str) -> None:
    hinted = read_saved(coloured, pattern=GREP_HINT, budget=2000)
    assert hinted.meta["matches"] >= 3  # FAILED, the E line, the summary
    assert "402:\tFAILED tests/test_b.py::test_parse - AssertionError: boom" in hinted.text
    exact = read_saved(coloured, pattern="FAILED tests")
    assert exact.meta["matches"] == 1 and "402:\tFAILED tests/test_b.py" in exact.text
    assert "\x1b" not in exact.text and "[31m" not in exact.text


def test_pages_show_the_clean_text_at_the_same_line_numbers(coloured: str) -> None:
    page = read_saved(coloured, start_line=200, end_line=204)
    assert "\x1b" not in page.text and "[32m" not in page.text
    assert "200\ttests/test_a.py::test_199 PASSED" in page.text
    assert "202\tcollecting 100%" in page.text  # the redraws collapsed to their last state
    assert "203\ttests/test_a.py::test_201 PASSED" in page.text  # no line number moved
    after = read_saved(coloured, pattern="^collecting")
    assert after.meta["matches"] == 1 and "202:\tcollecting 100%" in after.text


def test_raw_returns_the_stored_bytes_and_keeps_raw_along_the_chain(coloured: str) -> None:
    page = read_saved(coloured, start_line=202, end_line=203, raw=True)
    assert "202\tcollecting 10%␍collecting 50%␍collecting 100%" in page.text
    assert "203\ttests/test_a.py::test_201 \x1b[32mPASSED\x1b[0m" in page.text
    assert read_saved(coloured, pattern=r"\[32mPASSED", raw=True).meta["matches"] == 400
    assert read_saved(coloured, pattern=r"\[32mPASSED").meta["matches"] == 0
    chain = read_saved(coloured, raw=True, budget=200)
    assert chain.continuation is not None and chain.continuation["args"]["raw"] is True
    grep = read_saved(coloured, pattern="passed", raw=True, budget=100)
    assert grep.continuation is not None and grep.continuation["args"]["raw"] is True


@pytest.mark.parametrize(
    ("pattern", "line", "hit"),
    [
        ("(error|fail|panic|exception)", "FAILED tests/test_b.py::test_parse", True),
        ("error", "AssertionError: boom", True),
        ("exception", "ValueException raised", True),
        ("fail:", "FAIL: test_parse (tests.test_b.TestB)", True),
        ("Error", "error: lowercase only", False),  # an upper-case letter makes it case-sensitive
        (r"\berror\b\S*", "ERROR: upper", True),  # escapes such as \S are not upper-case letters
        ("(?i)Error", "ERROR: upper", True),  # an explicit flag wins
        ("(?-i:error)", "ERROR: upper", False),
    ],
)
def test_smart_case(pattern: str, line: str, hit: bool) -> None:
    assert bool(compile_pattern(pattern).search(line)) is hit


def test_smart_case_in_read_saved(coloured: str) -> None:
    assert read_saved(coloured, pattern="assertionerror").meta["matches"] == 1
    assert read_saved(coloured, pattern="Assertionerror").meta["matches"] == 0
    assert "/assertionerror/i" in read_saved(coloured, pattern="assertionerror").text


EVIDENCE_LINES = [
    "FAILED tests/test_b.py::test_parse - AssertionError: boom",
    "E       assert 1 == 2",
    "E       AssertionError: expected 3",
    "FAIL: test_parse (tests.test_b.TestParse)",
    "ERROR: test_load (tests.test_b.TestLoad)",
    "Traceback (most recent call last):",
    "ValueError: invalid literal for int() with base 10: 'x'",
    "src/main.c:4:5: error: expected ';' before '}' token",
    "error[E0308]: mismatched types",
    "thread 'main' panicked at src/main.rs:2:5:",
    "panic: runtime error: index out of range [3] with length 3",
    "--- FAIL: TestParse (0.00s)",
    "npm ERR! code ELIFECYCLE",
    "make: *** [Makefile:3: all] Error 1",
    "sh: 1: frobnicate: not found",
    "main.c:(.text+0x5): undefined reference to `missing'",
    "fatal: not a git repository (or any of the parent directories): .git",
    "not ok 3 - parses the header",
    "Killed",
    "=== 1 failed, 300 passed in 2.00s ===",
    "Tests:       1 failed, 12 passed, 13 total",
]


@pytest.mark.parametrize("line", EVIDENCE_LINES)
def test_the_suggested_search_covers_what_the_evidence_shows(line: str) -> None:
    assert classify(clean_line(line)) is not None, "not evidence: the example is wrong"
    assert compile_pattern(GREP_HINT, multiline=True).search(line), f"the suggested search misses {line!r}"


def test_the_printed_search_call_pastes_and_finds_the_failure(coloured: str, tmp_path: Path) -> None:
    script = tmp_path / "colour.py"
    script.write_text(SCRIPT.replace("range(400)", "range(3000)"))  # a log many times the budget: a search helps
    first = run_command([sys.executable, str(script)], budget=400)
    # pytest's view by tool shows the failure with the 3,000 PASSED lines folded (issue 33); the
    # failing-log view of the same log (project_result, or an output no rule knows) suggests the search
    assert first.meta["view"] == "pytest" and "E       assert 1 == 2" in first.text and first.source
    view = project_log(first.source, budget=400, explicit_budget=400)
    search = view.text.split("search: ", 1)[1]
    cont = parse_call(search)
    assert cont["tool"] == "read_saved" and cont["args"]["pattern"] == GREP_HINT
    found = read_saved(**cont["args"])
    assert "FAILED tests/test_b.py::test_parse" in found.text and "E       assert 1 == 2" in found.text
    small = run_command([sys.executable, str(tmp_path / "colour.py")], budget=4000)
    assert small.source is not None
    small_log = project_log(small.source, budget=4000, explicit_budget=4000)
    assert not small_log.complete and "search: " not in small_log.text  # a few budgets' worth: no search suggested


def _wuu(*args: str) -> subprocess.CompletedProcess[str]:
    if not WUU.exists():
        pytest.skip(f"{WUU} is not installed (pip install -e .)")
    return subprocess.run([str(WUU), *args], capture_output=True, text=True, timeout=60, env=dict(os.environ))


def test_wuu_saved_pattern_exits_like_grep(coloured: str) -> None:
    hit = _wuu("saved", coloured, "--pattern", "failed tests")
    assert hit.returncode == 0, hit.stderr
    assert "402:\tFAILED tests/test_b.py" in hit.stdout
    miss = _wuu("saved", coloured, "--pattern", "no such words here")
    assert miss.returncode == 1 and "0 matching lines" in miss.stdout
    bad = _wuu("saved", coloured, "--pattern", "(unclosed")
    assert bad.returncode == 2 and "not a valid regular expression" in bad.stderr
    missing = _wuu("saved", "log-" + "0" * 32, "--pattern", "x")
    assert missing.returncode not in (0, 1)  # an unknown reference is an error, not "no match"
    forced = _wuu("saved", coloured, "--pattern", "Failed tests", "--ignore-case")
    assert forced.returncode == 0
    raw = _wuu("saved", coloured, "--start-line", "402", "--end-line", "402", "--raw")
    assert raw.returncode == 0 and "\x1b[31mFAILED" in raw.stdout


def test_conversation_search_sees_coloured_tool_output_clean(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "run the tests"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "pytest"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": f"tests/test_a.py::test_1 \x1b[32mPASSED\x1b[0m\n{FAILED}\n"},
        {"role": "assistant", "content": "One test fails."},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages))
    found = read_conversation(str(path), pattern="FAILED tests")
    assert found.meta["matched_turns"] and "FAILED tests/test_b.py::test_parse" in found.text
    assert "\x1b" not in found.text
    assert read_conversation(str(path), pattern="assertionerror").meta["matched_turns"]
