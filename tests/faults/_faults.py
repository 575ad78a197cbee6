"""Shared by the fault tests: real ``wuu`` processes, real signals, and the check that nothing survives.

Every process a test starts carries a mark in its environment (:data:`MARK_ENV`); the
commands wuu runs inherit it, even when they start their own session or are orphaned, so
:func:`survivors` finds every process of a tree by it. Each test asserts, through
:func:`assert_none_left`, that no marked process is alive at its end.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

MARK_ENV = "WUU_FAULT_MARK"
"""Environment variable that marks every process a fault test started, and their descendants."""


def wuu_argv(*args: str) -> list[str]:
    """``wuu ARGS`` as an argv: the installed console script, else the module's entry point."""
    script = Path(sys.executable).with_name("wuu")
    if script.is_file():
        return [str(script), *args]
    return [sys.executable, "-c", "from wuu_tools.cli import main; main()", *args]


def marked(mark: str) -> list[psutil.Process]:
    """Every live (not zombie) process whose environment holds ``mark``."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.pid == os.getpid() or proc.status() == psutil.STATUS_ZOMBIE:
                continue
            if proc.environ().get(MARK_ENV) == mark:
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    return found


def wait_for(predicate: Callable[[], Any], timeout: float = 15.0, what: str = "condition") -> Any:
    """Poll ``predicate`` until it returns something true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached in {timeout:g} s")
        time.sleep(0.02)


def survivors(mark: str, settle: float = 5.0) -> list[str]:
    """The marked processes still alive after up to ``settle`` seconds, described; [] when none."""
    deadline = time.monotonic() + settle
    while True:
        left = marked(mark)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    out = []
    for proc in left:
        try:
            out.append(f"{proc.pid} {' '.join(proc.cmdline())}")
        except psutil.Error:
            continue
    return out


def _default_stop_signals() -> None:
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


class Marked:
    """A test's mark: the environment to start processes with, and the check that none is left."""

    def __init__(self, store: Path) -> None:
        self.mark = uuid.uuid4().hex
        self.store = store
        self.env = {**os.environ, MARK_ENV: self.mark, "WUU_STORE": str(store)}
        self.started: list[subprocess.Popen[Any]] = []

    def popen(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
        """Start ``argv`` marked (stdout and stderr piped unless given), with the stop signals at their
        defaults as in a terminal's session: a suite run under ``nohup`` or as a background job hands
        its children SIGHUP or SIGINT ignored, and ``wuu run`` rightly keeps ignoring what it was
        started ignoring."""
        kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("stderr", subprocess.PIPE)
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        kwargs.setdefault("preexec_fn", _default_stop_signals)
        proc = subprocess.Popen(argv, env={**self.env, **kwargs.pop("env", {})}, **kwargs)
        self.started.append(proc)
        return proc

    def count(self, name: str) -> int:
        """How many live marked processes are called ``name``."""
        n = 0
        for proc in marked(self.mark):
            try:
                n += proc.name() == name
            except psutil.Error:
                continue
        return n

    def watchdog_started(self) -> bool:
        """Whether a run's watchdog (:mod:`wuu_tools.commands.watchdog`) is waiting among the marked processes."""
        for proc in marked(self.mark):
            try:
                if "end_token" in " ".join(proc.cmdline()):
                    return True
            except psutil.Error:
                continue
        return False

    def assert_none_left(self, settle: float = 5.0) -> None:
        """No marked process is alive (after up to ``settle`` seconds for the ones being ended)."""
        left = survivors(self.mark, settle)
        assert left == [], f"processes of the tree survived: {left}"

    def cleanup(self) -> None:
        """Kill whatever a failed test left (the test has already failed if anything is here)."""
        for proc in marked(self.mark):
            try:
                proc.send_signal(signal.SIGKILL)
            except psutil.Error:
                continue
        for proc in self.started:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()


def saved_logs(store: Path) -> list[Path]:
    """The saved command logs of ``store`` (finished records only)."""
    return sorted(p for p in (store / "objects").glob("log-*") if not p.name.endswith(".json"))


class RawMCP:
    """``wuu mcp serve`` spoken to line by line (to send what no SDK client sends: bad lines, cancels)."""

    def __init__(self, tree: Marked, *args: str) -> None:
        self.proc = tree.popen(wuu_argv("mcp", "serve", *args), stdin=subprocess.PIPE)
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "fault-tests", "version": "1"},
                },
            }
        )
        assert self.recv()["id"] == 0
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any] | str | bytes) -> None:
        """Write one line: a message (as JSON), or the raw text or bytes given."""
        assert self.proc.stdin is not None
        if isinstance(message, dict):
            message = json.dumps(message)
        data = message if isinstance(message, bytes) else message.encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        """The next message the server writes (fails after ``timeout`` seconds)."""
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"no message from the server in {timeout:g} s"
        line = self.proc.stdout.readline()
        assert line, "the server closed its output"
        message: dict[str, Any] = json.loads(line)
        return message

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> None:
        """Send a ``tools/call`` (its answer is read with :meth:`recv`)."""
        params = {"name": tool, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})

    def cancel(self, request_id: int) -> None:
        """Send ``notifications/cancelled`` for ``request_id``."""
        params = {"requestId": request_id, "reason": "the user stopped it"}
        self.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    def close(self, timeout: float = 30.0) -> int:
        """Close the server's stdin (the client is gone) and return its exit status."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=timeout)
