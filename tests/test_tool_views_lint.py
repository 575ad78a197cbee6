"""Linters and type checkers: real ``ruff check`` runs, and recorded-style mypy, tsc and eslint outputs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from _tool_views import fixture, planned, sh

RUFF = Path(sys.executable).parent / "ruff"
BAD = "import os\nimport sys\n\n\ndef f(x):\n    y = 1\n    return undefined_name\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if not RUFF.is_file():
        pytest.skip("ruff is not installed beside this Python")
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "good.py").write_text("X = 1\n")
    return tmp_path


def test_ruff_keeps_every_diagnostic_and_folds_the_fix_previews(project: Path) -> None:
    lines = sh(f"{RUFF} check --no-cache --isolated --select F bad.py", project)
    plan, kept, folded = planned(f"{RUFF} check --select F bad.py", lines, 1)
    assert plan.tool == "ruff check" and plan.summary == "Found 4 errors."
    codes = [line.split()[0] for line in kept if re.match(r"^F\d{3} ", line)]
    assert codes == ["F401", "F401", "F841", "F821"]
    assert sum(line.startswith(" --> bad.py:") for line in kept) == 4
    assert [line for line in kept if line.startswith("help: ")] == [line for line in lines if line.startswith("help: ")]
    assert "  -     y = 1" in folded and "  |     ^" not in folded  # the fix, not the diagnostic's own snippet
    assert any("fixable with `--fix`" in line for line in kept)
    assert len(plan.folds) == 3 and all(re.fullmatch(r"\d+ fix preview lines", f.label) for f in plan.folds)


def test_ruff_concise_has_no_noise(project: Path) -> None:
    lines = sh(f"{RUFF} check --no-cache --isolated --select F --output-format concise .", project)
    plan, kept, folded = planned("ruff check --output-format concise .", lines, 1)
    assert not folded and kept == lines and plan.summary == "Found 4 errors."


def test_ruff_clean(project: Path) -> None:
    lines = sh(f"{RUFF} check --no-cache --isolated good.py", project)
    plan, _, _ = planned("uv run ruff check good.py", lines)
    assert plan.summary == "All checks passed!"


def test_mypy_folds_a_note_printed_again() -> None:
    lines = fixture("mypy.txt")
    plan, kept, folded = planned("python -m mypy src", lines, 1)
    assert plan.tool == "mypy" and plan.summary == "Found 4 errors in 2 files (checked 9 source files)"
    assert folded == [
        "src/app/api.py:5: note: See https://mypy.readthedocs.io/en/stable/running_mypy.html#missing-imports"
    ]
    assert [line for line in kept if ": error: " in line] == [line for line in lines if ": error: " in line]


def test_tsc_and_eslint_keep_everything() -> None:
    plan, _kept, folded = planned("npx tsc --noEmit", fixture("tsc.txt"), 2)
    assert plan.tool == "tsc" and plan.summary == "Found 3 errors in 2 files." and not folded
    plan, _kept, folded = planned("npx eslint src", fixture("eslint.txt"), 1)
    assert plan.tool == "eslint" and plan.summary == "✖ 3 problems (2 errors, 1 warning)" and not folded


def test_ruff_format_is_not_a_lint() -> None:
    from wuu_tools.logs.tools.lint import lint_rule

    assert lint_rule("ruff format .", ["1 file reformatted"], 0) is None
