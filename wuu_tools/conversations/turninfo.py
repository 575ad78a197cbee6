"""What the first view needs of a turn it does not show in full: a :class:`TurnInfo`.

The task anchor's list of later instructions, the index of the omitted middle and the
header read only these facts, so a transcript too large to hold decoded (see :mod:`.stream`)
keeps one small :class:`TurnInfo` per turn and decodes a whole :class:`~.model.Turn` only
when a view shows it. Texts are kept whitespace-flattened and cut to :data:`TEXT_KEEP`
characters: more than any index line or anchor line quotes (200), so every view reads the
same from an info as from the whole turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .blocks import key_argument
from .model import HUMAN, Conversation, Turn
from .render import clip_key

__all__ = [
    "TEXT_KEEP",
    "CallInfo",
    "TurnInfo",
    "call_info",
    "counts",
    "flat",
    "human_numbers",
    "info_of",
    "infos_of",
    "time_span",
]

TEXT_KEEP = 201
"""Characters of flattened text an info keeps: one more than the longest quote (an anchor line's 200).
"""


_HEAD = 4 * TEXT_KEEP
"""A long text is flattened from its first ``_HEAD`` characters when they give :data:`TEXT_KEEP` of flat text."""


def flat(text: str) -> str:
    """``text`` on one line (runs of whitespace as one space), cut to :data:`TEXT_KEEP` characters.

    The flattening of a text's head is a prefix of the whole text's (at worst its last word is
    cut short), so a long text is split only as far as its head when that is enough.
    """
    if len(text) > _HEAD:
        head = " ".join(text[:_HEAD].split())
        if len(head) >= TEXT_KEEP:
            return head[:TEXT_KEEP]
    return " ".join(text.split())[:TEXT_KEEP]


@dataclass(frozen=True, slots=True)
class CallInfo:
    """A tool call as an index line shows it: name, key argument cut for full and short lines, failed."""

    name: str
    key: str  # cut to 60 (full index lines)
    short_key: str  # cut to 36 (short index lines)
    failed: bool


@dataclass(slots=True)
class TurnInfo:
    """A turn's number, role, kind, time, flattened text and reasoning (cut), calls and attachment count."""

    number: int
    role: str
    kind: str
    timestamp: str | None
    text: str
    thinking: str
    calls: tuple[CallInfo, ...]
    attachments: int
    blank_text: bool = False  # the text is only whitespace (so an index line shows no reasoning instead)

    @property
    def is_human(self) -> bool:
        """True for a human instruction: a plain user message with some text."""
        return self.role == "user" and self.kind == HUMAN and bool(self.text)

    @property
    def errors(self) -> int:
        """How many of this turn's tool calls failed."""
        return sum(1 for c in self.calls if c.failed) if self.calls else 0


def call_info(name: str, args: object, failed: bool) -> CallInfo:
    key = key_argument(name, args)
    return CallInfo(name, clip_key(key, 60), clip_key(key, 36), failed)


def info_of(turn: Turn) -> TurnInfo:
    """The :class:`TurnInfo` of a decoded turn."""
    return TurnInfo(
        number=turn.number,
        role=turn.role,
        kind=turn.kind,
        timestamp=turn.timestamp,
        text=flat(turn.text),
        thinking=flat(turn.thinking),
        calls=tuple(call_info(c.name, c.args, c.output is not None and c.output.is_error) for c in turn.calls),
        attachments=len(turn.attachments),
        blank_text=bool(turn.text) and not turn.text.strip(),
    )


def infos_of(conv: Conversation) -> list[TurnInfo]:
    """The infos of every turn of ``conv``, in order (a streamed transcript has them from its index)."""
    if conv.infos is None:
        conv.infos = [info_of(t) for t in conv.turns]
    return conv.infos


# Facts over all the infos; an indexed session's table (:class:`~.infotable.InfoTable`) has its own, over columns.


def human_numbers(infos: Sequence[TurnInfo]) -> list[int]:
    """The numbers of the turns that are human instructions."""
    own = getattr(infos, "human_numbers", None)
    return own() if own is not None else [t.number for t in infos if t.is_human]


def time_span(infos: Sequence[TurnInfo]) -> tuple[str, str] | None:
    """The earliest and latest time of the turns, if any has one."""
    own = getattr(infos, "time_span", None)
    if own is not None:
        return own()  # type: ignore[no-any-return]
    stamps = [t.timestamp for t in infos if t.timestamp]
    return (min(stamps), max(stamps)) if stamps else None


def counts(infos: Sequence[TurnInfo], hi: int) -> tuple[Counter[str], Counter[str], int]:
    """Turns by role, tool calls by name and failed calls, over the first ``hi`` turns."""
    own = getattr(infos, "counts", None)
    if own is not None:
        return own(hi)  # type: ignore[no-any-return]
    turns = infos[:hi]
    return Counter(t.role for t in turns), Counter(c.name for t in turns for c in t.calls), sum(t.errors for t in turns)
