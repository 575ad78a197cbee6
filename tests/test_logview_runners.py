"""Test runners as their users read them: a real pytest / unittest run with one failure among hundreds of passes.

The first view must hold what a person looks at (the failing test's location line, the
compared values, the runner's summary of the failure), not the head of ``PASSED``/``ok`` lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

from wuu_tools.commands.run import run_command

PASSES = 400


def _suite(tmp_path: Path) -> Path:
    lines = ["import unittest", "", ""]
    for i in range(PASSES):
        lines += [f"def test_pass_{i:03d}():", f"    assert {i} + 1 == {i + 1}", ""]
    lines += [
        "def test_parse_total():",
        "    parsed = {'total': 41, 'items': 3}",
        "    assert parsed['total'] == 42",
        "",
        "",
        "class TestUnit(unittest.TestCase):",
    ]
    for i in range(PASSES):
        lines += [f"    def test_ok_{i:03d}(self):", f"        self.assertEqual({i}, {i})", ""]
    lines += ["    def test_render_title(self):", "        self.assertEqual('Title', 'title')", ""]
    path = tmp_path / "test_generated_suite.py"
    path.write_text("\n".join(lines) + "\n")
    return path


def _failure_line(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_pytest_verbose_first_view_shows_each_failure(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    r = run_command([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", str(suite)], cwd=str(tmp_path))
    assert r.meta["exit_code"] == 1
    text = r.text
    assert r.tokens <= 2000 + 120
    # The location line of each failing test, the E lines that say what was compared, the short summary.
    loc = _failure_line(suite, "assert parsed['total'] == 42")
    assert f"test_generated_suite.py:{loc}: AssertionError" in text
    assert "E       assert 41 == 42" in text
    assert "FAILED test_generated_suite.py::test_parse_total - assert 41 == 42" in text
    assert "FAILED test_generated_suite.py::TestUnit::test_render_title" in text
    assert "E       AssertionError: 'Title' != 'title'" in text
    # Runs of PASSED lines are what the head gives up first: few of them are shown.
    assert text.count(" PASSED ") < 40


def test_unittest_first_view_shows_each_failure_block(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    argv = [sys.executable, "-m", "unittest", "-v", "test_generated_suite"]
    r = run_command(argv, cwd=str(tmp_path))
    assert r.meta["exit_code"] == 1
    text = r.text
    assert r.tokens <= 2000 + 120
    assert "FAIL: test_render_title (test_generated_suite.TestUnit" in text
    loc = _failure_line(suite, "self.assertEqual('Title', 'title')")
    assert f'test_generated_suite.py", line {loc}, in test_render_title' in text
    assert "AssertionError: 'Title' != 'title'" in text
    assert "FAILED (failures=1)" in text
    assert text.count(" ... ok") < 40
