"""``read_file``: a file as whole numbered lines — head and tail first, the middle on request."""

from __future__ import annotations

from ..core.budget import resolve_budget
from ..core.errors import InvalidArgument
from ..core.lines import LineFile
from ..core.result import ToolResult
from ..core.sniff import SNIFF_BYTES, classify
from ..core.text import human_size
from ..views.paging import Subject, check_range, render_view

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
    with LineFile.open(path) as lf:
        kind = classify(lf.pread(0, SNIFF_BYTES), path)
        if kind is not None:  # described before any line is counted
            return _binary(path, kind, lf.stat.st_size)
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


def _binary(path: str, kind: tuple[str, str], size: int) -> ToolResult:
    """The one-line result for a binary file."""
    desc, mime = kind
    return ToolResult(
        text=f"[{path}: binary file, {desc} ({mime}), {human_size(size)} — no text to show]",
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
