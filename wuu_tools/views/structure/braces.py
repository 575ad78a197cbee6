"""Matching braces of C-family source, for the extent of a type or namespace the parser lost track of.

tree-sitter reads C and C++ without expanding macros. Where a macro stands for an access
specifier (``JSON_PRIVATE_UNLESS_TESTED:``) or a preprocessor branch opens half a declaration,
its error recovery can close a class body hundreds of lines early, and the class's members then
read as top-level functions. The braces of the text still say where the body ends: :func:`closing`
pairs every ``{`` with its ``}`` in one pass, skipping comments, string and character literals and
preprocessor lines, so a definition whose body opens at a brace can be given its whole range.

>>> source = b'struct A {\\n  char c = \\'}\\'; /* } */ const char* s = "}";\\n};\\n'
>>> source[closing(source)[9]:]
b'};\\n'
"""

from __future__ import annotations

import re

__all__ = ["closing"]

_TOKENS = re.compile(
    rb"""
      //[^\n]*                              # line comment
    | /\*.*?(?:\*/|\Z)                      # block comment
    | R"([^(\s]{0,16})\(.*?(?:\)\1"|\Z)     # raw string literal
    | "(?:[^"\\\n]|\\.)*"?                  # string literal
    | '(?:[^'\\\n]|\\.){1,8}'               # character literal
    | ^[ \t]*\#(?:[^\n\\]|\\.)*             # preprocessor line, with its continuations
    | [{}]
    """,
    re.S | re.M | re.X,
)


def closing(source: bytes) -> dict[int, int]:
    """For each ``{`` of ``source`` (byte offset), the offset of the ``}`` that closes it.

    A brace never closed, or a ``}`` with nothing open, is left out: an unbalanced text gives
    what it can and never a wrong pair for a balanced stretch that follows a stray ``}``.
    """
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in _TOKENS.finditer(source):
        token = m.group()
        if token == b"{":
            stack.append(m.start())
        elif token == b"}" and stack:
            pairs[stack.pop()] = m.start()
    return pairs
