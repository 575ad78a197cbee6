"""Views by tool of test runners (issue 33): real pytest, unittest, cargo and go runs, recorded jest/vitest/mocha.

Each view folds the runner's noise (PASSED lines, dots, the session header, ``ok`` lines) into
counted lines and keeps the verdict, the summary, each failure block in the order printed and the
test's own prints; the chain from its continuation reads every folded line back exactly.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from tests._tool_views import fixture, planned
from wuu_tools.commands.run import run_command
from wuu_tools.core.result import ToolResult
from wuu_tools.files.saved import read_saved

NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
PY = sys.executable

TESTS = """
import pytest

@pytest.mark.parametrize("n", range(60))
def test_many(n):
    assert n >= 0

def test_parse_header():
    print("hello from test_parse_header")
    assert "Content-Type".lower() == "Content-Type"

def test_also_passes():
    assert True
"""


def _chain(view: ToolResult) -> dict[int, str]:
    """The lines the continuations read back, by number."""
    got: dict[int, str] = {}
    cont = view.continuation
    while cont is not None:
        page = read_saved(**cont["args"])
        for line in page.text.split("\n"):
            if m := NUMBERED.match(line):
                got[int(m.group(1))] = m.group(2)
        cont = page.continuation
    return got


def _check_projection(view: ToolResult) -> list[str]:
    """Every line of the saved output is shown or read back by the chain, exactly; returns the saved lines."""
    ref = view.source
    assert ref is not None
    saved = read_saved(ref, budget=50_000, fresh=True)
    lines = [m.group(2) for ln in saved.text.split("\n") if (m := NUMBERED.match(ln))]
    assert len(lines) == view.meta["total_lines"]
    back = _chain(view)
    for a, b in view.meta["omitted"]:
        for n in range(a, b + 1):
            assert back[n] == lines[n - 1]
    shown = {n for a, b in view.meta["shown"] for n in range(a, b + 1)}
    omitted = {n for a, b in view.meta["omitted"] for n in range(a, b + 1)}
    assert shown | omitted == set(range(1, len(lines) + 1)) and not shown & omitted
    body = view.text.split("\n")
    for n in sorted(shown):
        assert lines[n - 1] in body
    return lines


def _suite(tmp_path: Path) -> Path:
    (tmp_path / "test_widget.py").write_text(TESTS)
    return tmp_path


@pytest.mark.parametrize("flags", ["-v", "", "-x", "-v -s"])
def test_a_failing_pytest_run_keeps_the_failure_and_folds_the_passes(tmp_path: Path, flags: str) -> None:
    suite = _suite(tmp_path)
    view = run_command(f"cd {suite} && {PY} -m pytest -p no:cacheprovider {flags} test_widget.py", budget=2000)
    assert view.meta["view"] == "pytest", view.text
    text = view.text
    assert "test session starts" not in text and "rootdir:" not in text  # the header folded
    assert "test_many[5] PASSED" not in text  # -v's PASSED lines folded
    assert re.search(r"^\[… .*(PASSED|session header|progress)", text, re.M)
    assert "E       AssertionError" in text and "test_parse_header" in text  # the failure block
    assert re.search(r"1 failed, \d+ passed", text)  # the summary line
    assert "FAILED test_widget.py::test_parse_header" in text or "-x" in flags or "-q" in flags
    if "-s" not in flags:
        assert "hello from test_parse_header" in text  # captured stdout, in the failure block
    else:
        assert "hello from test_parse_header" in text  # the test's own print, as printed
    assert view.meta["summary"].startswith("1 failed")
    _check_projection(view)
    raw = sum(len(x) for x in _check_projection(view))
    assert len(text) < raw


def test_a_passing_verbose_run_is_its_summary_and_the_counted_folds(tmp_path: Path) -> None:
    (tmp_path / "test_ok.py").write_text("def test_a():\n    pass\n\ndef test_b():\n    pass\n" * 1)
    view = run_command(f"cd {tmp_path} && {PY} -m pytest -p no:cacheprovider -v test_ok.py", budget=2000)
    assert view.meta["view"] == "pytest" and not view.complete
    shown = [line for line in view.text.splitlines() if not line.startswith("[… ")]
    assert "2 passed" in view.text and not [line for line in shown if "PASSED" in line]
    assert "test_a" not in view.text  # a passing run's fold counts its tests; it names them only when narrowed
    lines = view.text.splitlines()  # the verdict, one fold naming the call that reads it, the closing line
    assert len([line for line in lines if line.strip()]) == 3 and "[folded lines" not in view.text
    call = r'read_saved\(ref="log-\w+", end_line=8, budget=2000\)'
    assert re.fullmatch(rf"\[… 8 lines: 5 session header, 2 PASSED: {call}\]", lines[1]), lines[1]
    _check_projection(view)


def test_a_narrowed_passing_run_names_its_few_tests(tmp_path: Path) -> None:
    (tmp_path / "test_ok.py").write_text("".join(f"def test_{x}():\n    pass\n\n" for x in "abc"))
    view = run_command(f"cd {tmp_path} && {PY} -m pytest -p no:cacheprovider -v test_ok.py -k 'a or b'", budget=2000)
    assert view.meta["view"] == "pytest", view.text
    assert "test_ok.py: test_a, test_b" in view.text and "test_c" not in view.text.split("]")[1]
    _check_projection(view)


def test_a_unittest_run_folds_ok_lines_and_keeps_the_failure(tmp_path: Path) -> None:
    body = "\n".join(f"    def test_ok_{i}(self):\n        self.assertTrue(True)\n" for i in range(30))
    (tmp_path / "test_units.py").write_text(
        "import unittest\n\nclass T(unittest.TestCase):\n"
        + body
        + "\n    def test_bad(self):\n        print('printed by test_bad')\n        self.assertEqual(1, 2)\n"
    )
    view = run_command(f"cd {tmp_path} && {PY} -m unittest -v test_units", budget=2000)
    assert view.meta["view"] == "unittest", view.text
    text = view.text
    assert "test_ok_3 (test_units.T" not in text and re.search(r"\[… \d+ ok lines", text)
    assert "FAIL: test_bad" in text and "AssertionError: 1 != 2" in text
    assert "printed by test_bad" in text and re.search(r"Ran 31 tests in", text) and "FAILED (failures=1)" in text
    _check_projection(view)


def test_a_non_verbose_unittest_run_folds_its_dots(tmp_path: Path) -> None:
    (tmp_path / "test_units.py").write_text(
        "import unittest\n\nclass T(unittest.TestCase):\n"
        + "\n".join(f"    def test_ok_{i}(self):\n        pass\n" for i in range(3))
    )
    lines = ["." * 80 for _ in range(3)] + ["-" * 70, "Ran 240 tests in 0.5s", "", "OK"]
    plan, _, folded = planned(f"cd {tmp_path} && python runtests.py", lines)
    assert plan.tool == "unittest" and folded == lines[:3] and plan.summary == "Ran 240 tests in 0.5s · OK"


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed (the rule is checked on lines below)")
def test_a_real_go_test_run_folds_run_and_pass_lines(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/hdr\n\ngo 1.20\n")
    oks = "\n".join(f"func TestOk{i}(t *testing.T) {{}}" for i in range(20))
    (tmp_path / "hdr_test.go").write_text(
        'package hdr\n\nimport "testing"\n\n' + oks + '\nfunc TestLower(t *testing.T) { t.Errorf("got A") }\n'
    )
    view = run_command(f"cd {tmp_path} && go test -v ./...", budget=2000, timeout=240)
    assert view.meta["view"] == "go test", view.text
    assert "--- PASS: TestOk3" not in view.text and "--- FAIL: TestLower" in view.text and "got A" in view.text
    _check_projection(view)


def test_go_test_recorded_style_lines() -> None:
    lines = [
        "=== RUN   TestParse",
        "--- PASS: TestParse (0.00s)",
        "=== RUN   TestLower",
        "    parse_test.go:14: got Content-Type, want content-type",
        "--- FAIL: TestLower (0.00s)",
        "=== RUN   TestQuoted",
        "--- PASS: TestQuoted (0.00s)",
        "FAIL",
        "FAIL\texample.com/hdr\t0.004s",
        "ok  \texample.com/other\t0.010s",
    ]
    plan, kept, folded = planned("go test -v ./...", lines, 1)
    assert plan.tool == "go test"
    assert "    parse_test.go:14: got Content-Type, want content-type" in kept and "--- FAIL: TestLower (0.00s)" in kept
    assert "--- PASS: TestParse (0.00s)" in folded and plan.summary == "ok  \texample.com/other\t0.010s"


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_a_real_cargo_test_run_folds_ok_lines(tmp_path: Path) -> None:
    crate = tmp_path / "hdr"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "hdr"\nversion = "0.1.0"\nedition = "2021"\n')
    tests = "\n".join(f"    #[test]\n    fn ok_{i}() {{ assert_eq!({i}, {i}); }}" for i in range(20))
    (crate / "src" / "lib.rs").write_text(
        "#[cfg(test)]\nmod tests {\n" + tests + '\n    #[test]\n    fn lowers() { assert_eq!("A", "a"); }\n}\n'
    )
    view = run_command(f"cd {crate} && cargo test --offline", budget=2000, timeout=240)
    assert view.meta["view"] == "cargo test", view.text
    assert "test tests::ok_3 ... ok" not in view.text and "test tests::lowers ... FAILED" in view.text
    assert "test result: FAILED" in view.text and "panicked" in view.text
    _check_projection(view)


def test_jest_keeps_the_failure_and_the_console_output() -> None:
    lines = fixture("jest_fail.txt")
    plan, kept, folded = planned("npx jest", lines, 1)
    assert plan.tool == "jest" and plan.summary == "Tests:       1 failed, 14 passed, 15 total"
    assert " PASS  src/math.test.js" in folded and "    ✓ reads a quoted header (1 ms)" in folded
    assert " FAIL  src/parse.test.js" in kept and "    ✕ lowers the name (4 ms)" in kept
    assert "    parsed Content-Type" in kept and '    Received: "Content-Type"' in kept


def test_vitest_and_mocha_keep_their_failures() -> None:
    lines = fixture("vitest_fail.txt")
    plan, kept, folded = planned("npx vitest run", lines, 1)
    assert " ✓ src/math.test.ts (6 tests) 4ms" in folded and "   × parseHeader > lowers the name" in kept
    assert plan.summary == "Tests  1 failed | 17 passed (18)"
    lines = fixture("mocha_fail.txt")
    plan, kept, folded = planned("npx mocha", lines, 1)
    assert "      ✔ should return the index when present" in folded and "    1) lowers the name" in kept
    assert "hello from the header test" in kept and "  5 passing (14ms)" in kept


def test_an_output_no_rule_knows_keeps_its_view(tmp_path: Path) -> None:
    view = run_command(f"{PY} -c \"print('PASSED ' * 3)\"", budget=2000)
    assert view.complete and view.meta["view"] != "pytest" and "PASSED PASSED" in view.text
