"""The result envelope every tool returns: :class:`ToolResult`.

A result is the model-facing ``text`` plus the facts a program needs to carry on: whether
anything was omitted, the exact call that shows the next omitted material, the saved
source and its revision, media kept apart from the text, and tool-specific ``meta``.

>>> r = ToolResult(text="hi", complete=True)
>>> r.to_dict()["tokens"]
1
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .budget import DEFAULT_BUDGET, count_tokens, tokenizer_name
from .errors import WuuError

__all__ = [
    "ERROR_FLOOR",
    "TOOL_FUNCTIONS",
    "Continuation",
    "ToolResult",
    "call_text",
    "continuation",
    "plain_call_text",
    "render_calls_with",
    "tool_defaults",
]

ERROR_FLOOR = 100
"""An error result is cut to the call's budget, but never below this many tokens."""

Continuation = dict[str, Any]
"""``{"tool": name, "args": {...}}``: literally the keyword arguments of the next call."""


TOOL_FUNCTIONS: dict[str, str] = {
    "read_file": "wuu_tools.files.file:read_file",
    "list_dir": "wuu_tools.dirs.listing:list_dir",
    "run_command": "wuu_tools.commands.run:run_command",
    "read_conversation": "wuu_tools.conversations:read_conversation",
    "read_saved": "wuu_tools.files.saved:read_saved",
    "project_result": "wuu_tools.external.project:project_result",
}
"""Every tool, by name, with the import path of its function (imported on first use)."""


def continuation(tool: str, **args: Any) -> Continuation:
    """A continuation for ``tool``; arguments that are None or at the tool's default are left out.

    >>> continuation("list_dir", path="src", depth=2, include_ignored=False, cursor="c1")
    {'tool': 'list_dir', 'args': {'path': 'src', 'cursor': 'c1'}}
    >>> continuation("read_saved", ref="log-1", start_line=1, end_line=40, raw=True)
    {'tool': 'read_saved', 'args': {'ref': 'log-1', 'end_line': 40, 'raw': True}}
    """
    defaults = tool_defaults(tool)
    kept = {k: v for k, v in args.items() if v is not None and not _is_default(defaults, k, v)}
    return {"tool": tool, "args": kept}


def _is_default(defaults: dict[str, Any], name: str, value: Any) -> bool:
    if name not in defaults:
        return False
    default = defaults[name]
    return type(value) is type(default) and value == default  # (True is not 1)


@functools.cache
def tool_defaults(tool: str) -> dict[str, Any]:
    """The default of each of ``tool``'s arguments that has one other than None (empty for an unknown tool)."""
    where = TOOL_FUNCTIONS.get(tool)
    if where is None:
        return {}
    module, _, attr = where.partition(":")
    fn = getattr(importlib.import_module(module), attr)
    return {
        p.name: p.default
        for p in inspect.signature(fn).parameters.values()
        if p.default is not inspect.Parameter.empty and p.default is not None
    }


_renderer: Callable[[Continuation], str] | None = None


def render_calls_with(renderer: Callable[[Continuation], str] | None) -> None:
    """Print every continuation with ``renderer`` from now on (None: as a call again).

    The CLI under an agent's hook sets one that prints each continuation as the equivalent
    ``wuu`` shell command (``wuu saved log-… --start-line 87``), which the agent can run with
    its own shell; views count its tokens as they count the call's.
    """
    global _renderer
    _renderer = renderer


def call_text(cont: Continuation) -> str:
    """The continuation as a call a model can copy: ``read_file(path="a.py", start_line=9)``.

    When a renderer is set (:func:`render_calls_with`), the continuation as that renderer writes it.
    """
    if _renderer is not None:
        return _renderer(cont)
    return plain_call_text(cont)


def plain_call_text(cont: Continuation) -> str:
    """The continuation as a call, whatever renderer is set."""
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in cont["args"].items())
    return f"{cont['tool']}({args})"


@dataclass(frozen=True)
class ToolResult:
    """What every tool returns; ``to_dict()`` is the JSON envelope of DESIGN.md.

    Attributes:
        text: The model-facing projection; fits the budget, never over 51,200 bytes.
        complete: True when nothing was omitted.
        continuation: The call that shows the next omitted material, or None when complete.
        source: Reference of the saved complete result (``read_saved`` reads it), or None.
        revision: Opaque content revision of the source this view came from.
        attachments: Media kept apart from the text: ``{"type", "mime_type", "data" or "uri", ...}``.
        meta: Tool-specific facts (``total_lines``, ``shown``, ``omitted``, ...).
    """

    text: str
    complete: bool
    continuation: Continuation | None = None
    source: str | None = None
    revision: str | None = None
    attachments: tuple[dict[str, Any], ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def tokens(self) -> int:
        """Tokens of ``text`` (cl100k_base), counted on first use."""
        return count_tokens(self.text)

    @property
    def is_error(self) -> bool:
        """True when this result reports a failure of the call rather than a view."""
        return "error" in self.meta

    def to_dict(self) -> dict[str, Any]:
        """The JSON envelope: text, complete, continuation, source, revision, tokens, attachments, meta."""
        meta = dict(self.meta)
        meta.setdefault("tokenizer", tokenizer_name())
        return {
            "text": self.text,
            "complete": self.complete,
            "continuation": self.continuation,
            "source": self.source,
            "revision": self.revision,
            "tokens": self.tokens,
            "attachments": [dict(a) for a in self.attachments],
            "meta": meta,
        }

    def to_json(self, indent: int | None = None) -> str:
        """``to_dict()`` as JSON text."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_error(cls, exc: WuuError, tool: str | None = None, budget: int | None = None) -> ToolResult:
        """A one-line readable result for a failed call (what the agent-facing faces return).

        Its text fits ``budget`` (default :data:`DEFAULT_BUDGET`), as every view does, but is never
        cut below :data:`ERROR_FLOOR` tokens, so that it stays readable: an error's quoted inputs
        are already cut (:func:`~.errors.quote`), and what is still over is cut here.
        """
        prefix = f"{tool}: " if tool else ""
        return cls(
            text=_fit_error(f"error: {prefix}{exc.message}", budget),
            complete=True,
            meta={"error": {"kind": exc.kind, "message": exc.message}},
        )


def _fit_error(text: str, budget: int | None) -> str:
    """``text`` cut (at a character, marked) to fit ``budget`` tokens (:data:`ERROR_FLOOR` at least)."""
    limit = budget if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0 else DEFAULT_BUDGET
    limit = max(limit, ERROR_FLOOR)
    if len(text.encode()) <= limit or count_tokens(text) <= limit:  # a token is at least one byte
        return text
    mark = f" … [error cut to the budget: {len(text):,} characters]"
    lo, hi = 0, len(text)
    while lo < hi:  # the longest head that fits with the mark
        mid = (lo + hi + 1) // 2
        if count_tokens(text[:mid] + mark) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + mark
