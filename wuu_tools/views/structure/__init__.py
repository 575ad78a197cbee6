"""The structure of a source file: what it defines, where, nested one level (part of ``views``).

- :mod:`.languages`: which language a file is, from its name or its ``#!`` line.
- :mod:`.treesitter` and :mod:`.queries`: definitions read with tree-sitter's prebuilt grammars,
  bounded in time and size; :mod:`.cmacros`, :mod:`.cheads` and :mod:`.braces` where C/C++ macros
  mislead the grammar.
- :mod:`.fallback`: keywords and indentation where there is no grammar; reST and Markdown headings;
  YAML and TOML keys.
- :mod:`.model`: :class:`Definition` and :class:`Outline`.

:func:`outline_of` is the entry point. Nothing here imports tree-sitter until a file needs a map.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from .model import Definition, Outline

__all__ = ["MAP_MAX_BYTES", "Definition", "Outline", "outline_of", "outline_of_bytes"]

MAP_MAX_BYTES = 8 << 20
"""Files over this size get no map (the keyword fallback reads one of this size in about 0.4 s)."""
_CACHE: OrderedDict[tuple[str, str], Outline | None] = OrderedDict()
_CACHE_SIZE = 8
_LOCK = threading.Lock()  # (the MCP server may answer calls from several threads)


def outline_of(path: str, revision: str, size: int, read: Callable[[], bytes]) -> Outline | None:
    """The outline of the file ``path`` at ``revision`` (``read()`` gives its bytes), or None when it has none.

    Outlines are kept for the last few files read in this process, keyed by path and revision.
    """
    key = (path, revision)
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    result = _build(path, size, read)
    with _LOCK:
        _CACHE[key] = result
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return result


def outline_of_bytes(path: str, data: bytes) -> Outline | None:
    """The outline of ``data`` read as the file ``path`` would be (no cache)."""
    return _build(path, len(data), lambda: data)


def _build(path: str, size: int, read: Callable[[], bytes]) -> Outline | None:
    if size > MAP_MAX_BYTES or size == 0:
        return None
    from .fallback import heading_definitions, key_definitions, keyword_definitions, section_ends
    from .languages import GRAMMARS, language_of

    data = read()
    language = language_of(path, data[:128])
    if language is None:
        return None
    total = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    defs: list[Definition] | None = None
    method = "tree-sitter"
    if language in GRAMMARS:
        from .treesitter import definitions

        defs = definitions(language, data)
        if defs is not None and language == "markdown":
            defs = section_ends(defs, total)
    if defs is None:
        method = "keywords"
        if language == "json":
            return None
        lines = [ln.decode("utf-8", "replace").rstrip("\r") for ln in data.split(b"\n")]
        if language in ("markdown", "rst"):
            defs = heading_definitions(lines, language)
        elif language in ("yaml", "toml"):
            defs = key_definitions(lines, language)
        else:
            defs = keyword_definitions(lines, language)
    if not defs:
        return None
    return Outline.build(language, method, defs, total)
