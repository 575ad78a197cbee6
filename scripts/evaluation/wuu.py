"""The wuu-tools policy: the real tools, called as an agent would, following ``continuation``.

First call: ``run_command`` for a failing build, ``read_file`` for a file, ``list_dir`` for a
tree, ``read_conversation`` for a transcript, ``project_result`` for an MCP result. When the
evidence is not in view, the agent greps where a real agent would -- ``read_saved(ref,
pattern=...)`` over a saved result, ``grep``/``find`` through ``run_command`` otherwise --
reads around the first match with ``read_file``, then follows the first view's continuation
chain until the evidence shows or the chain ends. A call *advances* when its ``meta`` shows
a line (turn, slice of a long line) of the source that no earlier call of the task had
shown, and at least one of its text lines is new. A continuation that does not advance
breaks invariant 3; a search that does not advance only means the pattern found nothing new.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from wuu_tools.core.errors import WuuError
from wuu_tools.core.result import ToolResult, call_text, continuation
from wuu_tools.toolset.toolset import TOOLS

from .agent import Call
from .tasks import COMMAND_KINDS, Task, mcp_result, normalize

__all__ = ["Progress", "WuuPolicy", "tool"]

_MATCH = re.compile(r"(?m)^(?:\s*\d+\t)?(\d+):")


def tool(name: str) -> Callable[..., ToolResult]:
    """The tool function ``name`` (ImportError while its module has not landed)."""
    module, _, attr = TOOLS[name].partition(":")
    fn: Callable[..., ToolResult] = getattr(importlib.import_module(module), attr)
    return fn


class WuuPolicy:
    """wuu-tools at ``budget`` tokens (None: the default budget)."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = budget
        self.name = "wuu-tools" if budget is None else f"wuu-tools@{budget}"

    def calls(self, task: Task) -> Iterator[Call]:
        return _WuuRun(task, self.budget).calls()

    def first_call(self, task: Task) -> tuple[Call, Progress]:
        """The natural first call of ``task``, and the progress it made (for an agent that goes on)."""
        run = _WuuRun(task, self.budget)
        return next(run.calls()), run.progress


class Progress:
    """What a task's calls have shown so far: source units per source, and text lines."""

    def __init__(self, default_key: str) -> None:
        self.default_key = default_key
        self.units: dict[str, set[tuple[int, int]]] = {}
        self.lines_seen: set[str] = set()

    def advances(self, result: ToolResult) -> bool:
        """New source units per ``meta`` (when it names them) and at least one new text line."""
        novel = {ln for ln in normalize(result.text).split("\n") if ln} - self.lines_seen
        self.lines_seen |= novel
        meta = result.meta
        spans = meta.get("shown") if "shown" in meta else meta.get("shown_turns")
        if spans is None or not isinstance(spans, list):
            return bool(novel)
        key = str(result.source or meta.get("path") or self.default_key)
        units = {
            (n, 0)
            for pair in spans
            if isinstance(pair, list | tuple) and len(pair) == 2
            for n in range(int(pair[0]), int(pair[1]) + 1)
        }
        if "partial_line" in meta:  # a slice of one long line: the unit is the slice, named by where it ends
            part = int(meta["partial_line"])
            units = {u for u in units if u[0] != part} | {(part, int(meta.get("next_char", -1)))}
        before = self.units.setdefault(key, set())
        new = units - before
        before |= units
        return bool(new) and bool(novel)


class _WuuRun:
    def __init__(self, task: Task, budget: int | None) -> None:
        self.task = task
        self.budget = budget
        self.progress = Progress(str(task.path))

    def _invoke(self, name: str, args: dict[str, Any], request: str | None = None) -> tuple[Call, ToolResult]:
        try:
            result = tool(name)(**args)
        except WuuError as exc:
            result = ToolResult.from_error(exc, name)
        text = result.text
        call = Call(request or call_text(continuation(name, **args)), text, advancing=self.progress.advances(result))
        call.images = [a.get("data", "") for a in result.attachments if a.get("type") == "image"]
        return call, result

    def _args(self, **args: Any) -> dict[str, Any]:
        return {k: v for k, v in {**args, "budget": self.budget}.items() if v is not None}

    def calls(self) -> Iterator[Call]:
        task = self.task
        kind = task.kind
        path = str(task.path)
        if kind in COMMAND_KINDS:
            argv = ["sh", "-c", 'cat "$1"; exit "$2"', "sh", path, str(task.source.get("exit_code", 1))]
            label = f'run_command(command="{task.source["label"]}")'
            call, first = self._invoke("run_command", self._args(command=argv), label)
        elif kind == "mcp":
            result = mcp_result(task)
            call, first = self._invoke(
                "project_result", self._args(result=result, tool=task.source["tool"]), f"{task.source['tool']}({{}})"
            )
        elif kind == "tree":
            call, first = self._invoke("list_dir", self._args(path=path))
        elif kind == "transcript":
            call, first = self._invoke("read_conversation", self._args(path=path))
        else:
            call, first = self._invoke("read_file", self._args(path=path))
        yield call
        if task.search is not None:
            yield from self._search(first)
        cont = first.continuation
        while cont is not None:
            call, result = self._invoke(cont["tool"], dict(cont["args"]))
            yield call
            cont = result.continuation

    def _searched(self, name: str, args: dict[str, Any], request: str | None = None) -> Call:
        call = self._invoke(name, args, request)[0]
        call.search = True
        return call

    def _search(self, first: ToolResult) -> Iterator[Call]:
        s = self.task.search
        assert s is not None
        kind = self.task.kind
        path = str(self.task.path)
        if kind in (*COMMAND_KINDS, "mcp"):
            if first.source:
                pattern = f"(?i){s.pattern}" if s.ignore_case else s.pattern
                yield self._searched("read_saved", self._args(ref=first.source, pattern=pattern))
            return
        if kind == "tree":
            argv = ["find", ".", "-path", f"*{s.pattern}*"]
            request = f'run_command(command="find . -path \'*{s.pattern}*\'", cwd="{path}")'
            yield self._searched("run_command", self._args(command=argv, cwd=path), request)
            return
        opt = ["-i"] if s.ignore_case else []
        if s.mode == "only":
            argv = ["grep", "-n", "-o", *opt, "-E", f"{s.pattern}.{{0,80}}", path]
        else:
            argv = ["grep", "-n", *opt, "-E", s.pattern, path]
        shown = " ".join(a if re.fullmatch(r"[\w./-]+", a) else repr(a) for a in argv)
        call = self._searched("run_command", self._args(command=argv), f'run_command(command="{shown}")')
        yield call
        hit = _MATCH.search(call.text)
        if s.read_after and s.mode == "lines" and hit:
            n = int(hit.group(1))
            around = self._args(path=path, start_line=max(1, n - 2), end_line=n + s.read_after)
            yield self._invoke("read_file", around)[0]
