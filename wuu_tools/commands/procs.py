"""Process-tree control: find every process a command started, and end them all.

A command is started in a session of its own (so its process group can be signalled at
once) with a unique token in its environment (:data:`TOKEN_ENV`). Descendants inherit the
token even when they leave the group, start their own session (``setsid``) or are orphaned
and re-parented to init, so :func:`find_tree` finds them by it as well as by parent links
(psutil, children recursively). :func:`end_tree` sends SIGTERM to the group and to every
process found, waits a grace period, sends SIGKILL to what is left, looks once more for
processes started in the meantime, and returns how many processes it ended.

The root process is the caller's :class:`subprocess.Popen`; it is only ever waited for
through ``Popen.wait`` (never reaped by psutil), so its exit status stays correct. psutil
is imported only when a tree is searched (~20 ms that a plain ``wuu run`` does not pay).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psutil

__all__ = ["GRACE_S", "TOKEN_ENV", "end_token", "end_tree", "find_tree", "new_token"]

TOKEN_ENV = "WUU_RUN_TOKEN"
"""Environment variable that marks every process of one ``run_command`` call."""
GRACE_S = 2.0
"""Seconds between SIGTERM and SIGKILL."""


def new_token() -> str:
    """A fresh token for :data:`TOKEN_ENV`."""
    return os.urandom(16).hex()


def _has_token(proc: psutil.Process, token: str) -> bool:
    import psutil

    try:
        return proc.environ().get(TOKEN_ENV) == token
    except (psutil.Error, OSError):
        return False


def find_tree(root_pid: int | None, token: str | None) -> list[psutil.Process]:
    """Every live process of the tree: descendants of ``root_pid`` and holders of ``token``.

    The root itself is not included; the caller's own process never is.
    """
    import psutil

    found: dict[int, psutil.Process] = {}
    if root_pid is not None:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(root_pid).children(recursive=True):
                found[child.pid] = child
    if token:
        for proc in psutil.process_iter():
            if proc.pid not in found and _has_token(proc, token):
                found[proc.pid] = proc
                with contextlib.suppress(psutil.Error):
                    for child in proc.children(recursive=True):
                        found.setdefault(child.pid, child)
    found.pop(os.getpid(), None)
    if root_pid is not None:
        found.pop(root_pid, None)
    return [p for p in found.values() if _alive(p)]


def _alive(proc: psutil.Process) -> bool:
    import psutil

    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _wait_dead(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Wait until every process in ``procs`` has ended (a zombie counts: its parent may reap it late); the living."""
    deadline = time.monotonic() + timeout
    nap = 0.001
    alive = [p for p in procs if _alive(p)]
    while alive and time.monotonic() < deadline:
        time.sleep(min(nap, max(deadline - time.monotonic(), 0.0)))
        nap = min(nap * 2, 0.05)
        alive = [p for p in alive if _alive(p)]
    return alive


def _signal_all(root: subprocess.Popen[bytes], procs: list[psutil.Process], sig: signal.Signals) -> None:
    import psutil

    if root.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(root.pid, sig)
        with contextlib.suppress(OSError):
            root.send_signal(sig)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)


def end_tree(root: subprocess.Popen[bytes], token: str | None, grace: float = GRACE_S) -> int:
    """End ``root`` and every process of its tree: SIGTERM, ``grace`` seconds, SIGKILL.

    Returns:
        How many processes were ended (the root counts when it was still running).
    """

    root_running = root.poll() is None
    procs = find_tree(root.pid, token)
    ended = {p.pid for p in procs}
    _signal_all(root, procs, signal.SIGTERM)
    alive = _wait_dead(procs, grace)
    with contextlib.suppress(subprocess.TimeoutExpired):
        root.wait(timeout=0 if not alive and root.poll() is not None else grace / 4)
    # What survived SIGTERM, and anything started while it was being handled.
    late = [p for p in find_tree(root.pid, token) if p.pid not in ended]
    ended.update(p.pid for p in late)
    survivors = [p for p in alive + late if _alive(p)]
    if survivors or root.poll() is None:
        _signal_all(root, survivors, signal.SIGKILL)
        _wait_dead(survivors, grace)
        with contextlib.suppress(subprocess.TimeoutExpired):
            root.wait(timeout=grace)
    return len(ended) + (1 if root_running else 0)


def end_token(token: str, grace: float = GRACE_S) -> int:
    """End every process that holds ``token`` and their descendants, with no root to wait for.

    What the watchdog (:mod:`.watchdog`) does when the process that ran the command died
    without ending its tree: SIGTERM, ``grace`` seconds, SIGKILL, as :func:`end_tree`.
    Returns how many processes were ended.
    """
    import psutil

    procs = find_tree(None, token)
    ended = {p.pid for p in procs}
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(signal.SIGTERM)
    alive = _wait_dead(procs, grace)
    late = [p for p in find_tree(None, token) if p.pid not in ended]
    ended.update(p.pid for p in late)
    survivors = [p for p in alive + late if _alive(p)]
    for proc in survivors:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(signal.SIGKILL)
    _wait_dead(survivors, grace)
    return len(ended)
