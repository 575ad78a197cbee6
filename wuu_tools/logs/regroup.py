"""A whole output of search hits or paths, each prefix said once: ``grep -rn`` by file, ``find`` by folder.

A command's whole output is shown as printed; two kinds of output repeat a prefix on every line:

- **search hits** (``grep -rn``, ``grep -r``, ``git grep -n``): ``path:12:text``. The view shows each
  file's path once, on a line of its own, and its lines under it as ripgrep's ``--heading`` does:
  ``12:text`` for a match, ``13-text`` for a context line, the text alone when the output had no line
  numbers; ``--`` group separators stay;
- **paths** (``find``, ``git ls-files``, ``fd``): one path per line. The view shows each run of
  consecutive paths in the same folder as one line, ``./src/app/: main.py, util.py``; a path alone in
  its folder stays whole.

Nothing is left out or reordered: every line can be read back from the view, and a line under the
verdict says so with the call that reads the output as printed. Lines that start with ``[`` (the
verdict and the session's notices) stay as they are and end a group. The view is used only when it
is at least :data:`MIN_SAVING` smaller.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence

from ..core.budget import count_tokens, within
from ..core.result import ToolResult, call_text, continuation

__all__ = ["MIN_SAVING", "regroup", "regroup_view"]

MIN_SAVING = 0.1
"""A regrouped view is used only when it costs this share less than the lines as printed."""
MIN_LINES = 3

_HIT = re.compile(r"^(?P<path>[^\s:\[][^:]*?):(?P<n>\d+)(?P<sep>[:-])(?P<text>.*)$")
_CONTEXT = re.compile(r"^(?P<path>[^\s\[].*?)-(?P<n>\d+)-(?P<text>.*)$")  # grep -A/-B/-C: path-12-text
_BARE = re.compile(r"^(?P<path>\.{0,2}/?[\w.+@-]+(?:/[\w.+@-]+)*\.\w+):(?P<text>.*)$")  # grep -r without -n
_PATH = re.compile(r"^[^\s,:\[]*/[^\s,:]*$")


def regroup(lines: Sequence[str]) -> tuple[str, list[str]] | None:
    """``lines`` (a whole view's) with each file's or folder's prefix said once, and what was grouped.

    None when the lines are neither search hits nor paths, or grouping saves too little.

    >>> what, out = regroup(["a/x.py:1:import os", "a/x.py:2:import re", "a/x.py:9:print(os)"])
    >>> what, out
    ('hits grouped by file', ['a/x.py', '1:import os', '2:import re', '9:print(os)'])
    >>> regroup(["./src/a.py", "./src/b.py", "./src/c.py", "./doc/d.md"])[1]
    ['./src/: a.py, b.py, c.py', './doc/d.md']
    """
    for what, grouped in (("hits grouped by file", _hits(lines)), ("paths grouped by folder", _paths(lines))):
        if grouped is not None and count_tokens("\n".join(grouped)) < (1 - MIN_SAVING) * count_tokens("\n".join(lines)):
            return what, grouped
    return None


def _hits(lines: Sequence[str]) -> list[str] | None:
    out: list[str] = []
    current: str | None = None
    hits = repeated = 0
    for line in lines:
        if line == "--":
            out.append(line)
            continue
        m, shown = _hit(line, current)
        if m is None:
            if line.startswith("[") or not line:
                out.append(line)
                current = None
                continue
            return None  # a line that is neither a hit nor a notice: not a search's output
        path = m.group("path")
        if path == current:
            repeated += 1
        else:
            out.append(path)
            current = path
        hits += 1
        out.append(shown)
    return out if hits >= MIN_LINES and repeated else None


def _hit(line: str, current: str | None) -> tuple[re.Match[str] | None, str]:
    """The match of a search hit's line and the line as its file's heading shows it."""
    if m := _HIT.match(line):
        return m, f"{m.group('n')}{m.group('sep')}{m.group('text')}"
    if m := _BARE.match(line):
        return m, m.group("text")
    m = _CONTEXT.match(line) if current is not None else None  # a context line: of the file just shown
    if m is not None and m.group("path") == current:
        return m, f"{m.group('n')}-{m.group('text')}"
    return None, ""


def _paths(lines: Sequence[str]) -> list[str] | None:
    body = [line for line in lines if not line.startswith("[")]
    if len(body) < MIN_LINES or not all(_PATH.match(line) for line in body):
        return None
    out: list[str] = []
    folder: str | None = None
    names: list[str] = []

    def flush() -> None:
        if folder is not None:
            out.append(f"{folder}{names[0]}" if len(names) == 1 else f"{folder}: {', '.join(names)}")

    for line in lines:
        if line.startswith("["):
            flush()
            folder, names = None, []
            out.append(line)
            continue
        head, name = os.path.split(line.rstrip("/"))
        name += "/" if line.endswith("/") and name else ""
        where = f"{head}/" if head else ""
        if where != folder or not where:
            flush()
            folder, names = where, []
        names.append(name)
    flush()
    return out if len(out) < len(lines) else None


def regroup_view(view: ToolResult, ref: str, explicit: int | None, heads: Sequence[str], budget: int) -> ToolResult:
    """``view`` of the whole output ``ref`` regrouped (:func:`regroup`), or ``view`` itself.

    ``heads`` are the lines a view of it may lead with (its verdicts): the line that says what was
    grouped comes after the one it leads with. A view that leaves lines out is not regrouped.
    """
    total = view.meta.get("total_lines")
    if view.is_error or not total or view.meta.get("shown") != [[1, total]] or view.meta.get("view_by_tool"):
        return view
    lines = view.text.split("\n")
    top = 1 if lines[0] in heads and lines[0] else 0
    grouped = regroup(lines[top:])
    if grouped is None:
        return view
    what, body = grouped
    call = continuation("read_saved", ref=ref, budget=explicit)
    said = f'ref="{ref}"' in view.text  # (the session's footer already reads it back)
    note = f"[{what}]" if said else f"[{what}; as printed: {call_text(call)}]"
    text = "\n".join([*lines[:top], note, *body])
    if not within(text, budget) or count_tokens(text) >= (1 - MIN_SAVING) * view.tokens:
        return view
    return dataclasses.replace(view, text=text, meta={**view.meta, "regrouped": what})
