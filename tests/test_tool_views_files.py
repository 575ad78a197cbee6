"""Listings on a real folder: find's complaints and ls -l's total and ./.. lines folded, every path kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _tool_views import planned, sh

from wuu_tools.logs.tools.files import find_rule


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel in ["src/a.py", "src/b.py", "docs/x.md", ".hidden"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    return tmp_path


def test_ls_la_folds_total_and_dots(tree: Path) -> None:
    lines = sh("ls -la", tree)
    plan, kept, folded = planned("ls -la", lines)
    assert plan.tool == "ls -l"
    assert folded[0].startswith("total ") and [line.split()[-1] for line in folded[1:]] == [".", ".."]
    assert [line.split()[-1] for line in kept] == [".hidden", "docs", "src"]
    assert plan.folds[0].label == "3 lines: 1 total, 2 ./.. entries"


def test_ls_l_of_two_folders_keeps_their_headings(tree: Path) -> None:
    lines = sh("ls -l src docs", tree)
    _plan, kept, folded = planned("ls -l src docs", lines)
    assert "src:" in kept and "docs:" in kept
    assert not folded and kept == lines  # a lone short ``total 8`` is no longer than its fold would be


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder: no Permission denied to fold")
def test_find_folds_permission_denied(tree: Path) -> None:
    locked = tree / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        lines = sh("find . -name '*.py'", tree)
    finally:
        locked.chmod(0o755)
    _plan, kept, folded = planned("find . -name '*.py'", lines, 1)
    assert sorted(kept) == ["./src/a.py", "./src/b.py"] and folded == ["find: ‘./locked’: Permission denied"]


def test_find_keeps_every_path(tree: Path) -> None:
    lines = [*sh("find . -type f", tree), "find: ‘./gone’: No such file or directory"]
    plan, kept, _folded = planned("find . -type f", lines)
    assert sorted(kept) == ["./.hidden", "./docs/x.md", "./src/a.py", "./src/b.py"]
    assert plan.folds[-1].label == "1 find complaint"


def test_find_exec_is_not_a_listing() -> None:
    assert find_rule("find . -name '*.py' -exec grep -l x {} +", ["./a.py"], 0) is None
    assert find_rule("grep -r find .", ["x"], 0) is None
