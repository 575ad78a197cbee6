"""Agent conversation transcripts: readers for each format, one model of turns, and the projection.

>>> from wuu_tools.conversations import read_conversation
>>> result = read_conversation("session.jsonl")  # doctest: +SKIP
>>> result.meta["total_turns"], result.continuation  # doctest: +SKIP
(124, {'tool': 'read_conversation', 'args': {'path': 'session.jsonl', 'before_turn': 97, 'revision': '...'}})

Modules: ``_model`` (turns, tool calls and results), ``_blocks`` (content blocks and
injected markup shared by the readers), one reader per format (``_claude``, ``_codex`` with
``_responses``, ``_chat``, ``_openhands``), ``_detect`` (format detection and wrappers),
``_render`` (a turn as text at three levels of detail), ``_outline`` (task anchor and index),
``_view`` (first view, older turns, pattern search) and ``_tool`` (the ``read_conversation`` tool itself).
"""

from __future__ import annotations

from ._detect import FORMATS
from ._tool import read_conversation

__all__ = ["FORMATS", "read_conversation"]
