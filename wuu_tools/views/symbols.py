"""Finding a definition of an outline by name: ``rank``, ``Evidence.rank``, ``ns::Parser::parse``.

A name matches a definition whose own name it is, or whose qualified name ends with it, part by
part (``.``, ``::`` and ``#`` separate parts); where no name matches exactly, case is ignored.
Leading qualifiers that name no definition of the file are passed over (:func:`lookup`).
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
"""

from __future__ import annotations

import difflib
import re

from .structure.model import Outline

__all__ = ["closest", "find", "lookup", "parts"]

_SEP = re.compile(r"\.|::|#")


def parts(name: str) -> list[str]:
    """A dotted or ``::`` name as its parts (``a.b::c`` -> ``["a", "b", "c"]``)."""
    return [p for p in _SEP.split(name.strip()) if p]


def find(outline: Outline, name: str) -> list[int]:
    """Indexes of the definitions ``name`` names, in line order (see the module docstring)."""
    return lookup(outline, name)[0]


def lookup(outline: Outline, name: str) -> tuple[list[int], list[str]]:
    """:func:`find`'s definitions, and the leading parts of ``name`` left out to find them: a qualifier
    that names no definition of the file (``nlohmann`` of ``nlohmann::basic_json::dump`` where a macro
    opens the namespace) is passed over, one that names another definition is not."""
    found = _find(outline, name)
    want = parts(name)
    dropped: list[str] = []
    if not found and len(want) > 1:
        names = {d.name for d in outline.defs} | {d.owner for d in outline.defs if d.owner}
        while not found and len(want) > 1 and want[0] not in names:
            dropped.append(want.pop(0))
            found = _find(outline, "::".join(want))
    return (found, dropped) if found else ([], [])


def _find(outline: Outline, name: str) -> list[int]:
    wanted = name.strip()
    qualnames = [outline.qualname(i) for i in range(len(outline.defs))]
    exact = [i for i, d in enumerate(outline.defs) if d.name == wanted or qualnames[i] == wanted]
    found = exact or _by_parts(qualnames, parts(wanted), fold=False) or _by_parts(qualnames, parts(wanted), fold=True)
    if not found:
        found = [i for i, d in enumerate(outline.defs) if d.name.casefold() == wanted.casefold()]
    return _prefer_bodies(outline, qualnames, found)


def _by_parts(qualnames: list[str], want: list[str], fold: bool) -> list[int]:
    if not want:
        return []
    if fold:
        want = [w.casefold() for w in want]
    out = []
    for i, q in enumerate(qualnames):
        have = parts(q)
        if fold:
            have = [h.casefold() for h in have]
        if have[-len(want) :] == want:
            out.append(i)
    return out


def _prefer_bodies(outline: Outline, qualnames: list[str], found: list[int]) -> list[int]:
    """Drop one-line declarations whose qualified name another match defines over several lines."""
    if len(found) < 2:
        return found
    bodied = {qualnames[i] for i in found if outline.defs[i].end > outline.defs[i].start}
    return [i for i in found if outline.defs[i].end > outline.defs[i].start or qualnames[i] not in bodied]


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
