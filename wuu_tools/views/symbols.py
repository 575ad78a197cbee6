"""Finding a definition of an outline by name: ``rank``, ``Evidence.rank``, ``ns::Parser::parse``.

A name matches a definition whose own name it is, or whose qualified name ends with it, part by
part (``.``, ``::`` and ``#`` separate parts); where no name matches exactly, a part's template
arguments are left out (``std::hash`` names ``std.hash<nlohmann::json>``), then case is ignored.
Leading qualifiers that name no definition of the file are also read as left out (:func:`lookup`).
Several matches are candidates the caller chooses among, except that a declaration without a
body (a C++ method declared in its class) gives way to the definition of the same name with one.
An unknown name gets the closest names the outline has (:func:`closest`).

>>> from .structure.model import Definition, Outline
>>> o = Outline.build("python", "tree-sitter", [
...     Definition("Evidence", "class", 1, 20, 1, "class Evidence"),
...     Definition("rank", "function", 5, 9, 5, "def rank(self)"),
...     Definition("rank", "function", 22, 30, 22, "def rank(items)"),
... ])
>>> [o.qualname(i) for i in find(o, "rank")]
['Evidence.rank', 'rank']
>>> [o.qualname(i) for i in find(o, "Evidence::rank")]
['Evidence.rank']
>>> lookup(o, "pkg::Evidence::rank")
([1], ['pkg'])
>>> [o.qualname(i) for i in closest(o, "rnak")]
['Evidence.rank', 'rank']
>>> parts("std::hash<nlohmann::json>::operator()")
['std', 'hash<nlohmann::json>', 'operator()']
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from .structure.model import Outline

__all__ = ["bare", "closest", "find", "lookup", "parts"]

_OPERATOR = re.compile(
    r"operator\s*(?:\(\s*\)|\[\s*\]|\"\"\s*\w+|(?:new|delete)\b(?:\s*\[\s*\])?|[^\w\s.:#()\[\]]+|[A-Za-z_]\w*)?"
)


def parts(name: str) -> list[str]:
    """A dotted or ``::`` name as its parts (``a.b::c`` -> ``["a", "b", "c"]``); a separator inside template
    arguments (``hash<nlohmann::json>``) or an operator's name (``operator<``) does not split it."""
    out: list[str] = []
    cur: list[str] = []
    depth, i, text = 0, 0, name.strip()
    while i < len(text):
        if text.startswith("operator", i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = _OPERATOR.match(text, i)
            assert m is not None
            cur.append(m.group())
            i = m.end()
            continue
        c = text[i]
        depth += 1 if c == "<" else -1 if c == ">" and depth else 0
        sep = 2 if text.startswith("::", i) else 1 if c in ".#" else 0
        if sep and depth == 0:
            out.append("".join(cur))
            cur, i = [], i + sep
            continue
        cur.append(c)
        i += 1
    out.append("".join(cur))
    return [p.strip() for p in out if p.strip()]


def bare(part: str) -> str:
    """A part without its template arguments (``hash<nlohmann::json>`` -> ``hash``; an operator stays whole)."""
    return part if part.startswith("operator") else part.split("<", 1)[0].strip()


def find(outline: Outline, name: str) -> list[int]:
    """Indexes of the definitions ``name`` names, in line order (see the module docstring)."""
    return lookup(outline, name)[0]


def lookup(outline: Outline, name: str) -> tuple[list[int], list[str]]:
    """:func:`find`'s definitions, and the leading parts of ``name`` left out to find some of them: a
    qualifier that names no definition of the file (``nlohmann`` of ``nlohmann::basic_json::dump``
    where a macro opens the namespace) is also read as left out, one that names another definition
    (or the type a method defined outside it belongs to) is not."""
    want = parts(name)
    direct = set(_find(outline, name, want))
    found = set(direct)
    by_dropping: dict[int, int] = {}  # a definition found only with the first k parts left out: k
    if len(want) > 1:
        names = {bare(p) for d in outline.defs for p in parts(d.name)}
        names |= {d.owner.split("::")[-1] for d in outline.defs if d.owner}
        k = 0
        while k < len(want) - 1 and bare(want[k]) not in names:
            k += 1
            for i in _find(outline, "::".join(want[k:]), want[k:]):
                if i not in found:
                    found.add(i)
                    by_dropping[i] = k
    kept = _prefer_bodies(outline, _qualified(outline)[0], sorted(found, key=lambda i: (outline.defs[i].start, i)))
    k = max((by_dropping[i] for i in kept if i in by_dropping), default=0)
    return kept, want[:k]


def _find(outline: Outline, name: str, want: list[str]) -> list[int]:
    wanted = name.strip()
    qualnames, have = _qualified(outline)
    found = {i for i, d in enumerate(outline.defs) if d.name == wanted or qualnames[i] == wanted}
    # a name without template arguments names every specialization too; one with them, those first
    keys = (_same, bare) if any("<" in w and not w.startswith("operator") for w in want) else (bare,)
    for key in keys:
        hit = _by_parts(have, want, key)
        if hit:
            found |= set(hit)
            break
    if not found:  # then case is ignored
        found = set(_by_parts(have, want, lambda p: bare(p).casefold()))
        found |= {i for i, d in enumerate(outline.defs) if d.name.casefold() == wanted.casefold()}
    return sorted(found)


def _qualified(outline: Outline) -> tuple[list[str], list[list[str]]]:
    """The qualified names of the outline's definitions and their parts (kept with the outline)."""
    if "qualified" not in outline.memo:
        qualnames = [outline.qualname(i) for i in range(len(outline.defs))]
        outline.memo["qualified"] = (qualnames, [parts(q) for q in qualnames])
    return outline.memo["qualified"]  # type: ignore[return-value]


def _same(part: str) -> str:
    return "".join(part.split())


def _by_parts(have: list[list[str]], want: list[str], key: Callable[[str], str]) -> list[int]:
    """The definitions whose qualified name ends with ``want``, part by part, compared by ``key``."""
    if not want:
        return []
    wanted = [key(w) for w in want]
    return [i for i, h in enumerate(have) if len(h) >= len(want) and [key(p) for p in h[-len(want) :]] == wanted]


def _prefer_bodies(outline: Outline, qualnames: list[str], found: list[int]) -> list[int]:
    """Drop one-line declarations that another match defines over several lines: the same qualified
    name, or one qualified further (``ns.S.f`` defined outside ``S`` for ``S.f`` declared in it)."""
    if len(found) < 2:
        return found

    def has_body(i: int) -> bool:
        d = outline.defs[i]
        return d.end > d.start or "{" in d.signature

    bodied = [parts(qualnames[i]) for i in found if has_body(i)]

    def defined(q: list[str]) -> bool:
        return any(b[-len(q) :] == q or q[-len(b) :] == b for b in bodied)

    return [i for i in found if has_body(i) or not defined(parts(qualnames[i]))]


def closest(outline: Outline, name: str, limit: int = 5) -> list[int]:
    """Up to ``limit`` definitions whose names are closest to ``name``, the closest first."""
    by_name: dict[str, list[int]] = {}
    for i, d in enumerate(outline.defs):
        by_name.setdefault(d.name, []).append(i)
        by_name.setdefault(outline.qualname(i), []).append(i)
    want = parts(name)[-1] if parts(name) else name
    out: list[int] = []
    for match in difflib.get_close_matches(want, list(by_name), n=limit * 2, cutoff=0.5):
        for i in by_name[match]:
            if i not in out:
                out.append(i)
    return sorted(out[:limit], key=lambda i: outline.defs[i].start)
