"""C and C++ macros a grammar does not expand: the lines blanked before a parse, and names a macro stands for.

tree-sitter reads C++ without its preprocessor. :func:`blank_macro_lines` blanks, byte for byte,
each line that holds nothing but an upper-case macro name (``NLOHMANN_JSON_NAMESPACE_BEGIN``,
``JSON_HEDLEY_WARN_UNUSED_RESULT``), a macro used as an access label (``JSON_PRIVATE_UNLESS_TESTED:``)
or a macro call not followed by a body (``JSON_HEDLEY_NON_NULL(3)``), and an upper-case macro word
that opens a line before ``class``, ``template``, ``static``, ... (``NLOHMANN_BASIC_JSON_TPL_DECLARATION
class basic_json``), and one that follows a parameter list (``iterator begin() _GLIBCXX_NOEXCEPT {``):
the grammar otherwise reads the namespace or class after it as noise (a function named by the class's
base type), or names a method by the macro. :func:`tidy_c_names` names a method defined outside its class through
a macro (``NLOHMANN_BASIC_JSON_TPL::dump``) by the type the file defines that macro as.

>>> src, rows = blank_macro_lines(b"NS_BEGIN\\nTPL class basic_json {};\\n")
>>> src, sorted(rows)
(b'        \\n    class basic_json {};\\n', [0])
"""

from __future__ import annotations

import re
from dataclasses import replace

from .model import Definition

__all__ = ["blank_macro_lines", "tidy_c_names"]

_MACRO_LINE = re.compile(
    rb"^[ \t]*_*[A-Z][A-Z0-9_]{2,}[ \t]*(?:(?P<label>:(?!:))[ \t]*|\([^()\n]*\)[ \t]*(?=\n(?![ \t]*\{)))?(?://[^\n]*)?$",
    re.M,
)
_MACRO_PREFIX = re.compile(
    rb"^[ \t]*_*[A-Z][A-Z0-9_]{2,}(?=[ \t]+(?:class|struct|union|enum|namespace|template|static|inline|virtual|explicit"
    rb"|constexpr|friend|extern|typename|void)\b)",
    re.M,
)

_MACRO_TRAILER = re.compile(
    rb"\)[ \t]*(?:const[ \t]*|&&?[ \t]*)*"
    rb"(?P<macro>_*[A-Z][A-Z0-9_]{2,}(?:[ \t]*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?)"
    rb"(?=[ \t]*(?:\{|;|=|:(?!:)|->|override\b|final\b|//|$))",
    re.M,
)


def blank_macro_lines(data: bytes) -> tuple[bytes, set[int]]:
    """``data`` with its macro-only lines blanked byte for byte, and the rows (0-based) of those lines."""
    rows: set[int] = set()
    out = bytearray(data)
    row, at = 0, 0
    for m in _MACRO_LINE.finditer(data):
        row += data.count(b"\n", at, m.start())
        at = m.start()
        if not m.group("label"):  # an access label is not part of the member after it
            rows.add(row)
        out[m.start() : m.end()] = b" " * (m.end() - m.start())
    for m in _MACRO_PREFIX.finditer(data):  # ``NLOHMANN_BASIC_JSON_TPL_DECLARATION class basic_json``
        out[m.start() : m.end()] = b" " * (m.end() - m.start())
    for m in _MACRO_TRAILER.finditer(data):  # ``iterator begin() _GLIBCXX_NOEXCEPT {``
        out[m.start("macro") : m.end("macro")] = b" " * (m.end("macro") - m.start("macro"))
    return bytes(out), rows


_OWNER_MACRO = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Z_][A-Z0-9_]*)[ \t]+(?:\\\r?\n[ \t]*)*([A-Za-z_]\w*)[ \t]*(?=<|\r?\n|\Z)", re.M
)
_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def tidy_c_names(data: bytes, defs: list[Definition]) -> list[Definition]:
    """C/C++ names as a lookup reads them: a specialization's template arguments on one line without
    comments (``hash<nlohmann::NLOHMANN_BASIC_JSON_TPL>``), and an owner that is a macro the file
    defines as a type (``NLOHMANN_BASIC_JSON_TPL::dump``, the macro standing for ``basic_json<...>``)
    named by that type."""
    macros = {m.group(1).decode(): m.group(2).decode() for m in _OWNER_MACRO.finditer(data)}
    out = []
    for d in defs:
        name = d.name
        if "<" in name and not name.startswith("operator"):
            name = " ".join(_C_COMMENT.sub(" ", name).split()).replace("< ", "<").replace(" >", ">")
            name = re.sub(r"\s+<", "<", name)
        owner = d.owner
        if owner and macros:
            owner = "::".join(macros.get(s, s) for s in owner.split("::"))
        out.append(d if (name, owner) == (d.name, d.owner) else replace(d, name=name, owner=owner))
    return out
