"""``run_command``: run a command with nothing waiting for a person, save its whole log, show the verdict first.

The command (a shell string, run by ``bash -c`` or ``/bin/sh -c``, or an argv list) starts
in a session of its own with stdin on ``/dev/null`` and ``PAGER``/``GIT_PAGER`` set to
``cat``, ``GIT_TERMINAL_PROMPT=0`` and the editors set to ``false``. Its stdout and stderr
are streamed, as they arrive, into a saved log (:class:`~._logsink.LogSink`), in bounded
memory whatever the output size; the log is capped at ``WUU_LOG_MAX_BYTES`` (default 512 MiB)
by keeping its first 7/8 and last 1/8 and recording the drop in a line where the middle was.
A sidecar holds the command, exit code, signal, timing and the line ranges that came
from stderr. On timeout the whole process tree is ended (:mod:`.procs`), and so it is when
the caller stops the call (:mod:`.stop`: a signal, a cancelled MCP request, a closing
server): what was captured so far is saved and the verdict says ``cancelled by …``. Called
in the main thread with Python's own signal handlers in place, SIGINT, SIGTERM and SIGHUP
end the tree and save the log first, then act as they would have (``KeyboardInterrupt``,
or the process ending of that signal).

The first view is :func:`wuu_tools.logs.output.project_output` of that log under a verdict line (exit code
or signal, timeout, duration, lines and bytes, the log's reference): shaped as the output is (search
results, a diff, JSON, a table, …), error-first when the command failed. If the store cannot
save, the output is returned unshortened up to the hard cap with a note that the rest was
lost, and no reference is handed out.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

from ..core.budget import count_tokens, resolve_budget
from ..core.env import env_float, env_int
from ..core.errors import InvalidArgument, NotAFile, SourceNotFound, clip, quote
from ..core.result import ToolResult
from ..core.store import current_store
from .procs import TOKEN_ENV, end_tree, find_tree, new_token
from .sink import LogSink
from .stop import Stop, current_stop, note_saved, on_signals, redeliver, stopping, wait_exit
from .verdict import unsaved_view, verdict_line
from .watchdog import Watchdog

__all__ = ["DEFAULT_LOG_MAX_BYTES", "DEFAULT_TIMEOUT_S", "project_captured", "resolve_timeout", "run_command"]

DEFAULT_LOG_MAX_BYTES = 512 << 20
DEFAULT_TIMEOUT_S = 120.0
MIN_LOG_MAX_BYTES = 4096
MAX_TIMEOUT_S = 7 * 24 * 3600
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


def _log_max_bytes() -> int:
    return env_int("WUU_LOG_MAX_BYTES", DEFAULT_LOG_MAX_BYTES, minimum=MIN_LOG_MAX_BYTES, unit="bytes")


def resolve_timeout(timeout: float | None) -> float:
    """The time limit in seconds: ``timeout``, else ``WUU_TIMEOUT``, else 120; 0 means none (``inf``)."""
    if timeout is None:
        timeout = env_float("WUU_TIMEOUT", DEFAULT_TIMEOUT_S, unit="seconds")
        if timeout > MAX_TIMEOUT_S:
            raise InvalidArgument(f"WUU_TIMEOUT must be at most {MAX_TIMEOUT_S} seconds (0 = no limit)")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout <= MAX_TIMEOUT_S:
        raise InvalidArgument(
            f"timeout must be a number of seconds between 0 (no limit) and {MAX_TIMEOUT_S}, not {quote(timeout)}"
        )
    return float(timeout) if timeout else float("inf")


def _check(command: Any, cwd: Any) -> list[str]:
    if isinstance(command, str):
        if not command.strip():
            raise InvalidArgument("command must not be empty")
        shell = shutil.which("bash") or "/bin/sh"
        argv = [shell, "-c", command]
    elif isinstance(command, Sequence) and command and all(isinstance(a, str) for a in command):
        argv = list(command)
    else:
        raise InvalidArgument(f"command must be a shell string or a non-empty list of strings, not {quote(command)}")
    if cwd is not None:
        if not isinstance(cwd, str) or not cwd:
            raise InvalidArgument(f"cwd must be a directory path, not {quote(cwd)}")
        if not os.path.exists(cwd):
            raise SourceNotFound(f"cwd {clip(cwd)}: no such directory")
        if not os.path.isdir(cwd):
            raise NotAFile(f"cwd {clip(cwd)}: not a directory")
    return argv


def _spawn(argv: list[str], cwd: str | None, token: str) -> subprocess.Popen[bytes]:
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


def _pump(
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


def run_command(
    command: str | list[str],
    cwd: str | None = None,
    timeout: float | None = None,
    budget: int | None = None,
    fresh: bool = False,
) -> ToolResult:
    """Run a command and show its verdict and error evidence first; the whole log is saved.

    stdin is closed and pagers, prompts and editors are disabled, so nothing waits for a
    person. On timeout the whole process tree is ended. The continuation reads the saved log
    with ``read_saved``; ``read_saved(ref, pattern=...)`` searches it.

    Args:
        command: A shell command line (run by bash, else sh), or an argv list run directly.
        cwd: Directory to run in; defaults to the current directory.
        timeout: Seconds before the command and every process it started are ended; defaults to
            WUU_TIMEOUT or 120; 0 means no limit.
        budget: Token budget of the view; defaults to WUU_BUDGET or 2,000.
        fresh: Show the output whole again: no diff against the last run of the same command and no
            lines named because an earlier view of this session showed them.

    Returns:
        The view as a ToolResult; ``meta`` has exit_code, timed_out, signal, duration_s,
        total_lines, shown and omitted (and ``cancelled``, the reason, when it was stopped).
    """
    if not isinstance(fresh, bool):
        raise InvalidArgument(f"fresh must be true or false, not {quote(fresh)}")
    stop = current_stop()
    if stop is not None:
        return _run(command, cwd, timeout, budget, stop, fresh)
    with Stop() as own, on_signals(own, defaults_only=True):
        result = _run(command, cwd, timeout, budget, own, fresh)
    if own.reason is not None:
        redeliver(own, result.source)
    return result


def _run(
    command: str | list[str], cwd: str | None, timeout: float | None, budget: int | None, stop: Stop, fresh: bool
) -> ToolResult:
    argv = _check(command, cwd)
    limit = resolve_timeout(timeout)
    resolved = resolve_budget(budget)
    max_bytes = _log_max_bytes()
    sink = LogSink(current_store(), max_bytes)
    token = new_token()
    started = time.monotonic()
    proc: subprocess.Popen[bytes] | None = None
    exit_code: int | None
    timed_out, stopped, ended, left = False, False, 0, 0
    watchdog = Watchdog(token)  # ends the tree should this process be killed outright
    try:
        try:
            proc = _spawn(argv, cwd, token)
        except OSError as exc:
            exit_code = 127 if isinstance(exc, FileNotFoundError) else 126
            reason = "command not found" if exit_code == 127 else (exc.strerror or str(exc)).lower()
            sink.feed(2, f"wuu: {argv[0]}: {reason}\n".encode())
        else:
            # The view and the tokenizer take ~0.2 s of CPU to load, holding the GIL: they are
            # loaded when the command pauses (CPU to spare), so a heavy output is not read
            # slower, or else beside the end of the log being written.
            warm = threading.Thread(target=_warm_up, daemon=True)
            timed_out, stopped, ended, left = _pump(proc, sink, started + limit, token, warm.start, stop)
            if warm.ident is None:
                warm.start()
            exit_code = proc.returncode
    except BaseException as exc:  # interrupted here (KeyboardInterrupt, SystemExit): end the tree, keep the log
        if proc is not None:
            ended = end_tree(proc, token)
        note_saved(exc, _save_interrupted(sink, command, cwd, started, ended, type(exc).__name__))
        raise
    finally:
        if proc is not None and proc.poll() is None:  # interrupted (KeyboardInterrupt): leave nothing behind
            end_tree(proc, token)
        if proc is not None:
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        watchdog.release()
    duration = time.monotonic() - started
    sig = None
    if exit_code is not None and exit_code < 0:
        try:
            sig = signal.Signals(-exit_code).name
        except ValueError:
            sig = f"signal {-exit_code}"
        exit_code = None
    run_meta: dict[str, Any] = {
        "command": command if isinstance(command, str) else list(command),
        "cwd": os.path.abspath(cwd or "."),
        "exit_code": exit_code,
        "timed_out": timed_out,
        "signal": sig,
        "duration_s": round(duration, 3),
        "processes_ended": ended,
    }
    if stopped:
        run_meta["cancelled"] = stop.reason
    if left:
        run_meta["left_running"] = left
    return _finish(sink, run_meta, limit, resolved, budget, fresh)


def _finish(
    sink: LogSink, run_meta: dict[str, Any], limit: float, resolved: int, budget: int | None, fresh: bool = False
) -> ToolResult:
    """Save the log with its sidecar and return the first view under the verdict."""
    ref = sink.finish(dict(run_meta))
    run_meta.update(output_bytes=sink.size, stderr_lines=sink.stderr)
    if sink.dropped_bytes:
        run_meta["dropped_bytes"] = sink.dropped_bytes
    verdict = verdict_line(run_meta, limit, sink)
    if ref is None:
        return unsaved_view(verdict, sink, run_meta)
    from ..logs.output import project_output
    from ..logs.rerun import command_session

    with stopping(None):  # the command has ended: its view is made, even for a caller that stopped it
        view = project_output(
            ref,
            budget=resolved,
            explicit_budget=budget,
            verdict=verdict,
            whole_verdict=verdict_line(run_meta, limit, sink, whole=True),
            meta=run_meta,
            exit_code=run_meta["exit_code"],
            failed=run_meta["timed_out"] or run_meta["signal"] is not None,
        )
        assert view is not None
        return command_session(view, ref, run_meta, resolved, budget, fresh)


def project_captured(
    command: str | list[str],
    output: bytes,
    exit_code: int | None,
    *,
    cwd: str | None = None,
    duration_s: float = 0.0,
    budget: int | None = None,
    fresh: bool = False,
) -> ToolResult:
    """The first view ``run_command`` gives of an output already captured, without running anything.

    The output is saved as a command log (stdout only) and shown under the verdict ``run_command``
    writes, so a recorded run can be replayed through the same view (``scripts/replay.py``). The
    log is named by its bytes (the same output, the same reference), so a replay is deterministic.

    Args:
        command: The command that printed ``output`` (recorded in the log's sidecar).
        output: What the command printed.
        exit_code: Its exit status (None when unknown).
        cwd: The directory it ran in (recorded); defaults to the current directory.
        duration_s: How long it ran.
        budget: Token budget of the view; defaults to WUU_BUDGET or 2,000.
        fresh: As ``run_command``'s: nothing named because the session showed it before.
    """
    resolved = resolve_budget(budget)
    sink = LogSink(current_store(), _log_max_bytes(), record=False)
    if output:
        sink.feed(1, output)
    sink.ended(1)
    run_meta: dict[str, Any] = {
        "command": command if isinstance(command, str) else list(command),
        "cwd": os.path.abspath(cwd or "."),
        "exit_code": exit_code,
        "timed_out": False,
        "signal": None,
        "duration_s": round(duration_s, 3),
        "processes_ended": 0,
    }
    return _finish(sink, run_meta, float("inf"), resolved, budget, fresh)


def _warm_up() -> None:
    """Import the view and build the tokenizer, beside the command: neither is needed before it ends."""
    from ..logs import output  # noqa: F401

    count_tokens("warm up")


def _save_interrupted(
    sink: LogSink, command: str | list[str], cwd: str | None, started: float, ended: int, reason: str
) -> str | None:
    """Save what was captured before an exception cut the run short; its reference, or None."""
    meta = {
        "command": command if isinstance(command, str) else list(command),
        "cwd": os.path.abspath(cwd or "."),
        "exit_code": None,
        "timed_out": False,
        "signal": None,
        "duration_s": round(time.monotonic() - started, 3),
        "processes_ended": ended,
        "cancelled": reason,
    }
    try:
        return sink.finish(meta)
    except Exception:  # the log is lost, the exception that ended the run still goes on
        sink.abort()
        return None
