"""Definitions without a grammar: keywords and indentation, and the headings of documents.

:func:`keyword_definitions` finds the lines that open a definition (``def``, ``class``, ``fn``,
``func``, ``function``, ``struct``, ``module``, ... after any modifiers) and ends each where the
indentation comes back to its own level (a closing ``}`` or ``end`` there included), which is how
most code is laid out whatever its language. :func:`heading_definitions` reads reStructuredText
section titles (and Markdown headings, when its grammar is missing or the file too large), and
:func:`section_ends` gives any headings their sections: up to the next heading of the same or a
higher level. Both run in one pass over the lines, in time linear in the file.

>>> lines = ["class A:", "    def f(self):", "        pass", "x = 1"]
>>> [(d.name, d.kind, d.start, d.end) for d in keyword_definitions(lines, "ruby")]
[('A', 'class', 1, 3), ('f', 'function', 2, 3)]
"""

from __future__ import annotations

import re
from dataclasses import replace

from .model import Definition, tidy_signature

__all__ = ["heading_definitions", "key_definitions", "keyword_definitions", "section_ends"]

_MODIFIERS = (
    r"export|default|public|private|protected|internal|static|final|abstract|sealed|open|override|async|"
    r"pub(?:\([^)]*\))?|extern|inline|virtual|unsafe|local|data|inner|partial|readonly|suspend|mutating|"
    r"fileprivate|@\w+"
)
_KINDS = {
    "class": "class", "object": "class", "record": "record", "protocol": "interface", "extension": "class",
    "struct": "struct", "enum": "enum", "trait": "trait", "interface": "interface", "impl": "impl",
    "module": "module", "namespace": "namespace", "defmodule": "module", "type": "type", "union": "union",
    "def": "function", "function": "function", "func": "function", "fn": "function", "fun": "function",
    "sub": "function", "proc": "function", "defp": "function", "macro": "function", "defmacro": "function",
    "rpc": "function",
    "message": "class", "service": "class", "contract": "class", "library": "module",
}  # fmt: skip
_OPENER = re.compile(
    rf"^(?P<indent>[ \t]*)(?:(?:{_MODIFIERS})\s+)*(?P<kw>{'|'.join(sorted(_KINDS, key=len, reverse=True))})"
    r"\s+(?:self\.)?(?P<name>[A-Za-z_$][\w$]*(?:[.:]{1,2}[A-Za-z_$][\w$]*)*[?!]?)"
)
_SHELL_FN = re.compile(r"^(?P<indent>[ \t]*)(?:function\s+)?(?P<name>[A-Za-z_][\w.:-]*)\s*\(\)\s*(?:\{|$)")
_CLOSER = re.compile(r"^[ \t]*(?:[}\])]|end\b|fi\b|esac\b|done\b)")
_COMMENT = re.compile(r"^[ \t]*(?:#(?!\[)|//|/\*|\*|--|;|%)")
_DECORATOR = re.compile(r"^[ \t]*(?:@[\w.]+|#\[)")
_ADORN = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}[ \t]*$")
_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_YAML_KEY = re.compile(r"^(?P<name>[^\s#\-][^:#]*?|\"[^\"]*\"|'[^']*'):(?:\s|$)")
_TOML_TABLE = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]]+?)\s*\]\]?")
_TOML_KEY = re.compile(r"^(?P<name>[A-Za-z0-9_\-\"'.]+)\s*=")


def _indent(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())


