"""pytest's views as compact as a summary (issue 33), on real pytest runs and their cut copies.

PASSED folds name their tests when they are few (the agent runs one of them next), the FAILED
progress lines the short summary lists again fold with the PASSED ones, a progress bar is noise,
a failure block is found after a cut head (``| tail``) or a cut middle (an agent's "… characters
truncated …"), and a raising frame printed as an earlier block's was folds whole, naming the test
it repeats. Every fold is a projection: the kept lines are the output's, in the order printed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests._tool_views import planned, sh
from wuu_tools.logs.tools.pytest import NAMED_TESTS
from wuu_tools.logs.tools.pytest_tb import failure_folds

PY = sys.executable

FEW = """
import pytest


class TestNested:
    def test_nested(self):
        pass

    def test_nested_meta_many(self):
        pass

    @pytest.mark.parametrize("n", range(3))
    def test_many(self, n):
        pass
"""

SHARED = '''
import enum


class Need(enum.Enum):
    LOW = 1


def pick(level):
    """Choose by level."""
    first = level
    second = first
    third = second
    return getattr(Need, third)


class TestPick:
    def test_high(self):
        assert pick("HIGH")

    def test_higher(self):
        assert pick("HIGH") is None

    def test_ok(self):
        assert pick("LOW")
'''


def _run(tmp_path: Path, name: str, body: str, flags: str = "-v") -> list[str]:
    (tmp_path / name).write_text(body)
    return sh(f"{PY} -m pytest -p no:cacheprovider -p no:randomly {flags} {name}", tmp_path)


def test_a_few_passed_tests_are_named_in_their_fold(tmp_path: Path) -> None:
    lines = _run(tmp_path, "test_few.py", FEW)
    command = "pytest -v test_few.py::TestNested"
    plan, kept, _ = planned(command, lines)
    assert not [line for line in kept if " PASSED" in line]
    label = next(f.label for f in plan.folds if "PASSED" in f.label)
    assert "TestNested: test_nested, test_nested_meta_many, test_many ×3" in label, label
    assert "5 passed" in (plan.summary or "")


def test_many_passed_tests_are_counted_by_class_not_named(tmp_path: Path) -> None:
    tests = "\n".join(f"    def test_{i}(self):\n        pass\n" for i in range(NAMED_TESTS + 1))
    bad = "    def test_bad(self):\n        assert False\n"
    lines = _run(tmp_path, "test_lots.py", f"class TestLots:\n{tests}\n{bad}")
    plan, _, _ = planned("pytest -v test_lots.py", lines, exit_code=1)
    label = next(f.label for f in plan.folds if "PASSED" in f.label)
    assert label.endswith("(test_lots.py::TestLots)") and "test_3" not in label, label
    narrowed, _, _ = planned("pytest -v test_lots.py -k test_", lines, exit_code=1)  # asked for by name: named
    label = next(f.label for f in narrowed.folds if "PASSED" in f.label)
    assert f"test_{NAMED_TESTS}" in label and "test_3," in label, label


def test_a_passing_run_counts_its_tests_and_names_them_only_when_narrowed_to_few(tmp_path: Path) -> None:
    tests = "\n".join(f"    def test_{i}(self):\n        pass\n" for i in range(NAMED_TESTS + 1))
    lines = _run(tmp_path, "test_lots.py", f"class TestLots:\n{tests}")
    plan, kept, _ = planned("pytest -v test_lots.py", lines)
    assert [f.label for f in plan.folds] == [f"15 lines: 5 session header, {NAMED_TESTS + 1} PASSED"]
    assert [line for line in kept if line.strip()][-1].strip("= ").startswith(f"{NAMED_TESTS + 1} passed")
    narrowed, _, _ = planned("pytest -v test_lots.py -k test_", lines)  # more than NAMED_TESTS: counted only
    assert narrowed.folds[0].label == plan.folds[0].label
    few, _, _ = planned("pytest -v test_lots.py -k 'test_1 or test_2'", lines[:5] + lines[6:8] + lines[-2:])
    assert "(test_lots.py::TestLots: test_0, test_1)" in few.folds[0].label, few.folds[0].label


def test_failed_progress_lines_the_summary_lists_fold_with_the_passes(tmp_path: Path) -> None:
    lines = _run(tmp_path, "test_shared.py", SHARED)
    plan, kept, folded = planned("pytest -v test_shared.py", lines, exit_code=1)
    progress = [line for line in folded if re.search(r"::\S+ FAILED\s+\[", line)]
    assert len(progress) == 2  # both folded: the summary names them
    assert any(line.startswith("FAILED test_shared.py::TestPick::test_high") for line in kept)
    assert any(line.startswith("FAILED test_shared.py::TestPick::test_higher") for line in kept)
    assert any("FAILED (listed below)" in f.label for f in plan.folds)


def test_each_failure_keeps_its_title_raise_errors_and_place_in_file_order(tmp_path: Path) -> None:
    lines = _run(tmp_path, "test_shared.py", SHARED, flags="")
    _, kept, folded = planned("pytest test_shared.py", lines, exit_code=1)
    start = next(i for i, line in enumerate(kept) if "FAILURES" in line)
    block = [line for line in kept[start + 1 :] if line.strip() and not line.startswith(("[… ", "=", "FAILED"))]
    shape = ["title", ">", "E", "place"]  # the raising statement, what it raised, where

    def kind(line: str) -> str:
        return "title" if line.startswith("_") else line[0] if line[0] in ">E" else "place" if ".py:" in line else line

    assert [kind(line) for line in block if not line.strip().startswith("^")] == shape * 2, block
    assert "\n".join(kept).count("raise AttributeError(name)") == 2  # the raising statement, in each block
    assert any("return getattr(Need, third)" in line for line in folded)  # the frame between, folded


def test_a_cut_head_or_middle_still_finds_the_failure_blocks(tmp_path: Path) -> None:
    lines = _run(tmp_path, "test_shared.py", SHARED, flags="")
    whole = failure_folds(lines)
    start = next(i for i, line in enumerate(lines) if "FAILURES" in line)
    tail = lines[start + 1 :]  # "| tail": the FAILURES rule is gone
    assert failure_folds(tail), "no block found in a cut head"
    middle = [*lines[:3], "... [2,000 characters truncated] ...", *lines[start + 3 :]]
    assert failure_folds(middle), "no block found after a cut middle"
    assert whole


def test_progress_bars_fold_as_noise() -> None:
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.4, pytest-8.0.0, pluggy-1.4.0",
        "rootdir: /testbed",
        "collecting ... ",
        "color-pl.dcm:   0%|          | 0.00/93.3k [00:00<?, ?B/s]",
        "color-pl.dcm: 100%|██████████| 93.3k/93.3k [00:00<00:00, 493kB/s]",
        "collected 1 item",
        "",
        "tests/test_a.py::test_a PASSED",
        "",
        "============================== 1 passed in 0.02s ===============================",
    ]
    plan, kept, _ = planned("pytest -v tests/test_a.py", lines)
    assert not [line for line in kept if "%|" in line]
    assert any("progress bar" in f.label for f in plan.folds)
    assert kept[-1].strip("= ") == "1 passed in 0.02s"


def test_library_frames_are_counted_and_the_projects_named(tmp_path: Path) -> None:
    lines = _run(tmp_path, "test_shared.py", SHARED, flags="")
    labels = [f.label for f in failure_folds(lines)]
    assert all("/enum.py" not in label for label in labels if "traceback frame" in label), labels


def test_a_cut_head_of_progress_is_not_taken_for_a_failure_block() -> None:
    lines = [
        *[f"tests/test_a.py::test_{i} PASSED" for i in range(30)],
        "FAILED tests/test_b.py::test_parse - AssertionError: boom",
        "E       assert 1 == 2",
        "=== 1 failed, 30 passed in 2.00s ===",
    ]
    plan, kept, _ = planned("pytest -v tests", lines, exit_code=1)
    assert kept[-3:] == lines[-3:]  # the listed failure, its E line and the closing line, as printed
    assert [f.label for f in plan.folds] == ["30 PASSED lines"]
