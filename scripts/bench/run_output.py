"""The ``run-output`` benchmark of ``scripts/bench.py``: ``wuu run`` of 1 GB of output against ``> out.txt``.

Three commands take turns, each after the same preparation (:func:`settle`):

- the shell redirection, ``sh -c 'yes | head -c N > out.txt'``, the target's reference;
- ``wuu run -- sh -c 'yes | head -c N'``;
- the pipe hop alone: the same bytes through a pipe, moved into a file by ``os.splice`` in
  the kernel with no work beside it (no counting, no tail, no view). Any capture that reads
  a command through a pipe, as ``wuu run`` must to keep stdout and stderr apart and never lose
  a byte, costs at least this; it is shown so the reference ratio can be read against it.

Each side's time depends on the free memory it meets: on a virtual machine whose host takes
back memory the guest left free for a while, the first touch of such a page costs a host
fault. Measured here, ``yes | head -c 1G > out.txt`` took 2.2-3.1 s (2.5-3.5 s of system
time) after 5 s idle and 0.61-0.62 s right after 1.5 GB had been written and deleted. So
before every run the same scratch file is written and deleted, and the disk synced.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from .support import MB, Ctx, Row, exit_note, med, ratio_info, secs, timed, unavailable, wuu_argv

__all__ = ["bench_run_output", "settle"]

SPLICE = """
import contextlib, fcntl, os, sys
with contextlib.suppress(OSError):  # a bigger pipe, as wuu run asks for
    fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, 1 << 20)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
while os.splice(0, fd, 1 << 20):
    pass
"""


def settle(scratch: Path, size: int) -> None:
    """Write ``size`` bytes to ``scratch``, delete it and sync: the next run meets recently freed memory."""
    block = bytes(MB)
    with scratch.open("wb") as fh:
        for _ in range(size // MB):
            fh.write(block)
    scratch.unlink()
    os.sync()


def bench_run_output(ctx: Ctx) -> list[Row]:
    n = (100 if ctx.quick else 1000) * 1_000_000
    name = "run-output"
    probe = subprocess.run([*wuu_argv(), "run", "--help"], capture_output=True, check=False)
    if probe.returncode != 0:
        why = "`wuu run` is not available in this checkout"
        return [
            unavailable(name, "wuu run -- yes | head", "≤ 1.3×", why),
            unavailable(name, "peak RSS of wuu run", "≤ 100 MB", why),
        ]
    out = ctx.tmp / "out.txt"
    to_out = shlex.quote(str(out))
    scratch = ctx.tmp / "settle.bin"
    gen = f"yes | head -c {n}"
    hop = (
        f"{gen} | {shlex.quote(sys.executable)} -c {shlex.quote(SPLICE)} {to_out}"
        if hasattr(os, "splice")
        else f"{gen} | cat > {to_out}"
    )
    pairs = ctx.runs if ctx.quick else max(ctx.runs, 5)
    ref: list[float] = []
    floor: list[float] = []
    times: list[float] = []
    rss: list[int] = []
    codes: set[int] = set()
    floor_codes: set[int] = set()
    for _ in range(pairs):
        settle(scratch, n * 3 // 2)
        ref.append(timed(["sh", "-c", f"{gen} > {to_out}"])[0])
        out.unlink(missing_ok=True)
        env = ctx.store()
        settle(scratch, n * 3 // 2)
        t, r, code = timed([*wuu_argv(), "run", "--", "sh", "-c", gen], env=env)
        shutil.rmtree(env["WUU_STORE"], ignore_errors=True)
        times.append(t)
        rss.append(r)
        codes.add(code)
        settle(scratch, n * 3 // 2)
        t, _, code = timed(["sh", "-c", hop])
        floor.append(t)
        floor_codes.add(code)
        out.unlink(missing_ok=True)
    ratio = med(times) / med(ref)
    spread = f"{secs(min(ref))}-{secs(max(ref))}"
    return [
        Row(
            name,
            f"wuu run -- sh -c 'yes | head -c {n:,}' vs > out.txt (median of {pairs}, taking turns, "
            f"memory settled before each; the redirection's runs: {spread})",
            secs(med(times)),
            secs(med(ref)),
            f"{ratio:.2f}×" + exit_note(codes),
            "≤ 1.3×",
            ratio <= 1.3 and codes == {0},
        ),
        ratio_info(
            name,
            "the pipe hop alone: the same bytes piped, spliced into out.txt in the kernel, "
            "nothing else done (the least any capture through a pipe costs)" + exit_note(floor_codes, ": not measured"),
            med(floor),
            med(ref),
            ok=floor_codes == {0},
        ),
        Row(
            name,
            "peak RSS of wuu run",
            f"{max(rss) / MB:.0f} MB",
            "–",
            f"{max(rss) / MB:.0f} MB",
            "≤ 100 MB",
            max(rss) <= 100 * MB,
        ),
    ]
