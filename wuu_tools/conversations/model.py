"""The normalised model every transcript reader produces: a :class:`Conversation` of :class:`Turn` s.

A *turn* is one message of the conversation as a reader sees it: a human request, one
model response (its text, its reasoning, and the tool calls it made, each with the result
that came back for it), a system note, or a compaction boundary. Tool results are not
turns of their own: they are attached to the call that asked for them (paired by id), so
a turn reads as "what the agent did and what it got back". A result whose call is not in
the transcript becomes a ``tool`` turn of its own, so nothing is dropped.

Readers feed a :class:`TurnBuilder`, which pairs calls with results and numbers the turns
(1-based, in transcript order) when :meth:`TurnBuilder.finish` is called.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

__all__ = ["Conversation", "ToolCall", "ToolOutput", "Turn", "TurnBuilder", "norm_time"]

# Turn kinds: what a turn is when it is not a plain message of its role.
HUMAN = ""
"""A plain message; for role ``user`` it is a human instruction."""
NOT_INSTRUCTIONS = frozenset(
    {
        "meta",  # injected context: caveats, reminders, environment, IDE state, hook output
        "command",  # slash-command markup and local command output
        "compaction",  # a compaction boundary or the summary that replaced older turns
        "sub-agent",  # a sub-agent's prompt inside a main session
        "demo",  # a demonstration trajectory shown to the model
        "interrupt",  # "[Request interrupted by user]" and aborted turns
        "observation",  # tool output sent as a user message
        "summary",  # a session title line
        "exit",  # an agent's final submission
    }
)


@dataclass
class ToolOutput:
    """What came back for one tool call.

    Attributes:
        text: The result as text (images are attachments, not text).
        is_error: True when the transcript marks the call as failed.
        exit_code: The command's exit code when the transcript records one.
        attachments: Media returned by the tool.
    """

    text: str
    is_error: bool = False
    exit_code: int | None = None
    attachments: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ToolCall:
    """One tool call a model made, with its result when the transcript has it.

    Attributes:
        id: The call id used to pair it with its result (None when the format has none).
        name: The tool's name.
        args: The arguments: a dict, or a string when the tool takes free-form input.
        output: What came back, or None when no result is recorded.
    """

    id: str | None
    name: str
    args: Any
    output: ToolOutput | None = None


@dataclass
class Turn:
    """One message of a conversation.

    Attributes:
        role: ``user``, ``assistant``, ``system`` or ``tool`` (a result whose call is missing).
        text: The message text (reasoning and tool traffic are kept apart).
        kind: Empty for a plain message; otherwise one of :data:`NOT_INSTRUCTIONS`.
        thinking: Reasoning or a reasoning summary, when the transcript keeps it.
        calls: Tool calls made in this turn, each with its result.
        attachments: Images and files sent in the message.
        timestamp: ``YYYY-MM-DD HH:MM:SS`` (UTC) when the transcript records it.
        model: The model that wrote an assistant turn, when recorded.
        line: The 1-based line of the transcript file where the turn starts (JSONL formats).
        number: The turn's 1-based number, set by :meth:`TurnBuilder.finish`.
    """

    role: str
    text: str = ""
    kind: str = HUMAN
    thinking: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    timestamp: str | None = None
    model: str | None = None
    line: int | None = None
    number: int = 0

    @property
    def is_human(self) -> bool:
        """True for a human instruction: a plain user message with some text."""
        return self.role == "user" and self.kind == HUMAN and bool(self.text.strip())

    @property
    def errors(self) -> int:
        """How many of this turn's tool calls failed."""
        return sum(1 for c in self.calls if c.output is not None and c.output.is_error)


@dataclass
class Conversation:
    """A transcript read into turns.

    Attributes:
        format: The reader's format name (``claude-code``, ``codex``, ...).
        turns: The turns, numbered from 1.
        malformed: Lines or items that could not be read and were skipped.
        malformed_lines: The first few of them (1-based line numbers, or item indexes).
        unread: Well-formed lines or items of kinds the format's reader does not read (left out).
        unread_kinds: How many of each kind were left out (``type=x``, ``role=y kind=z``), most first.
        unread_lines: The first few of them.
        models: Models seen, in order of first use.
        facts: Format-specific facts for the header (``context_window``, ``cwd``, ...).
        infos: See :func:`~.turninfo.infos_of`.
    """

    format: str
    turns: list[Turn]
    malformed: int = 0
    malformed_lines: list[int] = field(default_factory=list)
    unread: int = 0
    unread_kinds: dict[str, int] = field(default_factory=dict)
    unread_lines: list[int] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    infos: list[Any] | None = field(default=None, repr=False)
    """Each turn's :class:`~.turninfo.TurnInfo` (what the first view needs), made when first asked for."""


def norm_time(value: Any) -> str | None:
    """A timestamp (ISO text, or seconds or milliseconds since the epoch) as ``YYYY-MM-DD HH:MM:SS``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and len(value) >= 19 and value[4] == "-" and value[10] in "T ":
        return value[:10] + " " + value[11:19]
    return None


class TurnBuilder:
    """Collects turns from a reader, pairing tool calls with their results by id."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.models: list[str] = []
        self._calls: dict[str, ToolCall] = {}
        self._keyed: dict[str, Turn] = {}

    def add(self, turn: Turn, key: str | None = None) -> Turn:
        """Append ``turn``; ``key`` (an API message id) lets later pieces join it with :meth:`joined`."""
        self.turns.append(turn)
        if key:
            self._keyed[key] = turn
        if turn.model and turn.model not in self.models and not turn.model.startswith("<"):
            self.models.append(turn.model)
        return turn

    def joined(self, key: str | None) -> Turn | None:
        """The turn an earlier piece with the same message id started, if any."""
        return self._keyed.get(key) if key else None

    def last(self) -> Turn | None:
        """The most recent turn."""
        return self.turns[-1] if self.turns else None

    def call(self, turn: Turn, call: ToolCall) -> None:
        """Record a tool call made in ``turn``."""
        turn.calls.append(call)
        if call.id:
            self._calls[call.id] = call

    def result(
        self, call_id: str | None, output: ToolOutput, timestamp: str | None = None, line: int | None = None
    ) -> None:
        """Attach ``output`` to its call; a result without a known call becomes a ``tool`` turn."""
        call = self._calls.get(call_id) if call_id else None
        if call is not None and call.output is None:
            call.output = output
            return
        if call is not None:  # a second result for one call: keep both
            call.output.text += "\n" + output.text  # type: ignore[union-attr]
            call.output.is_error = call.output.is_error or output.is_error  # type: ignore[union-attr]
            return
        orphan = Turn(role="tool", timestamp=timestamp, line=line)
        orphan.calls.append(ToolCall(id=call_id, name="(result)", args=None, output=output))
        self.turns.append(orphan)

    def finish(self, fmt: str, malformed: list[int] | None = None, facts: dict[str, Any] | None = None) -> Conversation:
        """Drop empty turns, number the rest from 1 and return the conversation."""
        kept = [t for t in self.turns if t.text.strip() or t.calls or t.thinking.strip() or t.attachments or t.kind]
        for n, turn in enumerate(kept, 1):
            turn.number = n
        bad = malformed or []
        return Conversation(
            format=fmt,
            turns=kept,
            malformed=len(bad),
            malformed_lines=bad[:10],
            models=list(self.models),
            facts=dict(facts or {}),
        )
