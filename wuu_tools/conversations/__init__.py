"""Agent conversation transcripts: readers for each format, one model of turns, and the projection.

>>> from wuu_tools.conversations import read_conversation
>>> result = read_conversation("session.jsonl")  # doctest: +SKIP
>>> result.meta["total_turns"], result.continuation  # doctest: +SKIP
(124, {'tool': 'read_conversation', 'args': {'path': 'session.jsonl', 'before_turn': 97, 'revision': '...'}})

Modules: ``model`` (turns, tool calls and results), ``blocks`` (content blocks and
injected markup shared by the readers), one reader per format (``claude``, ``codex`` with
``responses``, ``chat``, ``openhands``, ``gemini_stream``, ``gemini_session``,
``anthropic_agent``, ``markdown_chat`` and ``aider`` on ``mdblocks``), ``formats`` (each
format's own marks and the records its reader reads), ``detect`` (choosing the format, wrappers),
``render`` (a turn as text at three levels of detail), ``outline`` (task anchor and index),
``view`` (first view, older turns, pattern search) and ``tool`` (the ``read_conversation`` tool itself).
"""

from __future__ import annotations

from typing import Any

from .tool import read_conversation

__all__ = ["FORMATS", "read_conversation"]


def __getattr__(name: str) -> Any:
    """``FORMATS`` on first use (PEP 562): it loads every reader, which a big Claude Code session never needs."""
    if name == "FORMATS":
        from .detect import FORMATS

        return FORMATS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
