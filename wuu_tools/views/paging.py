"""The view engine shared by ``read_file`` and ``read_saved``: whole numbered lines within a budget.

A first view (no range asked) shows whole lines from the head and the tail and names the
omitted middle; its continuation reads the middle forward, bounded by ``end_line`` so that
the chain shows every line exactly once. A line longer than the whole budget is the one
exception to whole lines: it is cut at a character and continued with ``start_char``.
Notices (header, omission line, continuation) are kept within ``NOTICE_TOKENS`` above the
budget; a view whose notices run longer (a very long path) gives the excess back from its body.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.budget import HARD_CAP_BYTES, NOTICE_TOKENS, count_tokens, fit_count, fit_prefix, within
from ..core.errors import InvalidArgument, quote
from ..core.lines import LineFile, decode_line
from ..core.result import ToolResult, call_text, continuation
from ..core.text import clean_terminal, human_size, mark_carriage_returns, number_line, plural, ranges, strip_ansi
from .ceiling import fit_ceiling
from .gutter import compact_gutter, fold_gutter

if TYPE_CHECKING:  # (the map's modules load only when a first view is cut)
    from .structure.model import Outline

__all__ = ["Subject", "check_range", "paged", "render_view"]


@dataclass(frozen=True)
class Subject:
    """What a view is of, and how to ask for more of it.

    Attributes:
        tool: The tool a continuation calls (``read_file`` or ``read_saved``).
        key: The arguments that name the source (``{"path": ...}`` or ``{"ref": ...}``).
        label: How the text names the source.
        source: ``ToolResult.source`` (the saved reference, or None for a file).
        takes_revision: Whether the tool accepts a ``revision`` argument.
        terminal: Whether lines are terminal output (a saved log): colours and redraws are removed
            (:func:`~wuu_tools.core.text.clean_terminal`). Otherwise a carriage return inside a
            line is shown as ``␍`` (:data:`~wuu_tools.core.text.CR_MARK`), never raw. A line longer
            than the budget, read in pieces by character, has its escapes removed and its carriage
            returns marked, piece by piece.
        numbered: Whether each line carries its number (a file read, a page of a saved result).
            A command's output under its verdict is shown as printed: the header and the
            omission line give the line numbers a continuation needs.
        header: Whether a view of part of the source opens with a line naming it, the lines shown,
            its size and revision (off under a verdict that already says so). A first view that
            shows the head and the tail has none: its lines are numbered (or the verdict counts
            them), and its omission line names the gap and the call that reads it.
        head_share: The share of a first view's lines budget that goes to the head (the tail
            takes the rest).
        outline: Gives the source's :class:`~.structure.model.Outline` (or None), called only when a
            first view is cut: the omitted middle is then mapped (:mod:`.mapview`).
        takes_symbol: Whether the tool reads a definition by name (``symbol=``): the map then names
            the calls that read one and list them all.
        file_lines: ``(path, offset)`` when the lines are those of a file printed by a command, line
            ``n`` being the file's line ``n + offset``: a map names both numbers.
        gutter: The lines are a numbered listing with a padded gutter (``cat -n``, an agent's file
            read): each is shown after its printed number and one space, or, numbered, once after
            its line number when the printed number is that (:mod:`.gutter`).
    """

    tool: str
    key: dict[str, Any]
    label: str
    source: str | None = None
    takes_revision: bool = True
    terminal: bool = False
    numbered: bool = True
    header: bool = True
    head_share: float = 0.5
    outline: Callable[[], Outline | None] | None = None
    takes_symbol: bool = True
    file_lines: tuple[str, int] | None = None
    gutter: bool = False


def check_range(start_line: Any, end_line: Any, start_char: Any) -> None:
    """Raise :class:`InvalidArgument` unless the range arguments are sane whole numbers."""
    for name, value, low in (("start_line", start_line, 1), ("start_char", start_char, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidArgument(f"{name} must be a whole number >= {low}, not {quote(value)}")
    if end_line is not None and (isinstance(end_line, bool) or not isinstance(end_line, int)):
        raise InvalidArgument(f"end_line must be a whole number or None, not {quote(end_line)}")
    if end_line is not None and end_line < start_line:
        raise InvalidArgument(f"end_line ({end_line}) is before start_line ({start_line})")


@dataclass
class _Body:
    """The body of one view, before notices are wrapped around it."""

    parts: list[str] = field(default_factory=list)  # lines of text, including the omission line
    shown: list[int] = field(default_factory=list)
    next_line: int | None = None  # first unseen line of the requested range
    next_char: int = 0
    end_bound: int | None = None  # end_line the continuation carries
    partial_line: int | None = None
    head_tail: tuple[int, int] | None = None  # omitted middle (first, last) of a first view
    replaced: bool = False
    describe: str = ""
    gap_at: int = -1  # index in ``parts`` of the omission line of a first view


class _View:
    def __init__(
        self,
        lf: LineFile,
        subject: Subject,
        first: int,
        last: int,
        end_line: int | None,
        start_char: int,
        is_first_view: bool,
        explicit_budget: int | None = None,
    ) -> None:
        self.lf = lf
        self.explicit_budget = explicit_budget
        self.subject = subject
        self.first = first
        self.last = last
        self.end_line = end_line
        self.start_char = start_char
        self.is_first_view = is_first_view
        self.byte_cap = HARD_CAP_BYTES - 3 * len(subject.label.encode()) - 1500

    # -- pieces -----------------------------------------------------------------------------

    def _numbered(self, first: int, raws: list[bytes], body: _Body, most: int | None = None) -> list[str]:
        """Lines ``first..`` as the view shows them: the first ``most`` of ``raws`` (all when None).

        A budget of B tokens holds B numbered lines at most (a line's number is a token of its
        own), so callers number B + 1 lines, not the ~50 KiB they read; whether any line read had
        invalid UTF-8 is still noted for all of them.
        """
        if most is not None and len(raws) > most:
            body.replaced |= not _valid_utf8(raws[most:])
            raws = raws[:most]
        out = []
        for i, raw in enumerate(raws):
            text, bad = decode_line(raw)
            body.replaced |= bad
            text = clean_terminal(text) if self.subject.terminal else mark_carriage_returns(text)
            if self.subject.gutter:
                text = fold_gutter(first + i, text) if self.subject.numbered else compact_gutter(text)
            out.append(number_line(first + i, text, 0) if self.subject.numbered else text)
        return out

    def _most(self, budget: int) -> int | None:
        """How many lines a view can measure against ``budget``: B + 1 numbered lines (None: no bound).

        A line's number is a token of its own, so B tokens hold B numbered lines at most; lines
        shown as printed have no such bound (a run of empty lines can share one token).
        """
        return budget + 1 if self.subject.numbered else None

    def _fit(self, first: int, raws: list[bytes], body: _Body, budget: int, byte_cap: int) -> tuple[list[str], int]:
        """The lines ``first..`` as shown (in growing batches, until one does not fit) and how many fit."""
        most = self._most(budget)
        limit = len(raws) if most is None else min(len(raws), most)
        items: list[str] = []
        step = 16
        while True:
            upto = min(limit, len(items) + step)
            items += self._numbered(first + len(items), raws[len(items) : upto], body)
            n = fit_count(items, budget, byte_cap)
            if n < len(items) or upto == limit:
                break
            step *= 4
        if len(items) < len(raws):
            body.replaced |= not _valid_utf8(raws[len(items) :])
        return items, n

    def _forward(self, body: _Body, line: int, budget: int, byte_cap: int) -> None:
        """Whole lines from ``line`` on; a first line too long for the budget is cut."""
        raws, giant = self.lf.read_forward(line, self.last, byte_cap)
        items, n = ([], 0) if giant else self._fit(line, raws, body, budget, byte_cap)
        if n == 0:
            self._partial(body, line, 0, budget, byte_cap)
            return
        body.parts.extend(items[:n])
        body.shown.extend(range(line, line + n))
        body.next_line = line + n if line + n <= self.last else None

    def _partial(self, body: _Body, line: int, start_char: int, budget: int, byte_cap: int) -> None:
        """Part of one line from ``start_char``; whole lines follow if the rest of it fits."""
        prefix = number_line(line, "", 0) if self.subject.numbered else ""
        text, at_end, bad = self.lf.read_chars(line, start_char, byte_cap)
        body.replaced |= bad
        room = max(1, budget - count_tokens(prefix))
        cut = fit_prefix(text, room, byte_cap - len(prefix)) if text else 0
        shown = strip_ansi(text[:cut]) if self.subject.terminal else text[:cut]
        if self.subject.gutter and self.subject.numbered and not start_char:
            shown = fold_gutter(line, shown)
        body.parts.append(prefix + mark_carriage_returns(shown))
        body.shown.append(line)
        self.lf.remember_char(line, start_char, text[:cut])
        if cut >= len(text) and at_end:
            body.describe = f"line {line:,} from character {start_char:,}" if start_char else ""
            used = count_tokens(body.parts[-1])
            nxt = line + 1
            if nxt <= self.last and budget - used > 0:
                rest = _Body()
                left_bytes = byte_cap - len(body.parts[-1].encode())
                self._forward_no_cut(rest, nxt, budget - used - 1, left_bytes)
                body.parts.extend(rest.parts)
                body.shown.extend(rest.shown)
                body.replaced |= rest.replaced
                body.next_line = rest.next_line if rest.shown else nxt
            else:
                body.next_line = nxt if nxt <= self.last else None
            return
        body.partial_line = line
        body.next_line = line
        body.next_char = start_char + cut
        chars = f"{start_char:,}-{start_char + cut - 1:,}"
        body.describe = f"line {line:,} is longer than the budget: characters {chars} shown"

    def _forward_no_cut(self, body: _Body, line: int, budget: int, byte_cap: int) -> None:
        if budget <= 0 or byte_cap <= 0:
            return
        raws, giant = self.lf.read_forward(line, self.last, byte_cap)
        if giant:
            return
        items, n = self._fit(line, raws, body, budget, byte_cap)
        body.parts.extend(items[:n])
        body.shown.extend(range(line, line + n))
        body.next_line = line + n if line + n <= self.last else None

    def _head_tail(self, body: _Body, budget: int) -> bool:
        """Head and tail of the lines viewed; False when they cannot both hold a whole line."""
        first = self.first
        head_raws, giant = self.lf.read_forward(first, self.last, self.byte_cap // 2)
        if giant:
            return False
        head_items = self._numbered(first, head_raws, body, self._most(int(budget * self.subject.head_share)))
        h = fit_count(head_items, int(budget * self.subject.head_share), self.byte_cap // 2)
        if h == 0:
            return False
        head = head_items[:h]
        used = count_tokens("\n".join(head))
        used_bytes = len("\n".join(head).encode())
        tail_raws = self.lf.read_backward(self.last, self.byte_cap - used_bytes, floor=first + h)
        if not tail_raws:
            return False
        room = max(0, budget - used)  # the tail's budget, plus the one line that shows it is full
        if self.subject.numbered and len(tail_raws) > room:
            body.replaced |= not _valid_utf8(tail_raws[: len(tail_raws) - room])
            tail_raws = tail_raws[len(tail_raws) - room :]
        tail_first = self.last - len(tail_raws) + 1
        tail_items = self._numbered(tail_first, tail_raws, body)
        t = fit_count(tail_items[::-1], budget - used - 1, self.byte_cap - used_bytes)
        if t == 0:
            return False
        tail = tail_items[len(tail_items) - t :]
        gap_first, gap_last = first + h, self.last - t
        if gap_first > gap_last:  # nothing in between after all
            body.parts = head + tail
            body.shown = list(range(first, self.last + 1))
            return True
        n_gap = gap_last - gap_first + 1
        gap_bytes = self.lf.span_bytes(gap_first, gap_last)
        body.parts = [
            *head,
            f"[… lines {gap_first:,}-{gap_last:,} omitted ({plural(n_gap, 'line')}, {human_size(gap_bytes)}) …]",
            *tail,
        ]
        body.gap_at = len(head)
        body.shown = [*range(first, gap_first), *range(gap_last + 1, self.last + 1)]
        body.head_tail = (gap_first, gap_last)
        body.next_line = gap_first
        body.end_bound = gap_last
        return True

    def _first_view(self, budget: int) -> _Body:
        """Head and tail with a map of the middle between them (when the source has one), else the head."""
        from .mapview import map_share

        body = _Body()
        share = map_share(budget) if self.subject.outline is not None else 0
        outline = self.subject.outline() if share and self.subject.outline is not None else None
        if outline is None or not outline.defs:
            share = 0
        if not self._head_tail(body, budget - share):
            body = _Body()
            self._forward(body, self.first, budget, self.byte_cap)
            return body
        if share and body.head_tail:  # a map much shorter than what it names, or none
            share = map_share(budget, self.lf.span_bytes(*body.head_tail))
            if not share:
                again = _Body()
                return again if self._head_tail(again, budget) else body
        if not share:
            return body
        lines = self._map(outline, body, share)  # type: ignore[arg-type]
        used = count_tokens("\n".join(lines)) + 1 if lines else 0
        if used < share:  # the map is shorter than its share: give the rest back to head and tail
            again = _Body()
            if self._head_tail(again, budget - used):
                body, lines = again, self._map(outline, again, used) if used else []  # type: ignore[arg-type]
        if lines and body.head_tail:
            at = body.head_tail[0]  # after the head's lines and the omission line
            body.parts[at:at] = lines
        return body

    def _map(self, outline: Outline, body: _Body, cap: int) -> list[str]:
        from .mapview import gap_map

        if body.head_tail is None:
            return []
        subject, budget = self.subject, self.explicit_budget
        key = subject.key
        rev = self.lf.revision if subject.takes_revision else None
        if not subject.takes_symbol:
            return gap_map(outline, body.head_tail[0], body.head_tail[1], cap, file_lines=subject.file_lines)
        return gap_map(
            outline,
            body.head_tail[0],
            body.head_tail[1],
            cap,
            lambda name: call_text(continuation(subject.tool, **key, symbol=name)),
            lambda a, b: call_text(
                continuation(subject.tool, **key, symbol="*", start_line=a, end_line=b, revision=rev, budget=budget)
            ),
            file_lines=subject.file_lines,
        )

    # -- assembly ---------------------------------------------------------------------------

    def body(self, budget: int) -> _Body:
        body = _Body()
        if self.start_char:
            self._partial(body, self.first, self.start_char, budget, self.byte_cap)
        elif self.is_first_view:
            raws, giant = self.lf.read_forward(self.first, self.last, self.byte_cap)
            fits = self._most(budget)
            if not giant and len(raws) == self.last - self.first + 1 and (fits is None or len(raws) < fits):
                items = self._numbered(self.first, raws, body)
                if fit_count(items, budget, self.byte_cap) == len(items):
                    body.parts = items
                    body.shown = list(range(self.first, self.last + 1))
                    return body
            body = self._first_view(budget)
        else:
            self._forward(body, self.first, budget, self.byte_cap)
        if body.next_line is not None and body.end_bound is None and self.end_line is not None:
            body.end_bound = self.last
        return body


def _valid_utf8(raws: list[bytes]) -> bool:
    try:
        b"\n".join(raws).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def paged(lf: LineFile, subject: Subject, *, budget: int, **view: Any) -> ToolResult:
    """:func:`render_view` of ``lf`` within ``budget`` tokens, notices included (:func:`~.ceiling.fit_ceiling`);
    ``view`` holds render_view's other keywords."""
    return fit_ceiling(lambda inner: render_view(lf, subject, budget=inner, **view), budget)


