"""`wuu ls` as a user runs it (a real process, piped output), its terminal tree, and the README example."""

from __future__ import annotations

import json
import re
from pathlib import Path

import _docs
import pytest
from rich.console import Console

from tests._cli import wuu
from wuu_tools import list_dir
from wuu_tools.cli.ls import render_tree

README = Path(__file__).resolve().parents[1] / "README.md"


def demo(base: Path) -> Path:
    """The small project of the README example."""
    root = base / "demo"
    for rel, text in {
        ".gitignore": "*.log\n",
        "README.md": "# demo\n",
        "app.log": "log\n",
        "node_modules/left-pad/index.js": "module.exports = 1\n",
        "src/main.py": 'print("hi")\n',
        "src/util/helpers.py": "def h(): pass\n",
        "src/util/strings.py": "X = 1\n",
        "tests/test_main.py": "def test(): pass\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "docs").mkdir()
    (root / "main").symlink_to("src/main.py")
    return root


def test_readme_example_is_the_real_output(tmp_path: Path) -> None:
    block = re.search(r"```console\n\$ wuu ls demo\n(.*?)```", _docs.section("ls"), re.S)
    assert block is not None
    demo(tmp_path)
    r = wuu("ls", "demo", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == block.group(1)


def test_piped_output_is_the_exact_text_and_json_pages_on(tmp_path: Path) -> None:
    root = demo(tmp_path)
    r = wuu("ls", str(root), "--depth", "3", "--budget", "40")
    assert r.returncode == 0, r.stderr
    assert r.stdout == list_dir(str(root), depth=3, budget=40).text + "\n"
    env = json.loads(wuu("ls", str(root), "--depth", "3", "--budget", "40", "--json").stdout)
    assert set(env) == {"text", "complete", "continuation", "source", "revision", "tokens", "attachments", "meta"}
    assert env["meta"]["total_entries"] is None and env["meta"]["shown_entries"] >= 1
    seen: list[str] = []
    while env["continuation"] is not None:
        args = env["continuation"]["args"]
        seen.append(env["text"])
        env = json.loads(
            wuu(
                "ls",
                args["path"],
                "--depth",
                str(args["depth"]),
                "--cursor",
                args["cursor"],
                "--revision",
                args["revision"],
                "--budget",
                str(args["budget"]),
                "--json",
            ).stdout
        )
    assert env["complete"] and env["text"].endswith(f"[end of listing: {env['meta']['total_entries']} entries]")
    assert "src/util/strings.py  (6 B)" in "\n".join([*seen, env["text"]])


def test_all_lists_ignored_entries(tmp_path: Path) -> None:
    root = demo(tmp_path)
    r = wuu("ls", str(root), "--all", "--depth", "3")
    assert r.returncode == 0
    assert "app.log  (4 B; ignored by .gitignore:1)" in r.stdout.split("\n")
    assert "node_modules/left-pad/  (1 entry; dependency folder)" in r.stdout.split("\n")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["missing"], 1, "wuu: missing: no such file or directory"),
        (["demo/README.md"], 1, "wuu: demo/README.md: is a file, not a directory (read it with read_file)"),
        (["demo", "--depth", "0"], 2, "wuu: depth must be a whole number from 1 to 64, not 0"),
        (["demo", "--cursor", "nope"], 2, "wuu: cursor is not valid"),
    ],
)
def test_errors_are_one_line_with_exit_codes(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    demo(tmp_path)
    r = wuu("ls", *args, cwd=tmp_path)
    assert r.returncode == code
    assert r.stdout == "" and r.stderr.startswith(message) and r.stderr.count("\n") == 1


def test_terminal_tree_keeps_complete_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = demo(tmp_path)
    console = Console(record=True, width=100, force_terminal=True, soft_wrap=True)
    # A short relative path: the header and the next call name it, and a long temporary path
    # would leave room for fewer entries than this test looks at. More top-level files make the
    # listing longer than the budget, which holds the notices too.
    monkeypatch.chdir(tmp_path)
    for i in range(30):
        (root / f"zz_{i:02}.txt").write_text("")
    result = list_dir(root.name, depth=3, budget=180)
    assert result.continuation is not None
    render_tree(result, console)
    out = console.export_text()
    assert out.splitlines()[0] == result.text.split("\n")[0]
    assert out.rstrip().endswith(result.text.split("\n")[-1])
    assert "src/  (2 entries, all still to come)" in out.splitlines()
    (root / "we ird\nname").write_text("")
    full = Console(record=True, width=100, force_terminal=True, soft_wrap=True)
    render_tree(list_dir(str(root), depth=3), full)
    lines = full.export_text().splitlines()
    assert "│   ├── src/util/helpers.py  (14 B)" in lines
    assert "└── src/main.py  (12 B)" in lines
    assert '"we ird\\nname"  (0 B)' in lines


def test_a_cut_directory_is_named_once_with_what_is_still_to_come(tmp_path: Path) -> None:
    for n in range(42):
        (tmp_path / "tests" / f"test_{n:02d}.py").parent.mkdir(exist_ok=True)
        (tmp_path / "tests" / f"test_{n:02d}.py").write_text("x = 1\n")
    for n in range(30):
        (tmp_path / "src" / f"mod_{n:02d}.py").parent.mkdir(exist_ok=True)
        (tmp_path / "src" / f"mod_{n:02d}.py").write_text("y = 2\n")
    r = wuu("ls", ".", "--budget", "150", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    for name in ("src/", "tests/"):
        naming = [line for line in lines if name in line and not line.startswith(f"{name}mod_")]
        naming = [line for line in naming if not line.startswith((f"{name}test_", f"{name}mod_", "[next:"))]
        assert len(naming) == 1, (name, naming)
    shown_src = sum(line.startswith("src/mod_") for line in lines)
    assert 0 < shown_src < 30, r.stdout
    assert f"src/  (30 entries, {30 - shown_src:,} still to come)" in lines
    assert "tests/  (42 entries, all still to come)" in lines
    assert not any(line.startswith("… src/") or line.startswith("… tests/") for line in lines)
