"""Definitions of a source file read with tree-sitter, in bounded time and memory.

The grammars are the prebuilt wheels named in :data:`~.languages.GRAMMARS`; tree-sitter and a
grammar are imported on the first file of that language that needs a map, never before (a file
that fits its budget never loads them). A file up to :data:`PARSE_MAX_BYTES` is parsed (0.1-0.4 s
a MB, ~50 MB of memory a MB); a larger one is left to the keyword fallback (:mod:`.fallback`). The
parser reports its progress every few hundred bytes of work; a parse that reports more than
:data:`WORK_PER_KIB` times per KiB of source (several times what usual code takes) gives up and
the fallback reads the file too. The bound is counted in the parser's own steps, not in seconds,
so a file gets the same map on a busy machine as on an idle one.

C and C++ sources are parsed with their macro-only lines and line-opening macro words blanked
(:mod:`.cmacros`): a grammar that does not expand macros otherwise reads the namespace or class
after them as noise. Where the parse still meets errors, :mod:`.cheads` reads the definitions from
the text before each body too, and adds those the parse left unread (``basic_json::dump`` in
nlohmann/json's ``json.hpp``).
"""

from __future__ import annotations

import importlib
import re
from bisect import bisect_left
from dataclasses import replace
from functools import cache
from typing import Any

from .braces import closing
from .cmacros import blank_macro_lines, tidy_c_names
from .languages import GRAMMARS
from .model import SIGNATURE_CHARS, Definition, tidy_signature
from .queries import QUERIES

__all__ = ["PARSE_MAX_BYTES", "WORK_FLOOR", "WORK_PER_KIB", "available", "definitions"]

PARSE_MAX_BYTES = 2 << 20
"""Files over this size are not parsed (the keyword fallback reads them)."""
WORK_PER_KIB = 60
"""Progress reports a parse may make per KiB of source before it gives up (usual code: 4-15)."""
WORK_FLOOR = 2000
"""Progress reports any parse may make, however small the file."""

MAX_DEPTH = {"go": 2, "c": 11, "cpp": 11, "yaml": 8, "json": 6, "toml": 3}
"""How deep in the syntax tree a definition may start (default :data:`DEFAULT_DEPTH`): the query
does not walk into the bodies of functions below that, which is most of a file's nodes."""
DEFAULT_DEPTH = 10

_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_ATTRIBUTES = frozenset({"attribute_item", "decorator", "annotation", "marker_annotation"})
_WRAPPERS = frozenset({"decorated_definition", "template_declaration", "export_statement"})
_NAMES = frozenset(
    {"identifier", "field_identifier", "type_identifier", "destructor_name", "operator_name", "namespace_identifier"}
)


def available(language: str) -> bool:
    """Whether ``language`` has a grammar that loads here."""
    return _language(language) is not None


@cache
def _language(language: str) -> Any:
    spec = GRAMMARS.get(language)
    if spec is None:
        return None
    try:
        import tree_sitter

        module = importlib.import_module(spec[0])
        return tree_sitter.Language(getattr(module, spec[1])())
    except (ImportError, AttributeError, ValueError):  # a missing or incompatible grammar: the fallback reads it
        return None


@cache
def _query(language: str) -> Any:
    import tree_sitter

    return tree_sitter.Query(_language(language), QUERIES[language])


