"""The stop in force for a call, and the check that long work makes between two blocks.

A caller stops a call by setting the stop it runs under (a signal, a cancelled MCP call, a
closing server: :class:`~wuu_tools.commands.stop.Stop`). A command is ended through its
process tree; work done in this process (a search through a large saved log, the line
index of a huge file, a deep walk) calls :func:`check_stop` between two blocks, which raises
:class:`~wuu_tools.core.errors.Stopped` once the stop is set, so it ends within one block.

The stop lives in a context variable: a worker thread that runs in a copy of the context (as
``anyio.to_thread`` does) sees it too.

>>> class Flag:
...     reason = None
>>> flag = Flag()
>>> with stopping(flag):
...     check_stop()
...     flag.reason = "SIGTERM"
...     check_stop()
Traceback (most recent call last):
...
wuu_tools.core.errors.Stopped: stopped by SIGTERM
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any, Protocol, TypeVar

from .errors import Stopped

__all__ = ["StopLike", "check_stop", "current_stop", "stopping"]


class StopLike(Protocol):
    """What a stop offers the work it stops: why it was set (None while it is not)."""

    reason: str | None


_current: contextvars.ContextVar[Any] = contextvars.ContextVar("wuu_stop", default=None)
S = TypeVar("S", bound=StopLike)


def current_stop() -> Any:
    """The stop in force for this call (see :func:`stopping`), if any."""
    return _current.get()


@contextlib.contextmanager
def stopping(stop: S | None) -> Iterator[S | None]:
    """Put ``stop`` in force for the work done inside the block (None: no stop, whatever the caller's)."""
    token = _current.set(stop)
    try:
        yield stop
    finally:
        _current.reset(token)


def check_stop() -> None:
    """Raise :class:`~wuu_tools.core.errors.Stopped` when the stop in force was set."""
    stop = _current.get()
    if stop is not None and stop.reason is not None:
        raise Stopped(f"stopped by {stop.reason}")
