"""wuu-tools: reading and running tools for coding agents.

Each tool returns a :class:`ToolResult`: a small first view of its source, cut along the
source's own structure, plus the exact call that reads what was omitted.

    >>> from wuu_tools import read_file
    >>> result = read_file("README.md")          # doctest: +SKIP
    >>> result.text, result.continuation         # doctest: +SKIP

Names are imported on first use (PEP 562), so ``wuu read`` does not pay for loading the
MCP proxy or the transcript readers.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from .core.errors import (
    AccessDenied,
    InvalidArgument,
    InvalidReference,
    NotAFile,
    SourceError,
    SourceNotFound,
    Stopped,
    StoreError,
    UnsupportedFormat,
    WuuError,
)
from .core.result import ToolResult
from .core.store import Store

if _typing.TYPE_CHECKING:
    from .commands.run import run_command
    from .conversations import read_conversation
    from .dirs.listing import list_dir
    from .external.project import project_result
    from .files.file import read_file
    from .files.saved import read_saved
    from .toolset.adapters import to_anthropic, to_openai_chat, to_openai_responses
    from .toolset.toolset import Toolset

__version__ = "0.1.0"

_LAZY = {
    "read_file": ".files.file",
    "read_saved": ".files.saved",
    "list_dir": ".dirs.listing",
    "run_command": ".commands.run",
    "read_conversation": ".conversations",
    "project_result": ".external.project",
    "Toolset": ".toolset.toolset",
    "to_anthropic": ".toolset.adapters",
    "to_openai_chat": ".toolset.adapters",
    "to_openai_responses": ".toolset.adapters",
}

__all__ = [
    "AccessDenied",
    "InvalidArgument",
    "InvalidReference",
    "NotAFile",
    "SourceError",
    "SourceNotFound",
    "Stopped",
    "Store",
    "StoreError",
    "ToolResult",
    "Toolset",
    "UnsupportedFormat",
    "WuuError",
    "__version__",
    "list_dir",
    "project_result",
    "read_conversation",
    "read_file",
    "read_saved",
    "run_command",
    "to_anthropic",
    "to_openai_chat",
    "to_openai_responses",
]


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wuu_tools' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