def definitions(language: str, data: bytes) -> list[Definition] | None:
    """The definitions in ``data``, or None when the grammar is missing, the file too big or the parse too slow."""
    lang = _language(language)
    if lang is None or len(data) > PARSE_MAX_BYTES:
        return None
    import tree_sitter

    macro_rows: set[int] = set()
    source = data
    if language in ("c", "cpp"):
        source, macro_rows = blank_macro_lines(data)
    parser = tree_sitter.Parser(lang)
    limit = WORK_FLOOR + WORK_PER_KIB * len(source) // 1024
    work = [0]

    def progress(_offset: int, _has_error: bool) -> bool:
        work[0] += 1
        return work[0] > limit  # True: give up

    try:
        tree = parser.parse(lambda offset, _point: source[offset : offset + 65536], progress_callback=progress)
    except ValueError:  # gave up
        return None
    if tree is None:
        return None
    cursor = tree_sitter.QueryCursor(_query(language))
    cursor.set_max_start_depth(MAX_DEPTH.get(language, DEFAULT_DEPTH))
    best: dict[tuple[int, int], tuple[int, str, Any, Any]] = {}
    for pattern, caps in cursor.matches(tree.root_node):
        kind, node = next((k[4:], v[0]) for k, v in caps.items() if k.startswith("def."))
        if kind == "prototype" and _in_body(node):  # ``serializer s(result, c);`` in a function: an object
            continue
        key = (node.start_byte, node.end_byte)
        if key not in best or pattern < best[key][0]:  # the first pattern that matches a node wins
            name_nodes = caps.get("name")
            best[key] = (pattern, kind, node, name_nodes[0] if name_nodes else None)
    found = ((_definition(language, data, kind, node, name, macro_rows), node) for _, kind, node, name in best.values())
    pairs = [(d, node) for d, node in found if d is not None and not _macro_block(language, d, node)]
    if language in ("c", "cpp") and tree.root_node.has_error:
        defs = _with_heads(data, source, _whole_bodies(source, pairs))
    else:
        defs = [d for d, _ in pairs]
    if language in ("c", "cpp"):
        defs = tidy_c_names(data, defs)
        # a prototype counts where the file does not define the function itself
        defined = {(d.owner, d.name) for d in defs if d.kind == "function"}
        defs = [d for d in defs if d.kind != "prototype" or (d.owner, d.name) not in defined]
    return defs


def _macro_block(language: str, d: Definition, node: Any) -> bool:
    """Whether ``d`` is a macro's block inside a function that the grammar read as a function
    (``JSON_CATCH (std::out_of_range&) { ... }``)."""
    return (
        language in ("c", "cpp") and d.kind == "function" and _MACRO_NAME.match(d.name) is not None and _in_body(node)
    )


_MACRO_NAME = re.compile(r"_*[A-Z][A-Z0-9_]{2,}\Z")


def _in_body(node: Any) -> bool:
    """Whether ``node`` is inside a function's body."""
    up = node.parent
    while up is not None:
        if up.type == "compound_statement":
            return True
        up = up.parent
    return False


_BODIED = frozenset({"class", "struct", "union", "enum", "namespace", "function", "method"})


def _whole_bodies(source: bytes, pairs: list[tuple[Definition, Any]]) -> list[Definition]:
    """The definitions of ``pairs`` (each with its node), a type, namespace or function ending at the
    brace that closes its body (:mod:`.braces`) where the parse, having met text it could not read,
    ended it earlier."""
    closes = closing(source)
    newlines = [m.start() for m in re.finditer(rb"\n", source)]
    out = []
    for d, node in pairs:
        body = node.child_by_field_name("body") if d.kind in _BODIED else None
        close = closes.get(body.start_byte) if body is not None else None
        if close is not None:
            end = bisect_left(newlines, close) + 1  # the line holding the closing brace
            if end > d.end:
                d = replace(d, end=end)
        out.append(d)
    return out


