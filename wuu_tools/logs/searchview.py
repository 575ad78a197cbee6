"""The first view of search results: matches grouped by file, a count per file and in all, every file named.

``grep -rn``, ``rg``, ``git grep -n``, ``grep -c`` and ``rg --heading`` output is read once
(:mod:`.searchindex`). The view then shows, file after file in output order, a heading with
the file's match count and the output lines it spans, and the first lines of its block as
printed (matches, ``-A/-B/-C`` context lines and ``--`` group separators in place, the repeated
path left out). The files whose matches do
not fit are still all named, grouped by folder with their counts, in a few tokens each —
about 200 files fit the default budget. The continuation reads the saved output forward from
the first line not shown to the last (``read_saved``), so following it shows every line;
the first matches of the later files, shown here out of order, come again along that chain.

With ``spread=False`` (``read_saved``'s own first view, whose chain shows each line once) the
lines shown are the head of the output only, under the same index of every file.
"""

from __future__ import annotations

from typing import Any

from ..core.budget import HARD_CAP_BYTES, NOTICE_TOKENS, count_tokens, count_tokens_batch, fit_count
from ..core.lines import LineFile, decode_line
from ..core.result import ToolResult, call_text
from ..core.text import clean_terminal, complement, human_size, plural, ranges
from .frame import Frame, cut, framed, rest_of
from .searchindex import FileHits, SearchIndex, index_hits

__all__ = ["project_search", "search_frame"]

PER_FILE = (48, 24, 12, 8, 5, 3, 2, 1)  # first output lines per file tried, most first
NAMED_MAX = 5000  # files named at most (more cannot fit the hard cap); the rest are counted


def _facts(index: SearchIndex) -> str:
    files = index.matching
    facts = f"{plural(index.matches, 'match', 'matches')} in {plural(len(files), 'file')}"
    if index.zero_files:
        facts += f" ({index.zero_files:,} more listed with 0)"
    if index.capped:
        facts += f" in the first {index.scanned_to:,} lines (counting stopped there)"
    return facts


def _folder_groups(files: list[FileHits]) -> list[tuple[str, list[FileHits]]]:
    """Files by folder, in the order folders first appear, 20 files a group at most."""
    groups: dict[str, list[FileHits]] = {}
    for f in files:
        groups.setdefault(f.path.rpartition("/")[0], []).append(f)
    return [(folder, fs[i : i + 20]) for folder, fs in groups.items() for i in range(0, len(fs), 20)]


def _folder(folder: str) -> str:
    return f"  {folder + '/' if folder else './'}: "


def _names(folder: str, files: list[FileHits]) -> str:
    return _folder(folder) + ", ".join(f"{f.path.rpartition('/')[2]} {f.count:,}" for f in files)


