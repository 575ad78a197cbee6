"""A Claude Code session line as the turn index's pass reads it: a typed struct of the keys it uses.

msgspec decodes each line into a :class:`Line`: only the keys the pass reads, each of the type
it expects; the rest (a tool result's second copy in ``toolUseResult``, file snapshots, progress
data) is checked and skipped without making objects of it, which is most of a session's bytes.
A line with a key of another type is no ``Line``: the pass decodes it whole and leaves it to the reader.
Only the pass loads this module (and msgspec): a view of an indexed session needs neither.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec import UNSET, Raw, Struct, UnsetType
from msgspec.json import Decoder

from .claude import TYPES
from .jsonline import load_line

__all__ = ["Block", "Line", "Message", "decode_line"]

_ABSENT = Raw(b"")
"""The default of a raw field: the key is not in the line (``field is _ABSENT``)."""


class Block(Struct, gc=False):
    """A content block as the common shapes use it; a field of another type fails the decoding."""

    type: str
    text: str | UnsetType = UNSET
    thinking: str | UnsetType = UNSET
    name: str | None = None
    id: str | None = None
    input: Any = None  # decoded as json.loads would (a number out of range fails the decoding)
    tool_use_id: str | None = None
    is_error: bool | None = None
    content: Any = None  # a result's output


class Message(Struct, gc=False):
    id: str | None = None
    model: str | None = None
    content: list[Block] | str | None = None


class Line(Struct, gc=False):
    """A session line, only the keys the pass reads (the rest, ``toolUseResult`` above all, is skipped unread)."""

    type: str
    uuid: Raw = _ABSENT
    sessionId: Raw = _ABSENT
    messageId: Raw = _ABSENT
    leafUuid: Raw = _ABSENT
    parentUuid: Raw = _ABSENT
    timestamp: str | None = None
    isSidechain: bool | None = None
    agentId: str | None = None
    cwd: str | None = None
    gitBranch: str | None = None
    version: str | None = None
    isMeta: bool | None = None
    isCompactSummary: bool | None = None
    message: Message | None = None

    def uuid_value(self) -> Any:
        """The line's ``uuid``, decoded (None when it has none)."""
        return None if self.uuid is _ABSENT else load_line(bytes(self.uuid))

    def is_claude(self) -> bool:
        """:func:`.claude.looks_like_claude` of the line."""
        return self.type in TYPES and not (
            self.uuid is _ABSENT
            and self.sessionId is _ABSENT
            and self.messageId is _ABSENT
            and self.leafUuid is _ABSENT
            and self.parentUuid is _ABSENT
        )


decode_line: Callable[[bytes], Line] = Decoder(Line).decode
"""A line as a :class:`Line`; raises ``ValueError`` for a line that is not JSON or holds a key of another type.

A line it refuses is decoded whole (:func:`.jsonline.load_line`) and read by the reader. It refuses
more than the whole-file reader (lone surrogates, ``NaN``, a byte-order mark), never less, and reads
the keys of what it accepts alike (``tests/test_conversations_turnfast.py``).
"""
