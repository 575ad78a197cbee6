"""A long listing's first view (issue 32): rows by name and size, the columns rows share said once.

Real ``ls -l`` processes on a temporary folder, through ``run_command``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from wuu_tools import read_saved, run_command
from wuu_tools.core.budget import count_tokens

pytestmark = pytest.mark.skipif(shutil.which("ls") is None, reason="ls is not installed")


def _folder(root: Path) -> Path:
    (root / "pkg").mkdir()
    for i in range(12):
        (root / f"module_{i}.py").write_text("x" * (i * 37))
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    os.symlink("module_1.py", root / "alias.py")
    return root


def test_rows_by_name_and_size_and_what_differs(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    printed = run_command(["ls", "-la"], cwd=str(root), budget=None)
    lines = printed.text.splitlines()
    assert printed.meta["view"] == "ls -l" and not printed.complete
    assert lines[1].startswith("[ls -l rows by name and size; mode -rw-r--r--") and "read_saved(ref=" in lines[1]
    assert any(s.startswith("pkg/") for s in lines) and "module_3.py  111" in lines
    assert "alias.py -> module_1.py" in lines
    assert "run.sh  10  -rwxr-xr-x" in lines  # the mode that differs stays on its row
    assert lines[2].startswith("total ")  # a line that is no row, as printed, in place
    whole = read_saved(**printed.continuation["args"])  # the rows as printed
    raw = [line.split("\t", 1)[-1] for line in whole.text.splitlines()]
    assert any(line.startswith("-rwxr-xr-x") and line.endswith(" run.sh") for line in raw)
    assert whole.complete and len([s for s in raw if s.startswith("-rw") and s.endswith(".py")]) == 12
    assert printed.tokens < 0.6 * count_tokens("\n".join(raw))


def test_a_failing_or_short_listing_is_shown_as_printed(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    two = run_command(["ls", "-l", "run.sh", "pkg"], cwd=str(root))
    assert two.meta.get("view") != "ls -l"
    missing = run_command("ls -l . no-such-file", cwd=str(root))
    assert missing.meta["exit_code"] != 0 and missing.meta.get("view") != "ls -l"
    assert "no-such-file" in missing.text