def _folder_lines(files: list[FileHits], room: int) -> tuple[list[str], int]:
    """Every file named with its count, grouped by folder, in ``room`` tokens; and how many files are left unnamed.

    When the names do not all fit, the folders whose files are left out are still each named,
    with how many files and matches they hold there (a folder of one file names the file).
    """
    beyond = len(files) - NAMED_MAX  # so many files cannot be named in any view: counted only
    files = files[:NAMED_MAX]
    groups = _folder_groups(files)
    lines = [_names(folder, fs) for folder, fs in groups]
    k = fit_count(lines, max(room, 0), HARD_CAP_BYTES // 2)
    if k == len(lines) and beyond <= 0:
        return lines, 0

    def layout(k: int) -> tuple[list[str], dict[str, list[FileHits]]]:
        rest: dict[str, list[FileHits]] = {}
        for folder, fs in groups[k:]:
            rest.setdefault(folder, []).extend(fs)
        tail = [
            _names(folder, fs)
            if len(fs) == 1
            else _folder(folder) + f"{len(fs):,} more files, {sum(f.count for f in fs):,} matches"
            for folder, fs in rest.items()
        ]
        return [*lines[:k], *tail], rest

    def fits(out: list[str]) -> bool:
        return fit_count(out, max(room, 0), HARD_CAP_BYTES // 2) == len(out)

    lo, hi = 0, k  # the most detail lines that still leave room to name every other folder
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(layout(mid)[0]):
            lo = mid
        else:
            hi = mid - 1
    k = lo
    out, rest = layout(k)
    unnamed = sum(len(fs) for fs in rest.values() if len(fs) > 1)
    if beyond > 0 or fit_count(out, max(room, 0), HARD_CAP_BYTES // 2) < len(out):  # too many folders even so
        kept = fit_count(out, max(room, 0) - 20, HARD_CAP_BYTES // 2)
        out = out[:kept]
        named = sum(len(fs) for _, fs in groups[: min(k, kept)])
        unnamed = len(files) + max(beyond, 0) - named
        out.append(f"  … and {plural(unnamed, 'more file')}: read them in order with the continuation")
    return out, unnamed


def search_frame(lf: LineFile, style: str, budget: int) -> Frame:
    """``read_saved``'s first view: the facts, the files named (half the budget at most), then the head."""
    index = index_hits(lf, style)
    files = index.matching
    summary = ["[files (matches):]", *_folder_lines(files, budget // 2)[0]] if len(files) > 1 else []
    return Frame("search results", _facts(index), summary, "head", _meta(index))


def _meta(index: SearchIndex) -> dict[str, Any]:
    return {"matches": index.matches, "files": len(index.matching), "counted_lines": index.scanned_to}


class _Texts:
    """Rendered view lines (path left out), read on demand, with their token costs."""

    def __init__(self, lf: LineFile, width: int) -> None:
        self.lf = lf
        self.width = width
        self.text: dict[int, str] = {}
        self.cost: dict[int, int] = {}

    def load(self, numbers: list[int], strip: dict[int, str]) -> None:
        todo = [n for n in numbers if n not in self.text]
        for n in todo:
            raws, _giant = self.lf.read_forward(n, n, 4096)
            text, _bad = decode_line(raws[0]) if raws else ("", False)
            text = clean_terminal(text)
            prefix = strip.get(n, "")
            if prefix and text.startswith(prefix) and text[len(prefix) : len(prefix) + 1] in (":", "-"):
                text = text[len(prefix) + 1 :]
            self.text[n] = cut(text)
        for n, c in zip(todo, count_tokens_batch([self.text[n] for n in todo]), strict=True):
            self.cost[n] = c + 1


def _heading(f: FileHits) -> str:
    span = f"line {f.first:,}" if f.first == f.last else f"lines {f.first:,}-{f.last:,}"
    return f"== {f.path} · {plural(f.count, 'match', 'matches')} · {span}"


def _name_costs(files: list[FileHits]) -> list[int]:
    """Tokens each file takes when only named (its folder's name charged to the folder's first file)."""
    entries = [f"{f.path.rpartition('/')[2]} {f.count:,}," for f in files]
    costs = [c + 1 for c in count_tokens_batch(entries)]
    seen: set[str] = set()
    for i, f in enumerate(files):
        folder = f.path.rpartition("/")[0]
        if folder not in seen:
            seen.add(folder)
            costs[i] += count_tokens(_folder(folder)) + 1
    return costs


def _span(f: FileHits) -> tuple[int, int]:
    """The output lines of a file's block (after its heading line, for ``rg --heading``)."""
    first = f.heading + 1 if f.heading else f.first
    return first, max(first, f.last)


def _strip(files: list[FileHits], style: str) -> dict[int, str]:
    """The path to leave out of each line of the files' blocks (``grep -rn`` repeats it on every line)."""
    if style != "lines":
        return {}
    return {n: f.path for f in files for n in range(_span(f)[0], _span(f)[1] + 1)}


def _layout(texts: _Texts, files: list[FileHits], room: int, style: str) -> tuple[dict[int, list[int]], int]:
    """The first lines of each file's block shown (a leading run of files) and the tokens left to name the others.

    The most files shown first (every later file must still fit by name), then the most
    lines per file, then, with the room left, more lines of the files shown, in order. A
    file's lines are its block's first lines as printed: matches with their context lines
    and group separators.
    """
    everyone = len(files)
    if everyone > NAMED_MAX or style == "counts":  # too many to show lines, or nothing but counts
        return {}, room
    names = _name_costs(files)
    after = [0] * (len(files) + 1)  # after[i]: naming files i.. costs about this much
    for i in range(len(files) - 1, -1, -1):
        after[i] = after[i + 1] + names[i]
    files = files[: max(1, room // 8)]  # a heading and a line take 8 tokens at least: no more files can show lines
    chosen: dict[int, list[int]] = {}
    used = 0
    if after[0] >= room:  # naming every file takes all the room: no file shows lines
        return chosen, room
    heads = [c + 1 for c in count_tokens_batch([_heading(f) for f in files])]
    strip = _strip(files, style)
    for k in PER_FILE:
        want = [n for f in files for n in range(_span(f)[0], min(_span(f)[1], _span(f)[0] + k - 1) + 1)]
        if len(want) > 4000 and k != PER_FILE[-1]:
            continue
        texts.load(want[:4000], strip)
        chosen, used = {}, 0
        for i, f in enumerate(files):
            a, b = _span(f)
            lines = [n for n in range(a, min(b, a + k - 1) + 1) if n in texts.cost]
            cost = heads[i] + sum(texts.cost[n] for n in lines)
            if not lines or used + cost + after[i + 1] > room:
                break
            chosen[i] = lines
            used += cost
        if len(chosen) == everyone:
            break
    left = room - used - after[len(chosen)]
    for i in sorted(chosen):
        nxt, b = chosen[i][-1] + 1, _span(files[i])[1]
        extra = list(range(nxt, min(b, nxt + 199) + 1))
        if not extra or left <= 0:
            continue
        texts.load(extra, strip)
        for n in extra:
            if texts.cost[n] > left:
                left = 0
                break
            chosen[i].append(n)
            left -= texts.cost[n]
    spent = sum(heads[i] + sum(texts.cost[n] for n in chosen[i]) for i in chosen)
    return chosen, room - spent


def project_search(
    lf: LineFile,
    ref: str,
    style: str,
    *,
    top: list[str],
    budget: int,
    explicit_budget: int | None,
    meta: dict[str, Any],
) -> ToolResult:
    """The first view of search results in ``lf`` (see the module docstring); ``top`` is the verdict."""
    index = index_hits(lf, style)
    files = index.matching
    if not files:  # nothing counted after all: the output's head, with what the count said
        frame = Frame("search results", _facts(index), [], "head and tail", _meta(index))
        return framed(lf, ref, frame, top=top, budget=budget, explicit_budget=explicit_budget, meta=meta)
    total = lf.total_lines
    texts = _Texts(lf, len(str(total)))
    label = f"[view: search results · {_facts(index)}]"
    fixed = "\n".join([*top, label])
    room = budget - count_tokens(fixed) - NOTICE_TOKENS // 2 - 40
    for _ in range(8):
        chosen, name_room = _layout(texts, files, max(room, 1), style)
        text, shown, cont, named = _render(texts, files, chosen, name_room, ref, fixed, explicit_budget)
        over = count_tokens(text) - (budget + NOTICE_TOKENS)
        size = len(text.encode("utf-8", "surrogatepass"))
        if over <= 0 and size <= HARD_CAP_BYTES:
            break
        if room <= 1:  # a budget too small for the notices: the head of the output under the facts
            frame = Frame("search results", _facts(index), [], "head", _meta(index))
            return framed(lf, ref, frame, top=top, budget=budget, explicit_budget=explicit_budget, meta=meta)
        room = max(1, room - max(over, (size - HARD_CAP_BYTES) // 2, 1) - 8)
    omitted = complement(shown, total)
    out_meta = {
        **meta,
        "total_lines": total,
        "shown": shown,
        "omitted": omitted,
        "view": "search results",
        **_meta(index),
        "files_shown": len(chosen),
        "files_named": len(chosen) + named,
    }
    return ToolResult(text=text, complete=cont is None, continuation=cont, source=ref, revision=ref, meta=out_meta)


def _render(
    texts: _Texts,
    files: list[FileHits],
    chosen: dict[int, list[int]],
    name_room: int,
    ref: str,
    fixed: str,
    explicit_budget: int | None,
) -> tuple[str, list[list[int]], dict[str, Any] | None, int]:
    """The view's text, the lines shown, the continuation and how many files are named without matches."""
    out = [fixed]
    shown: list[int] = []
    for i in sorted(chosen):
        f = files[i]
        out.append(_heading(f))
        out.extend(texts.text[n] for n in chosen[i])
        shown.extend(chosen[i])
    rest = files[len(chosen) :]
    named = 0
    if rest:
        out.append(f"[{plural(len(rest), 'more file')} (matches):]")
        lines, unnamed = _folder_lines(rest, name_room)
        out.extend(lines)
        named = len(rest) - unnamed
    shown_r = ranges(shown)
    rest = rest_of(texts.lf, ref, shown_r, explicit_budget)
    if rest.cont:
        out.append(f"[not shown: {plural(rest.lines, 'line')} ({human_size(rest.size)}); next: {call_text(rest.cont)}]")
    return "\n".join(out), shown_r, rest.cont, named
