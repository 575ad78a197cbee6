"""A whole output of search hits or paths with each file's or folder's prefix said once (issue 32).

Real ``grep`` and ``find`` processes over real files; the call the view gives reads the output back as printed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from wuu_tools import Toolset, read_saved, run_command
from wuu_tools.core.budget import count_tokens
from wuu_tools.logs.regroup import regroup


def _tree(root: Path) -> Path:
    for folder in ("src/app", "src/lib", "docs"):
        (root / folder).mkdir(parents=True)
    for i in range(12):
        body = "".join(f"def handler_{i}_{k}(request):\n    return respond(request, {k})\n" for k in range(4))
        (root / "src/app" / f"views_{i}.py").write_text(body)
    (root / "src/lib/util.py").write_text("def respond(request, code):\n    return code\n")
    (root / "docs/index.md").write_text("respond(request) is the one entry point\n")
    return root


def _printed(command: str, cwd: Path) -> list[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True).stdout.splitlines()


def test_grep_hits_are_shown_under_each_file_once_and_read_back_as_printed(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    command = "grep -rn 'respond(request' src"
    printed = _printed(command, root)
    view = run_command(command, cwd=str(root))
    lines = view.text.splitlines()
    assert lines[0].startswith("[hits grouped by file; as printed: read_saved(ref=")
    assert "src/app/views_3.py" in lines and "2:    return respond(request, 0)" in lines
    assert not any(line.startswith("src/app/views_3.py:") for line in lines)  # each path said once
    assert view.complete and view.tokens < 0.9 * count_tokens("\n".join(printed))
    ref = view.source
    assert ref is not None and f'ref="{ref}"' in lines[0]
    again = read_saved(ref=ref, end_line=len(printed))  # lines by number, as printed
    assert [line.split("\t", 1)[-1] for line in again.text.splitlines()] == printed
    # every printed line can be rebuilt from the view: the heading's path, then the line under it
    rebuilt, path = [], None
    for line in lines[1:]:
        if not line[0].isdigit():
            path = line
        else:
            number, _, text = line.partition(":")
            rebuilt.append(f"{path}:{number}:{text}")
    assert rebuilt == printed


def test_context_lines_and_separators_stay_under_their_file(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    view = run_command("grep -n -A1 'def handler_2_' src/app/views_2.py src/app/views_4.py", cwd=str(root))
    lines = view.text.splitlines()
    assert lines[1:6] == [
        "src/app/views_2.py",
        "1:def handler_2_0(request):",
        "2-    return respond(request, 0)",
        "3:def handler_2_1(request):",
        "4-    return respond(request, 1)",
    ]


def test_find_paths_are_shown_by_folder(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    command = "find . -name '*.py'"
    printed = _printed(command, root)
    view = run_command(command, cwd=str(root))
    lines = view.text.splitlines()
    assert lines[0].startswith("[paths grouped by folder; as printed: read_saved(ref=")
    assert "./src/lib/util.py" in lines  # alone in its folder: whole
    grouped = next(line for line in lines if line.startswith("./src/app/: "))
    assert sorted(grouped.removeprefix("./src/app/: ").split(", ")) == sorted(f"views_{i}.py" for i in range(12))
    rebuilt = []
    for line in lines[1:]:
        folder, sep, names = line.partition(": ")
        rebuilt += [folder + name for name in names.split(", ")] if sep else [line]
    assert rebuilt == printed


def test_outputs_of_other_shapes_and_cut_views_are_left_as_they_are(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert run_command("cat src/app/views_1.py", cwd=str(root)).text == (root / "src/app/views_1.py").read_text()[:-1]
    cut = run_command("grep -rn respond src", cwd=str(root), budget=120)
    assert "grouped" not in cut.text and not cut.complete
    assert regroup(["a/x.py:1:one", "b/y.py:2:two", "c/z.py:3:three"]) is None  # no prefix repeats
    assert regroup(["./a/b.py", "./a/c.py", "some words"]) is None  # not every line is a path


def test_in_a_session_lines_shown_before_are_named_and_the_rest_grouped(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    tools = Toolset(root=root)
    tools.call("read_file", {"path": "src/app/views_0.py"})
    view = tools.call("run_command", {"command": "grep -rn 'def handler_' src/app"})
    lines = view.text.splitlines()
    assert any(line.startswith("[lines ") and "as shown in call 1" in line for line in lines), view.text
    assert "src/app/views_5.py" in lines and lines[0] == "[hits grouped by file]"  # the footer reads it back
    assert lines[-1].startswith("[all again: read_saved(") and "fresh=true" in lines[-1]
