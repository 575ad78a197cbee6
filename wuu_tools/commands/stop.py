"""Stopping a running command from outside: a signal, a cancelled call, a closing server.

A :class:`Stop` is a request to end the command running under it, and so its whole process
tree, with the same end as a timeout (:func:`.procs.end_tree`). It records why (``reason``:
a signal name such as ``"SIGTERM"``, or a few words) and owns a pipe whose read end becomes
readable once it is set, so the reading loop of :func:`.run.run_command` wakes at once
wherever it waits. :meth:`Stop.set` is safe from a signal handler and from any thread.

:func:`stopping` puts a Stop in force for the calls made inside it (a context variable, so a
worker thread that runs in a copy of the context, as ``anyio.to_thread`` does, sees it too;
it lives in :mod:`wuu_tools.core.cancel`, where the work done in this process checks it).
:func:`on_signals` sets a Stop when SIGTERM, SIGHUP or SIGINT arrives (main thread only), and
:func:`redeliver` acts on such a signal afterwards as Python's own handler would have.
:func:`wait_exit` waits for a command's exit, a deadline or a Stop, whichever comes first.

>>> with Stop() as stop:
...     stop.set("SIGTERM"); stop.set("SIGINT")
...     stop.reason, stop.signal_number
('SIGTERM', 15)
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from types import FrameType, TracebackType
from typing import Any

from ..core.cancel import current_stop, stopping

__all__ = ["STOP_SIGNALS", "Stop", "current_stop", "note_saved", "on_signals", "redeliver", "stopping", "wait_exit"]

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    s for s in (getattr(signal, n, None) for n in ("SIGTERM", "SIGHUP", "SIGINT")) if s is not None
)
"""The signals a caller stops a command with: a harness cancelling, a closed terminal, Ctrl-C."""


class Stop:
    """A request to stop: set once (the first reason wins), seen through :meth:`fileno`."""

    def __init__(self) -> None:
        self._r, self._w = os.pipe()
        os.set_blocking(self._w, False)
        self.reason: str | None = None

    def set(self, reason: str) -> None:
        """Ask the command to stop, because of ``reason`` (kept if it is the first)."""
        if self.reason is None:
            self.reason = reason
        with contextlib.suppress(OSError):  # full (already woken) or closed
            os.write(self._w, b"!")

    @property
    def is_set(self) -> bool:
        """True once :meth:`set` was called."""
        return self.reason is not None

    @property
    def signal_number(self) -> int | None:
        """The number of the signal that set this Stop, or None when it was not a signal."""
        member = signal.Signals.__members__.get(self.reason or "")
        return None if member is None else int(member)

    def fileno(self) -> int:
        """A descriptor that is readable once the Stop is set (for ``poll``/``select``)."""
        return self._r

    def close(self) -> None:
        """Release the pipe; the Stop cannot wake anyone afterwards."""
        for fd in (self._r, self._w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._r = self._w = -1

    def __enter__(self) -> Stop:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Stop(reason={self.reason!r})"


def _is_default(sig: signal.Signals, handler: Any) -> bool:
    return handler is signal.SIG_DFL or (sig == signal.SIGINT and handler is signal.default_int_handler)


@contextlib.contextmanager
def on_signals(stop: Stop, defaults_only: bool = False) -> Iterator[list[signal.Signals]]:
    """Set ``stop`` (reason: the signal's name) when one of :data:`STOP_SIGNALS` arrives.

    Only in the main thread (elsewhere nothing is installed). With ``defaults_only``, a
    signal whose handler the program already chose is left alone. Yields the signals handled;
    the previous handlers come back when the block ends.
    """
    if threading.current_thread() is not threading.main_thread():
        yield []
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set(signal.Signals(signum).name)

    saved: dict[signal.Signals, Any] = {}
    try:
        for sig in STOP_SIGNALS:
            previous = signal.getsignal(sig)
            if previous is signal.SIG_IGN or (defaults_only and not _is_default(sig, previous)):
                continue
            saved[sig] = previous
            signal.signal(sig, handler)
        yield list(saved)
    finally:
        for sig, previous in saved.items():
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)


def redeliver(stop: Stop, ref: str | None) -> None:
    """Act on the signal that set ``stop`` as Python's default handler would have, now that nothing is left.

    SIGINT raises ``KeyboardInterrupt`` (noting the saved log ``ref``); SIGTERM and SIGHUP are
    sent again to this process, whose handler is the default again, so it ends of them.
    """
    number = stop.signal_number
    if number is None:
        return
    if number == signal.SIGINT:
        interrupt = KeyboardInterrupt()
        note_saved(interrupt, ref)
        raise interrupt
    os.kill(os.getpid(), number)


def note_saved(exc: BaseException, ref: str | None) -> None:
    """Add a note to ``exc`` naming the saved log of the command it cut short (Python 3.11+)."""
    if ref and hasattr(exc, "add_note"):
        exc.add_note(f"wuu-tools: the command's process tree was ended; its output so far is saved as {ref}")


def wait_exit(proc: subprocess.Popen[bytes], deadline: float, stop: Stop | None) -> str:
    """Wait for ``proc`` to exit: ``"exited"``, or ``"timeout"`` at ``deadline`` (monotonic), or ``"stopped"``."""
    if stop is None:
        try:
            proc.wait(timeout=None if deadline == float("inf") else max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            return "timeout"
        return "exited"
    pidfd = -1
    with contextlib.suppress(AttributeError, OSError):  # Linux: the exit wakes the wait at once
        pidfd = os.pidfd_open(proc.pid)
    try:
        nap = 0.001
        while proc.poll() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            waits = [stop.fileno()] + ([pidfd] if pidfd >= 0 else [])
            ready, _, _ = select.select(waits, [], [], min(left, 0.5 if pidfd >= 0 else nap))
            if stop.fileno() in ready:
                return "stopped"
            nap = min(nap * 2, 0.05)
        return "exited"
    finally:
        if pidfd >= 0:
            os.close(pidfd)
