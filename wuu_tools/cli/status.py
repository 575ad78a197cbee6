"""The live status of ``wuu run`` at a terminal: one line on stderr, redrawn while the command runs.

While a command runs and stderr is a terminal, :func:`live_status` keeps one line on stderr
up to date — elapsed time, lines and bytes of output so far, and the last line — cut to the
terminal's width, and erases it before the view is printed. It reads the
:class:`~wuu_tools.commands.sink.LogSink` from a thread of its own, through the sink's
:func:`~wuu_tools.commands.sink.watch` hook, so the reading loop does no extra work. Nothing of
it goes to stdout, into a pipe or into the saved log; with stderr not a terminal it does nothing.

>>> status_text(12.34, 1204, 57_446, "compiling unit 33", 80)
'wuu run · 12.3 s · 1,204 lines · 56.1 KiB · compiling unit 33'
>>> status_text(3.0, 1, 10, "x" * 80, 40)
'wuu run · 3.0 s · 1 line · 10 B · xxxx…'
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from ..commands.sink import LogSink, watch
from ..core.text import human_size, plural

__all__ = ["live_status", "status_text"]

DELAY_S = 0.5  # a command that ends sooner shows no status at all
REDRAW_S = 0.1
ERASE = "\r\x1b[2K"


def status_text(elapsed: float, lines: int, size: int, last: str, width: int, more: bool = False) -> str:
    """The status line, at most ``width - 1`` characters (the last column would wrap on some terminals)."""
    counted = plural(lines, "line") + ("+" if more else "")
    text = f"wuu run · {elapsed:.1f} s · {counted} · {human_size(size)}"
    if last:
        text += f" · {last}"
    room = max(width - 1, 10)
    return text if len(text) <= room else text[: room - 1] + "…"


class _Status:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.sink: LogSink | None = None
        self.started = time.monotonic()
        self.stop = threading.Event()
        self.drawn = False
        self.thread = threading.Thread(target=self._run, name="wuu-status", daemon=True)

    def attach(self, sink: LogSink) -> None:
        self.sink = sink
        self.started = time.monotonic()
        if self.thread.ident is None:
            self.thread.start()

    def _run(self) -> None:
        if self.stop.wait(DELAY_S):
            return
        while not self.stop.is_set():
            sink = self.sink
            if sink is not None and sink.finished:  # the command ended: the view comes next
                break
            if sink is not None:
                width = shutil.get_terminal_size((80, 24)).columns
                with suppress(OSError):
                    width = os.get_terminal_size(self.fd).columns or width  # 0: a terminal with no size set
                line = status_text(
                    time.monotonic() - self.started,
                    sink.newlines + (0 if sink.ends_line or not sink.size else 1),
                    sink.size,
                    sink.recent_line(),
                    width,
                    more=sink.ring is not None,
                )
                self._write(ERASE + line)
                self.drawn = True
            self.stop.wait(REDRAW_S)
        if self.drawn:  # erased as soon as the command ends, before the view is made
            self._write(ERASE)
            self.drawn = False

    def _write(self, text: str) -> None:
        with suppress(OSError):
            os.write(self.fd, text.encode("utf-8", "replace"))

    def close(self) -> None:
        self.stop.set()
        if self.thread.ident is not None:
            self.thread.join()
        if self.drawn:
            self._write(ERASE)
            self.drawn = False


def _stderr_tty() -> int | None:
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, ValueError, OSError):
        return None
    return fd if os.isatty(fd) and os.environ.get("TERM") != "dumb" else None


@contextmanager
def live_status() -> Iterator[None]:
    """Show the live status of the commands run in this block on stderr, when it is a terminal."""
    fd = _stderr_tty()
    if fd is None:
        yield
        return
    status = _Status(fd)
    try:
        with watch(status.attach):
            yield
    finally:
        status.close()
