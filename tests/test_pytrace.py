"""Python tracebacks in a command's first view (issue 32): a long one's middle, library runs and ``^`` markers folded.

Real Python processes raise through a project's files and a package under ``site-packages``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from wuu_tools import ToolResult, read_saved, run_command
from wuu_tools.core.budget import count_tokens
from wuu_tools.logs.tools import Fold
from wuu_tools.logs.tools.pytrace import merge_folds, traceback_folds

CHAIN = 12


def _project(root: Path) -> Path:
    lib = root / "site-packages" / "libx"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("def call(cb):\n    return inner(cb)\n\n\ndef inner(cb):\n    return cb() + 1\n")
    steps = [f"def f{i}(n):\n    value = f{i + 1}(n) + 1\n    return value\n\n\n" for i in range(CHAIN)]
    last = f"def f{CHAIN}(n):\n    return libx.call(lambda: settle(n))\n\n\n"
    settle = "def settle(n):\n    raise ValueError(f'bad setting {n}')\n\n\n"
    (root / "app.py").write_text("import libx\n\n\n" + "".join(steps) + last + settle + "f0(3)\n")
    return root


def _run(root: Path, budget: int | None = None) -> ToolResult:
    env = f"PYTHONPATH={root / 'site-packages'}"
    return run_command(f"{env} {sys.executable} app.py", cwd=str(root), budget=budget)


def test_a_long_traceback_keeps_both_ends_and_names_its_middle(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = _run(root)
    env = {**os.environ, "PYTHONPATH": str(root / "site-packages")}
    ran = subprocess.run([sys.executable, "app.py"], cwd=root, env=env, capture_output=True, text=True, check=False)
    printed = ran.stderr.splitlines()  # the traceback as Python prints it
    text = result.text
    assert result.meta["exit_code"] == 1 and result.meta["view"] == "python traceback"
    assert text.splitlines()[-2] == "ValueError: bad setting 3"  # the exception, as printed
    assert "line 1, in <module>" not in text and "f0(3)" in text  # the entry frame kept
    assert '", line' in text.splitlines()[2] and "in f0" in text.splitlines()[4]
    middle = next(line for line in text.splitlines() if line.startswith("[… ") and " frames" in line)
    assert re.search(r"f2:\d+, f3:\d+", middle) and "library" not in middle
    assert "in settle" in text and "in f12" in text  # the last frames of the project kept
    assert "[… 2 library frames in libx/__init__.py: lines " in text  # the package's frames between the project's
    assert not any(re.fullmatch(r"[ ~^]*\^[ ~^]*", line) for line in text.splitlines())
    assert any(re.fullmatch(r"[ ~^]*\^[ ~^]*", line) for line in printed), "Python printed no marker lines"
    assert text.splitlines()[-1].startswith("[folded lines and ") and "traceback ^ marker line" in text
    assert result.tokens < count_tokens("\n".join(printed))
    back = read_saved(**result.continuation["args"])  # every line left out, as printed
    shown = set(text.splitlines())
    left_out = [line for line in printed if line not in shown]
    read = {m.group(1) for line in back.text.splitlines() if (m := re.match(r"\d+\t(.*)", line))}
    assert back.complete and left_out and all(line in read for line in left_out)


def test_library_frames_between_project_frames_fold_into_one_line() -> None:
    frames = []
    for i, path in enumerate(["/app/run.py", "/usr/lib/python3.11/runpy.py", "<frozen runpy>", "/app/step.py"]):
        frames += [f'  File "{path}", line {i + 1}, in f{i}', f"    call{i}()"]
    lines = ["Traceback (most recent call last):", *frames, "KeyError: 'x'"]
    folds = traceback_folds(lines)
    assert folds == [Fold(4, 7, "2 library frames in runpy.py, <frozen runpy>")]


def test_a_short_traceback_is_shown_as_printed(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("def f():\n    raise KeyError('k')\n\n\nf()\n")
    result = run_command([sys.executable, "t.py"], cwd=str(tmp_path))
    assert result.complete and "KeyError: 'k'" in result.text and "[…" not in result.text


def test_chained_tracebacks_are_each_folded_and_a_rules_own_folds_win() -> None:
    def tb(n: int) -> list[str]:
        out = ["Traceback (most recent call last):"]
        for i in range(n):
            out += [f'  File "/app/m{i}.py", line {i + 1}, in g{i}', f"    g{i + 1}(x)", "    ^^^^^^^^^"]
        return out

    lines = [*tb(10), "OSError: one", "", "During handling of the above exception, another exception occurred:", ""]
    lines += [*tb(10), "OSError: two"]
    folds = [f for f in traceback_folds(lines) if f.label]
    assert len(folds) == 2 and all(f.label.startswith("4 frames: g2:3, g3:4") for f in folds)
    markers = [f for f in traceback_folds(lines) if not f.label]
    assert len(markers) == 12  # six frames kept in each: their marker lines
    own = [Fold(1, 3, "setup")]
    merged = merge_folds(own, traceback_folds(lines))
    assert merged[0] == own[0] and all(f.start > 3 for f in merged[1:])


def test_a_traceback_printed_after_a_label_is_folded_too(tmp_path: Path) -> None:
    """A script that runs a child and prints ``Stderr: `` before its traceback (the header is not alone on its line)."""
    root = _project(tmp_path)
    (root / "check.py").write_text(
        "import subprocess, sys\n"
        "r = subprocess.run([sys.executable, 'app.py'], capture_output=True, text=True)\n"
        "print('Exit code:', r.returncode)\n"
        "print('Stderr: ' + r.stderr, end='')\n"
    )
    env = f"PYTHONPATH={root / 'site-packages'}"
    result = run_command(f"{env} {sys.executable} check.py", cwd=str(root))
    lines = result.text.splitlines()
    assert result.meta["view"] == "python traceback" and "Stderr: Traceback (most recent call last):" in lines
    assert any(line.startswith("[… ") and "f2:" in line for line in lines)  # its middle named
    assert lines[-2] == "ValueError: bad setting 3"
    frame = ['  File "a.py", line 1, in f', "    g()", "    ~^^"]
    assert traceback_folds(["Note: Traceback (most recent call last):", *frame]) == [Fold(4, 4, "")]
    assert not traceback_folds(["x Traceback (most recent call last):", *frame])  # a label ends in ": "
