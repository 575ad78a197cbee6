"""The tee :mod:`.pipes` puts before a line's trailing filters: ``python -m wuu_tools.commands.tee PATH MAX_BYTES``.

Copies stdin to stdout as it comes and its first ``MAX_BYTES`` to ``PATH``; when stdout's reader
closes the pipe (``head`` has what it wanted) it stops at once and exits 0, so the producer meets the
closed pipe itself, as it would have without the tee. ``PATH.state`` says how many bytes came, how
many were kept and whether the pipe closed early; it is written too when the tee is told to end
(SIGTERM, SIGINT, SIGHUP: the command timed out or was stopped), before it ends of that signal.
Only the standard library is imported, and the file is run by path (``python -I tee.py``): it
starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from types import FrameType

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

CHUNK = 1 << 16
PIPE_BYTES = 4096
"""The pipe from the producer holds one page, not 64 KiB: a tee adds a pipe's worth of buffering
between producer and filter, and the less it adds, the more surely a producer that meets a closed
pipe without the tee (``seq 1 200000 | head -1`` ends of SIGPIPE; 141 under ``pipefail``) meets it
with the tee too."""
ENDING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class _Ended(Exception):
    """The tee was told to end (the command timed out or was stopped)."""


def _end(signum: int, frame: FrameType | None) -> None:
    for sig in ENDING:  # (the tree is often told twice: the state is written once)
        signal.signal(sig, signal.SIG_IGN)
    raise _Ended(signum)


def main(argv: list[str]) -> int:
    path, max_bytes = argv[0], int(argv[1])
    total = kept = 0
    closed = False
    ended = 0
    for sig in ENDING:
        signal.signal(sig, _end)
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if set_size is not None:  # the smallest pipe from the producer (Linux): see PIPE_BYTES
        with contextlib.suppress(OSError):
            fcntl.fcntl(0, set_size, PIPE_BYTES)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        while True:
            chunk = os.read(0, CHUNK)
            if not chunk:
                break
            total += len(chunk)
            if kept < max_bytes:
                part = chunk[: max_bytes - kept]
                os.write(fd, part)
                kept += len(part)
            view = memoryview(chunk)
            try:
                while view:
                    view = view[os.write(1, view) :]
            except BrokenPipeError:
                closed = True
                break
    except _Ended as exc:
        ended = exc.args[0]
    finally:
        os.close(fd)
        with open(f"{path}.state", "w", encoding="utf-8") as f:
            json.dump({"total": total, "kept": kept, "closed": closed}, f)
    if ended:  # end as the signal would have ended it
        signal.signal(ended, signal.SIG_DFL)
        os.kill(os.getpid(), ended)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
