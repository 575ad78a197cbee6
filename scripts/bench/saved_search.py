"""The ``saved-search`` benchmark of ``scripts/bench.py``: ``read_saved(ref, pattern=…)`` against ``grep -n``.

A log of ~420 MB (the size of the issue that asked for it; 42 MB with ``--quick``) with an
error line every ~1,000 lines is saved by ``run_command`` (which also writes its line index),
then searched in one warm process, as an agent framework or MCP server searches it, with the
search the first view of a failing command suggests (``GREP_HINT``: an alternation of a dozen
words, smart case makes it case-insensitive); ``grep -n -i -E`` searches the same file with
its output to a file (to ``/dev/null``, GNU grep stops at the first match). Two rows of
information follow: a literal word, and the catastrophic-backtracking pattern ``(a+)+$``
(linear for both engines; Python's ``re`` would not return on such a line).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .support import MB, Ctx, Row, med, ratio_info, secs, unavailable

__all__ = ["bench_saved_search"]

LINE = "{:>10} INFO request handled path=/api/v2/items/{} status=200 bytes={} ms={}\n"
ERROR = "{:>10} ERROR worker-{} failed: connection refused (attempt {})\n"


def _log(path: Path, size: int) -> None:
    """A log of about ``size`` bytes: request lines, and an error line every 997 lines."""
    rng = random.Random(7)
    lines = [
        ERROR.format(i, i % 7, i % 5)
        if i % 997 == 0
        else LINE.format(i, rng.randint(1, 99999), rng.randint(10, 99999), rng.randint(1, 999))
        for i in range(100_000)
    ]
    block = "".join(lines).encode()
    with path.open("wb") as fh:
        for _ in range(max(1, size // len(block))):
            fh.write(block)


def _grep(ctx: Ctx, path: Path, pattern: str) -> list[float]:
    """Seconds of ``grep -n -i -E pattern path > file``, ``ctx.runs`` times."""
    times = []
    out = ctx.tmp / "grep.out"
    for _ in range(ctx.runs):
        with out.open("wb") as sink:
            started = time.perf_counter()
            subprocess.run(["grep", "-n", "-i", "-E", pattern, str(path)], stdout=sink, check=False)
            times.append(time.perf_counter() - started)
    out.unlink(missing_ok=True)
    return times


def bench_saved_search(ctx: Ctx) -> list[Row]:
    from wuu_tools.logs.view import GREP_HINT

    path = ctx.tmp / "search.log"
    _log(path, (42 if ctx.quick else 420) * MB)
    size = f"{path.stat().st_size / MB:,.0f} MB"
    patterns = {"hint": GREP_HINT, "word": "connection refused", "backtracking": "(a+)+$"}
    env = ctx.store()
    code = (
        "import json, sys, time\nfrom wuu_tools import read_saved, run_command\n"
        f"ref = run_command(['cat', {str(path)!r}]).source\nout = {{}}\n"
        f"for name, pattern in json.loads({json.dumps(json.dumps(patterns))}).items():\n"
        "    read_saved(ref, pattern=pattern)  # the page cache warm, as for grep\n"
        "    ts = []\n"
        f"    for _ in range({ctx.runs}):\n"
        "        t = time.perf_counter(); r = read_saved(ref, pattern=pattern); ts.append(time.perf_counter() - t)\n"
        "        assert 'error' not in r.meta, r.text[:300]\n"
        "    out[name] = ts\n"
        "print(json.dumps(out))"
    )
    try:
        got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
        if got.returncode != 0:
            raise RuntimeError(got.stderr.strip().splitlines()[-1] if got.stderr.strip() else f"exit {got.returncode}")
        times = json.loads(got.stdout.strip().splitlines()[-1])
    except RuntimeError as exc:
        return [unavailable("saved-search", f"read_saved(pattern=…) of a {size} log", "≤ 3×", str(exc))]
    finally:
        shutil.rmtree(env["WUU_STORE"], ignore_errors=True)
    grep = {name: med(_grep(ctx, path, pattern)) for name, pattern in patterns.items()}
    ratio = med(times["hint"]) / grep["hint"]
    return [
        Row(
            "saved-search",
            f"read_saved(ref, pattern=the view's suggested search), {size} saved log, warm process (vs grep -n -i -E)",
            secs(med(times["hint"])),
            secs(grep["hint"]),
            f"{ratio:.2f}×",
            "≤ 3×",
            ratio <= 3,
        ),
        ratio_info(
            "saved-search", 'the same with a literal, pattern="connection refused"', med(times["word"]), grep["word"]
        ),
        ratio_info(
            "saved-search",
            'the same with the backtracking pattern "(a+)+$" (no match; RE2 and grep both linear)',
            med(times["backtracking"]),
            grep["backtracking"],
        ),
    ]
