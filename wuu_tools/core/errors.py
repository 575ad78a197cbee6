"""One exception tree for everything wuu-tools raises.

    WuuError                      root: every error the library raises on purpose
    ├── InvalidArgument           an argument is out of range or malformed (also a ValueError)
    │   └── InvalidReference      a saved-result reference is malformed or tries to escape the store
    ├── SourceError               the thing to read cannot be read as asked
    │   ├── SourceNotFound        no such file, directory or saved result
    │   ├── NotAFile              a directory, FIFO, socket or device where a regular file is needed
    │   ├── AccessDenied          the operating system refused access
    │   └── UnsupportedFormat     the content is in no format the tool can read
    ├── StoreError                the saved-result store cannot save (read-only, disk full)
    └── Stopped                   the caller stopped the call (a signal, a cancelled MCP call)

Operating-system errors are translated in one place, :func:`map_os_error`, so a caller
only ever sees this tree. Every message says what went wrong and, where there is one,
the fix. The agent-facing faces (``Toolset.call``, the framework functions, the MCP
server) turn these errors into a readable one-line ``ToolResult`` instead of raising.

An error is read by a model like any view, so it is bounded: an input it quotes goes through
:func:`quote` (a ``repr``) or :func:`clip` (a path or text shown as is), cut to a readable
length with the size of the whole named, and a message is never longer than
:data:`MESSAGE_CHARS` (a longer one loses its middle, and says so). It is one line: a character
that is not printable (a newline, an escape, a byte that is not UTF-8) is shown escaped.

>>> quote("x" * 100_000, limit=8)
"'xxxxxxxx…' (100,000 characters)"
>>> clip("/" + "d/" * 100 + "file.py", limit=30)
'/d/d/d/d/d/d/d/d/d/…/d/file.py (208 characters)'
"""

from __future__ import annotations

import errno
import re
import reprlib
from typing import Any

from .text import visible

__all__ = [
    "AccessDenied",
    "InvalidArgument",
    "InvalidReference",
    "NotAFile",
    "SourceError",
    "SourceNotFound",
    "Stopped",
    "StoreError",
    "UnsupportedFormat",
    "WuuError",
    "check_length",
    "check_revision",
    "clip",
    "map_os_error",
    "quote",
]

QUOTE_CHARS = 80
"""Characters of an input that an error quotes; the rest is cut and the whole's size named."""
CLIP_CHARS = 200
"""Characters of a path (or other text shown as is) in an error; its middle is cut beyond that."""
MESSAGE_CHARS = 1000
"""The longest message an error carries; a longer one loses its middle, and says so."""
PATTERN_CHARS = 1000
"""The longest search pattern a tool takes (compiling a huge one costs seconds, and every view
and continuation would repeat it)."""

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = QUOTE_CHARS
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6
_REPR.maxlevel = 3


def _size(value: Any) -> str:
    unit = "bytes" if isinstance(value, (bytes, bytearray)) else "characters"
    return f"{len(value):,} {unit}"


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` for an error, cut to about ``limit`` characters with the whole's size named."""
    if isinstance(value, (str, bytes, bytearray)):
        if len(value) <= limit:
            return repr(value)
        head = repr(value[:limit])
        return f"{head[:-1][: limit + 2]}…{head[-1]} ({_size(value)})"  # escapes make a repr longer
    text = _REPR.repr(value)
    if len(text) > 2 * limit:  # an object whose own repr is long
        text = f"{text[:limit]}… ({len(text):,} characters of repr)"
    return text


def clip(text: Any, limit: int = CLIP_CHARS) -> str:
    """``str(text)`` for an error, as is when short, else its start and end with the size named.

    A character that is not printable (a newline, an escape, a byte that is not UTF-8) is shown
    escaped (``\\n``, ``\\u001b``, ``\\udcff``), so an error stays one readable line.
    """
    shown = visible(str(text))
    if len(shown) <= limit:
        return shown
    tail = limit // 3
    return f"{shown[: limit - tail - 1]}…{shown[-tail:]} ({_size(shown)})"


def check_length(name: str, value: str, limit: int = PATTERN_CHARS) -> None:
    """Raise :class:`InvalidArgument` when ``value`` is longer than ``limit`` characters."""
    if len(value) > limit:
        raise InvalidArgument(f"{name} {quote(value)} is too long: at most {limit:,} characters")


REVISION_CHARS = 64
"""The longest revision a tool takes (every revision a result gives is far shorter)."""
_REVISION = re.compile(r"[0-9A-Za-z][0-9A-Za-z._:-]*")


def check_revision(value: Any) -> None:
    """Refuse a ``revision`` argument that no result gave: not a string, too long, or holding other characters.

    Checked before it is compared or quoted, so a huge or multi-line revision never reaches a view.
    """
    if value is None:
        return
    if not isinstance(value, str) or len(value) > REVISION_CHARS or not _REVISION.fullmatch(value):
        raise InvalidArgument(
            f"revision {quote(value)} is not a revision: pass the revision exactly as a result gave it "
            f"(letters, digits and ._:-, at most {REVISION_CHARS} characters), or leave it out"
        )


def _bounded(message: str) -> str:
    if len(message) <= MESSAGE_CHARS:
        return message
    cut = len(message) - (MESSAGE_CHARS - 60)
    head = (MESSAGE_CHARS - 60) * 2 // 3
    return f"{message[:head]} … [{cut:,} characters of this error cut] … {message[head + cut :]}"


class WuuError(Exception):
    """Root of every error wuu-tools raises on purpose."""

    kind = "error"

    def __init__(self, message: str) -> None:
        message = _bounded(visible(str(message)))  # one line, whatever an input it quotes holds
        super().__init__(message)
        self.message = message


class InvalidArgument(WuuError, ValueError):
    """An argument is out of range or malformed."""

    kind = "invalid_argument"


class InvalidReference(InvalidArgument):
    """A saved-result reference is malformed or would leave the store."""

    kind = "invalid_reference"


class SourceError(WuuError):
    """The source cannot be read as asked."""

    kind = "source_error"


class SourceNotFound(SourceError):
    """No such file, directory or saved result."""

    kind = "not_found"


class NotAFile(SourceError):
    """A directory, FIFO, socket or device where a regular file is needed."""

    kind = "not_a_file"


class AccessDenied(SourceError):
    """The operating system refused access."""

    kind = "access_denied"


class UnsupportedFormat(SourceError):
    """The content is in no format the tool can read."""

    kind = "unsupported_format"


class StoreError(WuuError):
    """The saved-result store cannot save (read-only, full, or unusable)."""

    kind = "store_error"


class Stopped(WuuError):
    """The caller stopped the call before it ended (a signal, a cancelled MCP call, a closing server)."""

    kind = "stopped"


def map_os_error(exc: OSError, what: str) -> WuuError:
    """Translate an ``OSError`` about ``what`` (a path or a reference) into the tree."""
    what = clip(what)
    reason = exc.strerror or clip(exc)  # str(exc) repeats the path, whatever its length
    if isinstance(exc, FileNotFoundError) or exc.errno == errno.ENOENT:
        return SourceNotFound(f"{what}: no such file or directory")
    if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM):
        return AccessDenied(f"{what}: permission denied")
    if isinstance(exc, IsADirectoryError) or exc.errno == errno.EISDIR:
        return NotAFile(f"{what}: is a directory (use list_dir)")
    if exc.errno == errno.ENOTDIR:
        return SourceNotFound(f"{what}: a component of the path is not a directory")
    if exc.errno == errno.ELOOP:
        return SourceError(f"{what}: too many levels of symbolic links")
    return SourceError(f"{what}: {reason}")
