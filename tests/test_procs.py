"""Process-tree control with real processes: grandchildren in their own sessions, orphans, TERM-proof ones."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil

from wuu_tools.commands.procs import TOKEN_ENV, end_tree, find_tree, new_token


def _spawn(script: str, token: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["sh", "-c", script],
        env={**os.environ, TOKEN_ENV: token},
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _marked(marker: str) -> list[psutil.Process]:
    """Live ``sleep`` processes whose arguments hold ``marker``."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline", "status"]):
        if proc.info["name"] != "sleep" or proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if marker in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


def _wait_for(predicate: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")


def test_a_grandchild_in_its_own_session_is_found_and_ended() -> None:
    token = new_token()
    marker = f"{time.time_ns() % 10**6}.25"
    root = _spawn(f"setsid sleep 300{marker} & sleep 300{marker}", token)
    try:
        _wait_for(lambda: len(_marked(f"300{marker}")) == 2)
        grandchild_sessions = {p.pid: os.getsid(p.pid) for p in _marked(f"300{marker}")}
        assert len(set(grandchild_sessions.values())) == 2  # one of them left the command's session
        tree = find_tree(root.pid, token)
        assert {p.pid for p in tree} >= set(grandchild_sessions)
        ended = end_tree(root, token, grace=2.0)
        assert ended >= 3
        assert _marked(f"300{marker}") == []
        assert root.poll() is not None
    finally:
        for p in _marked(f"300{marker}"):
            p.kill()
        if root.poll() is None:
            root.kill()
        root.wait()


def test_an_orphaned_grandchild_is_found_by_its_token() -> None:
    token = new_token()
    marker = f"{time.time_ns() % 10**6}.5"
    root = _spawn(f"setsid sleep 301{marker} & exit 0", token)
    try:
        root.wait(timeout=10)
        _wait_for(lambda: len(_marked(f"301{marker}")) == 1)
        (orphan,) = _marked(f"301{marker}")
        assert orphan.ppid() != root.pid
        assert [p.pid for p in find_tree(root.pid, token)] == [orphan.pid]
        assert end_tree(root, token, grace=2.0) == 1
        assert _marked(f"301{marker}") == []
    finally:
        for p in _marked(f"301{marker}"):
            p.kill()


def test_a_process_that_ignores_sigterm_gets_sigkill() -> None:
    token = new_token()
    root = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(300)",
        ],
        env={**os.environ, TOKEN_ENV: token},
        start_new_session=True,
        stdout=subprocess.PIPE,
    )
    assert root.stdout is not None
    assert root.stdout.readline() == b"ready\n"
    root.stdout.close()
    assert end_tree(root, token, grace=0.5) == 1
    assert root.returncode == -9


def test_the_caller_is_never_part_of_the_tree(monkeypatch: object) -> None:
    token = new_token()
    os.environ[TOKEN_ENV] = token
    try:
        root = _spawn("sleep 30", token)
        assert os.getpid() not in {p.pid for p in find_tree(root.pid, token)}
        end_tree(root, token, grace=1.0)
    finally:
        del os.environ[TOKEN_ENV]
