"""What a run's first view says before any output: the verdict line, and the view of an output the store could not save.

The verdict leads every ``run_command`` view: how the command ended (exit code, signal, a timeout or
a cancel with the processes ended), its duration from :data:`SHOW_DURATION_S` on, and the size of
its output. The saved log's reference is not in it: the view names it once, in the call that reads
on. When the store cannot save, :func:`unsaved_view` is the whole answer (invariant 7).
"""

from __future__ import annotations

from typing import Any

from ..core.budget import HARD_CAP_BYTES
from ..core.result import ToolResult
from ..core.text import clean_terminal, human_size, plural
from .sink import LogSink

__all__ = ["SHOW_DURATION_S", "SUCCESS", "quiet", "unsaved_view", "verdict_line"]

SHOW_DURATION_S = 1.0
"""A verdict names the duration from this long on (``meta["duration_s"]`` always has it)."""


SUCCESS = "[exit 0]"
"""The whole-output verdict of a command that exited 0 in under :data:`SHOW_DURATION_S`."""


def quiet(whole: str) -> str:
    """The first line of a view showing the whole output, from its verdict ``whole``.

    A command that exited 0 quickly says nothing before its output, as a terminal does (``""``),
    and ``[no output]`` when it printed nothing. Any other verdict is said as it is: an exit code
    other than 0, a signal, a timeout, a duration, a background process left running.
    """
    if whole == SUCCESS:
        return ""
    return "[no output]" if whole == f"{SUCCESS[:-1]} · no output]" else whole


def verdict_line(meta: dict[str, Any], timeout: float, sink: LogSink, whole: bool = False) -> str:
    """The first line of the view; ``whole``: of a view showing the whole output (no size).

    The saved log's reference is not in it: the view names it once, in the call that reads on.
    """
    parts = []
    if meta.get("cancelled"):
        ended = plural(meta["processes_ended"], "process", "processes")
        parts.append(f"cancelled by {meta['cancelled']}: {ended} ended")
    if meta["timed_out"]:
        ended = plural(meta["processes_ended"], "process", "processes")
        parts.append(
            f"timed out after {timeout:g} s: {ended} ended; for more time pass timeout=SECONDS "
            "(wuu run --timeout S, or WUU_TIMEOUT; 0 = no limit)"
        )
    if meta["signal"]:
        parts.append(f"killed by {meta['signal']}")
    elif meta["exit_code"] is not None:
        parts.append(f"exit {meta['exit_code']}")
    if meta["duration_s"] >= SHOW_DURATION_S or meta["timed_out"]:
        parts.append(f"{meta['duration_s']:.1f} s")
    err = sum(b - a + 1 for a, b in sink.stderr)
    on_stderr = f", {err:,} on stderr" if err else ""
    if sink.dropped_bytes:
        parts.append(
            f"{human_size(sink.size)} of output: {human_size(sink.dropped_bytes)} dropped from the middle, "
            f"{plural(sink.saved_lines, 'line')} kept{on_stderr}"
        )
    elif not sink.size:
        parts.append("no output")
    elif not whole:
        parts.append(f"{plural(sink.saved_lines, 'line')}{on_stderr}")  # (the size of what is left out comes below)
    if meta.get("left_running"):
        parts.append(f"{plural(meta['left_running'], 'background process', 'background processes')} left running")
    return "[" + " · ".join(parts) + "]"


def unsaved_view(verdict: str, sink: LogSink, meta: dict[str, Any]) -> ToolResult:
    """Invariant 7: the output unshortened up to the hard cap, and what could not be saved.

    The start of the output comes first and its end last (the end is where a failure is
    printed), each as whole lines; what lies between them is named as lost.
    """
    reason = sink.error.message if sink.error else "the store failed"
    note = f"[the output could not be saved ({reason}); no reference is given]"
    room = HARD_CAP_BYTES - len(verdict.encode()) - len(note.encode()) - 200
    head, tail = bytes(sink.memory), bytes(sink.tail)
    tail_start = sink.size - len(tail)
    if tail and tail_start <= len(head):  # the two meet: the output is all here
        head, tail = head + tail[len(head) - tail_start :], b""
        tail_start = len(head)
    elif tail:
        k = tail.find(b"\n") + 1  # whole lines only: the first may have started before the tail
        tail, tail_start = (tail[k:], tail_start + k) if k else (b"", sink.size)
    tail_room = min(len(tail), room // 4)
    if len(tail) > tail_room:  # the last whole lines that fit
        k = tail.find(b"\n", len(tail) - tail_room) + 1
        tail, tail_start = (tail[k:], tail_start + k) if 0 < k < len(tail) else (b"", sink.size)
    cut = len(head) > room - len(tail)
    if cut:
        k = head.rfind(b"\n", 0, room - len(tail)) + 1
        head = head[: k or room - len(tail)]  # whole lines, unless one line is longer than the room
    lost = (tail_start if tail else sink.size) - len(head)
    parts = [verdict, note, _shown_lines(head)]
    if lost > 0:
        where = "in between" if tail else "after these"
        parts.append(f"[{human_size(lost)} of output {where} were lost: not saved]")
    if tail:
        lines = tail.count(b"\n") + (0 if tail.endswith(b"\n") else 1)
        parts.append(f"[the last {plural(lines, 'line')} of the output:]")
        parts.append(_shown_lines(tail))
    text = "\n".join(x for x in parts if x)
    meta = {**meta, "total_lines": sink.saved_lines, "shown": [], "omitted": [], "unsaved_bytes": max(lost, 0)}
    # Nothing to continue with (no reference), and complete only if nothing was lost.
    return ToolResult(text=text, complete=lost <= 0, meta=meta)


def _shown_lines(data: bytes) -> str:
    """Output bytes as a view shows them: decoded, each line as the terminal left it."""
    text = data.decode("utf-8", "replace")
    return "\n".join(clean_terminal(s) for s in text.removesuffix("\n").split("\n")) if text else ""
