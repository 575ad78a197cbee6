"""The scripted agent's recoveries under a peer policy: grep, read around the match, then page.

The natural first call is the peer's: the command through its shell cap, a file through its
reader (or ``cat`` through the shell), a tree as ``find . | sort``, an MCP result through its
MCP cap. When the evidence is not visible the agent greps (the same pattern as the wuu-tools
agent), reads around the first match, then pages through what it has not seen. A command
output that was neither shown whole nor saved must be re-run to read more of it; an MCP
result that was cut and not saved cannot be read further at all.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .agent import Call
from .peers import Doc, Peer
from .tasks import COMMAND_KINDS, Task, mcp_result, normalize

__all__ = ["PeerPolicy", "listing", "mcp_text"]

SAVED_AS = "/tmp/tool-output-1.txt"
RERUN_AS = "/tmp/out.log"


def listing(root: Path) -> str:
    """``find . -path ./.git -prune -o -print | sort``: every path under ``root`` but ``.git``."""
    paths = ["."]
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in dirnames + filenames:
            paths.append("./" + os.path.normpath(os.path.join(rel, name)))
    return "\n".join(sorted(paths)) + "\n"


def mcp_text(result: dict[str, Any]) -> tuple[str, list[str]]:
    """What a client shows of an MCP result: its text blocks (else the structured JSON), and its images."""
    texts = [b["text"] for b in result.get("content", []) if b.get("type") == "text"]
    images = [b["data"] for b in result.get("content", []) if b.get("type") == "image"]
    if not texts and "structuredContent" in result:
        texts = [json.dumps(result["structuredContent"], indent=2)]
    return "\n".join(texts), images


class PeerPolicy:
    """A peer policy as the scripted agent uses it."""

    def __init__(self, peer: Peer) -> None:
        self.peer = peer
        self.name = peer.name

    def calls(self, task: Task) -> Iterator[Call]:
        return _PeerRun(self.peer, task).calls()


class _PeerRun:
    def __init__(self, peer: Peer, task: Task) -> None:
        self.peer = peer
        self.task = task
        self.images: list[str] = []
        if task.kind == "tree":
            self.doc = Doc("find . | sort", listing(task.path))
        elif task.kind == "mcp":
            text, self.images = mcp_text(mcp_result(task))
            self.doc = Doc(SAVED_AS, text)
        else:
            self.doc = Doc(str(task.path), task.path.read_text(encoding="utf-8", errors="replace"))
        self.seen: set[int] = set()
        self.lines_seen: set[str] = set()
        self.saved = False  # the whole output sits in a file the agent can read
        self.next_line = 0

    # -- bookkeeping -----------------------------------------------------------------------

    def _call(self, request: str, text: str, shown: set[int], reexecuted: bool = False) -> Call:
        new_lines = shown - self.seen
        self.seen |= shown
        novel = {ln for ln in normalize(text).split("\n") if ln} - self.lines_seen
        self.lines_seen |= novel
        return Call(request, text, advancing=bool(new_lines or novel), reexecuted=reexecuted)

    def _shell(self, command: str) -> str:
        return f"{self.peer.shell_tool}({json.dumps({'command': command})})"

    def _through_shell(self, command: str, text: str, doc_offset: int | None, reexecuted: bool = False) -> Call:
        """A shell call printing ``text``; ``doc_offset``: the doc line it starts at (None: derived output)."""
        shown, spans = self.peer.shell.apply(text)
        covered: set[int] = set()
        if doc_offset is not None:
            covered = {i + doc_offset for i in Doc("", text).covered(spans)}
        return self._call(self._shell(command), shown, covered, reexecuted)

    # -- the sequence ----------------------------------------------------------------------

    def calls(self) -> Iterator[Call]:
        yield self._first()
        if self.task.search is not None:
            yield from self._search()
        yield from self._pages()

    def _first(self) -> Call:
        kind, doc = self.task.kind, self.doc
        if kind in COMMAND_KINDS:
            call = self._through_shell(self.task.source["label"], doc.text, 0)
            if self.peer.saves and call.text != doc.text:
                self.saved = True
                call.text += f"\n[full output saved to {SAVED_AS}]"
            return call
        if kind == "mcp":
            shown, spans = self.peer.mcp.apply(doc.text)
            self.saved = self.peer.saves and shown != doc.text
            if self.saved:
                shown += f"\n[full output saved to {SAVED_AS}]"
            call = self._call(f"{self.task.source['tool']}({{}})", shown, doc.covered(spans))
            call.images = list(self.images)
            return call
        if kind == "tree":
            return self._through_shell("find . -path ./.git -prune -o -print | sort", doc.text, 0)
        if self.peer.reader is not None:
            text, shown = self.peer.reader.page(doc, 0)
            return self._call(self.peer.reader.call(doc, 0), text, shown)
        return self._through_shell(f"cat {doc.name}", doc.text, 0)

    def _search(self) -> Iterator[Call]:
        s = self.task.search
        assert s is not None
        kind = self.task.kind
        if kind == "mcp" and not self.saved:
            return  # a cut MCP result that was not saved cannot be searched
        flags = re.IGNORECASE if s.ignore_case else 0
        if s.mode == "only":
            rx = re.compile(f"{s.pattern}.{{0,80}}", flags)
            out = [f"{i + 1}:{m.group()}" for i, ln in enumerate(self.doc.lines) for m in rx.finditer(ln)]
        else:
            rx = re.compile(s.pattern, flags)
            out = [
                (ln.rstrip("\r\n") if s.mode == "paths" else f"{i + 1}:{ln.rstrip(chr(13) + chr(10))}")
                for i, ln in enumerate(self.doc.lines)
                if rx.search(ln)
            ]
        opt = "-i " if s.ignore_case else ""
        if kind == "tree":
            command = f"find . -path '*{s.pattern}*'"
        elif kind in COMMAND_KINDS and not self.saved:
            command = f"{self.task.source['label']} 2>&1 | grep -n {opt}-E '{s.pattern}'"
        else:
            target = SAVED_AS if self.saved else self.doc.name
            command = f"grep -n {'-o ' if s.mode == 'only' else ''}{opt}-E '{s.pattern}' {target}"
        rerun = kind in COMMAND_KINDS and not self.saved
        call = self._through_shell(command, "\n".join(out) + ("\n" if out else ""), None, reexecuted=rerun)
        call.search = True
        yield call
        if s.read_after and s.mode == "lines":
            hit = re.search(r"(?m)^(\d+):", call.text)
            if hit:
                start = max(0, int(hit.group(1)) - 3)
                yield self._read(start, s.read_after + 3)

    def _read(self, start: int, count: int) -> Call:
        """Lines ``start`` .. ``start + count - 1`` (0-based) with the policy's reader or ``sed -n``."""
        doc = self.doc
        reader = self.peer.reader
        if reader is not None:
            text, shown = reader.page(doc, start, count)
            return self._call(reader.call(doc, start, count), text, shown)
        end = min(len(doc.lines), start + count)
        sed = f"sed -n '{start + 1},{end}p'"
        command = (
            f"find . -path ./.git -prune -o -print | sort | {sed}" if self.task.kind == "tree" else f"{sed} {doc.name}"
        )
        return self._through_shell(command, "".join(doc.lines[start:end]), start)

    def _pages(self) -> Iterator[Call]:
        kind = self.task.kind
        if kind == "mcp" and not self.saved:
            return
        if kind in COMMAND_KINDS and not self.saved:
            # Neither shown whole nor saved: run it again into a file, then read that.
            yield self._call(
                self._shell(f"{self.task.source['label']} > {RERUN_AS} 2>&1"), "(no output)", set(), reexecuted=True
            )
            self.doc.name = RERUN_AS
        reader = self.peer.reader if kind != "tree" else None
        while True:
            while self.next_line in self.seen:
                self.next_line += 1
            if self.next_line >= len(self.doc.lines):
                return
            start = self.next_line
            if reader is not None:
                text, shown = reader.page(self.doc, start)
                call = self._call(reader.call(self.doc, start), text, shown)
            else:
                call = self._read(start, self.peer.shell.room(self.doc.lines, start))
            # A line longer than the policy can show uncut is shown cut; the agent moves past it.
            self.seen.add(start)
            yield call
