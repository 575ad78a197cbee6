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

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..core.budget import count_tokens, resolve_budget
from ..core.env import env_float, env_int
from ..core.errors import InvalidArgument, NotAFile, SourceNotFound, clip, quote
from ..core.result import ToolResult
from ..core.store import Store, current_store
from .pipes import Producer, note, plan
from .procs import end_tree, new_token
from .pump import pump, spawn
from .sink import LogSink
from .stop import Stop, current_stop, note_saved, on_signals, redeliver, stopping
from .verdict import quiet, unsaved_view, verdict_line
from .watchdog import Watchdog

__all__ = ["DEFAULT_LOG_MAX_BYTES", "DEFAULT_TIMEOUT_S", "project_captured", "resolve_timeout", "run_command"]

DEFAULT_LOG_MAX_BYTES = 512 << 20
DEFAULT_TIMEOUT_S = 120.0
MIN_LOG_MAX_BYTES = 4096
MAX_TIMEOUT_S = 7 * 24 * 3600


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
    with ``read_saved``; ``read_saved(ref, pattern=...)`` searches it. An output shown whole
    after a quick exit 0 has no verdict line: it is exactly what the command printed.

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
    store = current_store()
    producer = plan(command, store.root / "tmp", max_bytes) if isinstance(command, str) else None
    if producer is not None:  # the trailing filters' input is saved too (:mod:`.pipes`)
        argv = [argv[0], "-c", producer.line]
    try:
        return _run_argv(command, argv, cwd, limit, resolved, budget, stop, fresh, store, max_bytes, producer)
    finally:
        if producer is not None:
            producer.discard()


def _run_argv(
    command: str | list[str],
    argv: list[str],
    cwd: str | None,
    limit: float,
    resolved: int,
    budget: int | None,
    stop: Stop,
    fresh: bool,
    store: Store,
    max_bytes: int,
    producer: Producer | None,
) -> ToolResult:
    sink = LogSink(store, max_bytes)
    token = new_token()
    started = time.monotonic()
    proc: subprocess.Popen[bytes] | None = None
    exit_code: int | None
    timed_out, stopped, ended, left = False, False, 0, 0
    watchdog = Watchdog(token)  # ends the tree should this process be killed outright
    try:
        try:
            proc = spawn(argv, cwd, token)
        except OSError as exc:
            exit_code = 127 if isinstance(exc, FileNotFoundError) else 126
            reason = "command not found" if exit_code == 127 else (exc.strerror or str(exc)).lower()
            sink.feed(2, f"wuu: {argv[0]}: {reason}\n".encode())
        else:
            # The view and the tokenizer take ~0.2 s of CPU to load, holding the GIL: they are
            # loaded when the command pauses (CPU to spare), so a heavy output is not read
            # slower, or else beside the end of the log being written.
            warm = threading.Thread(target=_warm_up, daemon=True)
            timed_out, stopped, ended, left = pump(proc, sink, started + limit, token, warm.start, stop)
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
    facts = producer.keep(store, {"command": producer.stage, "cwd": run_meta["cwd"]}) if producer else None
    if facts is None:
        return _finish(sink, run_meta, limit, resolved, budget, fresh)
    run_meta["producer"] = facts
    line = note(facts)
    view = _finish(sink, run_meta, limit, max(resolved - count_tokens(line) - 1, 1), budget, fresh)
    return replace(view, text=f"{view.text}\n{line}")


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
    from ..logs.regroup import regroup_view
    from ..logs.rerun import command_session

    whole = verdict_line(run_meta, limit, sink, whole=True)
    shown = quiet(whole)  # the first line of a view showing the whole output
    with stopping(None):  # the command has ended: its view is made, even for a caller that stopped it
        view = project_output(
            ref,
            budget=resolved,
            explicit_budget=budget,
            verdict=verdict,
            whole_verdict=shown,
            meta=run_meta,
            exit_code=run_meta["exit_code"],
            failed=run_meta["timed_out"] or run_meta["signal"] is not None,
        )
        assert view is not None
        view = command_session(view, ref, run_meta, resolved, budget, fresh, whole)
    return regroup_view(view, ref, budget, (shown, verdict), resolved)


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
