"""Faults that already held when the fault matrix was first run, kept here so they keep holding.

Concurrent writers to one store, a store that cannot save, a file changed in the middle of a
continuation chain, and a timed-out tree that ignores SIGTERM and double-forks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from _faults import Marked, saved_logs, wuu_argv

from wuu_tools import Store, read_file

REF = re.compile(r'ref="(log-[0-9a-f]{8,32})"')


def test_eight_concurrent_runs_into_one_store_keep_eight_complete_distinct_logs(tree: Marked) -> None:
    runs = [
        tree.popen(wuu_argv("run", "--", "sh", "-c", f"seq -f 'writer {n} line %g' 1 20000"), text=True)
        for n in range(8)
    ]
    refs = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        ref = REF.search(out)  # named once, in the call that reads on
        assert ref is not None, out[:200]
        refs.append(ref.group(1))
    assert len(set(refs)) == 8
    for n, ref in enumerate(refs):
        expected = "".join(f"writer {n} line {i}\n" for i in range(1, 20001)).encode()
        assert Store(tree.store).path(ref).read_bytes() == expected  # whole, and nobody else's
    tree.assert_none_left(settle=0.5)


def test_a_store_that_is_a_file_gives_a_notice_and_the_output_still(tree: Marked, tmp_path: Path) -> None:
    not_a_dir = tmp_path / "store-file"
    not_a_dir.write_text("in the way\n")
    run = tree.popen(
        wuu_argv("run", "--", "sh", "-c", "echo visible output; exit 3"), env={"WUU_STORE": str(not_a_dir)}, text=True
    )
    out, _ = run.communicate(timeout=60)
    assert run.returncode == 3
    assert "could not be saved" in out and "no reference is given" in out
    assert "visible output" in out and "log-" not in out
    assert not_a_dir.read_text() == "in the way\n"
    tree.assert_none_left(settle=0.5)


def test_a_store_at_the_file_size_limit_gives_a_notice_and_the_output_up_to_the_cap(tree: Marked) -> None:
    # ulimit -f 64: files of at most 64 KiB; the log of 600 KB cannot be saved (EFBIG).
    line = " ".join(wuu_argv("run", "--", "seq", "1", "100000"))
    run = tree.popen(["sh", "-c", f"ulimit -f 64; exec {line}"], text=True)
    out, _ = run.communicate(timeout=60)
    assert run.returncode == 0
    first, note = out.splitlines()[:2]
    assert first.startswith("[exit 0") and "could not be saved" in note
    assert "\n1\n2\n3\n" in out and "were lost: not saved" in out  # the output, unshortened up to the cap
    assert len(out.encode()) <= 51200 + 200
    assert saved_logs(tree.store) == []  # no reference that does not resolve
    tree.assert_none_left(settle=0.5)


def test_a_file_changed_in_the_middle_of_a_chain_is_named_as_changed_and_never_joined(tmp_path: Path) -> None:
    target = tmp_path / "moving.txt"
    target.write_text("".join(f"old line {n}\n" for n in range(1, 3001)))
    first = read_file(str(target), budget=200)
    assert first.continuation is not None
    target.write_text("".join(f"new line {n}\n" for n in range(1, 3001)))
    after = read_file(**first.continuation["args"])
    head = after.text.splitlines()[0]
    assert head.startswith("[changed:") and str(first.revision) in head and str(after.revision) in head
    assert after.revision != first.revision
    assert "old line" not in after.text  # the new view is cut from the new file only
    assert after.meta["revision_changed"] == {"asked": first.revision, "now": after.revision}


def test_a_timed_out_tree_that_ignores_sigterm_and_double_forks_is_all_ended(tree: Marked) -> None:
    stubborn = (
        "trap '' TERM; echo up; "
        "( setsid sh -c \"trap '' TERM; sleep 341\" & ); "  # double fork: orphaned, in a session of its own
        "sh -c \"trap '' TERM; sleep 342\" & sleep 343"
    )
    run = tree.popen(wuu_argv("run", "--timeout", "1", "--", "sh", "-c", stubborn), text=True)
    out, _ = run.communicate(timeout=60)
    assert run.returncode == 124
    assert out.startswith("[timed out after 1 s: ")
    tree.assert_none_left()
    (log,) = saved_logs(tree.store)
    assert log.read_bytes() == b"up\n"
    meta = json.loads(log.with_name(log.name + ".meta.json").read_text())
    assert meta["timed_out"] is True and meta["processes_ended"] >= 5


def test_a_broken_pipe_reader_does_not_leave_the_tree(tree: Marked) -> None:
    """``wuu run … | head -1``: the reader leaves early; the command had ended, nothing is left."""
    line = " ".join(wuu_argv("run", "--", "seq", "1", "50000"))
    run = tree.popen(["sh", "-c", f"{line} | head -1"], text=True)
    out, _ = run.communicate(timeout=60)
    assert out.startswith("[exit 0")
    assert run.returncode == 0  # the pipeline's status is head's
    tree.assert_none_left(settle=0.5)
