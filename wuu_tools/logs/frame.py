"""The frame every output-shaped view shares: summary lines on top, whole numbered lines of the saved output below.

:func:`framed` puts a view's own summary (a file index, a diff's stat, a JSON outline, a row
count) under the verdict and the ``[view: ...]`` line, and fills the rest of the budget with
the paging engine of ``read_saved`` (:func:`~wuu_tools.views.paging.render_view`): the head of
the output (``head``), or its head and tail with the middle named (``head and tail``). Its
continuation is the engine's, so the chain from the first view reads every line of the saved
output exactly once. Summary lines are derived facts, not lines of the output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.budget import HARD_CAP_BYTES, NOTICE_TOKENS, count_tokens, fit_count
from ..core.lines import LineFile
from ..core.result import Continuation, ToolResult, continuation
from ..core.text import complement
from ..views.paging import Subject, render_view

if TYPE_CHECKING:
    from ..views.structure.model import Outline

__all__ = ["LINE_CHARS", "Frame", "Rest", "cut", "fit_share", "framed", "output_subject", "rest_of"]

SUMMARY_SHARE = 0.6  # of the budget, at most, for the lines above the output's own lines
PAGE_ROOM = 140  # tokens, at least, left to the page under a summary (its header, next call, some lines)
WHOLE_BYTES_PER_TOKEN = 12
"""An output of more bytes than this many a token of the room left is not tried whole (no view of it fits)."""
HEAD_SHARE = 0.75
"""The head's share of a succeeded command's head-and-tail view: listings are read from the top (chosen on
the replay's DEV project, ``scripts/replay.py``: items kept rose there and on the HELD-OUT projects)."""
LINE_CHARS = 320
"""A summary or view line longer than this many characters is cut (``read_saved`` shows it whole)."""


@dataclass
class Rest:
    """What a first view of a saved output leaves out: line ranges, their size, and the call reading them in order."""

    omitted: list[list[int]]
    lines: int
    size: int
    cont: Continuation | None


def rest_of(lf: LineFile, ref: str, shown: list[list[int]], budget: int | None) -> Rest:
    """The lines of ``lf`` outside ``shown`` (sorted ranges) and the ``read_saved`` call reading them in order."""
    total = lf.total_lines
    omitted = complement(shown, total)
    if not omitted:
        return Rest([], 0, 0, None)
    a, b = omitted[0][0], omitted[-1][1]
    cont = continuation("read_saved", ref=ref, start_line=a, end_line=b if b < total else None, budget=budget)
    n = sum(y - x + 1 for x, y in omitted)
    return Rest(omitted, n, sum(lf.span_bytes(x, y) for x, y in omitted), cont)


def output_subject(
    ref: str,
    *,
    as_printed: bool = False,
    outline: Callable[[], Outline | None] | None = None,
    file_lines: tuple[str, int] | None = None,
    gutter: bool = False,
) -> Subject:
    """How the paging engine names a saved command output and asks for more of it.

    ``as_printed``: the first view under a command's verdict, lines as printed (no numbers) and no
    header of its own (the verdict names the lines, the size and the reference), the head given
    :data:`HEAD_SHARE` of the lines. ``outline`` and ``file_lines``: the output is a source file's
    text (:mod:`.listing`), mapped where a first view omits it. ``gutter``: the lines are a numbered
    listing whose padded numbers are shown as ``12 `` (:mod:`~wuu_tools.views.gutter`).
    """
    return Subject(
        tool="read_saved",
        key={"ref": ref},
        label="output",
        source=ref,
        takes_revision=False,
        terminal=True,
        numbered=not as_printed,
        header=not as_printed,
        head_share=HEAD_SHARE if as_printed else 0.5,
        outline=outline,
        takes_symbol=False,
        file_lines=file_lines,
        gutter=gutter,
    )


def cut(text: str, limit: int = LINE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, the cut marked."""
    return text if len(text) <= limit else text[:limit] + "…"


def fit_share(lines: list[str], share: int, more: str = "  …") -> list[str]:
    """The leading ``lines`` that fit ``share`` tokens (a quarter of the hard cap at most), ``more`` after a cut."""
    k = fit_count(lines, max(1, share), HARD_CAP_BYTES // 4)
    return lines if k == len(lines) else [*lines[:k], more]


@dataclass
class Frame:
    """What a shaped view puts above the lines of the output.

    Attributes:
        kind: The view's name, shown as ``[view: kind · facts]``.
        facts: A few words after the name (counts).
        summary: Derived lines under the view line (an index, a stat, an outline).
        layout: ``head`` (lines from the start, the rest read forward) or ``head and tail``.
        meta: Facts merged into the result's ``meta``.
        outline: The output's structure when it is a source file's text (:mod:`.listing`): a
            ``head and tail`` first view maps what it omits.
        file_lines: ``(path, offset)``: the output's line ``n`` is the file's line ``n + offset``.
        gutter: The output is a numbered listing with a padded gutter, shown compact (:mod:`~wuu_tools.views.gutter`).
    """

    kind: str
    facts: str = ""
    summary: list[str] = field(default_factory=list)
    layout: str = "head"
    meta: dict[str, Any] = field(default_factory=dict)
    outline: Callable[[], Outline | None] | None = None
    file_lines: tuple[str, int] | None = None
    gutter: bool = False

    @property
    def label(self) -> str:
        return f"[view: {self.kind}{' · ' + self.facts if self.facts else ''}]"

    @property
    def labels(self) -> list[str]:
        """The view line, unless the view is plain output or a table (its header row, shown first, names it)."""
        return [] if self.kind == "table" or (self.kind == "output" and not self.facts) else [self.label]


def framed(
    lf: LineFile,
    ref: str,
    frame: Frame,
    *,
    top: list[str],
    budget: int,
    explicit_budget: int | None,
    meta: dict[str, Any],
    as_printed: bool = False,
) -> ToolResult:
    """``top`` (the verdict), the frame's view line and summary, then whole lines of the output within ``budget``.

    ``as_printed``: lines as the command printed them (a first view under a verdict); else numbered.
    """
    fixed = [*top, *frame.labels]
    # The summary leaves the page below it room for its own notices and a few whole lines.
    room = min(int(budget * SUMMARY_SHARE), budget - PAGE_ROOM) - count_tokens("\n".join(fixed))
    if frame.summary and room > 0:
        fixed += fit_share(frame.summary, room) if count_tokens("\n".join(frame.summary)) > room else frame.summary
    fixed_text = "\n".join(fixed)
    fixed_cost = count_tokens(fixed_text)
    end_line = lf.total_lines if frame.layout == "head" else None
    subject = output_subject(
        ref, as_printed=as_printed, outline=frame.outline, file_lines=frame.file_lines, gutter=frame.gutter
    )

    def page_of(body: int) -> ToolResult:
        return render_view(
            lf,
            subject,
            start_line=1,
            end_line=end_line,
            start_char=0,
            revision=None,
            budget=body,
            explicit_budget=explicit_budget,
        )

    # A view that shows every line carries no notice: it may use the room the notices are kept for.
    whole_room = budget - fixed_cost - 1
    page = page_of(whole_room) if lf.size <= WHOLE_BYTES_PER_TOKEN * whole_room else None
    if page is not None and page.complete:
        text = f"{fixed_text}\n{page.text}"
        if count_tokens(text) > budget or len(text.encode("utf-8", "surrogatepass")) > HARD_CAP_BYTES:
            page = None
    if page is None or not page.complete:
        body = max(1, budget - fixed_cost - NOTICE_TOKENS // 2)
        for _ in range(12):
            page = page_of(body)
            text = f"{fixed_text}\n{page.text}"
            size = len(text.encode("utf-8", "surrogatepass"))
            over = count_tokens(text) - (budget + NOTICE_TOKENS)
            if (over <= 0 and size <= HARD_CAP_BYTES) or body <= 1:
                break
            body = max(1, body - max(over, (size - HARD_CAP_BYTES) // 2, 1) - 4)
    out_meta = {**meta, **page.meta, "view": frame.kind, **frame.meta}
    return ToolResult(
        text=text,
        complete=page.complete,
        continuation=page.continuation,
        source=ref,
        revision=ref,
        meta=out_meta,
    )
