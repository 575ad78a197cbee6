"""The first view of a command's saved output, in the shape the output has.

:func:`project_output` reads a bounded sample of the saved output (:mod:`.shape`), chooses
its view and says which on the line under the verdict (``[view: search results · …]``):

=================  ===========================================================================
failing log        the error-first view of :func:`.view.project_log` (non-zero exit, signal,
                   timeout, or a known toolchain's failure summary in the output)
search results     :mod:`.searchview`: matches grouped by file, counts, every file named
diff               :mod:`.diffview`: the files changed with ``+N -M``, then the hunks
JSON, JSON lines,  :mod:`.dataview`: a bounded outline, then the head
YAML
table              :mod:`.headtail`: the row count and columns, head first, then the tail
output             :mod:`.headtail`: head first, then the tail; warnings counted
=================  ===========================================================================

An output that fits the budget whole is shown whole and as printed (no line numbers, no
reference: nothing was left out), under the short verdict, whatever its shape. The
choice only orders the view: every view's continuation reads the saved output with
``read_saved``, so nothing is lost when the guess is wrong. ``read_saved``'s own first view
(``saved=True``) uses only the views whose chain reads each line once (search results with
the head of the output, diff, structured data, table) and otherwise returns None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.budget import HARD_CAP_BYTES, count_tokens, within
from ..core.lines import LineFile, decode_line
from ..core.result import Continuation, ToolResult, call_text, continuation
from ..core.store import current_store
from ..core.text import clean_terminal, human_size, plural
from ..views.ceiling import fit_ceiling
from ..views.gutter import has_padded_gutter
from .frame import Frame, framed
from .shape import Shape, detect
from .view import project_log

if TYPE_CHECKING:
    from .listing import Listing

__all__ = ["SAVED_KINDS", "choose", "project_output"]

SAVED_KINDS = ("search results", "diff", "JSON", "JSON lines", "YAML", "table")
"""The views ``read_saved``'s first view of a command's output may take."""


def choose(ref: str, exit_code: int | None, failed: bool = False) -> Shape:
    """The shape of the saved output ``ref`` (see :func:`.shape.detect`)."""
    with LineFile.open(current_store().path(ref), what=ref) as lf:
        return detect(lf, exit_code, failed)


def _printed_lines(lf: LineFile, cap: int) -> tuple[list[str], bool] | None:
    """Every line of ``lf`` as a terminal showed it, and whether invalid UTF-8 was replaced; None past ``cap`` bytes."""
    raws, giant = lf.read_forward(1, lf.total_lines, cap)
    if giant or len(raws) != lf.total_lines:
        return None
    lines, replaced = [], False
    for raw in raws:
        text, bad = decode_line(raw)
        replaced |= bad
        lines.append(clean_terminal(text))
    return lines, replaced


def _whole(
    ref: str, budget: int, verdict: str | None, meta: dict[str, Any] | None, plain: str | None = None
) -> ToolResult | None:
    """The whole output as printed (colours and redraws removed) under ``verdict``, if it fits ``budget``; else None.

    An empty ``verdict`` (a quick success) puts nothing above the output, unless the output's first
    line starts with ``[`` as a notice does: then ``plain``, the verdict with the output's size, leads.
    """
    with LineFile.open(current_store().path(ref), what=ref) as lf:
        total = lf.total_lines
        head = f"[saved {ref} · {plural(total, 'line')} · {human_size(lf.size)}]" if verdict is None else verdict
        facts: dict[str, Any] = {**(meta or {}), "total_lines": total, "omitted": []}
        if total and lf.size <= min(HARD_CAP_BYTES - 2048, budget * 8):
            shape = detect(lf, facts.get("exit_code"), facts.get("timed_out") or facts.get("signal") is not None)
            facts.update(view=shape.kind, view_reason=shape.why)
        if total == 0:
            text = head if "no output" in head else f"{head}\n[no output]"
            return ToolResult(text=text, complete=True, source=ref, revision=ref, meta={**facts, "shown": []})
        if lf.size > min(HARD_CAP_BYTES - 2048, budget * 8):
            return None
        printed = _printed_lines(lf, HARD_CAP_BYTES)
        if printed is None:
            return None
        lines, replaced = printed
    if not head and (replaced or lines[0].startswith("[")):
        head = plain or "[exit 0]"
    if replaced:
        head += "\n[invalid UTF-8 in the output is shown as U+FFFD]"
        facts["invalid_utf8_replaced"] = True
    text = "\n".join([head, *lines] if head else lines)
    if len(text.encode()) > HARD_CAP_BYTES or not within(text, budget):
        return None
    return ToolResult(text=text, complete=True, source=ref, revision=ref, meta={**facts, "shown": [[1, total]]})


PLAN_MAX_BYTES = 2_000_000
"""A saved output up to this size is offered to the rules of :mod:`.tools` (views by tool)."""


def _plannable_lines(lf: LineFile) -> list[str] | None:
    """The output's lines as printed, for a view by tool; None when empty, too big, or not valid UTF-8.

    (The whole view says how invalid UTF-8 is shown.)
    """
    if not lf.total_lines or lf.size > PLAN_MAX_BYTES:
        return None
    printed = _printed_lines(lf, PLAN_MAX_BYTES + 1)
    return None if printed is None or printed[1] else printed[0]


@dataclass(frozen=True)
class _Printed:
    """A saved output read for a view by tool: its lines as printed, and what a view of it needs."""

    lf: LineFile
    lines: list[str]
    whole_top: str  # the first line of the whole output's view
    ref: str
    top: str  # the first line of a view that leaves something out
    budget: int
    explicit_budget: int | None
    meta: dict[str, Any] | None
    exit_code: int | None

    def pays(self, text: str, share: float = 1.0) -> bool:
        """Whether the view ``text`` fits the budget and costs less than ``share`` of the whole output's view."""
        if len(text.encode()) > HARD_CAP_BYTES or not within(text, self.budget):
            return False
        whole = [self.whole_top, *self.lines] if self.whole_top else self.lines
        return count_tokens(text) < share * count_tokens("\n".join(whole))

    def result(
        self,
        text: str,
        view: str,
        reason: str,
        shown: list[list[int]],
        omitted: list[list[int]],
        cont: Continuation | None,
        **more: Any,
    ) -> ToolResult:
        """The view by tool ``text`` (``view`` names it, ``reason`` says why), complete when ``cont`` is None."""
        facts: dict[str, Any] = {
            **(self.meta or {}),
            "view": view,
            "view_by_tool": True,
            "view_reason": reason,
            "total_lines": self.lf.total_lines,
            "shown": shown,
            "omitted": omitted,
            **more,
        }
        return ToolResult(
            text=text, complete=cont is None, continuation=cont, source=self.ref, revision=self.ref, meta=facts
        )


def _by_tool(
    ref: str,
    budget: int,
    explicit_budget: int | None,
    verdict: str | None,
    whole_verdict: str | None,
    meta: dict[str, Any] | None,
    exit_code: int | None,
) -> ToolResult | None:
    """The view by tool of the output: a long listing's (:func:`_long_listing`), else a rule's (:func:`_planned`).

    The saved output is read once for both.
    """
    with LineFile.open(current_store().path(ref), what=ref) as lf:
        lines = _plannable_lines(lf)
        if lines is None:
            return None
        top = verdict or f"[saved {ref} · {plural(lf.total_lines, 'line')} · {human_size(lf.size)}]"
        whole_top = (verdict or "") if whole_verdict is None else whole_verdict
        out = _Printed(lf, lines, whole_top, ref, top, budget, explicit_budget, meta, exit_code)
        return _long_listing(out) or _planned(out)


def _planned(out: _Printed) -> ToolResult | None:
    """The view by tool (:mod:`.tools`) of the output, when a rule knows it, it fits the budget and it is smaller."""
    from .tools import plan_for

    command = (out.meta or {}).get("command")
    if isinstance(command, (list, tuple)):
        import shlex

        command = shlex.join(str(w) for w in command)
    plan = plan_for(command if isinstance(command, str) else None, out.lines, out.exit_code)
    if plan is None or not plan.folds:
        return None
    from .tools.render import render_plan

    view = render_plan(plan, out.lines, out.lf, out.ref, out.top, out.explicit_budget)
    if not out.pays(view.text):
        return None
    reason = f"{plan.tool}'s output: its own noise folded into counted lines"
    summary = {"summary": plan.summary} if plan.summary else {}
    return out.result(view.text, plan.tool, reason, view.shown, view.omitted, view.cont, **summary)


def _long_listing(out: _Printed) -> ToolResult | None:
    """A long listing's rows by name and size (:mod:`.lslong`), when it succeeded, fits the budget and is smaller."""
    if out.exit_code not in (0, None):
        return None
    from .lslong import compact_rows

    compact = compact_rows(out.lines)
    if compact is None:
        return None
    head, rows = compact
    cont = continuation("read_saved", ref=out.ref, budget=out.explicit_budget)
    text = "\n".join([out.top, f"[{head}: {call_text(cont)}]", *rows])
    if not out.pays(text, 0.9):
        return None
    reason = "a long listing: each row by name and size, the columns rows share said once"
    return out.result(text, "ls -l", reason, [], [[1, out.lf.total_lines]], cont)


def project_output(
    ref: str,
    *,
    budget: int,
    explicit_budget: int | None,
    verdict: str | None = None,
    meta: dict[str, Any] | None = None,
    exit_code: int | None = None,
    failed: bool = False,
    saved: bool = False,
    whole_verdict: str | None = None,
) -> ToolResult | None:
    """The first view of the saved output ``ref`` in the shape it has, within ``budget`` tokens.

    Args:
        ref: Reference of a command's output saved in the current store.
        budget: The resolved token budget of the view.
        explicit_budget: The budget the caller gave (repeated in the continuation), or None.
        verdict: The first line (exit code, duration, …); a plain description if None.
        whole_verdict: The first line when the whole output is shown (nothing to refer to); ``verdict`` if
            None; ``""`` puts nothing above the output (:func:`~wuu_tools.commands.verdict.quiet`).
        meta: Facts merged into the result's ``meta``.
        exit_code: The command's exit code (None when unknown: then only the output decides).
        failed: The command was ended by a signal or a timeout.
        saved: ``read_saved``'s first view: None unless the view is one of :data:`SAVED_KINDS`.

    Returns:
        The view, header and notices included within ``budget`` (:func:`~wuu_tools.views.ceiling.fit_ceiling`);
        None only with ``saved`` when the paging view of ``read_saved`` serves better.
    """
    if not saved:
        by_tool = _by_tool(ref, budget, explicit_budget, verdict, whole_verdict, meta, exit_code)
        if by_tool is not None:
            return by_tool
        whole = _whole(ref, budget, verdict if whole_verdict is None else whole_verdict, meta, verdict)
        if whole is not None:
            return whole
    args = (ref, explicit_budget, verdict, meta, exit_code, failed, saved)
    first = _project_output(budget, *args)
    if first is None or first.tokens <= budget:
        return first
    return fit_ceiling(lambda inner: first if inner == budget else (_project_output(inner, *args) or first), budget)


def _project_output(
    budget: int,
    ref: str,
    explicit_budget: int | None,
    verdict: str | None,
    meta: dict[str, Any] | None,
    exit_code: int | None,
    failed: bool,
    saved: bool,
) -> ToolResult | None:
    """:func:`project_output` with ``budget`` for its body (its notices may go beyond it)."""
    store = current_store()
    with LineFile.open(store.path(ref), what=ref) as lf:
        shape = detect(lf, exit_code, failed)
        if saved and (shape.kind not in SAVED_KINDS or (shape.kind == "table" and has_padded_gutter(lf))):
            return None  # (a numbered listing's rows look like TSV: read_saved pages it, each number once)
        listing = None if saved else _listing((meta or {}).get("command"), shape, exit_code)
        if listing is not None:  # a source file's text, whatever its lines look like (cat -n's look like a table)
            shape = Shape("output", f"the text of {listing.path}")
        facts = {**(meta or {}), "view": shape.kind, "view_reason": shape.why}
        if shape.kind == "failing log":
            head = verdict or f"[saved {ref} · {plural(lf.total_lines, 'line')} · {human_size(lf.size)}]"
            return project_log(ref, budget=budget, explicit_budget=explicit_budget, verdict=head, meta=facts)
        top = [verdict or f"[saved {ref} · {plural(lf.total_lines, 'line')} · {human_size(lf.size)}]"]
        if shape.kind == "search results" and not saved:
            from .searchview import project_search

            return project_search(
                lf, ref, shape.style, top=top, budget=budget, explicit_budget=explicit_budget, meta=facts
            )
        frame = _frame(lf, shape, budget)
        if frame is None:
            if saved:
                return None
            shape = Shape("output", f"{shape.kind} guessed, but it does not parse")
            facts.update(view="output", view_reason=shape.why)
            frame = _frame(lf, shape, budget)
            assert frame is not None
        if listing is not None and frame.kind == "output":
            _map_listing(frame, lf, ref, listing)
        if not saved and frame.kind == "output":
            frame.gutter = has_padded_gutter(lf)
        if saved:
            top = [f"[saved {ref}]"]
        return framed(
            lf, ref, frame, top=top, budget=budget, explicit_budget=explicit_budget, meta=facts, as_printed=not saved
        )


def _frame(lf: LineFile, shape: Shape, budget: int) -> Frame | None:
    kind = shape.kind
    if kind == "search results":
        from .searchview import search_frame

        return search_frame(lf, shape.style, budget)
    if kind == "diff":
        from .diffview import diff_frame

        return diff_frame(lf, budget)
    if kind in ("JSON", "JSON lines", "YAML"):
        from .dataview import data_frame

        return data_frame(lf, kind, budget)
    from .headtail import output_frame, table_frame

    return table_frame(lf, shape) if kind == "table" else output_frame(lf)


def _listing(command: Any, shape: Shape, exit_code: int | None) -> Listing | None:
    """The listing ``command`` printed (:mod:`.listing`), unless the output is read better another way.

    A failure keeps its error-first view (a listing that exited 0 is no failure, whatever its lines
    say); data, and diffs, keep the views of their own structure.
    """
    if (shape.kind == "failing log" and exit_code != 0) or shape.kind in ("JSON", "JSON lines", "YAML", "diff"):
        return None
    from .listing import listing_of

    return listing_of(command)


def _map_listing(frame: Frame, lf: LineFile, ref: str, listing: Listing) -> None:
    """Give ``frame`` the map of the listing's text, and the file's line numbers where the command says them."""
    from .listing import listing_outline

    frame.outline = lambda: listing_outline(lf, listing, ref)
    frame.meta["listing"] = listing.path
    fits = listing.last is None or lf.total_lines <= listing.last - (listing.offset or 0)
    if listing.offset and fits:  # (the file's numbers only where the output is the range asked for)
        frame.file_lines = (listing.path, listing.offset)
