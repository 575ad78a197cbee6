"""What a file defines: :class:`Definition` and the :class:`Outline` that orders and nests them.

An outline is built from raw definitions in any order (:meth:`Outline.build`): it sorts them by
line, nests each inside the innermost definition whose lines contain it, and names each by its
qualified name (``Evidence.rank``; a Go method or a C++ ``Foo::bar`` defined outside its type is
qualified by its ``owner``). Namespaces, modules and a document's single title are *transparent*:
the definitions inside them stay at the level of the namespace itself, so a map nested one level
shows ``class basic_json`` and its members even inside ``namespace nlohmann``.

>>> o = Outline.build("python", "tree-sitter", [
...     Definition("Evidence", "class", 3, 40, 3, "class Evidence"),
...     Definition("rank", "function", 20, 30, 21, "def rank(self, lines)"),
... ])
>>> [(o.qualname(i), d.kind, o.level(i)) for i, d in enumerate(o.defs)]
[('Evidence', 'class', 0), ('Evidence.rank', 'method', 1)]
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

__all__ = ["CONTAINERS", "SIGNATURE_CHARS", "TRANSPARENT", "Definition", "Outline", "tidy_signature"]

TRANSPARENT = frozenset({"namespace", "module", "title"})
"""Kinds whose contents stay at their own level in a map (they add no nesting level)."""
CONTAINERS = frozenset({"class", "struct", "interface", "trait", "impl", "enum", "record", "union", "object"})
"""Kinds whose functions are methods."""
SIGNATURE_CHARS = 90
"""A map shows at most this many characters of a definition's line."""


@dataclass(frozen=True)
class Definition:
    """One definition (or heading, or top-level key) of a file.

    Attributes:
        name: Its own name (``rank``), or a heading's text.
        kind: ``class``, ``function``, ``method``, ``struct``, ``namespace``, ``heading``, ``key``, ...
        start: Its first line (1-based), decorators, attributes and a template head included.
        end: Its last line (inclusive).
        line: The line that names it (its signature line).
        signature: That line, stripped and cut to a readable length.
        doc_start: The first line of the comment block right above it (``start`` when there is none):
            where reading it by name begins.
        owner: The type a method defined outside its type belongs to (Go receivers, C++ ``Foo::bar``), with
            the scopes that qualify it (``ns::Foo`` of ``ns::Foo<T>::bar``).
    """

    name: str
    kind: str
    start: int
    end: int
    line: int
    signature: str
    doc_start: int = 0
    owner: str | None = None

    @property
    def first(self) -> int:
        """The first line read when the definition is asked for by name."""
        return min(self.doc_start or self.start, self.start)


@dataclass(frozen=True)
class Outline:
    """The definitions of one file, in line order, each with its enclosing definition.

    Attributes:
        language: The language or format the definitions were read as.
        method: ``tree-sitter`` or ``keywords`` (the indentation and keyword fallback).
        defs: The definitions by first line (the longer first when two start on one line).
        parents: For each definition, the index of the innermost one containing it, or -1.
    """

    language: str
    method: str
    defs: tuple[Definition, ...]
    parents: tuple[int, ...]
    _levels: list[int] = field(default_factory=list, compare=False, repr=False)
    memo: dict[object, object] = field(default_factory=dict, compare=False, repr=False)
    """Results derived from the outline (a view's rounds ask for the same ones)."""

    @classmethod
    def build(cls, language: str, method: str, raw: list[Definition], total_lines: int | None = None) -> Outline:
        """Sort, clip to the file, drop duplicates, nest and name ``raw``."""
        seen: set[tuple[int, int, str]] = set()
        defs: list[Definition] = []
        for d in sorted(raw, key=lambda d: (d.start, -d.end, d.line)):
            end = d.end if total_lines is None else min(d.end, total_lines)
            if d.start < 1 or end < d.start or (d.start, end, d.name) in seen:
                continue
            seen.add((d.start, end, d.name))
            defs.append(d if end == d.end else replace(d, end=end))
        parents: list[int] = []
        stack: list[int] = []
        for i, d in enumerate(defs):
            while stack and defs[stack[-1]].end < d.end:
                stack.pop()
            while stack and not (defs[stack[-1]].start <= d.start and d.end <= defs[stack[-1]].end):
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            stack.append(i)
        for i, d in enumerate(defs):  # a function inside a type is a method
            p = parents[i]
            if d.kind == "function" and p >= 0 and defs[p].kind in CONTAINERS:
                defs[i] = replace(d, kind="method")
        return cls(language, method, tuple(defs), tuple(parents))

    def level(self, i: int) -> int:
        """How many definitions that are not transparent enclose definition ``i``."""
        if not self._levels:
            for p in self.parents:
                up = self._levels[p] + (self.defs[p].kind not in TRANSPARENT) if p >= 0 else 0
                self._levels.append(up)
        return self._levels[i]

    def depth(self, i: int) -> int:
        """How many definitions enclose definition ``i``."""
        n, p = 0, self.parents[i]
        while p >= 0:
            n, p = n + 1, self.parents[p]
        return n

    def qualname(self, i: int) -> str:
        """``Outer.Inner.name``: the names of the enclosing definitions (titles left out) and its own."""
        parts = [self.defs[i].name]
        owner = self.defs[i].owner
        if owner:
            parts[:0] = owner.split("::")
        p = self.parents[i]
        while p >= 0:
            if self.defs[p].kind != "title":
                parts.insert(0, self.defs[p].name)
            p = self.parents[p]
        return ".".join(parts)

    def is_alias(self, i: int) -> bool:
        """Whether definition ``i`` only names its parent's lines again: ``Y`` of a C ``typedef struct X
        {…} Y;`` (looked up by name, neither listed in a map nor counted as a member)."""
        p = self.parents[i]
        d = self.defs[i]
        return p >= 0 and d.kind == "type" and (d.start, d.end) == (self.defs[p].start, self.defs[p].end)

    @cached_property
    def _member_lists(self) -> list[list[int]]:
        by_name: dict[str, list[int]] = {}
        for i, d in enumerate(self.defs):
            if d.kind in CONTAINERS or d.kind == "type":
                by_name.setdefault(d.name, []).append(i)
        out: list[list[int]] = [[] for _ in self.defs]
        for j, d in enumerate(self.defs):
            if self.is_alias(j):
                continue
            p = self.parents[j]
            while p >= 0 and self.defs[p].kind in TRANSPARENT:
                p = self.parents[p]
            if p >= 0:
                out[p].append(j)
            elif d.owner:  # a method defined outside its type: the type's member
                for i in by_name.get(d.owner.split("::")[-1], [])[:1]:
                    out[i].append(j)
        return out

    def members(self, i: int) -> list[int]:
        """The definitions one level inside ``i`` (through namespaces), and the methods defined outside it
        that name it as their owner, in order."""
        return self._member_lists[i]


def tidy_signature(line: str, language: str) -> str:
    """A definition's line as a map shows it: stripped, tabs as spaces, no trailing ``{``, cut to a length."""
    text = " ".join(line.replace("\t", " ").split()).replace("( ", "(").replace(", )", ")").replace(",)", ")")
    if text.endswith("{"):
        text = text[:-1].rstrip()
    if language == "python" and text.endswith(":"):
        text = text[:-1].rstrip()
    if len(text) > SIGNATURE_CHARS:
        text = text[: SIGNATURE_CHARS - 1].rstrip() + "…"
    return text
