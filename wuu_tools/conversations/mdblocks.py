"""Markdown transcripts cut into their top-level blocks, for the Markdown readers (``markdown_chat``, ``aider``).

CommonMark block structure comes from ``markdown-it-py`` (installed with rich, imported
only when a Markdown transcript is read): headings with their level and text, fenced code
with its info string and body, block quotes and every other block with its line span, so a
``## User`` line inside a fenced tool result is never taken for a heading. YAML front
matter (``---`` … ``---`` at the top) is read here as flat ``key: value`` facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Block", "front_matter", "md_blocks"]


@dataclass
class Block:
    """One top-level block: ``heading``, ``fence``, ``quote``, ``paragraph`` or ``other``.

    Attributes:
        kind: What the block is.
        start: Its first line (0-based, in the whole file).
        end: The line after its last line.
        level: A heading's level (1–6).
        text: A heading's text, a fence's body, or the block's lines as written.
        info: A fence's info string (the language).
    """

    kind: str
    start: int
    end: int
    level: int = 0
    text: str = ""
    info: str = ""


_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")


def front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    """``(facts, first body line)``: flat ``key: value`` pairs of a leading ``---`` block (quotes removed)."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    facts: dict[str, str] = {}
    for n, line in enumerate(lines[1:200], 1):
        if line.strip() in ("---", "..."):
            return facts, n + 1
        m = _KEY.match(line)
        if m and m.group(2):
            facts[m.group(1)] = m.group(2).strip("'\"")
    return {}, 0


def md_blocks(lines: list[str], start: int = 0) -> list[Block]:
    """The top-level blocks of ``lines[start:]``, line numbers counted in the whole of ``lines``."""
    from markdown_it import MarkdownIt  # a Markdown transcript is rare: load the parser only then

    parser = MarkdownIt("commonmark").disable(["inline", "text_join"])  # blocks only: a heading's text stays raw
    tokens = parser.parse("\n".join(lines[start:]))
    out: list[Block] = []
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.map is None or tok.nesting == -1:
            continue
        first, last = tok.map[0] + start, tok.map[1] + start
        raw = "\n".join(lines[first:last])
        if tok.type == "heading_open":
            text = tokens[i + 1].content if i + 1 < len(tokens) else ""
            out.append(Block("heading", first, last, level=int(tok.tag[1:]), text=text.strip()))
        elif tok.type == "fence":
            out.append(Block("fence", first, last, text=tok.content, info=tok.info.strip()))
        elif tok.type == "blockquote_open":
            out.append(Block("quote", first, last, text=raw))
        elif tok.type == "paragraph_open":
            out.append(Block("paragraph", first, last, text=raw))
        else:
            out.append(Block("other", first, last, text=raw))
    return out