def render_view(
    lf: LineFile,
    subject: Subject,
    *,
    start_line: int,
    end_line: int | None,
    start_char: int,
    revision: str | None,
    budget: int,
    explicit_budget: int | None,
    extra_meta: dict[str, Any] | None = None,
    notes: tuple[str, ...] = (),
) -> ToolResult:
    """The view of ``lf`` for one call; see the module docstring. ``notes`` go first, after a change notice."""
    check_range(start_line, end_line, start_char)
    total = lf.total_lines
    rev = lf.revision
    label = subject.label
    notices: list[str] = []
    changed = revision is not None and revision != rev
    if changed:
        notices.append(
            f"[changed: {label} is now revision {rev}, not {revision} as asked; this view is cut from "
            f"revision {rev} — do not join it with text read from {revision}]"
        )
    meta: dict[str, Any] = {"total_lines": total, "size": lf.size, **(extra_meta or {})}
    if changed:
        meta["revision_changed"] = {"asked": revision, "now": rev}
    notices.extend(notes)

    def cont_for(line: int, end: int | None, char: int) -> dict[str, Any]:
        args: dict[str, Any] = dict(subject.key)
        args["start_line"] = line
        if end is not None:
            args["end_line"] = end
        if char:
            args["start_char"] = char
        if subject.takes_revision:
            args["revision"] = rev
        return continuation(subject.tool, **args, budget=explicit_budget)

    if total == 0:
        text = "\n".join([*notices, f"[{label}: empty (0 bytes)]"])
        return ToolResult(
            text=text,
            complete=True,
            source=subject.source,
            revision=rev,
            meta={**meta, "shown": [], "omitted": []},
        )
    if start_line > total:
        if not changed:
            raise InvalidArgument(f"start_line {start_line:,} is past the end: {label} has {plural(total, 'line')}")
        cont = cont_for(1, None, 0)
        notices.append(
            f"[line {start_line:,} is past the end of the current version ({plural(total, 'line')}); "
            f"start again: {call_text(cont)}]"
        )
        return ToolResult(
            text="\n".join(notices),
            complete=False,
            continuation=cont,
            source=subject.source,
            revision=rev,
            meta={**meta, "shown": [], "omitted": [[1, total]]},
        )

    last = min(end_line, total) if end_line is not None else total
    is_first_view = start_line == 1 and end_line is None and start_char == 0
    view = _View(lf, subject, start_line, last, end_line, start_char, is_first_view, explicit_budget)
    body_budget = budget
    for _ in range(6):
        body = view.body(max(1, body_budget))
        text, cont = _assemble(lf, subject, body, notices, start_line, last, total, rev, cont_for)
        if (within(text, budget + NOTICE_TOKENS) and len(text.encode()) <= HARD_CAP_BYTES) or body_budget <= 1:
            break
        over = count_tokens(text) - (budget + NOTICE_TOKENS)
        body_budget -= max(over, 1) + 2
    meta["shown"] = ranges(body.shown)
    omitted: list[int] = []
    if body.head_tail:
        omitted = [body.head_tail[0], body.head_tail[1]]
    elif body.next_line is not None:
        omitted = [body.next_line, body.end_bound if body.end_bound is not None else last]
    meta["omitted"] = [omitted] if omitted else []
    if body.partial_line is not None:
        meta["partial_line"] = body.partial_line
        meta["next_char"] = body.next_char
    if body.replaced:
        meta["invalid_utf8_replaced"] = True
    meta["final_newline"] = lf.final_newline
    return ToolResult(
        text=text,
        complete=cont is None,
        continuation=cont,
        source=subject.source,
        revision=rev,
        meta=meta,
    )


