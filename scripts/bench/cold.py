"""The ``cold-start`` benchmark of ``scripts/bench.py``: ``wuu read``, ``ls``, ``saved`` and ``run`` of a small input.

Each is a fresh process, as in ``for f in logs/*; do wuu read "$f"; done`` or an agent that
starts one per call, with the user's store and cache as they are after earlier use (the
tokenizer's table written). The references run in the same rounds, taking turns with them:
``python -c pass`` on the interpreter ``wuu`` runs on (the least any Python command costs) and
``cat`` of the same file. Targets: each command at most 0.25 s and at most 8x ``python -c pass``.

The package's bytecode is compiled first (:func:`compile_package`), as ``pip install`` leaves
it: with ``PYTHONDONTWRITEBYTECODE`` set and no ``.pyc`` files, every run would compile the
package from source and measure that instead.
"""

from __future__ import annotations

import compileall
import shutil
import sys
import tempfile
from pathlib import Path

from .inputs import small_file, small_tree
from .support import Ctx, Row, exit_note, med, secs, timed, wuu_argv

__all__ = ["bench_cold_start", "compile_package"]

LIMIT_S = 0.25
LIMIT_RATIO = 8.0


def compile_package() -> None:
    """Write the ``.pyc`` files of the ``wuu_tools`` package this interpreter imports."""
    import wuu_tools

    compileall.compile_dir(str(Path(wuu_tools.__file__).parent), quiet=1)


def bench_cold_start(ctx: Ctx) -> list[Row]:
    compile_package()
    env = ctx.store()
    small = ctx.tmp / "small.py"
    small_file(small)
    tree = ctx.tmp / "small-tree"
    small_tree(tree)
    ref = small_log(Path(env["WUU_STORE"]))
    wuu = wuu_argv()
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "cat": ["cat", str(small)],
        "wuu read": [*wuu, "read", str(small)],
        "wuu ls": [*wuu, "ls", str(tree)],
        "wuu saved": [*wuu, "saved", ref],
        "wuu run": [*wuu, "run", "--", "true"],
    }
    for argv in cases.values():  # once each, untimed: the store's folders, the tokenizer's table, the page cache
        timed(argv, env=env)
    rounds = max(ctx.runs, 10)
    times: dict[str, list[float]] = {name: [] for name in cases}
    codes: dict[str, set[int]] = {name: set() for name in cases}
    for _ in range(rounds):  # taking turns, so a busy moment slows every side alike
        for name, argv in cases.items():
            t, _, code = timed(argv, env=env)
            times[name].append(t)
            codes[name].add(code)
    first = _first_run(ctx, cases["wuu read"], env)
    shutil.rmtree(env["WUU_STORE"], ignore_errors=True)
    python, cat = med(times["python -c pass"]), med(times["cat"])
    inputs = {
        "wuu read": "a 300-line file (vs cat of it)",
        "wuu ls": f"a {sum(1 for _ in tree.rglob('*'))}-entry directory",
        "wuu saved": "a saved 300-line log",
        "wuu run": "-- true",
    }
    rows = []
    for name, what in inputs.items():
        t = med(times[name])
        ratio = t / python
        rows.append(
            Row(
                "cold-start",
                f"{name} {what}, fresh process (vs python -c pass, median of {rounds}, taking turns)"
                + exit_note(codes[name]),
                secs(t),
                secs(python) + (f"; cat {secs(cat)}" if name == "wuu read" else ""),
                f"{ratio:.1f}×",
                f"≤ {LIMIT_S:.2f} s and ≤ {LIMIT_RATIO:.0f}×",
                t <= LIMIT_S and ratio <= LIMIT_RATIO and codes[name] == {0},
            )
        )
    rows.append(
        Row(
            "cold-start",
            "wuu read, the first run on a machine (empty cache: the tokenizer is loaded, its table written)",
            secs(med(first)),
            "–",
            "info",
            "–",
            True,
        )
    )
    return rows


def _first_run(ctx: Ctx, argv: list[str], env: dict[str, str]) -> list[float]:
    """``argv`` with an empty user cache each time (``XDG_CACHE_HOME``): what the very first call costs."""
    times = []
    for _ in range(ctx.runs):
        cache = tempfile.mkdtemp(prefix="cache-", dir=ctx.tmp)
        t, _, _ = timed(argv, env={**env, "XDG_CACHE_HOME": cache})
        times.append(t)
        shutil.rmtree(cache, ignore_errors=True)
    return times


def small_log(store: Path) -> str:
    """A 300-line build log saved in ``store``; its reference."""
    from wuu_tools.core.store import Store

    lines = [f"compiling unit {i} of 300 ... ok" for i in range(1, 300)] + ["build finished: 299 units"]
    return Store(store).save("\n".join(lines) + "\n", "log")
