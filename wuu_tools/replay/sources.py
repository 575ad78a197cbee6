"""Where recorded runs come from: files and folders, each file's format told from its content.

A folder stands for every ``*.traj.json`` and ``*.jsonl`` under it, at any depth (so
``~/.claude/projects`` and ``~/.codex/sessions`` can be given as they are); a file is read once however
often it is named, and runs of the same name are told apart (the figures key runs by name). A file is read by what
it holds, whatever its name: one JSON object with ``messages`` is a mini-swe-agent trajectory;
JSON lines are a Codex rollout (:mod:`.codex`) when their first lines are a rollout's, a Claude Code
session when a line is a ``user`` or ``assistant`` message. Anything else is :class:`UnreadableRun`,
whose message says in one line why.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .codex import looks_like_rollout, read_rollout
from .runs import Run, fill_items, read_claude, read_trajectory

__all__ = ["UnreadableRun", "find_paths", "load_run", "load_runs", "names_apart"]


class UnreadableRun(ValueError):
    """A file that is no recorded run the replay reads (its message is one line)."""


def find_paths(roots: Iterable[Path]) -> list[Path]:
    """The files ``roots`` stand for, sorted and without repeats; a folder gives its runs at any depth."""
    paths: list[Path] = []
    for root in roots:
        if root.is_dir():
            paths.extend(sorted(root.rglob("*.traj.json")))
            paths.extend(sorted(root.rglob("*.jsonl")))
        else:
            paths.append(root)
    once: dict[Path, Path] = {}
    for path in sorted(paths):  # a file given twice (on its own and in its folder) is read once
        once.setdefault(path.resolve(), path)
    return sorted(once.values())


def names_apart(runs: list[Run]) -> list[Run]:
    """``runs`` with each name told apart: a name two files share gets `` (2)``, `` (3)``… after the first."""
    seen: dict[str, int] = {}
    for run in runs:
        n = seen[run.name] = seen.get(run.name, 0) + 1
        if n > 1:
            run.name = f"{run.name} ({n})"
            for out in run.outputs:
                out.run = run.name
    return runs


def _json_lines(text: str) -> list[tuple[int | None, dict[str, Any]]]:
    records: list[tuple[int | None, dict[str, Any]]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            records.append((n, entry))
    return records


def load_run(path: Path) -> Run:
    """The run recorded in ``path``, its items filled; :class:`UnreadableRun` when it holds none."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UnreadableRun(f"cannot read it ({exc.strerror or exc})") from None
    run = _read(path, text)
    fill_items(run)
    return run


def _read(path: Path, text: str) -> Run:
    head = text.lstrip()[:1]
    if head == "{" and not path.name.endswith(".jsonl"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("messages"), list):
            return read_trajectory(path, data)
        if isinstance(data, dict) and not looks_like_rollout([data]) and data.get("type") not in ("user", "assistant"):
            raise UnreadableRun("unknown format: a JSON object without `messages` (not a mini-swe-agent trajectory)")
    records = _json_lines(text)
    if not records:
        what = "a JSON list" if head == "[" else "no JSON object in it"
        raise UnreadableRun(f"unknown format: {what} (Claude Code, Codex or mini-swe-agent expected)")
    if looks_like_rollout([r for _, r in records]):
        return read_rollout(path, records)
    run = read_claude(path, [r for _, r in records])
    if run is not None:
        return run
    kinds = sorted({str(r["type"]) for _, r in records[:50] if isinstance(r.get("type"), str)})[:4]
    what = f"JSON lines of type {', '.join(kinds)}" if kinds else "JSON lines without a `type`"
    raise UnreadableRun(f"unknown format: {what} (Claude Code, Codex or mini-swe-agent expected)")


def load_runs(roots: list[Path], skipped: Callable[[Path, str], None] | None = None) -> list[Run]:
    """Every run under ``roots`` (folders or files), in a stable order; ``skipped`` hears each file left out."""
    runs = []
    for path in find_paths(roots):
        try:
            runs.append(load_run(path))
        except UnreadableRun as exc:
            if skipped is not None:
                skipped(path, str(exc))
    return names_apart(runs)
