"""``read_conversation``: a transcript as task anchor, recent turns and an index; older turns on demand.

The transcript file is read whole (transcripts are a few MB at most), its revision is a
digest of its bytes, and the parsed turns are cached per path and revision, so following
a chain of ``before_turn`` continuations parses the file once. A transcript that grew since
a continuation was cut has a new revision; the view says so on its first line, and since
turns are numbered from the start of the file, the older turns it shows are the same ones.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import OrderedDict
from threading import Lock
from typing import Literal, get_args

from ..core.budget import resolve_budget
from ..core.env import env_int
from ..core.errors import InvalidArgument, NotAFile, check_revision, clip, map_os_error, quote
from ..core.lineindex import large_revision
from ..core.names import arg_path, check_path, given_path, shown_path
from ..core.result import ToolResult
from ..views.ceiling import fit_ceiling
from .lazy import lazy_conversation
from .model import Conversation
from .render import TurnRenderer
from .turnindex import NotIndexed, index_session
from .view import Frame, first_view, instructions_view, older_view, pattern_view

__all__ = ["FormatName", "read_conversation"]

FormatName = Literal[
    "claude-code",
    "codex",
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "openhands",
    "gemini-cli",
    "gemini-session",
    "gemini-contents",
    "anthropic-agent",
    "markdown-chat",
    "aider",
]
"""The readers ``format=`` can force (the keys of ``FORMATS``)."""
_NAMES = frozenset(get_args(FormatName))

_CACHE: OrderedDict[tuple[str, str, str | None], Conversation] = OrderedDict()
_CACHE_SIZE = 4
STREAM_MIN = 8 * 1024 * 1024
"""Claude Code sessions from this size (``WUU_CONV_STREAM_MIN`` overrides it) are indexed, read turn by turn."""


def _stream_min() -> int:
    return env_int("WUU_CONV_STREAM_MIN", STREAM_MIN, unit="bytes")


_lock = Lock()


def read_conversation(
    path: str,
    before_turn: int | None = None,
    revision: str | None = None,
    budget: int | None = None,
    pattern: str | None = None,
    format: FormatName | None = None,
    instructions: bool = False,
) -> ToolResult:
    """Read an agent conversation transcript: the task, the latest turns, and an index of the rest.

    The first view shows the task anchor (the first human request and every later human
    instruction in short), a one-line index of the omitted middle, and the most recent
    turns in full; tool results inside turns are shortened, and the whole turn stays
    readable. The continuation (``before_turn``) shows older turns, each exactly once.
    Reads Claude Code and Codex CLI session JSONL, OpenAI chat / Responses and Anthropic
    Messages lists (also wrapped under ``messages`` or ``history``), OpenHands events, Gemini
    CLI stream-json, saved sessions and checkpoints, Anthropic managed-agent session events,
    and Markdown chat exports (Amp threads and the like, aider histories).

    Args:
        path: The transcript file.
        before_turn: Show the turns before this turn number (1-based), newest first to fit.
        revision: The revision the caller's earlier view came from; a changed transcript is reported.
        budget: Token budget of the view; defaults to WUU_BUDGET or 2,000.
        pattern: A regular expression; when given, shows the lines of each turn that match it
            (case-insensitive unless it holds an upper-case letter; tool output as a terminal showed it).
        format: Force a reader instead of detecting one: claude-code, codex, openai-chat,
            openai-responses, anthropic-messages, openhands, gemini-cli, gemini-session,
            gemini-contents, anthropic-agent, markdown-chat or aider.
        instructions: List every human instruction (before ``before_turn``) in one line each, the
            call the first view names when it has more of them than it can show.

    Returns:
        The view as a ToolResult; ``meta`` has total_turns, shown_turns and anchor_turns.
    """
    if not isinstance(path, str) or not path:
        raise InvalidArgument(f"path must be a non-empty string, not {quote(path)}")
    if before_turn is not None and (isinstance(before_turn, bool) or not isinstance(before_turn, int)):
        raise InvalidArgument(f"before_turn must be a whole turn number, not {quote(before_turn)}")
    check_revision(revision)
    if not isinstance(instructions, bool):
        raise InvalidArgument(f"instructions must be true or false, not {quote(instructions)}")
    if instructions and pattern is not None:
        raise InvalidArgument("instructions and pattern cannot be combined: list the instructions, or search")
    if pattern is not None and (not isinstance(pattern, str) or not pattern):
        raise InvalidArgument(f"pattern must be a non-empty regular expression, not {quote(pattern)}")
    if format is not None and format not in _NAMES:
        from .detect import FORMATS  # every reader, loaded only when one is needed

        raise InvalidArgument(f"format must be one of {', '.join(FORMATS)} (or omitted), not {quote(format)}")
    check_path(path)
    path = given_path(path)  # a quoted name copied from a view reads back as the file it names
    resolved = resolve_budget(budget)
    conv, current, size = _conversation(path, format)
    notes = []
    if revision is not None and revision != current:
        notes.append(
            f"[the transcript changed since revision {revision} (now {current}); turns are numbered from "
            "the start of the file, and the turns below come from the current version]"
        )

    def view(inner: int) -> ToolResult:
        frame = _frame(inner)
        if pattern is not None:
            return pattern_view(conv, frame, pattern, before_turn)
        if instructions:
            return instructions_view(conv, frame, before_turn)
        if before_turn is not None:
            return older_view(conv, frame, TurnRenderer(arg_path(path)), before_turn)
        return first_view(conv, frame, TurnRenderer(arg_path(path)))

    def _frame(inner: int) -> Frame:
        return Frame(
            path=arg_path(path),
            budget=inner,
            explicit_budget=budget,
            revision=current,
            size=size,
            fmt=format,
            pattern=pattern,
            notes=notes,
            changed_from=revision if notes else None,
            instructions=instructions,
        )

    return fit_ceiling(view, resolved)


def _conversation(path: str, fmt: str | None) -> tuple[Conversation, str, int]:
    """The transcript read (from the cache when its revision was read before), its revision and its size.

    A Claude Code session of :data:`STREAM_MIN` bytes or more is indexed (:mod:`.turnindex`) and its
    turns decoded as views show them; its revision is a digest of its size, mtime, inode and first and
    last 64 KiB, hashing the whole file costing more than reading the turns a view shows.
    """
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise NotAFile(f"{clip(shown_path(path))}: is a directory, not a transcript file (use list_dir)")
        if not stat.S_ISREG(st.st_mode):
            shown = clip(shown_path(path))
            raise NotAFile(f"{shown}: not a regular file (a FIFO, socket or device); a transcript must be a file")
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_size >= _stream_min() and fmt in (None, "claude-code"):
                current = "st-" + large_revision(fh, st)
                hit = _cached((os.path.abspath(path), current, fmt))
                if hit is not None:
                    return hit, current, st.st_size
                try:
                    index = index_session(path, fh, st)
                except NotIndexed:
                    pass
                else:
                    return (
                        _keep((os.path.abspath(path), current, fmt), lazy_conversation(path, index)),
                        current,
                        st.st_size,
                    )
                fh.seek(0)
            data = fh.read()
    except OSError as exc:
        raise map_os_error(exc, shown_path(path)) from exc
    from .detect import parse_transcript  # every reader: a big Claude Code session needs none of them

    current = "b2-" + hashlib.blake2b(data, digest_size=10).hexdigest()
    key = (os.path.abspath(path), current, fmt)
    conv = _cached(key)
    if conv is None:
        conv = _keep(key, parse_transcript(data, path, fmt))
    return conv, current, len(data)


def _cached(key: tuple[str, str, str | None]) -> Conversation | None:
    with _lock:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
        return hit


def _keep(key: tuple[str, str, str | None], conv: Conversation) -> Conversation:
    """Cache ``conv`` by path and revision (a chain of continuations reads the file once)."""
    with _lock:
        _CACHE[key] = conv
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return conv
