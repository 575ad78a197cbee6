"""``read_file``: a file as whole numbered lines — head and tail first, the middle on request."""

from __future__ import annotations

import os

from ._budget import resolve_budget
from ._errors import InvalidArgument, map_os_error
from ._lines import LineFile, require_regular
from ._paging import Subject, check_range, render_view
from ._result import ToolResult
from ._sniff import SNIFF_BYTES, classify
from ._text import human_size

__all__ = ["read_file"]


def read_file(
    path: str,
    start_line: int = 1,
    end_line: int | None = None,
    start_char: int = 0,
    revision: str | None = None,
    budget: int | None = None,
) -> ToolResult:
    """Read a text file as whole numbered lines within a token budget.

    The first view shows lines from the head and the tail and names the omitted middle;
    the result's continuation reads the middle forward. A line longer than the whole budget
    is cut at a character and continued with ``start_char``. Binary files are described,
    not dumped.

    Args:
        path: The file to read.
        start_line: First line to show (1-based).
        end_line: Last line to show (inclusive); None reads to the end.
        start_char: Character offset within ``start_line`` to start from (for a line longer than the budget).
        revision: The revision the caller's earlier view came from; a changed file is reported.
        budget: Token budget of the view; defaults to WUU_BUDGET or 2,000.

    Returns:
        The view as a ToolResult; ``meta`` has total_lines, shown, omitted and partial_line.
    """
    if not isinstance(path, str) or not path:
        raise InvalidArgument(f"path must be a non-empty string, not {path!r}")
    check_range(start_line, end_line, start_char)
    if revision is not None and not isinstance(revision, str):
        raise InvalidArgument(f"revision must be a string from an earlier result, not {revision!r}")
    resolved = resolve_budget(budget)
    described = _describe_binary(path)
    if described is not None:
        return described
    with LineFile.open(path) as lf:
        return render_view(
            lf,
            Subject(tool="read_file", key={"path": path}, label=path),
            start_line=start_line,
            end_line=end_line,
            start_char=start_char,
            revision=revision,
            budget=resolved,
            explicit_budget=budget,
        )


def _describe_binary(path: str) -> ToolResult | None:
    """A one-line result for a binary file, or None for text. Never blocks on a FIFO or device."""
    try:
        st = os.stat(path)
        require_regular(st, path)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise map_os_error(exc, path) from exc
    try:
        require_regular(os.fstat(fd), path)
        head = os.read(fd, SNIFF_BYTES)
    except OSError as exc:
        raise map_os_error(exc, path) from exc
    finally:
        os.close(fd)
    kind = classify(head, path)
    if kind is None:
        return None
    desc, mime = kind
    return ToolResult(
        text=f"[{path}: binary file, {desc} ({mime}), {human_size(st.st_size)} — no text to show]",
        complete=True,
        meta={
            "binary": True,
            "type": desc,
            "mime_type": mime,
            "size": st.st_size,
            "total_lines": None,
            "shown": [],
            "omitted": [],
        },
    )
