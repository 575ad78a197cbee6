"""The ``conv-stream`` benchmark of ``scripts/bench.py`` (issue 35): ``wuu conv`` on 100 MB and 1 GB sessions.

The sessions are a genuine Claude Code session concatenated to size by ``big_transcript.py``
(96 MiB; 10 MiB with ``--quick``; 1 GiB only with ``--conv-1g``, never in the test suite).
Each is read by the CLI as a new user would: the first view with a fresh store (the turn
index built), the same view again (index kept), a ``--before-turn`` continuation from the
middle and a ``--pattern`` search, each with its time and peak RSS. The floors beside them
are a Python process reading the file and counting its lines, and ``grep -c`` of the pattern.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from .big_transcript import SOURCE, make
from .support import MB, Ctx, Row, exit_note, med, runs, secs, timed, unavailable, wuu_argv

__all__ = ["bench_conv_stream"]

PATTERN = "initials"
"""A word of the session's requests: it matches a few turns in each copy, as a search an agent makes."""
RSS_CAP = 150 * MB


def _floor(ctx: Ctx, argv: list[str]) -> float:
    return med([timed(argv)[0] for _ in range(ctx.runs)])


def _grep(ctx: Ctx, path: Path) -> float:
    """Seconds of ``grep -c PATTERN path > file`` (to ``/dev/null``, GNU grep stops at the first match)."""
    times = []
    out = ctx.tmp / "grep.out"
    for _ in range(ctx.runs):
        with out.open("wb") as sink:
            started = time.perf_counter()
            subprocess.run(["grep", "-c", PATTERN, str(path)], stdout=sink, check=False)
            times.append(time.perf_counter() - started)
    out.unlink(missing_ok=True)
    return med(times)


def _kept(ctx: Ctx, argv: list[str], env: dict[str, str]) -> tuple[float, int, set[int]]:
    """Median time, highest RSS and exit codes of ``argv`` with the store (and its index) kept."""
    got = [timed(argv, env=env) for _ in range(ctx.runs)]
    return med([g[0] for g in got]), max(g[1] for g in got), {g[2] for g in got}


def _one(ctx: Ctx, mib: float, label: str) -> list[Row]:
    path = ctx.tmp / f"session-{label}.jsonl"
    if not SOURCE.is_file():
        return [unavailable("conv-stream", f"wuu conv, {label} session", "≤ 4×", f"{SOURCE} is absent")]
    make(path, mib)
    size = f"{path.stat().st_size / MB:,.0f} MiB"
    view = [*wuu_argv(), "conv", str(path), "--budget", "1500"]
    count = _floor(ctx, [sys.executable, "-c", f"print(open({str(path)!r}, 'rb').read().count(b'\\n'))"])
    grep = _grep(ctx, path)
    first_t, first_rss, codes = runs(ctx, view, fresh_store=True)
    env = ctx.store()
    try:
        timed(view, env=env)  # the index built once, then kept
        second, second_rss, codes2 = _kept(ctx, view, env)
        turns = subprocess.run([*view, "--json"], capture_output=True, text=True, env=env, check=False).stdout
        total = int(turns.split('"total_turns": ')[1].split(",")[0]) if '"total_turns": ' in turns else 2
        older, older_rss, codes3 = _kept(ctx, [*view, "--before-turn", str(total // 2)], env)
        search, search_rss, codes4 = _kept(ctx, [*view, "--pattern", PATTERN], env)
    finally:
        shutil.rmtree(env["WUU_STORE"], ignore_errors=True)
    first = med(first_t)
    rss = max([*first_rss, second_rss, older_rss, search_rss])
    mb = f"{max(first_rss) / MB:.0f} MB"
    return [
        Row(
            "conv-stream",
            f"wuu conv first view, {size} session, index built, peak {mb} (vs python line count)",
            secs(first) + exit_note(codes),
            secs(count),
            f"{first / count:.2f}×",
            "≤ 4×",
            first <= 4 * count and codes == {0},
        ),
        Row(
            "conv-stream",
            f"the same view again, index kept, peak {second_rss / MB:.0f} MB (vs python line count)",
            secs(second) + exit_note(codes2),
            secs(count),
            f"{second / count:.2f}×",
            "≤ 1×",
            second <= count and codes2 == {0},
        ),
        Row(
            "conv-stream",
            f"--before-turn {total // 2} continuation, index kept, peak {older_rss / MB:.0f} MB (vs python line count)",
            secs(older) + exit_note(codes3),
            secs(count),
            f"{older / count:.2f}×",
            "–",
            codes3 == {0},
        ),
        Row(
            "conv-stream",
            f"--pattern {PATTERN}, index kept, peak {search_rss / MB:.0f} MB (vs grep -c)",
            secs(search) + exit_note(codes4),
            secs(grep),
            f"{search / grep:.2f}×",
            "≤ 3×",
            search <= 3 * grep and codes4 == {0},
        ),
        Row(
            "conv-stream",
            f"peak RSS of all four, {size} session",
            f"{rss / MB:.0f} MB",
            "–",
            f"{rss / MB:.0f} MB",
            "≤ 150 MB",
            rss <= RSS_CAP,
        ),
    ]


def bench_conv_stream(ctx: Ctx) -> list[Row]:
    rows = _one(ctx, 10 if ctx.quick else 96, "100m")
    if ctx.made.get("conv-1g"):
        rows += _one(ctx, 1024, "1g")
    return rows
