"""Which language a file is, from its name (or a script's ``#!`` line), and how to read its structure.

A language with a grammar (:data:`GRAMMARS`) is parsed with tree-sitter; Markdown, YAML, TOML
and JSON are documents whose map is their headings or top-level keys; reStructuredText and the
languages in :data:`KEYWORD_LANGUAGES` are read by the indentation and keyword fallback. Any
other file (plain text, logs, data) has no map.

>>> language_of("wuu_tools/logs/evidence.py")
'python'
>>> language_of("notes.txt") is None
True
"""

from __future__ import annotations

import re
from pathlib import PurePath

__all__ = ["GRAMMARS", "KEYWORD_LANGUAGES", "language_of"]

GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "markdown": ("tree_sitter_markdown", "language"),
    "yaml": ("tree_sitter_yaml", "language"),
    "toml": ("tree_sitter_toml", "language"),
    "json": ("tree_sitter_json", "language"),
}
"""Language name -> (grammar module, function returning its language pointer)."""

_EXTENSIONS: dict[str, str] = {
    **dict.fromkeys((".py", ".pyi", ".pyw"), "python"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    **dict.fromkeys((".h", ".hh", ".hpp", ".hxx", ".h++", ".cc", ".cpp", ".cxx", ".c++", ".ipp", ".tpp", ".cu"), "cpp"),
    **dict.fromkeys((".md", ".markdown", ".mdx"), "markdown"),
    **dict.fromkeys((".yaml", ".yml"), "yaml"),
    ".toml": "toml",
    **dict.fromkeys((".json", ".jsonc", ".geojson", ".ipynb"), "json"),
    **dict.fromkeys((".rst", ".rest"), "rst"),
    **dict.fromkeys((".rb", ".rake", ".gemspec"), "ruby"),
    ".php": "php",
    ".cs": "csharp",
    **dict.fromkeys((".kt", ".kts"), "kotlin"),
    ".swift": "swift",
    **dict.fromkeys((".scala", ".sc"), "scala"),
    ".lua": "lua",
    **dict.fromkeys((".sh", ".bash", ".zsh"), "shell"),
    **dict.fromkeys((".pl", ".pm"), "perl"),
    **dict.fromkeys((".ex", ".exs"), "elixir"),
    ".dart": "dart",
    ".zig": "zig",
    ".nim": "nim",
    **dict.fromkeys((".groovy", ".gradle"), "groovy"),
    ".jl": "julia",
    ".r": "r",
    **dict.fromkeys((".m", ".mm"), "objc"),
    **dict.fromkeys((".vue", ".svelte"), "javascript-sfc"),
    ".proto": "proto",
    ".thrift": "thrift",
    ".sol": "solidity",
}
_NAMES: dict[str, str] = {"makefile": "make", "gnumakefile": "make", "rakefile": "ruby", "gemfile": "ruby"}
_SHEBANG = re.compile(rb"^#![^\n]*?\b(python|node|bash|sh|zsh|ruby|perl|php)[0-9.]*\b")
_SHEBANG_LANG = {"python": "python", "node": "javascript", "ruby": "ruby", "perl": "perl", "php": "php"}

KEYWORD_LANGUAGES = frozenset(
    {
        "ruby", "php", "csharp", "kotlin", "swift", "scala", "lua", "shell", "perl", "elixir", "dart", "zig",
        "nim", "groovy", "julia", "r", "objc", "javascript-sfc", "proto", "thrift", "solidity", "make",
    }
)  # fmt: skip
"""Languages without a grammar here, read by the indentation and keyword fallback."""


def language_of(path: str, head: bytes = b"") -> str | None:
    """The language of the file named ``path`` (``head``: its first bytes, for a ``#!`` line), or None."""
    name = PurePath(path).name.lower()
    suffix = PurePath(name).suffix
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    if name in _NAMES:
        return _NAMES[name]
    m = _SHEBANG.match(head)
    if m:
        word = m.group(1).decode()
        return _SHEBANG_LANG.get(word, "shell")
    return None
