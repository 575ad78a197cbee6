"""C and C++ definitions read from the text before each body's ``{``, for a parse that met errors.

tree-sitter reads C++ without expanding macros; in a large header full of them (nlohmann/json's
``json.hpp``) its error recovery leaves whole stretches of a class unread, and a method there
(``basic_json::dump``) is missing from the map. :func:`scan` reads the text itself: comments,
literals and preprocessor lines blanked, it walks the braces, and for each ``{`` met where
definitions live (the file, a namespace, a class, an ``extern "C"`` block; never inside a function
body) it reads the *head* since the previous ``;``, ``{`` or ``}``: ``class X``/``struct X``/
``union X``/``enum X``/``namespace X``, or a function ``NAME(...)`` followed only by qualifiers,
a trailing return type or a constructor's initializers. Access labels (``public:``, a macro
``JSON_PRIVATE_UNLESS_TESTED:``), template heads and upper-case macro words before a name are
passed over; ``Scope<...>::name`` gives the owner ``Scope``.

>>> [(h.kind, h.name, h.owner) for h in scan(b"namespace d {\\nclass S { public: void f() const {} };\\n}\\n"
...                                        b"template<class T> int S<T>::g(int x) { return x; }\\n")]
[('namespace', 'd', None), ('class', 'S', None), ('function', 'f', None), ('function', 'g', 'S')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Head", "scan"]


@dataclass(frozen=True)
class Head:
    """One definition found by :func:`scan`: byte offsets of its head's start, its name and its closing brace."""

    kind: str
    name: str
    owner: str | None
    start: int
    name_at: int
    end: int


_MASK = re.compile(
    rb"""
      //[^\n]*
    | /\*.*?(?:\*/|\Z)
    | R"([^(\s]{0,16})\(.*?(?:\)\1"|\Z)
    | "(?:[^"\\\n]|\\.)*"?
    | '(?:[^'\\\n]|\\.){1,8}'
    | ^[ \t]*\#(?:[^\n\\]|\\.)*
    """,
    re.S | re.M | re.X,
)
_PUNCT = re.compile(rb"[{};]")
_LABELS = re.compile(rb"\A\s*(?:(?:public|private|protected|[A-Z][A-Z0-9_]+)\s*:(?!:)\s*)*")
_TYPE = re.compile(
    rb"\b(class|struct|union|enum(?:\s+(?:class|struct))?|namespace)\s+"
    rb"(?:(?:alignas\s*\([^)]*\)|\[\[[^\]]*\]\]|__declspec\s*\([^)]*\)|[A-Z][A-Z0-9_]*|inline)\s+)*"
    rb"((?:[A-Za-z_]\w*\s*::\s*)*(?!final\b)[A-Za-z_]\w*)\s*(?:_*[A-Z][A-Z0-9_]*\s*\([^()]*\)\s*)?(?:<[^;{}]*>)?\s*(?:final\b)?\s*(?::(?!:)[^;{}]*)?\Z"
)
_ANON_NS = re.compile(rb"\b(?:inline\s+)?namespace\s*\Z")
_EXTERN = re.compile(rb"\bextern\s*\Z")
_CALL = re.compile(
    rb"(operator\s*(?:\(\s*\)|\[\s*\]|new\b(?:\s*\[\s*\])?|delete\b(?:\s*\[\s*\])?|[^\s\w(]+|[A-Za-z_][\w\s:<>,*&]*?)"
    rb"|~?[A-Za-z_]\w*)\s*(?:<(?:[^<>()]|<[^<>()]*>)*>)?\s*\("
)
"""A function's name before its ``(``: an operator, or a word with template arguments (nested two deep, so
that ``requires std::is_scalar_v<T> R operator<=>(`` does not read as a function ``is_scalar_v``)."""
_NOT_NAMES = frozenset(
    b"if for while switch return sizeof decltype alignof alignas noexcept static_assert catch throw requires "
    b"__attribute__ __declspec typeid new delete defined template typename using".split()
)
_MACRO_WORD = re.compile(rb"\A_*[A-Z][A-Z0-9_]+\Z")
_TRAILER = re.compile(
    rb"\A(?:\s|const\b|volatile\b|noexcept\b(?:\s*\(.*\))?|override\b|final\b|throw\s*\(\s*\)|&&?|mutable\b"
    rb"|constexpr\b|try\b|->.*|requires\b.*|:(?!:).*|[A-Z][A-Z0-9_]*(?:\s*\(.*?\))?|\[\[.*?\]\])*\Z",
    re.S,
)
_INIT_BRACE = re.compile(rb"[\w>]\s*\Z")
_CONTAINERS = ("class", "struct", "union", "namespace", "block")


def _masked(source: bytes) -> bytes:
    return _MASK.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group()), source)


