"""``wuu ls [PATH]``: a directory as complete paths; a tree on a terminal, the exact text when piped."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..core.result import ToolResult
from .output import run_tool
from .params import Argument, Option, command

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = ["CUT", "fit_width", "ls", "render_tree"]


def _split(line: str) -> tuple[str, str, str] | None:
    """``(path, shown, rest)`` of an entry line (``shown`` as printed, quoted or not), or None for a notice."""
    if line.startswith(("[", "…")) or not line:
        return None
    if line.startswith('"'):
        try:
            path, end = json.JSONDecoder().raw_decode(line)
        except ValueError:
            return None
        if line[end : end + 1] == "/":
            path, end = path + "/", end + 1
        return path, line[:end], line[end:]
    cut = line.find("  (")
    head = line if cut < 0 else line[:cut]
    arrow = head.find(" -> ")
    path = head if arrow < 0 else head[:arrow]
    return path, path, line[len(path) :]


CUT = "…"
"""Marks the middle of a path cut to fit the terminal's width (its start and its end are kept)."""


def fit_width(text: str, width: int) -> str:
    """``text`` cut in the middle, marked with :data:`CUT`, to ``width`` terminal cells; as it is when it fits.

    >>> fit_width("src/" + "n" * 20 + "A.py", 16)
    'src/nnnn…nnnA.py'
    """
    from rich.cells import cell_len

    if cell_len(text) <= width:
        return text
    room = max(width - 1, 2)
    head, tail = text[: (room + 1) // 2], text[len(text) - room // 2 :]
    while cell_len(head) + cell_len(tail) > room and (head or tail):  # wide characters take two cells
        head, tail = (head[:-1], tail) if cell_len(head) >= cell_len(tail) else (head, tail[1:])
    return head + CUT + tail


def _label(shown: str, rest: str, width: int | None = None) -> Text:
    from rich.cells import cell_len
    from rich.text import Text

    is_dir = shown.endswith("/")
    facts = rest.find("  (")
    if width is not None and cell_len(shown) + cell_len(rest) > width:
        # Too wide for the terminal: the path loses its middle (marked) and keeps its end; what
        # it is (size, entries, link) is cut before the path is.
        facts_text = rest[facts:] if facts > 0 else rest
        room = max(width - cell_len(rest if facts <= 0 else rest[:facts]) - min(cell_len(facts_text), 24), 12)
        cut = fit_width(shown.rstrip("/"), room - (1 if is_dir else 0)) + ("/" if is_dir else "")
        if cut != shown:
            shown = cut
            rest = fit_width(rest, max(width - cell_len(shown), 8))
            facts = rest.find("  (")
    parent, slash, name = shown.rstrip("/").rpartition("/")
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(parent + slash, style="dim")
    text.append(name + ("/" if is_dir else ""), style="bold blue" if is_dir else "bold")
    if facts > 0:
        text.append(rest[:facts], style="cyan")
        rest = rest[facts:]
    text.append(rest, style="yellow" if "not listed" in rest or "unreadable" in rest else "dim")
    return text


def render_tree(result: ToolResult, console: Console) -> None:
    """Print a listing as a tree whose every node is still the entry's complete path."""
    from rich.text import Text
    from rich.tree import Tree

    tree = Tree("", hide_root=True, guide_style="dim")
    nodes: dict[str, Tree] = {}
    before: list[Text] = []
    after: list[Text] = []
    for line in result.text.split("\n"):
        parts = _split(line)
        if parts is None:
            if line.startswith("[changed") or line.startswith("error:"):
                before.append(Text(line, style="bold red"))
            elif line.startswith("[") and not nodes and not after:
                before.append(Text(line, style="bold cyan"))
            else:
                after.append(Text(line, style="yellow" if line.startswith("…") else "cyan"))
            continue
        path, shown, rest = parts
        key = path.rstrip("/")
        parent = nodes.get(key.rpartition("/")[0], tree)
        depth = key.count("/") if parent is not tree else 0
        nodes[key] = parent.add(_label(shown, rest, console.width - 4 * depth - 1))
    for text in before:
        console.print(text)
    if nodes:
        console.print(tree, soft_wrap=False)  # each line fits the width: a path too long is cut in the middle, marked
    for text in after:
        console.print(text)


@command("ls")
def ls(
    path: str = Argument(".", help="Directory to list."),
    depth: int = Option(2, "--depth", "-d", help="Levels to list (1 = its own entries)."),
    show_all: bool = Option(False, "--all", "-a", help="Also list ignored files, VCS metadata and heavy folders."),
    cursor: str | None = Option(None, "--cursor", "-c", help="Cursor from an earlier result."),
    revision: str | None = Option(None, "--revision", help="Revision the caller last saw."),
    budget: int | None = Option(None, "--budget", "-b", help="Token budget of the view."),
    as_json: bool = Option(False, "--json", help="Print the result envelope as JSON."),
) -> None:
    """List a directory as complete paths, breadth-first, within a token budget."""

    def call() -> ToolResult:
        from ..dirs.listing import list_dir

        return list_dir(
            path,
            depth=depth,
            cursor=cursor,
            include_ignored=show_all,
            revision=revision,
            budget=budget,
        )

    run_tool(call, as_json, _render)


def _render(result: ToolResult) -> None:
    from rich.console import Console

    render_tree(result, Console(highlight=False, soft_wrap=True))
