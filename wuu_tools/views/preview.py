"""First views of a text held in memory, cut along what the text is: whole numbered lines in a budget.

One function, :func:`preview`, picks the lines of a first view in one of five modes:

* ``head`` — whole lines from the head only (a JSON document, whose outline is shown apart).
* ``tail`` — plain text: whole lines from the head and from the tail; the continuation
  reads the omitted middle forward (bounded by ``end_line``, so no line is shown twice).
* ``sections`` — markdown, YAML, accessibility snapshots: whole lines from the head, then
  the section lines that follow (markdown headings, landmark roles, the shallowest levels
  of indentation — as deep as the share allows), each with its line number so a reader
  can jump there with ``read_saved(ref, start_line=N)``.
* ``outcome`` — edit and coordination tools: the first lines (which state the outcome),
  then later lines that say done/failed/next, then the tail.
* ``error`` — an error's text: its first lines (the message), error lines from the
  middle (``Caused by``, ``…Error:``), and its last lines (the innermost frame).

Lines are numbered from 1 as ``read_saved`` numbers the saved copy (split on ``"\\n"``, a
CR before it not shown), so any line of a view can be read again or continued from.
Only candidate lines are ever tokenized.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.budget import count_tokens, fit_count, fit_prefix
from ..core.text import human_size, number_line, plural

__all__ = ["Preview", "preview", "split_lines"]

MODES = ("head", "tail", "sections", "outcome", "error")
MAX_EXTRA_CHARS = 400

_MD_HEADING = re.compile(r"^#{1,6}\s+\S")
_LANDMARK = re.compile(
    r"^\s*- (?:'|\")?(?:heading|banner|navigation|main|contentinfo|region|complementary|form|dialog|"
    r"tabpanel|article|table|list)\b"
)
_YAMLISH = re.compile(r"^\s*(?:- \S|[\w\"'./-][\w\"'./ -]{0,40}:(?:\s|$))")
_OUTCOME = re.compile(
    r"\b(?:done|failed|failure|fail|error|errors|success|successful|succeeded|applied|created|updated|"
    r"deleted|wrote|written|next|blocked|assigned|completed|complete|warning|conflict|rejected|"
    r"approved|merged|status|result)\b",
    re.IGNORECASE,
)
_EVIDENCE = re.compile(
    r"^\s*(?:Caused by\b|During handling\b|The above exception\b|[\w.$]*(?:Error|Exception|Panic)\b"
    r"|error\b|fatal\b|panic\b)",
    re.IGNORECASE,
)


def split_lines(text: str) -> list[str]:
    """``text`` split as ``read_saved`` numbers it: on ``"\\n"``, no empty line after a final newline."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _display(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


@dataclass
class Preview:
    """The lines a first view shows, already rendered, and where its continuation goes.

    Attributes:
        parts: Rendered lines: numbered source lines and the omission notices between them.
        shown: Line numbers shown whole.
        next_line: ``start_line`` of the continuation (the first omitted line), or None.
        next_char: ``start_char`` of the continuation when line ``next_line`` was cut.
        end_line: ``end_line`` of the continuation when a tail was shown, else None.
        partial_line: The line shown only in part, if any.
        mode: The mode used (``sections`` falls back to ``tail`` for text without structure;
            ``partial`` when the view ends in the start of a line longer than the budget).
    """

    parts: list[str] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    next_line: int | None = None
    next_char: int = 0
    end_line: int | None = None
    partial_line: int | None = None
    mode: str = "tail"


class _Lines:
    """Numbered rendering of a line list, built only for the lines a view considers."""

    def __init__(self, lines: Sequence[str], byte_cap: int) -> None:
        self.lines = lines
        self.total = len(lines)
        self.width = len(str(max(self.total, 1)))
        self.byte_cap = byte_cap

    def numbered(self, n: int) -> str:
        return number_line(n, _display(self.lines[n - 1]), self.width)

    def window(self, numbers: Sequence[int]) -> list[str]:
        """Numbered lines for ``numbers``, stopping once they pass the byte cap."""
        out: list[str] = []
        used = 0
        for n in numbers:
            item = self.numbered(n)
            used += len(item.encode("utf-8", "surrogatepass")) + 1
            out.append(item)
            if used > self.byte_cap:
                break
        return out

    def fit(self, numbers: Sequence[int], budget: int, byte_cap: int) -> int:
        if budget <= 0 or byte_cap <= 0 or not numbers:
            return 0
        return fit_count(self.window(numbers), budget, byte_cap)

    def span_bytes(self, first: int, last: int) -> int:
        return sum(len(s.encode("utf-8", "surrogatepass")) + 1 for s in self.lines[first - 1 : last])