def _with_heads(data: bytes, source: bytes, defs: list[Definition]) -> list[Definition]:
    """``defs`` and the definitions :mod:`.cheads` reads from the text that the parse did not find (a
    method in a stretch of a class the parser's error recovery left unread)."""
    from .cheads import scan

    defs = [d for d in defs if d.name not in _KEYWORDS]  # ``__BEGIN_DECLS struct x {`` read as a function "struct"
    newlines = [m.start() for m in re.finditer(rb"\n", source)]
    lines = data.split(b"\n")
    have = {(_bare(d.name), d.line): k for k, d in enumerate(defs)}
    ends = {(_bare(d.name), d.end): k for k, d in enumerate(defs) if d.end > d.line}
    out: list[Definition | None] = list(defs)
    bodies = {d.end: k for k, d in enumerate(defs) if d.kind in ("function", "method")}
    matched: set[int] = set()
    for h in scan(data):
        start, line, end = (bisect_left(newlines, at) + 1 for at in (h.start, h.name_at, h.end))
        doc = _comment_above(lines, start)
        known = have.get((h.name, line), ends.get((h.name, end)) if end > line else None)
        if known is not None and out[known] is not None:  # the parse found it too (its name and line, or body)
            d = out[known]
            assert d is not None
            sig = d.signature if d.line == line else _signature(data, h.name_at, "cpp")
            kind = "function" if d.kind == "prototype" and end > line else d.kind
            out[known] = replace(
                d, kind=kind, start=start, line=line, signature=sig, doc_start=doc, end=max(end, d.end)
            )
            matched.add(known)
        other = bodies.get(end) if h.kind == "function" else None
        if other not in (None, known) and other not in matched and (d := out[other]) is not None and d.line <= line:
            out[other] = None  # the same body the parse named by a macro or its return type (``THROW2``)
        if known in matched:
            continue
        out.append(Definition(h.name, h.kind, start, end, line, _signature(data, h.name_at, "cpp"), doc, h.owner))
    return [d for d in out if d is not None]


_KEYWORDS = frozenset({"struct", "union", "enum", "class", "namespace", "typedef", "extern", "static", "const"})


def _bare(name: str) -> str:
    """A name without its template arguments (``char_traits<char>`` -> ``char_traits``)."""
    return name.split("<", 1)[0].strip() if not name.startswith("operator") else name


def _comment_above(lines: list[bytes], start: int) -> int:
    """The first line of the comment block right above line ``start`` (``start`` when there is none)."""
    doc = start
    while doc > 1:
        above = lines[doc - 2].strip()
        if above.startswith(b"//"):
            doc -= 1
        elif above.endswith(b"*/"):
            k = doc - 2
            while k > 0 and b"/*" not in lines[k]:
                k -= 1
            doc = k + 1
        else:
            break
    return doc


def _definition(
    language: str, data: bytes, kind: str, node: Any, name_node: Any, macro_rows: set[int]
) -> Definition | None:
    owner = None
    if language == "markdown":
        return _heading(data, node)
    if name_node is None:
        name_node, owner = _declared_name(node)
        if kind == "method" and language == "go":
            owner = _receiver(node)
    if kind == "namespace" and name_node is None:
        name = "(anonymous)"
        line_node = node
    elif name_node is None:
        return None
    else:
        name = _text(data, name_node)
        line_node = name_node
    if kind == "impl":
        name = re.split(r"[<\s]", name.strip())[0].split("::")[-1] or name
    if kind in ("key", "table"):
        name = name.strip().strip("\"'")
    if kind == "method" and language == "go":
        owner = _receiver(node)
    outer = node
    if language == "go" and node.type == "type_spec" and node.parent is not None:
        specs = [c for c in node.parent.named_children if c.type == "type_spec"]
        if node.parent.type == "type_declaration" and len(specs) == 1:
            outer = node.parent
    while outer.parent is not None and outer.parent.type in _WRAPPERS:
        outer = outer.parent
    start_row = outer.start_point[0]
    sib = outer.prev_named_sibling
    while sib is not None and sib.type in _ATTRIBUTES and sib.end_point[0] >= start_row - 1:
        start_row, sib = sib.start_point[0], sib.prev_named_sibling
    while start_row - 1 in macro_rows:  # a macro that stands for an attribute or a template head
        start_row -= 1
    doc_row = start_row
    while (
        sib is not None
        and (sib.type in _COMMENTS or sib.type in _ATTRIBUTES)
        and sib.end_point[0] >= doc_row - 1
        and _starts_line(data, sib.start_byte)
    ):
        doc_row, sib = sib.start_point[0], sib.prev_named_sibling
    start = start_row + 1
    return Definition(
        name=name,
        kind=kind,
        start=start,
        end=_last_line(outer),
        line=line_node.start_point[0] + 1,
        signature=_signature(data, line_node.start_byte, language),
        doc_start=doc_row + 1,
        owner=owner,
    )


