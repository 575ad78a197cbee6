"""A watchdog that ends a command's tree if the process running it dies without doing so.

A SIGKILL (or a crash) of the process that runs a command cannot be caught, and the command
runs in a session of its own, so nothing would end its tree. A :class:`Watchdog` starts a
small ``/bin/sh`` in a session of its own that reads a pipe whose only writer is this
process. :meth:`Watchdog.release` writes ``done`` when the run is over and the sh exits. If
this process dies first, the pipe closes without ``done``: the sh then becomes a Python
process that ends every process holding the run's token (:func:`.procs.end_token`: SIGTERM,
a grace period, SIGKILL).

The sh is started only once the command has run for :data:`WATCH_AFTER_S` (from a timer
thread), so a short command pays nothing for it (starting and releasing it measured ~5-10 ms
here); a SIGKILL within that first tenth of a second leaves the tree to itself. POSIX only;
where it cannot start (no ``/bin/sh``, no ``sys.executable``) the run goes on without it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from pathlib import Path

__all__ = ["WATCH_AFTER_S", "Watchdog"]

WATCH_AFTER_S = 0.1
"""Seconds a command runs before its watchdog is started."""
SHELL = "/bin/sh"
_WAIT = 'IFS= read -r line; [ "$line" = done ] || exec "$0" -I -c "$1" "$2" "$3"'
_REAP = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from wuu_tools.commands.procs import end_token; end_token(sys.argv[2])"
)
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


class Watchdog:
    """The watchdog of one run, identified by its process token; started after ``after`` seconds."""

    def __init__(self, token: str, after: float = WATCH_AFTER_S) -> None:
        self.token = token
        self.proc: subprocess.Popen[bytes] | None = None
        self._pipe = -1
        self._lock = threading.Lock()
        self._released = False
        self._timer: threading.Timer | None = None
        if os.name != "posix" or not sys.executable or not os.path.exists(SHELL):
            return
        if after <= 0:
            self._start()
        else:
            self._timer = threading.Timer(after, self._start)
            self._timer.daemon = True
            self._timer.start()

    def _start(self) -> None:
        with self._lock:
            if self._released:
                return
            read_end, write_end = os.pipe()
            try:
                self.proc = subprocess.Popen(
                    [SHELL, "-c", _WAIT, sys.executable, _REAP, _PACKAGE_PARENT, self.token],
                    stdin=read_end,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # a terminal's Ctrl-C or hang-up does not reach it
                )
            except OSError:
                os.close(write_end)
                return
            finally:
                os.close(read_end)
            self._pipe = write_end

    def release(self) -> None:
        """The run is over (its tree ended or finished): let the watchdog go without acting."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._released = True
            if self._pipe < 0 or self.proc is None:
                return
            with contextlib.suppress(OSError):
                os.write(self._pipe, b"done\n")
            os.close(self._pipe)
            self._pipe = -1
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=2.0)  # it exits as soon as it reads "done" (~1 ms)
