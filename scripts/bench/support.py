"""The measuring kit of ``scripts/bench.py``: timing a process, fresh stores, result rows, the table."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MB",
    "Ctx",
    "Row",
    "child",
    "child_runs",
    "exit_note",
    "fresh_calls",
    "info",
    "med",
    "ratio_info",
    "runs",
    "secs",
    "table",
    "timed",
    "unavailable",
    "wuu_argv",
]

MB = 1 << 20


def _gnu_time() -> str | None:
    path = shutil.which("time") or "/usr/bin/time"
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return path if "GNU" in out.stdout + out.stderr else None


GNU_TIME = _gnu_time()


def wuu_argv() -> list[str]:
    """How to run the ``wuu`` CLI of this interpreter's environment."""
    script = Path(sys.executable).with_name("wuu")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "wuu_tools.cli"]


def timed(
    argv: list[str], *, env: dict[str, str] | None = None, cwd: str | Path | None = None
) -> tuple[float, int, int]:
    """Run ``argv`` (stdin closed, output discarded); its wall time, peak RSS in bytes, and exit code.

    The RSS is this one process's high-water mark (with the descendants it waited for), from
    ``wait4`` -- never the maximum over all earlier children, as ``RUSAGE_CHILDREN`` gives.
    Linux carries a forked child's pre-``exec`` RSS (a copy of this process) into that mark,
    so the command is started by GNU ``time`` (a 2 MB process) when it is installed, which
    reports its own child's mark; otherwise the figure is an upper bound.
    """
    with tempfile.NamedTemporaryFile(prefix="rss-") as report:
        full = [GNU_TIME, "-f", "%M", "-o", report.name, *argv] if GNU_TIME else argv
        started = time.perf_counter()
        proc = subprocess.Popen(
            full, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        rss = usage.ru_maxrss * 1024
        if GNU_TIME:
            lines = Path(report.name).read_text().split()
            rss = int(lines[-1]) * 1024 if lines and lines[-1].isdigit() else rss
    return elapsed, rss, proc.returncode


@dataclass
class Row:
    """One measured target."""

    name: str
    measure: str
    wuu: str
    standard: str
    value: str
    target: str
    ok: bool


@dataclass
class Ctx:
    """Settings and the inputs built so far (shared by benchmarks that read the same input)."""

    tmp: Path
    quick: bool
    runs: int
    made: dict[str, object]

    def store(self) -> dict[str, str]:
        """An environment with a fresh, empty store (no cached index or listing from an earlier run)."""
        path = Path(tempfile.mkdtemp(prefix="store-", dir=self.tmp))
        env = {k: v for k, v in os.environ.items() if k != "WUU_BUDGET"}
        env["WUU_STORE"] = str(path)
        return env


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def secs(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def runs(
    ctx: Ctx,
    argv: list[str],
    *,
    fresh_store: bool = False,
    cwd: Path | None = None,
    clean: Callable[[], None] | None = None,
) -> tuple[list[float], list[int], set[int]]:
    times, rss, codes = [], [], set()
    for _ in range(ctx.runs):
        env = ctx.store() if fresh_store else None
        t, r, code = timed(argv, env=env, cwd=cwd)
        times.append(t)
        rss.append(r)
        codes.add(code)
        if env is not None:
            shutil.rmtree(env["WUU_STORE"], ignore_errors=True)
        if clean:
            clean()
    return times, rss, codes


def child(code: str, env: dict[str, str]) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter; it prints one JSON object of timings."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def unavailable(name: str, measure: str, target: str, why: str) -> Row:
    return Row(name, measure, "–", "–", f"not measured: {why}", target, False)


def fresh_calls(ctx: Ctx, imports: str, call: str, warm_up: str = "") -> tuple[list[float], list[int]]:
    """Seconds of ``call`` and peak RSS, each in a fresh interpreter with a fresh store (import not timed).

    ``warm_up`` runs before the clock starts: an earlier call on another input, as in an agent
    framework or MCP server that has already answered one (the tokenizer and lazily imported
    modules loaded), so the call is timed on its own work.
    """
    code = (
        f"import json, time\n{imports}\n{warm_up}\n"
        f"t = time.perf_counter(); r = {call}; elapsed = time.perf_counter() - t\n"
        "assert r.text and 'error' not in r.meta, r.text[:300]\n"
        "hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:')][0].split()[1]\n"
        "print(json.dumps({'time': elapsed, 'rss': int(hwm) * 1024}))"
    )
    got = child_runs(ctx, code)
    return [g["time"] for g in got], [int(g["rss"]) for g in got]


def child_runs(ctx: Ctx, code: str) -> list[dict[str, float]]:
    """:func:`child` ``ctx.runs`` times, each with a fresh, empty store (removed afterwards)."""
    out = []
    for _ in range(ctx.runs):
        env = ctx.store()
        try:
            out.append(child(code, env))
        finally:
            shutil.rmtree(env["WUU_STORE"], ignore_errors=True)
    return out


def exit_note(codes: set[int], why: str = "") -> str:
    """Nothing when every run exited 0; else the exit codes seen (and ``why`` after them)."""
    return "" if codes == {0} else f" (exit {sorted(codes)}{why})"


def info(name: str, measure: str, seconds: float, codes: set[int]) -> Row:
    return Row(name, measure, secs(seconds) + exit_note(codes), "–", "info", "–", codes == {0})


def ratio_info(name: str, measure: str, seconds: float, reference: float, ok: bool = True) -> Row:
    """A row without a target: a time and its ratio to the standard tool's (``ok`` False if it failed to run)."""
    return Row(name, measure, secs(seconds), secs(reference), f"{seconds / reference:.2f}×", "–", ok)


def table(rows: list[Row]) -> str:
    """The results as a markdown table (pipes inside cells, as in ``find . | sort``, escaped)."""
    out = [
        "| benchmark | measure | wuu-tools | standard tool | result | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [r.name, r.measure, r.wuu, r.standard, r.value, r.target, "yes" if r.ok else "NO"]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out)
