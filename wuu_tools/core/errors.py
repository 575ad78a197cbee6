"""One exception tree for everything wuu-tools raises.

    WuuError                      root: every error the library raises on purpose
    ├── InvalidArgument           an argument is out of range or malformed (also a ValueError)
    │   └── InvalidReference      a saved-result reference is malformed or tries to escape the store
    ├── SourceError               the thing to read cannot be read as asked
    │   ├── SourceNotFound        no such file, directory or saved result
    │   ├── NotAFile              a directory, FIFO, socket or device where a regular file is needed
    │   ├── AccessDenied          the operating system refused access
    │   └── UnsupportedFormat     the content is in no format the tool can read
    └── StoreError                the saved-result store cannot save (read-only, disk full)

Operating-system errors are translated in one place, :func:`map_os_error`, so a caller
only ever sees this tree. Every message says what went wrong and, where there is one,
the fix. The agent-facing faces (``Toolset.call``, the framework functions, the MCP
server) turn these errors into a readable one-line ``ToolResult`` instead of raising.
"""

from __future__ import annotations

import errno

__all__ = [
    "AccessDenied",
    "InvalidArgument",
    "InvalidReference",
    "NotAFile",
    "SourceError",
    "SourceNotFound",
    "StoreError",
    "UnsupportedFormat",
    "WuuError",
    "map_os_error",
]


class WuuError(Exception):
    """Root of every error wuu-tools raises on purpose."""

    kind = "error"

    def __init__(self, message: str) -> None:
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


def map_os_error(exc: OSError, what: str) -> WuuError:
    """Translate an ``OSError`` about ``what`` (a path or a reference) into the tree."""
    reason = exc.strerror or str(exc)
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