def _assemble(
    lf: LineFile,
    subject: Subject,
    body: _Body,
    notices: list[str],
    start_line: int,
    last: int,
    total: int,
    rev: str,
    cont_for: Any,
) -> tuple[str, dict[str, Any] | None]:
    label = subject.label
    cont = None
    if body.next_line is not None:
        cont = cont_for(body.next_line, body.end_bound, body.next_char)
    flags = " · invalid UTF-8 replaced with U+FFFD" if body.replaced else ""
    whole = cont is None and body.shown and body.shown[0] == 1 and body.shown[-1] == total and not body.partial_line
    out = list(notices)
    if whole and start_line == 1 and not body.describe:
        if flags:
            out.append(f"[{label}{flags}]")
        out.extend(body.parts)
        return "\n".join(out), None
    rev_text = f" · revision {rev}" if subject.takes_revision else ""
    if body.head_tail:
        if flags:  # (the lines' numbers and the omission line say the rest; its call carries the revision)
            out.append(f"[{label}{flags}]")
    else:
        shown = ranges(body.shown)
        what = ", ".join(f"{a:,}-{b:,}" if a != b else f"{a:,}" for a, b in shown)
        extra = f" · {body.describe}" if body.describe else ""
        noun = "line" if len(shown) == 1 and shown[0][0] == shown[0][1] else "lines"
        if subject.header or flags:  # (under a verdict, the call that reads on says where the view stops)
            out.append(f"[{label} · {noun} {what} of {total:,} · {human_size(lf.size)}{rev_text}{extra}{flags}]")
    out.extend(body.parts)
    if cont is None:
        out.append(f"[end of {'file' if subject.tool == 'read_file' else 'saved result'} range: line {last:,}]")
        return "\n".join(out), None
    if body.head_tail and body.gap_at >= 0:
        # The omission line itself gives the call that reads the gap.
        gap_first, gap_last = body.head_tail
        at = len(out) - len(body.parts) + body.gap_at
        out[at] = (
            f"[… lines {gap_first:,}-{gap_last:,} omitted ({human_size(lf.span_bytes(gap_first, gap_last))}): "
            f"{call_text(cont)} …]"
        )
    elif body.partial_line is not None:
        rest = lf.line_end(body.partial_line) - lf.offset(body.partial_line)
        out.append(f"[line {body.partial_line:,} continues ({human_size(rest)} in all); next: {call_text(cont)}]")
    else:
        end = body.end_bound if body.end_bound is not None else last
        n = end - body.next_line + 1
        size = lf.span_bytes(body.next_line, end)
        out.append(
            f"[lines {body.next_line:,}-{end:,} not shown yet ({plural(n, 'line')}, {human_size(size)}); "
            f"next: {call_text(cont)}]"
        )
    return "\n".join(out), cont
