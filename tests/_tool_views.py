"""Shared by the tests of views by tool: a plan's kept and folded lines, and the checks every plan passes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from wuu_tools.logs.tools import Plan, plan_for

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tool_output"


def fixture(name: str) -> list[str]:
    """The lines of a recorded-style output under fixtures/tool_output/."""
    return (FIXTURES / name).read_text(encoding="utf-8").splitlines()


def sh(command: str, cwd: Path) -> list[str]:
    """The lines a real shell command prints (stdout and stderr together) in ``cwd``."""
    done = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).splitlines()


def split(lines: list[str], plan: Plan) -> tuple[list[str], list[str]]:
    """The lines the plan keeps and the lines its folds cover, each in the order printed."""
    covered = {i for f in plan.folds for i in range(f.start, f.end + 1)}
    kept = [line for i, line in enumerate(lines, 1) if i not in covered]
    folded = [line for i, line in enumerate(lines, 1) if i in covered]
    return kept, folded


def planned(command: str | None, lines: list[str], exit_code: int | None = 0) -> tuple[Plan, list[str], list[str]]:
    """The plan for the output, checked to be a projection, with its kept and folded lines."""
    plan = plan_for(command, lines, exit_code)
    assert plan is not None, f"no rule knows the output of {command!r}"
    for fold in plan.folds:
        assert fold.end <= len(lines), (fold, len(lines))
        assert fold.label and "\n" not in fold.label
    kept, folded = split(lines, plan)
    return plan, kept, folded