def _section_candidates(src: _Lines, start: int) -> dict[int, int] | None:
    """Section lines from ``start`` on with their levels (0 = most important), or None without structure."""
    raw: dict[int, int] = {}
    md = 0
    yamlish = 0
    nonblank = 0
    for n in range(start, src.total + 1):
        line = src.lines[n - 1]
        if not line.strip():
            continue
        nonblank += 1
        if len(line) > MAX_EXTRA_CHARS:
            continue
        if _MD_HEADING.match(line):
            raw[n] = -1
            md += 1
        elif _YAMLISH.match(line):
            yamlish += 1
            raw[n] = len(line) - len(line.lstrip(" "))
    if md < 2 and yamlish < max(8, nonblank // 2):
        return None
    rank = {ind: i for i, ind in enumerate(sorted({v for v in raw.values() if v >= 0}))}
    levels: dict[int, int] = {}
    for n, indent in raw.items():  # markdown headings first, then the shallowest indentation
        if indent < 0:
            levels[n] = 0
        else:
            levels[n] = 1 + (min(rank[indent], 1) if _LANDMARK.match(src.lines[n - 1]) else rank[indent])
    return levels


def _by_priority(levels: dict[int, int]) -> list[int]:
    """Section lines, shallowest level first, in line order within a level."""
    return [n for _, n in sorted((lv, n) for n, lv in levels.items())]


def _spread(ordered: list[int], levels: dict[int, int], k: int) -> list[int]:
    """The first ``k`` of ``ordered`` with the level that was cut short replaced by an even sample of it."""
    cut = levels[ordered[k]]
    whole = [n for n in ordered[:k] if levels[n] < cut]
    level = [n for n in ordered if levels[n] == cut]
    m = k - len(whole)
    if m < 2:
        return ordered
    return whole + [level[round(i * (len(level) - 1) / (m - 1))] for i in range(m)]


def preview(lines: Sequence[str], mode: str, budget: int, byte_cap: int) -> Preview:
    """Pick and render the lines of a first view of ``lines`` (the whole text does not fit).

    Args:
        lines: The text's lines (see :func:`split_lines`).
        mode: ``head``, ``tail``, ``sections``, ``outcome`` or ``error`` (see the module docstring).
        budget: Tokens the rendered lines may take.
        byte_cap: UTF-8 bytes the rendered lines may take.

    Returns:
        The :class:`Preview`; ``next_line`` is None only when every line fits.
    """
    if mode not in MODES:
        raise ValueError(f"preview mode must be one of {', '.join(MODES)}, not {mode!r}")
    src = _Lines(lines, byte_cap)
    total = src.total
    out = Preview(mode=mode)
    if total == 0:
        return out
    head_share = {
        "head": budget,
        "tail": budget // 2,
        "sections": budget * 55 // 100,
        "outcome": budget * 3 // 4,
    }.get(mode, budget // 2)
    h = src.fit(range(1, total + 1), head_share, byte_cap // 2)
    if h == 0:  # a small budget: the head's share holds no line, the whole budget may
        h = src.fit(range(1, total + 1), budget, byte_cap // 2)
        if h == 0:
            return _partial_at(src, 1, [], [], budget, byte_cap)
        mode = out.mode = "first lines"
    extra: list[int] = []
    extra_label = ""
    if mode == "sections":
        levels = _section_candidates(src, h + 1)
        if levels:
            ordered = _by_priority(levels)
            k = src.fit(ordered, budget - head_share, byte_cap // 2)
            if 1 < k < len(ordered):  # the level cut short is sampled evenly over the text, not its start
                ordered = _spread(ordered, levels, k)
                k = src.fit(ordered, budget - head_share, byte_cap // 2)
            extra = sorted(ordered[:k])
            extra_label = "section lines" if k == len(ordered) else "section lines (the outermost, sampled)"
        else:
            mode = out.mode = "tail"
    if mode in ("outcome", "error"):
        rx = _OUTCOME if mode == "outcome" else _EVIDENCE
        share = budget // 4 if mode == "outcome" else budget * 15 // 100
        hits = [n for n in range(h + 1, total + 1) if len(lines[n - 1]) <= MAX_EXTRA_CHARS and rx.search(lines[n - 1])]
        k = src.fit(hits, share, byte_cap // 4)
        extra = hits[:k]
        extra_label = "outcome lines" if mode == "outcome" else "error lines"
    used = count_tokens("\n".join(src.numbered(n) for n in extra)) if extra else 0
    used_bytes = sum(len(src.numbered(n).encode()) + 1 for n in extra)
    # The head takes back what the extras left over (tail mode: half the budget).
    if mode != "tail":
        room = budget - used - (budget // 3 if mode == "error" or (mode == "outcome" and not extra) else 0)
        h = max(h, src.fit(range(1, total + 1), room, byte_cap - used_bytes - byte_cap // 4))
    extra = [n for n in extra if n > h]
    head_text = "\n".join(src.numbered(n) for n in range(1, h + 1))
    head_used = count_tokens(head_text)
    head_bytes = len(head_text.encode())
    tail_first = total + 1
    if mode in ("tail", "error") or (mode == "outcome" and not extra):
        floor = max([h, *extra]) + 1
        back = list(range(total, floor - 1, -1))
        t = src.fit(back, budget - head_used - used - 1, byte_cap - head_bytes - used_bytes)
        tail_first = total - t + 1
        extra = [n for n in extra if n < tail_first]
    if tail_first <= h + 1:  # head and tail meet: everything is shown
        out.parts = [src.numbered(n) for n in range(1, total + 1)]
        out.shown = list(range(1, total + 1))
        return out
    tail = [src.numbered(n) for n in range(tail_first, total + 1)]
    gap_last = tail_first - 1
    out.parts = head_text.split("\n")
    out.shown = [*range(1, h + 1), *extra, *range(tail_first, total + 1)]
    out.next_line = h + 1
    out.end_line = gap_last if tail else None
    left = budget - head_used - used - (count_tokens("\n".join(tail)) if tail else 0) - 2
    cap_left = byte_cap - head_bytes - used_bytes - sum(len(t.encode()) + 1 for t in tail)
    what = f"lines {h + 1:,}-{gap_last:,}"
    if not extra and left > budget // 4 and src.fit([h + 1], left, cap_left) == 0:
        # The next line alone is longer than what is left: show its start rather than nothing.
        prefix = number_line(h + 1, "", src.width)
        text = _display(lines[h])
        cut = fit_prefix(text, max(1, left - count_tokens(prefix)), cap_left - len(prefix))
        if cut < len(text):
            out.parts.append(prefix + text[:cut])
            out.partial_line, out.next_char = h + 1, cut
            rest = f" and lines {h + 2:,}-{gap_last:,}" if gap_last > h + 1 else ""
            what = f"the rest of line {h + 1:,}{rest}"
    gap_size = human_size(src.span_bytes(h + 1, gap_last))
    gap = f"{what} ({plural(gap_last - h, 'line')}, {gap_size})"
    if extra:
        out.parts.append(f"[… {gap} not shown in full; {extra_label} from them:]")
        out.parts.extend(src.numbered(n) for n in extra)
        if tail:
            out.parts.append("[… last lines:]")
    else:
        out.parts.append(f"[… {gap} omitted …]")
    out.parts.extend(tail)
    return out


def _partial_at(src: _Lines, line: int, parts: list[str], shown: list[int], budget: int, byte_cap: int) -> Preview:
    """``parts`` (whole lines), then the start of ``line``, too long for the budget; continued by character."""
    prefix = number_line(line, "", src.width)
    text = _display(src.lines[line - 1])
    cut = fit_prefix(text, max(1, budget - count_tokens(prefix)), byte_cap - len(prefix))
    out = Preview(parts=[*parts, prefix + text[:cut]], shown=list(shown), mode="partial")
    if cut < len(text):
        out.partial_line, out.next_line, out.next_char = line, line, cut
    else:
        out.shown.append(line)
        out.next_line = line + 1 if line < src.total else None
    return out
