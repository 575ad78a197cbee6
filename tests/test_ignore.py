"""Ignore rules of directory listings (``wuu_tools.dirs.ignore``), checked on real trees and against git."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _trees import make
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuu_tools.dirs.ignore import IgnoreRules
from wuu_tools.dirs.walk import Walker


def verdicts(root: Path, include_ignored: bool = True) -> dict[str, str | None]:
    """``{rel: reason or None}`` for every entry a full walk reaches (ignored folders are not entered)."""
    walker = Walker(str(root), depth=64, include_ignored=include_ignored)
    out: dict[str, str | None] = {}
    for entry in walker.walk(walker.scan("", None)):
        out[entry.rel] = entry.reason
    return out


def test_nested_gitignore_with_negation(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n",
            "a.log": "",
            "keep/.gitignore": "!important.log\n",
            "keep/important.log": "",
            "keep/other.log": "",
            "build/out.o": "",
            "src/build/x": "",
            "src/main.py": "",
        },
    )
    v = verdicts(tmp_path)
    assert v["a.log"] == "ignored by .gitignore:1"
    assert v["keep/other.log"] == "ignored by .gitignore:1"
    assert v["keep/important.log"] is None
    assert v["build"] == "ignored by .gitignore:2"
    assert v["src/build"] == "ignored by .gitignore:2"  # an unanchored dir pattern matches at any depth
    assert v["src/main.py"] is None


def test_nested_rules_apply_to_their_own_subtree_only(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "a/.gitignore": "x.txt\n/top.txt\n",
            "a/x.txt": "",
            "a/top.txt": "",
            "a/deep/top.txt": "",
            "a/deep/x.txt": "",
            "b/x.txt": "",
            "b/top.txt": "",
        },
    )
    v = verdicts(tmp_path)
    assert v["a/x.txt"] == "ignored by a/.gitignore:1"
    assert v["a/deep/x.txt"] == "ignored by a/.gitignore:1"
    assert v["a/top.txt"] == "ignored by a/.gitignore:2"
    assert v["a/deep/top.txt"] is None  # anchored to a/
    assert v["b/x.txt"] is None and v["b/top.txt"] is None


def test_git_info_exclude_wuuignore_and_git_dir(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".git/info/exclude": "# local\nsecret.txt\n",
            ".git/HEAD": "ref: refs/heads/main\n",
            ".gitignore": "*.tmp\n",
            ".wuuignore": "fixtures/\n!keep.tmp\n",
            "secret.txt": "",
            "a.tmp": "",
            "keep.tmp": "",
            "fixtures/big.json": "",
            "readme.md": "",
        },
    )
    v = verdicts(tmp_path)
    assert v["secret.txt"] == "ignored by .git/info/exclude:2"
    assert v["a.tmp"] == "ignored by .gitignore:1"
    assert v["keep.tmp"] is None  # .wuuignore comes after .gitignore at the same level
    assert v["fixtures"] == "ignored by .wuuignore:1"
    assert v[".git"] == "git metadata"
    assert v["readme.md"] is None
    hidden = verdicts(tmp_path, include_ignored=False)
    assert "secret.txt" not in hidden and "a.tmp" not in hidden
    assert hidden[".git"] == "git metadata"  # a folder stays as one line, a file disappears


def test_heavy_folders_and_their_negation(tmp_path: Path) -> None:
    make(tmp_path, {"node_modules/x/index.js": "", ".venv/bin/python": "", "target/debug/app": "", "src/a.rs": ""})
    v = verdicts(tmp_path)
    assert v["node_modules"] == "dependency folder"
    assert v[".venv"] == "virtual environment"
    assert v["target"] == "build output"
    assert v["src"] is None
    (tmp_path / ".gitignore").write_text("!target/\n")
    assert verdicts(tmp_path)["target"] is None


def test_rules_above_the_listed_directory_apply(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".git/HEAD": "",
            ".gitignore": "*.tmp\n/sub/only-here.txt\n",
            "sub/a.tmp": "",
            "sub/only-here.txt": "",
            "sub/b.txt": "",
        },
    )
    v = verdicts(tmp_path / "sub")
    assert v["a.tmp"] == "ignored by ../.gitignore:1"
    assert v["only-here.txt"] == "ignored by ../.gitignore:2"
    assert v["b.txt"] is None


def test_an_ignored_directory_listed_by_name_shows_its_contents(tmp_path: Path) -> None:
    make(tmp_path, {".git/HEAD": "", ".gitignore": "dist/\n*.map\n", "dist/app.js": "", "dist/app.js.map": ""})
    make(tmp_path, {"node_modules/pkg/index.js": ""})
    v = verdicts(tmp_path / "dist", include_ignored=False)
    assert v == {"app.js": None, "app.js.map": None}
    assert verdicts(tmp_path / "node_modules" / "pkg", include_ignored=False) == {"index.js": None}
    assert verdicts(tmp_path, include_ignored=False)["dist"] == "ignored by .gitignore:1"


def test_git_file_pointing_at_a_git_dir(tmp_path: Path) -> None:
    make(tmp_path / "real", {"info/exclude": "hidden.txt\n"})
    make(tmp_path / "work", {".git": "gitdir: ../real\n", "hidden.txt": "", "shown.txt": ""})
    v = verdicts(tmp_path / "work")
    assert v["hidden.txt"] == "ignored by .git/info/exclude:1"
    assert v["shown.txt"] is None


def test_unreadable_or_binary_rule_file_is_harmless(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_bytes(b"\xff\xfe*.bin\n\x00\n")
    (tmp_path / "a.txt").write_text("")
    assert verdicts(tmp_path)["a.txt"] is None
    rules = IgnoreRules.load(str(tmp_path))
    assert rules.root_scope().check("x.txt", "x.txt", False) is None


def test_a_negated_name_does_not_reinclude_what_is_below_it(tmp_path: Path) -> None:
    # ``!keep.log`` names keep.log itself; keep.log/x.log is still ignored by ``*.log`` (as git
    # check-ignore says), also when another rule holds a "/" (found by the property below).
    make(tmp_path, {".gitignore": "*.log\n!keep.log\n/top.txt\n", "keep.log/x.log/keep.log": ""})
    v = verdicts(tmp_path)
    assert v["keep.log"] is None
    assert v["keep.log/x.log"] == "ignored by .gitignore:1"


# -- agreement with git itself ------------------------------------------------------------------

PATTERNS = ["*.log", "!keep.log", "build/", "/top.txt", "docs/*.md", "**/gen/", "!docs/keep.md", "*.o", "a?c"]
NAMES = ["keep.log", "x.log", "top.txt", "build", "gen", "docs", "readme.md", "keep.md", "m.o", "abc", "src"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    root_rules=st.lists(st.sampled_from(PATTERNS), max_size=5),
    nested_rules=st.lists(st.sampled_from(PATTERNS), max_size=4),
    layout=st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3), min_size=1, max_size=12),
)
def test_agrees_with_git_check_ignore(
    tmp_path_factory: pytest.TempPathFactory, root_rules: list[str], nested_rules: list[str], layout: list[list[str]]
) -> None:
    root = tmp_path_factory.mktemp("gitcmp")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("\n".join(root_rules) + "\n")
    for parts in layout:
        target = root.joinpath(*parts)
        if target.exists():
            continue
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("")
        except (FileExistsError, NotADirectoryError):
            continue
    src = root / "src"
    if src.is_dir():
        (src / ".gitignore").write_text("\n".join(nested_rules) + "\n")
    ours = verdicts(root)
    paths = sorted(p for p in ours if not p.startswith(".git/") and p != ".git")
    shown = subprocess.run(
        ["git", "-C", str(root), "check-ignore", "--stdin"],
        input="\n".join(p + ("/" if (root / p).is_dir() else "") for p in paths) + "\n",
        capture_output=True,
        text=True,
    )
    git_ignored = {line.rstrip("/") for line in shown.stdout.splitlines() if line}
    our_ignored = {p for p in paths if ours[p] is not None}
    assert our_ignored == git_ignored


def test_directory_only_rules_never_hide_files(tmp_path: Path) -> None:
    # Every rule ends with "/": files are never checked against them, and a file with an ignored
    # directory's name is still listed and counted, as git does.
    make(
        tmp_path,
        {
            ".gitignore": "build/\ncache/\n",
            "build/out.o": "",
            "src/build": "",
            "src/cache/x": "",
            "src/deep/build": "",
            "src/deep/cache/y": "",
        },
    )
    v = verdicts(tmp_path, include_ignored=False)
    assert "build" in v and v["build"] is not None
    assert v["src/build"] is None
    assert v["src/deep/build"] is None
    assert "src/cache" in v and v["src/cache"] is not None
    walker = Walker(str(tmp_path), depth=1, include_ignored=False)
    root = walker.scan("", None)
    src = next(e for e in walker.walk(root) if e.rel == "src")
    assert src.count == 3  # build (a file), cache/ (shown collapsed), deep/
    assert root.scope.files_active is False
    (tmp_path / ".gitignore").write_text("build/\n*.o\n")
    assert Walker(str(tmp_path), 1, False).scan("", None).scope.files_active is True