def _heading(data: bytes, node: Any) -> Definition:
    marker = node.children[0].type if node.type == "atx_heading" and node.children else ""
    if node.type == "setext_heading":
        under = node.children[-1].type if node.children else ""
        level = 1 if "h1" in under else 2
        text = _text(data, node).split("\n", 1)[0]
    else:
        level = int(marker[5]) if marker.startswith("atx_h") and marker[5:6].isdigit() else 1
        text = _text(data, node).split("\n", 1)[0].strip().lstrip("#").rstrip("#").strip()
    line = node.start_point[0] + 1
    return Definition(
        name=text.strip() or "(untitled)",
        kind=f"h{level}",
        start=line,
        end=line,
        line=line,
        signature=_signature(data, node.start_byte, "markdown"),
    )


def _declared_name(node: Any) -> tuple[Any, str | None]:
    """The name node of a C/C++ function (through its declarators) and the scope it is qualified by
    (``ns::basic_json`` of ``ns::basic_json<T>::dump``)."""
    decl = node.child_by_field_name("declarator")
    for _ in range(12):
        if decl is None:
            return None, None
        if decl.type in _NAMES:
            return decl, None
        if decl.type == "qualified_identifier":
            scopes: list[str] = []
            name = decl
            while name is not None and name.type == "qualified_identifier":
                scope = name.child_by_field_name("scope")
                if scope is not None and scope.text:
                    scopes.append(_bare(scope.text.decode("utf-8", "replace")))
                name = name.child_by_field_name("name")
            if name is not None and name.type == "template_function":
                name = name.child_by_field_name("name")
            return name, "::".join(s for s in scopes if s) or None
        if decl.type == "template_function":
            return decl.child_by_field_name("name"), None
        nxt = decl.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in decl.named_children if c.type in _NAMES or "declarator" in c.type), None)
        decl = nxt
    return None, None


def _receiver(node: Any) -> str | None:
    receiver = node.child_by_field_name("receiver")
    if receiver is None or receiver.text is None:
        return None
    m = re.search(rb"\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)$", receiver.text)
    return m.group(1).decode() if m else None


def _text(data: bytes, node: Any) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _last_line(node: Any) -> int:
    row, col = node.end_point
    return row if col == 0 and row > node.start_point[0] else row + 1


def _starts_line(data: bytes, offset: int) -> bool:
    begin = data.rfind(b"\n", 0, offset) + 1
    return not data[begin:offset].strip()


def _signature(data: bytes, offset: int, language: str) -> str:
    """The line at ``offset``, joined with the next ones while its brackets stay open (a signature over
    lines), its comments left out."""
    begin = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    end = len(data) if end < 0 else end
    parts = [_uncommented(data[begin:end], language)]
    for _ in range(8):
        line = b" ".join(parts)
        if line.count(b"(") <= line.count(b")") or len(line) > 4 * SIGNATURE_CHARS or end >= len(data):
            break
        nxt = data.find(b"\n", end + 1)
        nxt = len(data) if nxt < 0 else nxt
        parts.append(_uncommented(data[end + 1 : nxt].strip(), language))
        end = nxt
    return tidy_signature(b" ".join(parts).decode("utf-8", "replace"), language)


_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/")
_LINE_COMMENT = re.compile(rb"\s*//.*$")
_HASH_COMMENT = re.compile(rb"\s+#[^'\"]*$")


def _uncommented(line: bytes, language: str) -> bytes:
    if language == "python":
        return _HASH_COMMENT.sub(b"", line)
    if language in ("markdown", "yaml", "toml", "json"):
        return line
    return _LINE_COMMENT.sub(b"", _BLOCK_COMMENT.sub(b"", line))