def keyword_definitions(lines: list[str], language: str) -> list[Definition]:
    """The definitions ``lines`` open by keyword, each ended by indentation (see the module docstring)."""
    out: list[Definition] = []
    n = len(lines)
    for i, line in enumerate(lines):
        m = _OPENER.match(line) or (_SHELL_FN.match(line) if language in ("shell", "make") else None)
        if m is None:
            continue
        kw = m.groupdict().get("kw") or "function"
        if kw == "type" and "=" not in line and "{" not in line and language not in ("proto", "thrift"):
            continue  # "type" is a common word; only a definition with a body or an alias counts
        own = _indent(line)
        end = i
        j = i + 1
        while j < n:
            text = lines[j]
            if text.strip():
                if _indent(text) <= own:
                    if _CLOSER.match(text) and _indent(text) == own:
                        end = j
                    break
                end = j
            j += 1
        start = i
        while start > 0 and _DECORATOR.match(lines[start - 1]):
            start -= 1
        doc = start
        while doc > 0 and _COMMENT.match(lines[doc - 1]) and lines[doc - 1].strip():
            doc -= 1
        out.append(
            Definition(
                name=m.group("name").split(".")[-1].split("::")[-1],
                kind=_KINDS.get(kw, "function"),
                start=start + 1,
                end=end + 1,
                line=i + 1,
                signature=tidy_signature(line, language),
                doc_start=doc + 1,
            )
        )
    return out


def heading_definitions(lines: list[str], language: str) -> list[Definition]:
    """reStructuredText section titles (or Markdown headings), by level, with their sections."""
    out: list[Definition] = []
    if language == "markdown":
        fenced = False
        for i, line in enumerate(lines):
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced and (m := _MD_HEADING.match(line)):
                level = len(m.group(1))
                out.append(
                    Definition(m.group(2) or "(untitled)", f"h{level}", i + 1, i + 1, i + 1, tidy_signature(line, ""))
                )
        return section_ends(out, len(lines))
    styles: list[tuple[str, bool]] = []
    i = 0
    while i + 1 < len(lines):
        title, under = lines[i].rstrip(), lines[i + 1].rstrip()
        over = i > 0 and _ADORN.match(lines[i - 1].rstrip()) is not None
        if title.strip() and not _ADORN.match(title) and _ADORN.match(under) and len(under) >= len(title.strip()):
            style = (under[0], over and lines[i - 1].rstrip()[:1] == under[0])
            if style not in styles:
                styles.append(style)
            level = styles.index(style) + 1
            first = i - 1 if style[1] else i
            out.append(
                Definition(title.strip(), f"h{min(level, 6)}", first + 1, first + 1, i + 1, tidy_signature(title, ""))
            )
            i += 2
            continue
        i += 1
    return section_ends(out, len(lines))


def section_ends(headings: list[Definition], total: int) -> list[Definition]:
    """Each heading's section runs up to the next heading of its level or higher; a single top heading is the title."""
    out = []
    for k, h in enumerate(headings):
        level = int(h.kind[1:])
        end = total
        for nxt in headings[k + 1 :]:
            if int(nxt.kind[1:]) <= level:
                end = nxt.start - 1
                break
        out.append(replace(h, end=max(end, h.start)))
    tops = [h for h in out if h.kind == "h1"]
    if len(tops) == 1 and out and out[0] is tops[0]:
        out[0] = replace(out[0], kind="title")
    return out


def key_definitions(lines: list[str], language: str) -> list[Definition]:
    """The top-level keys of a YAML file or the tables and top-level keys of a TOML file."""
    out: list[Definition] = []
    for i, line in enumerate(lines):
        if language == "toml":
            m = _TOML_TABLE.match(line)
            kind = "table" if m else "key"
            if m is None and not any(d.kind == "table" for d in out):
                m = _TOML_KEY.match(line)
        else:
            m = _YAML_KEY.match(line)
            kind = "key"
        if m is None:
            continue
        out.append(Definition(m.group("name").strip("\"' "), kind, i + 1, i + 1, i + 1, tidy_signature(line, "")))
    for k, d in enumerate(out):  # each runs to the line before the next
        end = out[k + 1].start - 1 if k + 1 < len(out) else len(lines)
        while end > d.start and not lines[end - 1].strip():
            end -= 1
        out[k] = replace(d, end=end)
    return out
