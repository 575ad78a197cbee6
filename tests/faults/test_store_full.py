"""A store with no space left: the output's start and its last lines are still shown, never a cut fragment.

The store lives on a 256 KiB tmpfs where the test can mount one (root with the right to
mount), else under a file-size limit (``RLIMIT_FSIZE``, ``ulimit -f``) of 64 KiB. The command
prints 100,000 numbered lines, then ``error: boom`` on stderr: the view must end with it.
"""

from __future__ import annotations

import contextlib
import itertools
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from _faults import Marked, saved_logs, wuu_argv

SCRIPT = "seq 1 100000; echo 'error: boom' >&2"


@contextlib.contextmanager
def small_tmpfs(where: Path) -> Iterator[bool]:
    """A 256 KiB tmpfs mounted at ``where`` (True), or nothing (False) where mounting is not allowed."""
    where.mkdir()
    mount, umount = shutil.which("mount"), shutil.which("umount")
    done = None
    if mount and umount:
        done = subprocess.run([mount, "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(where)], capture_output=True)
    try:
        yield done is not None and done.returncode == 0
    finally:
        if done is not None and done.returncode == 0:
            subprocess.run([umount, str(where)], check=False)


def _check(out: str) -> None:
    lines = out.rstrip("\n").split("\n")
    assert lines[0].startswith("[exit 0") and "could not be saved" in lines[1], lines[:2]
    assert lines[2:5] == ["1", "2", "3"]  # the start of the output
    assert lines[-1] == "error: boom", lines[-3:]  # was: counted, never shown
    assert lines[-2] == "100000", lines[-3:]
    numbers = [int(x) for x in lines[2:] if x.isdigit()]
    jumps = [(a, b) for a, b in itertools.pairwise(numbers) if b != a + 1]
    assert len(jumps) == 1, jumps[:3]  # the start, then (the lost middle named) the end, in order
    gap = [line for line in lines if "were lost" in line]
    assert len(gap) == 1 and "in between" in gap[0], gap
    shown = [x for x in lines[2:] if not x.startswith("[")]
    assert all(x.isdigit() or x == "error: boom" for x in shown), [x for x in shown if not x.isdigit()][:3]
    assert all(len(x) <= 6 for x in shown if x.isdigit())  # whole lines: no fragment cut from a number
    assert len(out.encode()) <= 51200


@pytest.mark.parametrize("how", ["tmpfs", "rlimit"])
def test_a_full_store_still_shows_the_last_lines(how: str, tree: Marked, tmp_path: Path) -> None:
    if how == "tmpfs":
        with small_tmpfs(tmp_path / "mnt") as mounted:
            if not mounted:
                pytest.skip("cannot mount a tmpfs here (not root, or no right to mount); the rlimit case runs instead")
            store = tmp_path / "mnt" / "store"
            run = tree.popen(wuu_argv("run", "--", "sh", "-c", SCRIPT), env={"WUU_STORE": str(store)}, text=True)
            out, err = run.communicate(timeout=60)
            assert run.returncode == 0, err
            assert saved_logs(store) == []  # no reference that does not resolve
    else:
        line = " ".join(wuu_argv("run", "--", "sh", "-c", f'"{SCRIPT}"'))
        run = tree.popen(["sh", "-c", f"ulimit -f 64; exec {line}"], text=True)
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
        assert saved_logs(tree.store) == []
    _check(out)
    tree.assert_none_left(settle=0.5)
