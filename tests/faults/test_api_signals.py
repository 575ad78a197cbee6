"""The Python API stopped by its caller: KeyboardInterrupt and SIGTERM end the tree and keep the log."""

from __future__ import annotations

import json
import signal
import sys

from _faults import Marked, saved_logs, wait_for

TREE = "echo started; setsid sleep 311 & sleep 312"

PROGRAM = f"""
import signal, sys
from wuu_tools import run_command
mode = sys.argv[1]
if mode == "custom":  # a program's own SIGINT handler: the interrupt lands inside the call
    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, handler)
try:
    result = run_command({TREE!r}, timeout=60)
except KeyboardInterrupt as exc:
    print("interrupted", *getattr(exc, "__notes__", []), flush=True)
    sys.exit(7)
print("returned", result.meta.get("cancelled"), flush=True)
"""


def _program(tree: Marked, mode: str):  # type: ignore[no-untyped-def]
    proc = tree.popen([sys.executable, "-c", PROGRAM, mode], text=True)
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    return proc


def _only_log(tree: Marked) -> tuple[bytes, dict[str, object]]:
    (log,) = saved_logs(tree.store)
    return log.read_bytes(), json.loads(log.with_name(log.name + ".meta.json").read_text())


def test_ctrl_c_in_the_python_api_ends_the_tree_then_raises_keyboard_interrupt(tree: Marked) -> None:
    proc = _program(tree, "default")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 7, err
    assert out.startswith("interrupted")
    tree.assert_none_left()
    data, meta = _only_log(tree)
    assert data == b"started\n" and meta["cancelled"] == "SIGINT"
    if sys.version_info >= (3, 11):  # exception notes
        assert "saved as log-" in out


def test_a_keyboard_interrupt_raised_inside_the_call_ends_the_tree_and_keeps_the_log(tree: Marked) -> None:
    proc = _program(tree, "custom")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 7, err
    assert out.startswith("interrupted")
    tree.assert_none_left()
    data, meta = _only_log(tree)
    assert data == b"started\n" and meta["cancelled"] == "KeyboardInterrupt"


def test_sigterm_to_a_program_using_the_api_ends_the_tree_then_the_program(tree: Marked) -> None:
    proc = _program(tree, "default")
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGTERM  # the program still ends of the signal ...
    assert "returned" not in out
    tree.assert_none_left()  # ... but only after the tree was ended
    data, meta = _only_log(tree)
    assert data == b"started\n" and meta["cancelled"] == "SIGTERM"
