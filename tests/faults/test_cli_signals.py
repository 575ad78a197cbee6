"""``wuu run`` stopped by its caller: SIGTERM, SIGHUP, SIGINT end the whole tree, keep the log, exit 128+N."""

from __future__ import annotations

import json
import signal

import pytest
from _faults import Marked, saved_logs, wait_for, wuu_argv

# A tree of three: the shell, a child in the command's group, and a grandchild that left it
# for a session of its own (what ``setsid`` or a daemonising tool does).
TREE = "echo started; echo to-stderr >&2; setsid sleep 301 & sleep 302; echo never"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_wuu_run_ends_the_tree_and_saves_the_log(tree: Marked, sig: signal.Signals) -> None:
    wuu = tree.popen(wuu_argv("run", "--", "sh", "-c", TREE), text=True)
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    wuu.send_signal(sig)
    out, err = wuu.communicate(timeout=30)
    assert wuu.returncode == 128 + sig.value, err
    first = out.splitlines()[0]
    assert first.startswith(f"[cancelled by {sig.name}: ") and "processes ended" in first
    assert out.splitlines()[1:] == ["started", "to-stderr"]  # it fits: shown whole, as printed
    tree.assert_none_left()
    (log,) = saved_logs(tree.store)
    assert log.read_bytes() == b"started\nto-stderr\n"  # all that was written, nothing mixed in
    meta = json.loads(log.with_name(log.name + ".meta.json").read_text())
    assert meta["cancelled"] == sig.name and meta["processes_ended"] >= 3


def test_the_json_envelope_of_a_stopped_run_names_the_cancel(tree: Marked) -> None:
    wuu = tree.popen(wuu_argv("run", "--json", "--timeout", "60", "--", "sh", "-c", TREE), text=True)
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    wuu.send_signal(signal.SIGTERM)
    out, _ = wuu.communicate(timeout=30)
    envelope = json.loads(out)
    assert wuu.returncode == 143
    assert envelope["meta"]["cancelled"] == "SIGTERM" and envelope["meta"]["timed_out"] is False
    assert envelope["source"] and envelope["text"].startswith("[cancelled by SIGTERM")
    tree.assert_none_left()


def test_a_tree_that_ignores_sigterm_is_killed_when_the_caller_stops(tree: Marked) -> None:
    stubborn = "trap '' TERM; echo up; sh -c \"trap '' TERM; sleep 303\" & sleep 304"
    wuu = tree.popen(wuu_argv("run", "--", "sh", "-c", stubborn), text=True)
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    wuu.send_signal(signal.SIGTERM)
    out, _ = wuu.communicate(timeout=30)
    assert wuu.returncode == 143
    assert out.startswith("[cancelled by SIGTERM")
    tree.assert_none_left()
    (log,) = saved_logs(tree.store)
    assert log.read_bytes() == b"up\n"


def test_a_reader_gone_with_the_terminal_still_ends_the_tree(tree: Marked) -> None:
    """SIGHUP with stdout closed (the terminal went away): the tree ends and the log is kept."""
    wuu = tree.popen(wuu_argv("run", "--", "sh", "-c", TREE))
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    assert wuu.stdout is not None
    wuu.stdout.close()
    wuu.send_signal(signal.SIGHUP)
    assert wuu.wait(timeout=30) == 128 + signal.SIGHUP
    tree.assert_none_left()
    (log,) = saved_logs(tree.store)
    assert log.read_bytes() == b"started\nto-stderr\n"


def test_the_typer_command_handles_signals_too(tree: Marked) -> None:
    """``--timeout=60`` is left to the typer command: it stops the same way."""
    wuu = tree.popen(wuu_argv("run", "--timeout=60", "--", "sh", "-c", TREE), text=True)
    wait_for(lambda: tree.count("sleep") == 2, timeout=30, what="the command's tree started")
    wuu.send_signal(signal.SIGINT)
    out, _ = wuu.communicate(timeout=30)
    assert wuu.returncode == 130
    assert out.startswith("[cancelled by SIGINT")
    tree.assert_none_left()


def test_sigkill_of_wuu_run_still_ends_the_tree(tree: Marked) -> None:
    """SIGKILL cannot be caught: the run's watchdog (a sh holding a pipe from wuu) ends the tree."""
    wuu = tree.popen(wuu_argv("run", "--", "sh", "-c", TREE))
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    wait_for(tree.watchdog_started, what="the watchdog started (0.1 s into the run)")
    wuu.send_signal(signal.SIGKILL)
    assert wuu.wait(timeout=30) == -signal.SIGKILL
    tree.assert_none_left(settle=10)
    assert saved_logs(tree.store) == []  # nothing was saved, and no reference was handed out
