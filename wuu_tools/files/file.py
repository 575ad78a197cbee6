"""``read_file``: a file as whole numbered lines — head and tail first, the middle on request."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

from ..core.budget import count_tokens, resolve_budget, within
from ..core.env import media_limit
from ..core.errors import InvalidArgument, check_revision, quote
from ..core.lines import LineFile
from ..core.names import arg_path, check_path, given_path, shown_path
from ..core.result import ERROR_FLOOR, Continuation, ToolResult, call_text, continuation
from ..core.session import current_session, line_key
from ..core.sniff import SNIFF_BYTES, classify
from ..core.text import human_size, ranges
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
        start_char=start_char,
        symbol=symbol,
        budget=budget,
        fresh=True,
    )
    source = f"file:{os.path.abspath(path)}"
    if not fresh and start_line == 1 and end_line is None and not start_char and symbol is None:
        result = _read_on(path, result, source, budget, resolved, again)
    return session_pass(
        result,
        tool="read_file",
        source=source,
        numbers=gutter_numbers,
        again=again,
        budget=resolved,
        phrase="unchanged since",
        fresh=fresh,
        context=EDIT_CONTEXT,
        track_revision=True,
    )


READ_ON_PAGES = 64
"""How many pages of the middle a re-read passes over when the session showed them all."""


def _read_on(
    path: str, first: ToolResult, source: str, budget: int | None, resolved: int, again: Continuation
) -> ToolResult:
    """A session's re-read of an unchanged file whose first view it showed: the omitted middle, read on.

    When every line of the first view ``first`` is one the session already showed of this revision,
    the view would show nothing new: it names those lines in one line and shows, in the rest of the
    budget, the first page of the omitted middle that holds a line the session has not shown, as the
    continuation would (pages it showed all of are named too, up to :data:`READ_ON_PAGES`). The chain
    goes on from there, so each line is still shown once; ``again`` (the call with ``fresh=True``)
    shows the named lines too. Otherwise (the file changed, nothing omitted, all of it shown before)
    ``first`` as it is.
    """
    session = current_session()
    before = session.latest(source) if session is not None else None
    if session is None or before is None or before.revision != first.revision or first.complete:
        return first
    named_spans: list[list[int]] = []
    calls: set[int] = set()
    view, start, end = first, 0, None
    for _ in range(READ_ON_PAGES):
        lines = view.text.split("\n")
        numbered = [(n, line_key(line)) for line, n in zip(lines, gutter_numbers(lines), strict=True) if n is not None]
        new = [n for n, key in numbered if key is not None and session.shown_in(key) is None]
        if not numbered or (new and view is first):
            return first
        spans = view.meta.get("shown") or []
        if new:  # the page's lines before the first new one are named; the view starts at it
            start = new[0]
            named_spans += [[spans[0][0], start - 1]] if spans and spans[0][0] < start else []
        else:
            named_spans += spans
        calls.update(c for n, key in numbered if (not new or n < new[0]) and (c := session.shown_in(key)) is not None)
        if new:
            break
        cont = view.continuation
        if cont is None or cont["args"].get("start_line") is None:
            return first
        start, end = cont["args"]["start_line"], cont["args"].get("end_line")
        view = _read(path, start, end, 0, first.revision, budget, resolved, None)
        if view.is_error:
            return first
    else:
        return first
    if not calls:
        return first
    where = ", ".join(
        f"{a:,}-{b:,}" if a != b else f"{a:,}" for a, b in ranges(n for a, b in named_spans for n in range(a, b + 1))
    )
    order = sorted(calls)
    listed = ", ".join(map(str, order)) if len(order) <= 3 else f"{order[0]}-{order[-1]}"  # (as views/seen.py)
    since = f"call {listed}" if len(order) == 1 else f"calls {listed}"
    notice = f"[lines {where} unchanged since {since} (again: {call_text(again)}); read on:]"
    room = resolved - count_tokens(notice) - 1
    if room < ERROR_FLOOR:
        return first
    view = _read(path, start, end, 0, first.revision, budget, room, None)
    text = f"{notice}\n{view.text}"
    return first if view.is_error or not within(text, resolved) else dataclasses.replace(view, text=text)


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
