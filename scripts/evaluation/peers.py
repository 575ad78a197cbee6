"""Models of the peers' documented output policies, and how an agent recovers under each.

Every peer is a shell cap (how a long command output is cut), an optional native file
reader (``Read``-style pages of whole lines), whether an over-long output is saved to a file
the agent can read, and a cap for MCP results. The scripted agent is generous to every
peer: it reads in the largest pages that the policy shows uncut, starts each page at the
first line it has not seen, and greps exactly as the wuu-tools agent does.

| policy      | shell output                      | file reads                                    | MCP        | saved |
|-------------|-----------------------------------|-----------------------------------------------|------------|-------|
| cap-50k     | first 51,200 bytes                | cat / sed -n (shell)                          | as shell   | no    |
| claude-code | 30,000 chars, middle cut          | Read: 2,000 lines × 2,000 chars, ≤ 25k tokens | 25k tokens | no    |
| codex       | 10 KiB, head + tail halves        | cat / sed -n (shell)                          | as shell   | no    |
| gemini-cli  | 40,000 chars, 20% head / 80% tail | read_file: 2,000 lines × 2,000 chars          | as shell   | yes   |
| opencode    | first 2,000 lines / 50 KB         | read: 2,000 lines × 2,000 chars, 50 KB        | as shell   | yes   |
| goose       | last 100 lines                    | cat / sed -n (shell)                          | as shell   | no    |
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from wuu_tools.core.budget import fit_count, fit_prefix

__all__ = ["PEERS", "Cap", "Doc", "Peer", "Reader"]

Spans = list[tuple[int, int]]


class Doc:
    """A text the agent reads (a command's output, a file, a listing), indexed by line."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def covered(self, spans: Spans) -> set[int]:
        """Indices of the lines that lie wholly inside the character ``spans``."""
        out: set[int] = set()
        for a, b in spans:
            first = bisect.bisect_left(self.starts, a)
            for i in range(first, len(self.lines)):
                if self.starts[i + 1] > b:
                    break
                out.add(i)
        return out


class Cap(Protocol):
    """How a tool cuts one output: the text shown and the character spans of the original it keeps."""

    def apply(self, text: str) -> tuple[str, Spans]: ...

    def room(self, lines: list[str], start: int) -> int:
        """How many lines from ``start`` an output may hold and still be shown uncut (at least 1)."""
        ...


def _bytes_prefix(text: str, n: int) -> str:
    return text.encode()[:n].decode("utf-8", "ignore")


def _bytes_suffix(text: str, n: int) -> str:
    return text.encode()[-n:].decode("utf-8", "ignore") if n else ""


def _room_by(lines: list[str], start: int, limit: int, size: Callable[[str], int]) -> int:
    used = 0
    n = 0
    for line in lines[start:]:
        used += size(line)
        if used > limit:
            break
        n += 1
    return max(1, n)


@dataclass(frozen=True)
class HeadBytes:
    """The first ``cap`` bytes (a plain hard cap)."""

    cap: int

    def apply(self, text: str) -> tuple[str, Spans]:
        shown = _bytes_prefix(text, self.cap)
        if len(shown) == len(text):
            return text, [(0, len(text))]
        return shown + f"\n[output truncated at {self.cap:,} bytes]", [(0, len(shown))]

    def room(self, lines: list[str], start: int) -> int:
        return _room_by(lines, start, self.cap, lambda s: len(s.encode()))


@dataclass(frozen=True)
class HeadTail:
    """The first ``head`` and last ``tail`` units (characters, or bytes when ``in_bytes``), the middle cut."""

    head: int
    tail: int
    in_bytes: bool = False

    def apply(self, text: str) -> tuple[str, Spans]:
        size = len(text.encode()) if self.in_bytes else len(text)
        if size <= self.head + self.tail:
            return text, [(0, len(text))]
        if self.in_bytes:
            first, last = _bytes_prefix(text, self.head), _bytes_suffix(text, self.tail)
        else:
            first, last = text[: self.head], text[len(text) - self.tail :]
        cut = len(text) - len(first) - len(last)
        unit = "bytes" if self.in_bytes else "characters"
        shown = f"{first}\n\n... [{cut:,} {unit} truncated] ...\n\n{last}"
        return shown, [(0, len(first)), (len(text) - len(last), len(text))]

    def room(self, lines: list[str], start: int) -> int:
        size: Callable[[str], int] = (lambda s: len(s.encode())) if self.in_bytes else len
        return _room_by(lines, start, self.head + self.tail, size)


@dataclass(frozen=True)
class HeadLines:
    """The first ``lines`` lines and at most ``cap`` bytes."""

    lines: int
    cap: int

    def apply(self, text: str) -> tuple[str, Spans]:
        kept = text.splitlines(keepends=True)[: self.lines]
        shown = _bytes_prefix("".join(kept), self.cap)
        if len(shown) == len(text):
            return text, [(0, len(text))]
        return shown + "\n[output truncated; the full output was saved to a file]", [(0, len(shown))]

    def room(self, lines: list[str], start: int) -> int:
        return min(self.lines, _room_by(lines, start, self.cap, lambda s: len(s.encode())))


@dataclass(frozen=True)
class TailLines:
    """The last ``lines`` lines."""

    lines: int

    def apply(self, text: str) -> tuple[str, Spans]:
        parts = text.splitlines(keepends=True)
        if len(parts) <= self.lines:
            return text, [(0, len(text))]
        kept = "".join(parts[-self.lines :])
        return f"[{len(parts) - self.lines:,} earlier lines omitted]\n{kept}", [(len(text) - len(kept), len(text))]

    def room(self, lines: list[str], start: int) -> int:
        return self.lines


@dataclass(frozen=True)
class HeadTokens:
    """The first ``tokens`` cl100k tokens (Claude Code's MCP output limit)."""

    tokens: int

    def apply(self, text: str) -> tuple[str, Spans]:
        if len(text) <= self.tokens:
            return text, [(0, len(text))]
        n = fit_prefix(text, self.tokens, byte_cap=len(text.encode()) + 1)
        if n >= len(text):
            return text, [(0, len(text))]
        return text[:n] + f"\n[output truncated at {self.tokens:,} tokens]", [(0, n)]

    def room(self, lines: list[str], start: int) -> int:
        return _room_by(lines, start, self.tokens, len)  # a character is at most one token: safe


@dataclass(frozen=True)
class Reader:
    """A native file reader: ``lines`` lines a page, each cut at ``line_chars``, at most ``cap`` bytes.

    ``tokens``: a read longer than this is refused by the tool (Claude Code's 25,000-token file
    read limit); the ideal agent asks for the lines that fit, so no refused call is counted.
    """

    tool: str
    lines: int = 2000
    line_chars: int = 2000
    cap: int | None = None
    tokens: int | None = None

    def page(self, doc: Doc, start: int, limit: int | None = None) -> tuple[str, set[int]]:
        """Up to ``limit`` (default: a full page of) lines from index ``start``: numbered text, indices shown."""
        out: list[str] = []
        used = 0
        shown: set[int] = set()
        for i in range(start, min(len(doc.lines), start + min(limit or self.lines, self.lines))):
            line = doc.lines[i].rstrip("\r\n")
            if len(line) > self.line_chars:
                line = line[: self.line_chars] + "... [line truncated]"
            row = f"{i + 1:6d}\t{line}\n"
            if self.cap is not None and out and used + len(row.encode()) > self.cap:
                break
            used += len(row.encode())
            out.append(row)
            shown.add(i)
        if self.tokens is not None and len(out) > 1:
            keep = max(1, fit_count(out, self.tokens, byte_cap=used + 1, sep=""))
            out = out[:keep]
            shown = set(range(start, start + keep))
        return "".join(out), shown

    def call(self, doc: Doc, start: int, limit: int | None = None) -> str:
        args = {"file_path": doc.name, "offset": start + 1, "limit": limit or self.lines}
        return f"{self.tool}({json.dumps(args)})"


@dataclass(frozen=True)
class Peer:
    """One peer policy; see the module docstring for the figures."""

    name: str
    shell_tool: str
    shell: Cap
    reader: Reader | None
    saves: bool
    mcp: Cap


PEERS: tuple[Peer, ...] = (
    Peer("cap-50k", "shell", HeadBytes(51200), None, False, HeadBytes(51200)),
    Peer("claude-code", "Bash", HeadTail(15000, 15000), Reader("Read", tokens=25000), False, HeadTokens(25000)),
    Peer("codex", "shell", HeadTail(5120, 5120, in_bytes=True), None, False, HeadTail(5120, 5120, in_bytes=True)),
    Peer("gemini-cli", "run_shell_command", HeadTail(8000, 32000), Reader("read_file"), True, HeadTail(8000, 32000)),
    Peer("opencode", "bash", HeadLines(2000, 51200), Reader("read", cap=51200), True, HeadLines(2000, 51200)),
    Peer("goose", "developer__shell", TailLines(100), None, False, TailLines(100)),
)
