"""``wuu run -- CMD ARGS…``: run a command, print its verdict and error evidence, exit with its exit code."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import sys
from typing import NoReturn

from ..core.result import ToolResult
from .output import call_tool
from .params import Argument, Option, command

__all__ = ["TIMEOUT_EXIT", "exit_status", "not_found_hint", "run", "run_target"]

TIMEOUT_EXIT = 124  # as timeout(1)
_SHELL_SYNTAX = re.compile(r"[\s|&;<>()$`\\\"'*?\[#~{=%]")


def run_target(command: list[str], shell: bool, exact: bool, cwd: str | None) -> str | list[str]:
    """What ``wuu run`` runs: a shell line or an exact argv.

    ``--shell`` joins the arguments into a shell line. Without it, a single argument that
    contains spaces or shell syntax and is not itself an executable path (``wuu run 'make
    test'``) is a shell line too, as ``run_command("make test")`` is; after ``--`` (``exact``)
    the arguments are always the argv, as typed.
    """
    if shell:
        return " ".join(command)
    if exact or len(command) != 1 or not _SHELL_SYNTAX.search(command[0]):
        return list(command)
    word = command[0]
    path = os.path.join(cwd or "", os.path.expanduser(word))
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return list(command)
    return word


def exit_status(result: ToolResult) -> int:
    """The shell exit status for a run: the command's own, 124 on timeout, 128+N when killed by signal N.

    A run the caller stopped with signal N (``meta["cancelled"]``) exits 128+N too, as a shell does.
    """
    meta = result.meta
    stopped_by = signal.Signals.__members__.get(str(meta.get("cancelled")))
    if stopped_by is not None:
        return 128 + stopped_by.value
    if meta.get("timed_out"):
        return TIMEOUT_EXIT
    name = meta.get("signal")
    if name:
        if name in signal.Signals.__members__:
            return 128 + signal.Signals[name].value
        number = str(name).rsplit(" ", 1)[-1]  # "signal 42" for a signal Python has no name for
        return 128 + int(number) if number.isdigit() else 1
    code = meta.get("exit_code")
    return code if isinstance(code, int) else 1


def not_found_hint(target: str | list[str], result: ToolResult | None) -> str | None:
    """A hint on stderr when ``wuu run -- 'a b'`` looked for a program named ``a b``."""
    if result is None or result.meta.get("exit_code") != 127 or isinstance(target, str) or len(target) != 1:
        return None
    if not _SHELL_SYNTAX.search(target[0]):
        return None
    return f"wuu: after -- the arguments are the exact argv; to run {target[0]!r} as a shell line, leave out --"


_RUN_OPTIONS = ("--timeout", "-t", "--cwd", "-C", "--budget", "-b", "--json", "--shell", "--fresh")


def trailing_options(command: list[str], cwd: str | None) -> dict[str, object]:
    """wuu's own options typed after a shell line (``wuu run 'git log' --budget 200``), or {} when there are none.

    Only when the first word is a shell line on its own (:func:`run_target` would run it with
    the shell) and every word after it parses as ``wuu run``'s options: ``wuu run make -j4``
    and ``wuu run 'git log' --oneline`` keep their words.
    """
    if len(command) < 2 or not command[1].startswith("-"):
        return {}
    if not isinstance(run_target(command[:1], False, False, cwd), str):
        return {}
    from .params import COMMANDS
    from .parse import parse

    parsed = parse(COMMANDS[("run",)], [*command[1:], "--", command[0]])
    if parsed is None or parsed.get("shell"):
        return {}
    given = {w.partition("=")[0] for w in command[1:]}
    names = {"--timeout": "timeout", "-t": "timeout", "--cwd": "cwd", "-C": "cwd", "--budget": "budget", "-b": "budget"}
    names |= {"--json": "as_json", "--fresh": "fresh"}
    return {names[g]: parsed[names[g]] for g in given if g in names}


def late_option_hint(command: list[str], status: int) -> str | None:
    """A hint on stderr when a run failed and wuu's options came after the command (they went to it)."""
    if status == 0 or len(command) < 2:
        return None
    if status == 127 and isinstance(run_target(command[:1], False, False, None), str):
        line = shlex.join([" ".join(command)])
        return f"wuu: {command[0]!r} was looked up as a program; give the shell line as one argument: wuu run {line}"
    late: list[str] = []
    words = iter(command[1:])
    for word in words:
        name, eq, _ = word.partition("=")
        if name in _RUN_OPTIONS:
            late.append(word)
            if not eq and name not in ("--json", "--shell", "--fresh"):
                late.append(next(words, ""))
    if not late:
        return None
    return (
        f"wuu: {' '.join(late)} came after the command and went to it; "
        f"put wuu's options before the command: wuu run {' '.join(late)} -- {command[0]} …"
    )


def run_watched(
    target: str | list[str], cwd: str | None, timeout: float | None, budget: int | None, fresh: bool = False
) -> ToolResult:
    """``run_command`` with a live status on stderr while it runs (when stderr is a terminal)."""
    from ..commands.run import run_command
    from .status import live_status

    with live_status():
        return run_command(target, cwd=cwd, timeout=timeout, budget=budget, fresh=fresh)


def _leave(code: int, message: str | None = None) -> NoReturn:
    """Exit at once (the interpreter's teardown, which frees the tokenizer's tables, is skipped)."""
    if message is not None:
        from .output import for_terminal

        print(for_terminal(message) if sys.stderr.isatty() else message, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


@command("run", context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True})
def run(
    command: list[str] = Argument(..., help="The command and its arguments (after --)."),
    timeout: float | None = Option(
        None,
        "--timeout",
        "-t",
        help="Seconds before the process tree is ended (default WUU_TIMEOUT or 120; 0 = no limit).",
    ),
    cwd: str | None = Option(None, "--cwd", "-C", help="Directory to run in."),
    budget: int | None = Option(None, "--budget", "-b", help="Token budget of the view."),
    as_json: bool = Option(False, "--json", help="Print the result envelope as JSON."),
    shell: bool = Option(False, "--shell", help="Run the arguments, joined by spaces, as a shell line."),
    fresh: bool = Option(False, "--fresh", help="Show every line, even those this WUU_SESSION showed before."),
) -> None:
    """Run a command: verdict and error evidence first, the whole log saved (read it with wuu saved).

    One argument with spaces or shell syntax (wuu run 'make test') runs as a shell line;
    after -- the arguments are the exact argv.
    """
    from ..commands.stop import Stop, on_signals, stopping

    exact = len(sys.argv) > len(command) and sys.argv[-len(command) - 1] == "--"
    command = list(command)
    late = {} if exact or shell else trailing_options(command, cwd)
    if late:  # wuu run 'git log' --budget 200: the options after a shell line are wuu's
        command = command[:1]
        timeout = late.get("timeout", timeout)
        cwd = late.get("cwd", cwd)
        budget = late.get("budget", budget)
        as_json = late.get("as_json", as_json)
        fresh = late.get("fresh", fresh)
    target = run_target(command, shell, exact, cwd)
    # SIGTERM, SIGHUP and SIGINT end the command's whole tree; the view is still printed (if
    # anything listens) and the exit status is 128+N.
    with Stop() as stop, on_signals(stop), stopping(stop):
        try:
            result, code = call_tool(lambda: run_watched(target, cwd, timeout, budget, fresh), as_json)
        except KeyboardInterrupt:  # SIGINT before the handler was in place, or with SIGINT ignored
            _leave(128 + signal.SIGINT, "\nAborted!")
        except OSError as exc:  # the reader went away (``wuu run ... | head -1``, a closed terminal)
            number = stop.signal_number
            if number is None and not isinstance(exc, BrokenPipeError):
                raise
            _leave(128 + number if number else 1)  # as click does for a broken pipe: exit 1
    from .gain import note_run

    note_run(result)  # after the view is out; never changes it or the status
    status = code if result is None else exit_status(result)
    _leave(status, not_found_hint(target, result) or late_option_hint(command, status))
