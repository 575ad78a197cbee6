"""wuu-tools: reading and running tools for coding agents.

Each tool returns a :class:`ToolResult`: a small first view of its source, cut along the
source's own structure, plus the exact call that reads what was omitted.
"""

from __future__ import annotations

from ._errors import (
    AccessDenied,
    InvalidArgument,
    InvalidReference,
    NotAFile,
    SourceError,
    SourceNotFound,
    StoreError,
    UnsupportedFormat,
    WuuError,
)
from ._files import read_file
from ._result import ToolResult
from ._saved import read_saved
from ._store import Store

# tools added by later modules register their import here, one line each:
# (end of tool imports)

__version__ = "0.1.0"

__all__ = [
    "AccessDenied",
    "InvalidArgument",
    "InvalidReference",
    "NotAFile",
    "SourceError",
    "SourceNotFound",
    "Store",
    "StoreError",
    "ToolResult",
    "UnsupportedFormat",
    "WuuError",
    "__version__",
    "read_file",
    "read_saved",
    # (end of __all__)
]
