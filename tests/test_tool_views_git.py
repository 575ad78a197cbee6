"""git's views on real repositories: hint lines and author lines folded, hashes, subjects and dates kept."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from _tool_views import planned, sh

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository of three commits, a modified file, a staged file and an untracked one."""
    env = "GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=a@e.org"
    sh("git init -q -b main .", tmp_path)
    for n, subject in enumerate(["Add parser", "Fixed #30323 -- Fixed detecting changes", "Refs #17 -- Simplify"]):
        (tmp_path / f"m{n}.py").write_text(f"x = {n}\n" * (n + 1))
        sh(f"git add m{n}.py && {env} git commit -q -m '{subject}' -m 'Body line {n}.'", tmp_path)
    (tmp_path / "m0.py").write_text("x = 'changed'\n")
    (tmp_path / "new.py").write_text("y = 1\n")
    sh("git add new.py", tmp_path)
    (tmp_path / "scratch.txt").write_text("notes\n")
    return tmp_path


def test_status_folds_only_the_hints(repo: Path) -> None:
    lines = sh("git status", repo)
    plan, kept, folded = planned("git status", lines)
    assert plan.tool == "git status"
    assert folded and all(re.match(r'^\s+\(use "git ', line) for line in folded)
    assert {"\tmodified:   m0.py", "\tnew file:   new.py", "\tscratch.txt"} <= set(kept)
    assert "Changes to be committed:" in kept and "Untracked files:" in kept
    assert all(fold.label.endswith(("git hint", "git hints")) for fold in plan.folds)


def test_status_short_is_left_whole(repo: Path) -> None:
    lines = sh("git status --short", repo)
    _plan, kept, folded = planned("cd x && git status --short", lines)
    assert not folded and kept == lines


def test_log_keeps_hashes_subjects_dates_and_bodies(repo: Path) -> None:
    lines = sh("git log", repo)
    plan, kept, folded = planned("git log", lines)
    assert plan.tool == "git log"
    assert folded == [line for line in lines if line.startswith("Author: ")] and len(folded) == 3
    hashes = sh("git log --format=%H", repo)
    assert all(f"commit {h}" in kept for h in hashes)
    assert sum(line.startswith("Date: ") for line in kept) == 3
    assert "    Fixed #30323 -- Fixed detecting changes" in kept and "    Body line 2." in kept


def test_oneline_log_has_no_noise(repo: Path) -> None:
    lines = sh("git log --oneline -n 20", repo)
    plan, kept, _ = planned("git -C . log --oneline -n 20", lines)
    assert plan.folds == [] and kept == lines


def test_show_folds_the_patch_headers_and_keeps_the_file_names(repo: Path) -> None:
    lines = sh("git show HEAD", repo)
    _plan, kept, folded = planned("git show HEAD", lines)
    assert any(line.startswith("diff --git ") for line in folded)
    assert any(line.startswith("index ") for line in folded)
    assert "--- /dev/null" in kept and "+++ b/m2.py" in kept and "+x = 2" in kept


def test_diff_stat_summary(repo: Path) -> None:
    lines = sh("git diff --stat HEAD~2", repo)
    plan, _kept, folded = planned("git diff --stat HEAD~2", lines)
    assert plan.tool == "git diff --stat" and not folded
    assert plan.summary is not None and re.match(r"\d+ files? changed", plan.summary)


def test_a_patch_is_not_this_rule(repo: Path) -> None:
    from wuu_tools.logs.tools.git import git_rule

    assert git_rule("git diff", sh("git diff", repo), 0) is None
    assert git_rule("grep -r git .", ["x"], 0) is None


def test_status_read_from_a_file_is_known_by_its_first_line(repo: Path) -> None:
    from wuu_tools.logs.tools.git import git_rule

    plan = git_rule(None, sh("git status", repo), None)
    assert plan is not None and plan.tool == "git status" and plan.folds


@pytest.fixture
def long_repo(tmp_path: Path) -> Path:
    """A repository of eight commits, each adding one file of two lines."""
    env = "GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=a@e.org"
    sh("git init -q -b main .", tmp_path)
    for n in range(8):
        (tmp_path / f"f{n}.py").write_text(f"a = {n}\nb = {n}\n")
        sh(f"git add f{n}.py && {env} git commit -q -m 'Commit number {n}'", tmp_path)
    return tmp_path


def test_a_long_oneline_log_shows_its_head_and_its_last_commit_and_counts_the_rest(long_repo: Path) -> None:
    from wuu_tools.logs.tools.git import HEAD_COMMITS, TAIL_COMMITS

    lines = sh("git log --oneline", long_repo)
    plan, kept, folded = planned("git log --oneline", lines)
    assert [line.split(" ", 1)[1] for line in kept] == [f"Commit number {n}" for n in (7, 6, 5, 4, 0)]
    assert len(kept) == HEAD_COMMITS + TAIL_COMMITS and folded == lines[HEAD_COMMITS:-TAIL_COMMITS]
    assert [f.label for f in plan.folds] == ["3 commits"]
    full = sh("git log", long_repo)  # the full format: every commit's message stays
    plan, kept, _ = planned("git log", full)
    assert sum(line.startswith("commit ") for line in kept) == 8 and "    Commit number 3" in kept
    assert [f.label for f in plan.folds] == ["1 author line"] * 8


def test_a_log_with_patches_keeps_each_commit_and_folds_each_file_patch(long_repo: Path) -> None:
    lines = sh("git log -p -n 2", long_repo)
    plan, kept, folded = planned("git log -p -n 2", lines)
    assert [f.label for f in plan.folds if "patch" in f.label] == [
        "8 lines: the patch of f7.py (+2 -0)",
        "8 lines: the patch of f6.py (+2 -0)",
    ]
    assert "    Commit number 7" in kept and "    Commit number 6" in kept and "+a = 7" in folded
    assert not [line for line in kept if line.startswith(("+", "-", "@@", "diff --git"))]


def test_a_long_log_view_reads_its_folds_back_with_one_call(long_repo: Path) -> None:
    from wuu_tools import read_saved, run_command

    env = "GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=a@e.org"
    for n in range(8, 20):
        subject = f"Commit number {n}: a subject as long as the ones real projects write, or longer"
        sh(f"{env} git commit -q --allow-empty -m '{subject}'", long_repo)
    view = run_command("git log --oneline", cwd=str(long_repo), budget=2000)
    assert view.meta["view"] == "git log", view.text
    fold = next(line for line in view.text.splitlines() if line.startswith("[… 15 commits: read_saved("))
    assert view.continuation is not None and view.continuation["args"]["start_line"] == 5, fold
    back = read_saved(**view.continuation["args"])
    assert "Commit number 15:" in back.text and "Commit number 1\n" in back.text
    assert view.text.splitlines()[-1].endswith("Commit number 0")  # the last commit, after the fold
