"""Reader for aider's chat history (``.aider.chat.history.md``).

aider appends to one Markdown file: ``# aider chat started at <time>`` opens each session;
every line the user typed is written as a ``#### `` heading (a multi-line message as
consecutive ones); aider's own output — versions, tokens and cost, confirmations,
"Applied edit to <file>", commits, lint and test output — as ``> `` block quotes; and the
model's answers as plain Markdown in between. The file is taken for this format only on
the session line.

The model edits files by writing edit blocks in its answer (``<<<<<<< SEARCH`` …
``>>>>>>> REPLACE`` under the file's name, or a unified diff): each becomes an ``edit``
call of the answer's turn, and aider's "Applied edit to <file>" (or its report that a block
failed to match) in the output right after it is that call's result. Other output becomes a
system turn. Slash commands are marked as commands, except ``/ask``, ``/code``,
``/architect`` and ``/context``, whose text is a request.
"""

from __future__ import annotations

import re

from .mdblocks import Block, md_blocks
from .model import Conversation, ToolCall, ToolOutput, Turn, TurnBuilder, norm_time

__all__ = ["looks_like_aider", "read_aider"]

_START = re.compile(r"^# aider chat started at (.+)$", re.M)
_SESSION = re.compile(r"^aider chat started at (.+)$")
_REQUEST_COMMANDS = ("/ask", "/code", "/architect", "/context", "/agent")
_APPLIED = re.compile(r"^Applied edit to (.+?)\s*$")
_FAILED = re.compile(r"SearchReplaceNoExactMatch|failed to match|did not conform to the edit format|Malformed", re.I)
_MODEL = re.compile(r"^(?:Main model|Models?):\s*(\S+)")
_SEARCH = re.compile(r"^<{5,9} (?:SEARCH|ORIGINAL)\s*$", re.M)
_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.M)


def looks_like_aider(text: str) -> bool:
    """True when ``text`` holds aider's session line."""
    return _START.search(text) is not None


def _unquote(text: str) -> list[str]:
    lines = [re.sub(r"^\s*>\s?", "", x).rstrip() for x in text.split("\n")]
    return [x for x in lines if x.strip()]


def _path(line: str) -> str:
    return line.strip().strip("`*:").strip()


def _edits(blocks: list[Block]) -> list[ToolCall]:
    """The edit calls an answer's blocks make: SEARCH/REPLACE blocks under a file name, or unified diffs."""
    calls: list[ToolCall] = []
    for n, block in enumerate(blocks):
        if block.kind != "fence":
            continue
        found = len(_SEARCH.findall(block.text))
        if found:
            inner = block.text.split("\n", 1)[0]
            path = inner if inner.strip() and not _SEARCH.match(inner) else ""
            if not path and n > 0 and blocks[n - 1].kind in ("paragraph", "other"):
                path = blocks[n - 1].text.rstrip().split("\n")[-1]
            args = {"path": _path(path) or "?"}
            calls.extend(ToolCall(id=None, name="edit", args=dict(args)) for _ in range(found))
        elif block.info.startswith("diff"):
            calls.extend(ToolCall(id=None, name="edit", args={"path": p}) for p in _DIFF_FILE.findall(block.text))
    return calls


class _Reader:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.b = TurnBuilder()
        self.answer: list[Block] = []
        self.user: list[Block] = []
        self.last: Turn | None = None  # the latest answer, whose edits aider's output reports on

    def flush(self) -> None:
        if self.user:
            text = "\n".join(b.text for b in self.user).strip()
            kind = "" if not text.startswith("/") or text.startswith(_REQUEST_COMMANDS) else "command"
            self.b.add(Turn(role="user", text=text, kind=kind, line=self.user[0].start + 1))
            self.user = []
            self.last = None
        if self.answer:
            first, last = self.answer[0], self.answer[-1]
            text = "\n".join(self.lines[first.start : last.end]).strip()
            turn = self.b.add(Turn(role="assistant", text=text, line=first.start + 1))
            for call in _edits(self.answer):
                self.b.call(turn, call)
            self.answer = []
            self.last = turn

    def output(self, block: Block) -> None:
        """aider's output: results of the last answer's edits; the rest a system turn."""
        self.flush()
        lines = _unquote(block.text)
        for line in lines:
            m = _MODEL.match(line)
            if m and m.group(1) not in self.b.models:
                self.b.models.append(m.group(1))
        calls = self.last.calls if self.last else []
        rest: list[str] = []
        for line in lines:
            m = _APPLIED.match(line)
            hits = [c for c in calls if m and c.output is None and c.args.get("path") == m.group(1)]
            for call in hits:
                call.output = ToolOutput(text=line)
            if not hits:
                rest.append(line)
        pending = [c for c in calls if c.output is None]
        if pending and any(_FAILED.search(x) for x in rest):
            for call in pending:
                call.output = ToolOutput(text="\n".join(rest), is_error=True)
            return
        if rest:
            self.b.add(Turn(role="system", kind="meta", text="\n".join(rest), line=block.start + 1))


def read_aider(text: str, malformed: list[int]) -> Conversation:
    """Read an aider chat history into a conversation."""
    lines = text.split("\n")
    reader = _Reader(lines)
    for block in md_blocks(lines):
        start = _SESSION.match(block.text) if block.kind == "heading" and block.level == 1 else None
        if start is not None:
            reader.flush()
            reader.last = None
            stamp = norm_time(start.group(1).strip())
            reader.b.add(Turn(role="system", kind="meta", text=block.text, timestamp=stamp, line=block.start + 1))
        elif block.kind == "heading" and block.level == 4:
            if reader.answer or (reader.user and reader.user[-1].end != block.start):
                reader.flush()  # a new message: lines of one message are written without a blank line between
            reader.user.append(block)
        elif block.kind == "quote":
            reader.output(block)
        else:
            if reader.user:
                reader.flush()
            reader.answer.append(block)
    reader.flush()
    return reader.b.finish("aider", list(malformed))
