"""Running a command's process and reading both of its pipes into a :class:`~.sink.LogSink` as output comes.

:func:`spawn` starts it with nothing waiting for a person (stdin on ``/dev/null``, pagers and
editors disabled, a session of its own, 1 MiB pipes on Linux); :func:`pump` reads until the
pipes close, ending the whole tree on timeout or when the caller stops the call.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time
from collections.abc import Callable

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

from .procs import TOKEN_ENV, end_tree, find_tree
from .sink import LogSink
from .stop import Stop, wait_exit

__all__ = ["AFTER_EXIT_S", "QUIET_ENV", "pump", "spawn"]

READ_SIZE = 1 << 20
PIPE_SIZE = 1 << 20
AFTER_EXIT_S = 2.0  # how long output is still read after the command exited (background holders)
DRAIN_S = 2.0  # how long output is still read after the tree was ended on timeout
POLL_S = 0.05  # how often the command's exit is checked while its output keeps coming
NAP_S = 0.0001  # after a small read, a nap this long: a fast writer's output gathers meanwhile ...
NAP_BELOW = 64 << 10  # ... where a read of fewer bytes than this counts as small
IDLE_S = 0.05  # once nothing has come for this long (a pause), or ...
IDLE_TOTAL_S = 0.5  # ... the reader has waited this long in all for output, there is room to load the view
QUIET_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "EDITOR": "false",
    "VISUAL": "false",
    "GIT_EDITOR": "false",
    "PYTHONUNBUFFERED": "1",
}


def spawn(argv: list[str], cwd: str | None, token: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, **QUIET_ENV, TOKEN_ENV: token}
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
        bufsize=0,
    )
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if set_size is not None:  # bigger pipes: fewer reads of a fast writer (Linux)
        for pipe in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError, AttributeError):
                fcntl.fcntl(pipe.fileno(), set_size, PIPE_SIZE)  # type: ignore[union-attr]
    return proc


def pump(
    proc: subprocess.Popen[bytes],
    sink: LogSink,
    deadline: float,
    token: str,
    idle: Callable[[], None],
    stop: Stop | None = None,
) -> tuple[bool, bool, int, int]:
    """Read both pipes into ``sink`` until they close; returns (timed out, stopped, processes ended, left running).

    When ``stop`` is set the whole tree is ended at once, as on timeout, and what it wrote
    meanwhile is still read for up to :data:`DRAIN_S`.

    A fast writer is read in as few pieces as it can be without being made to wait: after a
    read (or splice) of fewer than :data:`NAP_BELOW` bytes the reader naps :data:`NAP_S`, so
    the output gathers in the 1 MiB pipe instead of costing a wake-up (two context switches)
    per write of the writer. Reads go into one reused buffer; once the log's head is full the
    rest moves from the pipe into the sink's ring in the kernel (:meth:`LogSink.splice`).
    Whether the command exited is checked when a pipe closes, when nothing came for a while,
    and every :data:`POLL_S` seconds, not after every read. ``idle`` is called once, when the
    command pauses (nothing for :data:`IDLE_S`) or the reader has waited :data:`IDLE_TOTAL_S` in
    all; a writer that never pauses is followed by the load once it ends (loading beside it
    measured ~0.1 s slower: the tokenizer's construction holds the GIL for ~0.15 s while the
    pipe fills).
    """
    on_idle: Callable[[], None] | None = idle
    assert proc.stdout is not None and proc.stderr is not None
    streams = {proc.stdout.fileno(): 1, proc.stderr.fileno(): 2}
    poller = select.poll()
    for fd in streams:
        poller.register(fd, select.POLLIN)
    stop_fd = -1 if stop is None else stop.fileno()
    if stop is not None:
        poller.register(stop_fd, select.POLLIN)
    stopped = False
    buf = bytearray(READ_SIZE)
    view = memoryview(buf)
    bufs = [buf]
    readv, feed, splice, sleep = os.readv, sink.feed, sink.splice, time.sleep
    timed_out = False
    ended = 0
    stop_at: float | None = None  # stop reading at this time (after exit or after the kill)
    holders = False
    check = True  # look whether the command exited (or timed out) before the next wait
    polled = time.monotonic()
    waited = 0.0  # seconds spent waiting for output, while ``on_idle`` is pending
    while streams:
        now = time.monotonic()
        if stop_at is None and (check or now >= deadline or now - polled >= POLL_S):
            polled = now
            if proc.poll() is not None:
                stop_at = now + AFTER_EXIT_S
            elif now >= deadline:
                timed_out = True
                ended = end_tree(proc, token)
                stop_at = time.monotonic() + DRAIN_S
        if stop_at is not None and now >= stop_at:
            holders = True
            break
        wait = min(deadline if stop_at is None else stop_at, now + (0.5 if on_idle is None else IDLE_S)) - now
        events = poller.poll(max(wait, 0.0) * 1000)
        check = not events
        if on_idle is not None:
            waited += time.monotonic() - now
            if (not events and wait >= IDLE_S) or waited >= IDLE_TOTAL_S:
                on_idle()
                on_idle = None
        got = 0
        for fd, _ in events:
            if fd == stop_fd:  # the caller stops the call: end the tree now, read what it wrote meanwhile
                poller.unregister(fd)
                stopped = True
                ended = end_tree(proc, token)
                stop_at = time.monotonic() + DRAIN_S
                continue
            stream = streams[fd]
            if sink.ring is None:
                n = readv(fd, bufs)
                if n:
                    feed(stream, buf, n)
            elif (n := splice(stream, fd)) < 0:  # beyond the head, but this stream must be read
                n = readv(fd, bufs)
                if n:
                    feed(stream, bytes(view[:n]))
            got += n
            if not n:
                sink.ended(stream)
                poller.unregister(fd)
                del streams[fd]
                check = True
        if 0 < got < NAP_BELOW:  # a fast writer read in small pieces: let its output gather in the pipe
            sleep(NAP_S)  # (not counted as waiting: the writer is busy, the view loads at its end)
    left = 0
    if not timed_out and not stopped:
        how = wait_exit(proc, deadline, stop)
        if how != "exited":
            timed_out, stopped = how == "timeout", how == "stopped"
            ended = end_tree(proc, token)
        left = len(find_tree(proc.pid, token)) if holders and not stopped else 0
    return timed_out, stopped, ended, left
