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
from ._result import ToolResult
from ._store import Store

if _typing.TYPE_CHECKING:
    from ._adapters import to_anthropic, to_openai_chat, to_openai_responses
    from ._commands import run_command
    from ._dirs import list_dir
    from ._external import project_result
    from ._files import read_file
    from ._saved import read_saved
    from ._toolset import Toolset
    from .conversations import read_conversation

__version__ = "0.1.0"

_LAZY = {
    "read_file": "._files",
    "read_saved": "._saved",
    "list_dir": "._dirs",
    "run_command": "._commands",
    "read_conversation": ".conversations",
    "project_result": "._external",
    "Toolset": "._toolset",
    "to_anthropic": "._adapters",
    "to_openai_chat": "._adapters",
    "to_openai_responses": "._adapters",
}

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
