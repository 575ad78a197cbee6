r"""File names as views show them, and back: every name shown unambiguously, and every shown name usable.

A name may hold anything but ``/`` and NUL: newlines, tabs, escape sequences, leading dashes,
bytes that are not UTF-8 (Python hands those over as lone surrogates, ``"\udcff"`` for the
byte ``0xff``, which no JSON encoder or MCP client can send). A view shows a path as it is when
that is unambiguous, and otherwise as a JSON string in double quotes, in ASCII where the
character is not printable: ``"new\nline"``, ``"esc\u001b[31m"``, ``"a\udcff"`` for the bytes
``a\xff``. A relative path that starts with ``-`` is shown as ``./-name``, so no command line
takes it for an option. Every tool that takes a path reads those forms back
(:func:`given_path`), so a path copied from a view, quotes and all, names the same file through
the Python API, the CLI and MCP; a path given as it really is works too.

Inside :func:`relative_to` (a :class:`~wuu_tools.toolset.Toolset` call, which hands its tools
absolute paths resolved against its root), a path under the root is shown and continued relative
to it, as the caller wrote it: the root is said once by whoever set it up, not in every header and
call.

>>> shown_path("src/main.py")
'src/main.py'
>>> shown_path("a\udcff"), shown_path("new\nline"), shown_path("-rf")
('"a\\udcff"', '"new\\nline"', './-rf')
>>> given_path('"a\\udcff"') == "a\udcff"
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import InvalidArgument, quote
from .text import escape_char

__all__ = ["PATH_MAX_BYTES", "arg_path", "check_path", "given_path", "needs_quotes", "relative_to", "shown_path"]

PATH_MAX_BYTES = 4096
"""The longest path a tool takes (Linux's PATH_MAX), in UTF-8 bytes; a longer one is refused before it is used."""


def needs_quotes(name: str) -> bool:
    """Whether ``name`` is shown quoted: a character that is not printable, edge spaces, or a leading quote."""
    return not name.isprintable() or name != name.strip() or name.startswith('"')


def _quoted(name: str) -> str:
    """``name`` as a JSON string: printable characters as they are, everything else escaped in ASCII."""
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else escape_char(c) for c in name) + '"'


_ROOT: ContextVar[str | None] = ContextVar("wuu_paths_root", default=None)


@contextmanager
def relative_to(root: str | os.PathLike[str] | None) -> Iterator[None]:
    """Show and continue the absolute paths under ``root`` relative to it inside the ``with`` block.

    >>> with relative_to("/work/repo"):
    ...     shown_path("/work/repo/src/a.py"), arg_path("/work/repo"), shown_path("/work/other.py")
    ('src/a.py', '.', '/work/other.py')
    """
    token = _ROOT.set(os.fspath(root) if root is not None else None)
    try:
        yield
    finally:
        _ROOT.reset(token)


def _under_root(path: str) -> str:
    root = _ROOT.get()
    if root is None:
        return path
    if path == root:
        return "."
    base = root.rstrip("/") + "/"
    return path[len(base) :] if path.startswith(base) and len(path) > len(base) else path


def shown_path(path: str) -> str:
    """How a view shows ``path``: as it is, ``./-name`` for a relative path that starts with a dash, or quoted."""
    path = _under_root(path)
    if path.startswith("-"):
        path = "./" + path
    return _quoted(path) if needs_quotes(path) else path


def check_path(path: str, name: str = "path") -> None:
    """Refuse a path no file can have before it is used: over :data:`PATH_MAX_BYTES`, or holding a NUL byte."""
    if len(path) > PATH_MAX_BYTES or len(path.encode("utf-8", "surrogatepass")) > PATH_MAX_BYTES:
        raise InvalidArgument(f"{name} {quote(path)} is longer than a path can be ({PATH_MAX_BYTES:,} bytes)")
    if "\x00" in path:
        raise InvalidArgument(f"{name} {quote(path)} is not a usable path: it holds a NUL byte")


def arg_path(path: str) -> str:
    """``path`` as a continuation's argument: as it is when JSON can carry it, else its shown (quoted) form."""
    path = _under_root(path)
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: bytes that are not UTF-8
        return _quoted(path)
    return path


def given_path(path: str) -> str:
    """The path a caller means: a quoted form copied from a view, decoded; anything else as it is.

    ``"…"`` (the whole path) and ``dir/"…"`` (a quoted last part after a plain directory) are
    decoded as JSON strings, unless a file of that very name exists.
    """
    if len(path) < 2 or not path.endswith('"') or os.path.lexists(path):
        return path
    at = path.find('"')
    while at >= 0:
        if at == 0 or path[at - 1] == "/":
            try:
                decoded = json.loads(path[at:])
            except ValueError:
                decoded = None
            if isinstance(decoded, str) and decoded:
                return path[:at] + decoded
        at = path.find('"', at + 1)
    return path