def _close(text: bytes, at: int, opening: int, closing: int) -> int:
    """The offset just past the bracket closing the one at ``at`` (``len(text)`` when none does)."""
    depth = 0
    for i in range(at, len(text)):
        c = text[i]
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _strip_templates(head: bytes) -> bytes:
    """``head`` with each ``template<...>`` blanked (same length)."""
    out = bytearray(head)
    for m in re.finditer(rb"\btemplate\s*<", head):
        end = _close(head, m.end() - 1, ord("<"), ord(">"))
        out[m.start() : end] = b" " * (end - m.start())
    return bytes(out)


def _owner(before: bytes) -> str | None:
    """The scope of a name preceded by ``before``, its template arguments left out
    (``... ns::basic_json<T>::`` -> ``ns::basic_json``)."""
    text = before.rstrip()
    scopes: list[str] = []
    while text.endswith(b"::"):
        text = text[:-2].rstrip()
        if text.endswith(b">"):
            depth = 0
            for i in range(len(text) - 1, -1, -1):
                depth += {ord(">"): 1, ord("<"): -1}.get(text[i], 0)
                if depth == 0:
                    text = text[:i].rstrip()
                    break
        m = re.search(rb"([A-Za-z_]\w*)\Z", text)
        if m is None:
            break
        scopes.insert(0, m.group(1).decode())
        text = text[: m.start()].rstrip()
    return "::".join(scopes) or None


def _function(head: bytes) -> tuple[str, str | None, int, bool] | None:
    """(name, owner, offset of the name in ``head``, has initializers) of a function head, or None."""
    plain = _strip_templates(head)
    if re.search(rb"\bnamespace\b", plain):
        return None
    for m in _CALL.finditer(plain):
        word = m.group(1).strip()
        prefix = plain[: m.start()]
        if prefix.count(b"(") != prefix.count(b")") or word in _NOT_NAMES or _MACRO_WORD.match(word):
            continue
        if re.search(rb"(?<![=!<>])=(?!=)", prefix):
            return None
        end = _close(plain, m.end() - 1, ord("("), ord(")"))
        rest = plain[end:]
        if not _TRAILER.match(rest):
            return None
        name = b" ".join(word.split()) if word.startswith(b"operator") else word
        return name.decode("utf-8", "replace"), _owner(prefix), m.start(1), bool(re.match(rb"\s*:(?!:)", rest))
    return None


_MACRO_ONLY = re.compile(rb"\A[ \t]*(?:_*[A-Z][A-Z0-9_]*(?:\s*\([^()\n]*\))?[ \t]*)?\Z")


def _own_start(head: bytes) -> int:
    """Where in ``head`` its definition's own lines begin: its first line that is not blank nor only a
    macro, and the macro lines right above it (those stand for attributes or a template head)."""
    lines = head.split(b"\n")
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    first = next((k for k, line in enumerate(lines) if not _MACRO_ONLY.match(line)), len(lines) - 1)
    k = first
    while k > 0 and lines[k - 1].strip() and _MACRO_ONLY.match(lines[k - 1]):
        k -= 1
    return offsets[k] + len(lines[k]) - len(lines[k].lstrip())


def scan(source: bytes) -> list[Head]:
    """The definitions of C or C++ ``source`` read from the heads of its bodies (see the module docstring)."""
    text = _masked(source)
    stack: list[tuple[str, Head | None]] = []
    out: list[Head] = []
    boundary = 0
    for m in _PUNCT.finditer(text):
        c, at = m.group(), m.start()
        in_scope = not stack or stack[-1][0] in _CONTAINERS
        if c == b";":
            if in_scope:
                boundary = at + 1
            continue
        if c == b"}":
            if stack:
                kind, head = stack.pop()
                if head is not None:
                    out.append(Head(head.kind, head.name, head.owner, head.start, head.name_at, at))
                if kind == "init":
                    continue
            boundary = at + 1
            continue
        if not in_scope:
            stack.append(("code", None))
            continue
        raw = text[boundary:at]
        labels = _LABELS.match(raw)
        skip = labels.end() if labels else 0
        head = raw[skip:]
        start = boundary + skip + _own_start(head)
        typed = _TYPE.search(head)
        fn = None if typed else _function(head)
        if typed:
            kind = typed.group(1).split()[0].decode()
            full = typed.group(2)
            name = re.split(rb"\s*::\s*", full)[-1].decode()
            owner = _owner(full[: full.rfind(name.encode())]) if b"::" in full else None
            stack.append((kind, Head(kind, name, owner, start, boundary + skip + typed.start(2), -1)))
        elif fn is not None:
            name, owner, name_at, inits = fn
            if inits and _INIT_BRACE.search(head):
                stack.append(("init", None))  # a member initializer's braces (``: a{1}``): the body comes later
                continue
            stack.append(("function", Head("function", name, owner, start, boundary + skip + name_at, -1)))
        elif _ANON_NS.search(head):
            stack.append(("namespace", Head("namespace", "(anonymous)", None, start, start, -1)))
        elif _EXTERN.search(head):
            stack.append(("block", None))
        else:
            stack.append(("code", None))
        boundary = at + 1
    return sorted(out, key=lambda h: h.start)
