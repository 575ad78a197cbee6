"""The first views a recorded tool output is judged by: wuu-tools' views and the plain cuts of the same size.

- ``run``: the first view ``run_command`` gives of the output (:func:`wuu_tools.commands.run.project_captured`:
  saved as a command log under the same verdict, nothing re-run).
- ``read``: where the command printed one file or a range of it (``cat``, ``head``, ``sed -n``, ``nl``, Claude
  Code's Read), the first view ``read_file`` gives of that file, rebuilt from the output at its line numbers in a
  temporary folder under its own name.
- ``head+tail`` and ``head``: whole lines of the output, half the tokens from the head and half from the tail (or
  all from the head), as many tokens as the view they stand beside.
"""

from __future__ import annotations

import os
import tempfile
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from ..commands.run import project_captured
from ..core.budget import count_tokens
from ..core.result import ToolResult
from ..core.store import Store, use_store
from ..files.file import read_file
from .runs import FileRead, Output, read_of

__all__ = ["Cutter", "View", "frame_share", "replay_store", "wuu_read", "wuu_run"]


@dataclass
class View:
    """A view's text, its tokens, the view's kind (``meta["view"]``) and whether it is complete."""

    text: str
    tokens: int
    kind: str
    complete: bool
    result: ToolResult | None = None


@contextmanager
def replay_store() -> Iterator[Store]:
    """A private temporary store for the replay's saved outputs."""
    with tempfile.TemporaryDirectory(prefix="wuu-replay-") as tmp:
        store = Store(tmp)
        with use_store(store):
            yield store


def _raw(out: Output) -> bytes:
    text = out.text
    if text and not text.endswith("\n"):
        text += "\n"
    return text.encode("utf-8", "surrogateescape")


@contextmanager
def default_budget(budget: int) -> Iterator[None]:
    """``budget`` as the default (``WUU_BUDGET``), as a framework sets it: the model's calls do not repeat it."""
    old = os.environ.get("WUU_BUDGET")
    os.environ["WUU_BUDGET"] = str(budget)
    try:
        yield
    finally:
        if old is None:
            del os.environ["WUU_BUDGET"]
        else:
            os.environ["WUU_BUDGET"] = old


def wuu_run(out: Output, budget: int) -> View:
    """``run_command``'s first view of the recorded output."""
    with default_budget(budget):
        result = project_captured(out.command or "true", _raw(out), out.exit_code, cwd="/")
    return View(result.text, result.tokens, str(result.meta.get("view", "whole")), result.complete, result)


def wuu_read(out: Output, budget: int, folder: Path) -> View | None:
    """``read_file``'s first view of the file the command printed, or None when it printed no single file."""
    spec = read_of(out)
    if spec is None or not spec.lines:
        return None
    rel = _rebuild(spec, folder)
    last = spec.last if spec.last is not None else spec.first + len(spec.lines) - 1
    whole = spec.first == 1 and spec.last is None
    here = os.getcwd()
    os.chdir(folder)
    try:
        with default_budget(budget):
            result = read_file(rel, start_line=spec.first, end_line=None if whole else max(last, spec.first))
    finally:
        os.chdir(here)
    return View(result.text, result.tokens, "read_file", result.complete, result)


def _rebuild(spec: FileRead, folder: Path) -> str:
    """The file as far as the output shows it, at its path under ``folder``: blank lines, then its printed lines."""
    rel = os.path.normpath(spec.path.lstrip("/")) if spec.path.strip("/") else "file.txt"
    if rel.startswith(".."):
        rel = os.path.basename(rel)
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n" * (spec.first - 1) + "\n".join(spec.lines)
    if not body.endswith("\n"):
        body += "\n"
    path.write_text(body, encoding="utf-8", errors="surrogateescape")
    return rel


class Cutter:
    """Plain cuts of one output: whole lines from the head (and the tail) up to a number of tokens."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        costs = [count_tokens(line + "\n") for line in self.lines]
        self.head_sum = list(accumulate(costs))
        self.tail_sum = list(accumulate(reversed(costs)))
        self.total = self.head_sum[-1] if costs else 0

    def head(self, tokens: int) -> str:
        k = bisect_right(self.head_sum, tokens)
        return "\n".join(self.lines[:k])

    def head_tail(self, tokens: int) -> str:
        if tokens >= self.total:
            return "\n".join(self.lines)
        k = bisect_right(self.head_sum, tokens // 2)
        spent = self.head_sum[k - 1] if k else 0
        j = bisect_right(self.tail_sum, tokens - spent)
        j = min(j, len(self.lines) - k)
        return "\n".join(self.lines[:k] + (self.lines[len(self.lines) - j :] if j else []))


def frame_share(view: View, output: str) -> float:
    """The share of the view's tokens that are not lines of the output (notices, gutters, summaries)."""
    if not view.tokens:
        return 0.0
    lines = set(output.split("\n"))
    content = []
    for line in view.text.split("\n"):
        body = line.split("\t", 1)[1] if "\t" in line and line.split("\t", 1)[0].strip().isdigit() else line
        if body in lines and body.strip():
            content.append(body)
    used = count_tokens("\n".join(content)) if content else 0
    return max(0.0, 1 - used / view.tokens)
