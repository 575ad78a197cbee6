"""``wuu replay PATH…``: the replay on a user's own runs, beside a plain cut and rtk (``scripts/replay.py``'s steps).

Each file is read by its content (:mod:`wuu_tools.replay.sources`: Claude Code sessions, Codex
rollouts, mini-swe-agent trajectories; a folder stands for its ``*.jsonl`` and ``*.traj.json`` at any
depth). A file in no known format gets one line on stderr and is skipped; the exit status is 1 only
when no file could be read. The figures (:func:`wuu_tools.replay.own.replay_runs`) print as tables, or
as JSON with ``--json``; a progress bar runs on stderr when stderr is a terminal.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .output import plain_output
from .params import Argument, Option, command

if TYPE_CHECKING:
    from ..replay.runs import Run

DEFAULT_BUDGET = 2000
_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "mini-swe-agent": "mini-swe-agent"}


class _Bar:
    """A Rich progress bar on stderr when stderr is a terminal; otherwise nothing. Notes print above it."""

    def __init__(self) -> None:
        self.progress: Any = None
        self.tasks: dict[str, Any] = {}

    @contextlib.contextmanager
    def running(self) -> Iterator[_Bar]:
        if not sys.stderr.isatty():
            yield self
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        console = Console(file=sys.stderr)
        columns = (TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as progress:
            self.progress = progress
            try:
                yield self
            finally:
                self.progress = None

    def update(self, step: str, done: int, total: int) -> None:
        if self.progress is None:
            return
        if step not in self.tasks:
            label = {"read": "reading runs", "views": "first views (no session)", "sessions": "sessions, rtk"}
            self.tasks[step] = self.progress.add_task(label.get(step, step), total=total)
        self.progress.update(self.tasks[step], completed=done, total=total)

    def note(self, text: str) -> None:
        if self.progress is not None:
            self.progress.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr)


@command("replay")
def replay(
    paths: list[str] = Argument(
        ..., help="Runs: Claude Code *.jsonl, Codex rollout-*.jsonl, mini-swe-agent *.traj.json, or folders of them."
    ),
    budget: int = Option(DEFAULT_BUDGET, "--budget", "-b", help="Token budget of each view (default 2000)."),
    as_json: bool = Option(False, "--json", help="Print the figures as JSON (scripts/replay.py --json's keys)."),
) -> None:
    """Replay your agents' recorded runs: what wuu would have saved, and the items each view would have lost."""
    from ..replay.own import replay_runs
    from ..replay.rtk import rtk_available
    from ..replay.sources import UnreadableRun, find_paths, load_run, names_apart

    if budget < 1:
        print("wuu replay: --budget must be at least 1", file=sys.stderr)
        sys.exit(2)
    files = find_paths(Path(p) for p in paths)
    bar = _Bar()
    with bar.running():
        runs: list[Run] = []
        read: list[str] = []
        skipped: list[dict[str, str]] = []
        for n, path in enumerate(files, 1):
            try:
                runs.append(load_run(path))
                read.append(str(path))
            except UnreadableRun as exc:
                skipped.append({"path": str(path), "error": str(exc)})
                bar.note(f"wuu replay: {path}: {exc}; skipped")
            bar.update("read", n, len(files))
        if not runs:
            bar.note("wuu replay: no run could be read" + ("" if files else " (no *.jsonl or *.traj.json found)"))
            sys.exit(1)
        if not rtk_available():
            bar.note("wuu replay: rtk not installed (pip install 'wuu-tools[eval]'); its figures are left out")
        figures = replay_runs(names_apart(runs), budget, progress=bar.update)
    figures["files"] = {"read": read, "skipped": skipped}
    if as_json:
        print(json.dumps(figures, indent=2))
        return
    _print(figures)


def _print(fig: dict[str, Any]) -> None:
    sources = ", ".join(f"{n} {_NAMES.get(s, s)}" for s, n in fig["sources"].items())
    skipped = len(fig["files"]["skipped"])
    print(
        f"wuu replay: {fig['runs']} run{'s' * (fig['runs'] != 1)} ({sources}), {fig['outputs']:,} tool outputs; "
        f"{fig['counted']:,} count (over 500 tokens, with an item), {fig['items_total']:,} items; "
        f"budget {fig['budget']:,}" + (f"; {skipped} file{'s' * (skipped != 1)} skipped" if skipped else "")
    )
    print()
    w, kept = fig["whole_run"], fig["kept"]
    print("whole-run input (each request re-sends the history so far) and items kept:")
    header = ["", "tokens", "x recorded", "median run", "worst run", "items kept"]
    rows = [["as recorded", f"{w['recorded']:,}", "1.000", "1.000", "1.000", "100%"]]
    for label, key in (
        ("wuu with a session (recovery counted)", "wuu"),
        ("wuu with a session, no recovery", "wuu_no_recovery"),
        ("wuu without a session (recovery counted)", "wuu_no_session"),
        (f"plain head+tail cut at {fig['budget']:,} tokens (recovery counted)", "plain"),
        ("rtk (its hook's rewrites)", "rtk"),
    ):
        if key not in w:
            continue
        x = w[key]
        share = kept.get(key if key != "wuu_no_recovery" else "wuu")
        rows.append(
            [
                label,
                f"{x['tokens']:,}",
                f"{x['ratio']:.3f}",
                f"{x['per_run_median']:.3f}",
                f"{x['per_run_max']:.3f}",
                "-" if share is None else f"{100 * share:.1f}%",
            ]
        )
    _table(header, rows)
    saved = w["recorded"] - w["wuu"]["tokens"]
    verb = f"saves {saved:,} tokens" if saved >= 0 else f"costs {-saved:,} tokens more"
    print(
        f"   wuu with a session {verb} ({100 * abs(saved) / max(w['recorded'], 1):.1f}% of the recorded input); "
        f"reused words visible {100 * fig['reused_visible']:.1f}% of {fig['reused_words']:,}"
    )
    print()
    print("items lost (words and numbers the agent's next message used that the view does not hold):")
    for label, key in (("wuu with a session", "wuu"), ("plain head+tail cut", "plain"), ("rtk", "rtk")):
        if key not in fig["lost"]:
            continue
        x = fig["lost"][key]
        if not x["lost"]:
            print(f"  {label}: none")
            continue
        print(f"  {label}: {x['lost']:,} in {x['outputs']:,} output{'s' * (x['outputs'] != 1)}")
        for e in x["examples"]:
            more = f" (+{e['lost'] - len(e['items'])})" if e["lost"] > len(e["items"]) else ""
            print(f"    {e['run'][:40]}  $ {e['command'][:70]}  lost: {', '.join(e['items'])}{more}")


def _table(header: list[str], rows: list[list[str]]) -> None:
    if not plain_output():
        from rich.console import Console
        from rich.table import Table

        table = Table(*header, box=None, pad_edge=False)
        for c in table.columns[1:]:
            c.justify = "right"
            c.no_wrap = True
        for row in rows:
            table.add_row(*row)
        Console(highlight=False).print(table)
        return
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [c.ljust(wd) if i == 0 else c.rjust(wd) for i, (c, wd) in enumerate(zip(row, widths, strict=True))]
        print("  ".join(cells).rstrip())
