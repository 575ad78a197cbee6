"""``read_file``: a file as whole numbered lines — head and tail first, the middle on request."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..core.budget import resolve_budget
from ..core.env import media_limit
from ..core.errors import InvalidArgument, check_revision, quote
from ..core.lines import LineFile
from ..core.names import arg_path, check_path, given_path, shown_path
from ..core.result import ToolResult, continuation
from ..core.sniff import SNIFF_BYTES, classify
from ..core.text import human_size
from ..views.paging import Subject, check_range, paged
from ..views.seen import EDIT_CONTEXT, gutter_numbers, session_pass

if TYPE_CHECKING:
    from ..views.structure.model import Outline

__all__ = ["IMAGE_TYPES", "read_file"]

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""Images that model APIs take: ``read_file`` attaches them (up to ``WUU_MEDIA_MAX_BYTES``)."""


def read_file(
    path: str,
    start_line: int = 1,
    end_line: int | None = None,
    start_char: int = 0,
    revision: str | None = None,
    budget: int | None = None,
    symbol: str | None = None,
    fresh: bool = False,
) -> ToolResult:
    """Read a text file as whole numbered lines within a token budget.

    The first view shows lines from the head and the tail and names the omitted middle; in a
    source file, a map of what the middle defines (``120-187  def rank(self, lines)``) stands
    between them. The result's continuation reads the middle forward. A line longer than the
    whole budget is cut at a character and continued with ``start_char``. Binary files are
    described, not dumped; a PNG, JPEG, GIF or WebP image comes as an image attachment.

    Args:
        path: The file to read.
        start_line: First line to show (1-based).
        end_line: Last line to show (inclusive); None reads to the end.
        start_char: Character offset within ``start_line`` to start from (for a line longer than the budget).
        revision: The revision the caller's earlier view came from; a changed file is reported.
        budget: Token budget of the view; defaults to WUU_BUDGET or 2,000.
        symbol: A definition to read whole by name ("rank", "Evidence.rank", "ns::Parser::parse"),
            instead of by lines. A qualified name matches by its last parts; a leading qualifier
            the file defines nothing by (a namespace a macro opens) is passed over, and said so. A
            name several definitions answer to (overloads, a same-named method of another class)
            lists them all with qualified names and line ranges: read one by either. "*" lists
            the map of the definitions in start_line-end_line.
        fresh: Show every line again, even those an earlier view of this session showed (they
            are otherwise named, not repeated); use it when earlier results left your history.

    Returns:
        The view as a ToolResult; ``meta`` has total_lines, shown, omitted and partial_line.
    """
    if not isinstance(path, str) or not path:
        raise InvalidArgument(f"path must be a non-empty string, not {quote(path)}")
    check_path(path)
    path = given_path(path)
    check_range(start_line, end_line, start_char)
    check_revision(revision)
    if symbol is not None:
        from .symbol import check_symbol

        check_symbol(symbol, start_line, end_line, start_char)
    if not isinstance(fresh, bool):
        raise InvalidArgument(f"fresh must be true or false, not {quote(fresh)}")
    resolved = resolve_budget(budget)
    result = _read(path, start_line, end_line, start_char, revision, budget, resolved, symbol)
    if result.meta.get("binary"):
        return result
    again = continuation(
        "read_file",
        path=arg_path(path),
        start_line=start_line,
        end_line=end_line,
        start_char=start_char or None,
        symbol=symbol,
        budget=budget,
        fresh=True,
    )
    return session_pass(
        result,
        tool="read_file",
        source=f"file:{os.path.abspath(path)}",
        numbers=gutter_numbers,
        again=again,
        budget=resolved,
        phrase="unchanged since",
        fresh=fresh,
        context=EDIT_CONTEXT,
        track_revision=True,
    )


def _read(
    path: str,
    start_line: int,
    end_line: int | None,
    start_char: int,
    revision: str | None,
    budget: int | None,
    resolved: int,
    symbol: str | None,
) -> ToolResult:
    with LineFile.open(path, what=shown_path(path)) as lf:
        kind = classify(lf.pread(0, SNIFF_BYTES), path)
        if kind is not None:  # described before any line is counted
            size = lf.stat.st_size
            if kind[1] in IMAGE_TYPES and size <= media_limit():
                return _image(path, kind, lf.pread(0, size))
            return _binary(path, kind, size)
        if symbol is not None:
            from .symbol import read_symbol

            return read_symbol(
                lf,
                path,
                symbol,
                start_line=start_line,
                end_line=end_line,
                revision=revision,
                budget=resolved,
                explicit_budget=budget,
            )
        subject = Subject(
            tool="read_file", key={"path": arg_path(path)}, label=shown_path(path), outline=lambda: _outline(lf, path)
        )
        return paged(
            lf,
            subject,
            start_line=start_line,
            end_line=end_line,
            start_char=start_char,
            revision=revision,
            budget=resolved,
            explicit_budget=budget,
        )


def _outline(lf: LineFile, path: str) -> Outline | None:
    """The file's outline, for the map of a cut first view (loaded only then)."""
    from .symbol import file_outline

    return file_outline(lf, path)


def _image(path: str, kind: tuple[str, str], data: bytes) -> ToolResult:
    """An image file: one line naming it, and the image itself as an attachment."""
    import base64

    mime = kind[1]
    attachment = {"type": "image", "mime_type": mime, "data": base64.b64encode(data).decode("ascii")}
    result = _binary(path, kind, len(data), "the image is in the result's attachments")
    return ToolResult(text=result.text, complete=True, attachments=(attachment,), meta=result.meta)


def _binary(path: str, kind: tuple[str, str], size: int, shown: str | None = None) -> ToolResult:
    """The one-line result for a binary file."""
    desc, mime = kind
    if shown is None:
        over = mime in IMAGE_TYPES and size > media_limit()
        shown = "over WUU_MEDIA_MAX_BYTES, not attached" if over else "no text to show"
    return ToolResult(
        text=f"[{shown_path(path)}: binary file, {desc} ({mime}), {human_size(size)} — {shown}]",
        complete=True,
        meta={
            "binary": True,
            "type": desc,
            "mime_type": mime,
            "size": size,
            "total_lines": None,
            "shown": [],
            "omitted": [],
        },
    )
