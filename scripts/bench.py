#!/usr/bin/env python3
"""Measure every speed and memory target of the tool issues against the standard tool, in one run.

Each benchmark runs the wuu-tools side and the standard tool (``wc -l``, ``tail``, ``find``,
shell redirection, a direct upstream MCP call) several times in the same run and compares
medians; peak RSS is each child process's own (``wait4``). Prints one table and exits 1
when a target is missed (or cannot be measured), 0 otherwise. Not run in CI (minutes, GBs)::

    python scripts/bench.py                  # everything, full sizes
    python scripts/bench.py --quick          # 1/10 sizes, fewer runs: a smoke run
    python scripts/bench.py --only ls-first-view,mcp-proxy
    python scripts/bench.py --only conv-stream --conv-1g   # issue 35's sessions, 100 MB and 1 GB
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench.cases import BENCHMARKS
from bench.cold import compile_package
from bench.support import Ctx, Row, table

ALIASES = {"read-cold": "cold-start"}  # the name of its first row before it measured every command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help=f"comma-separated benchmarks: {', '.join(BENCHMARKS)}")
    parser.add_argument("--quick", action="store_true", help="1/10 input sizes and 3 runs")
    parser.add_argument("--runs", type=int, help="runs per measurement (default: 5, or 3 with --quick)")
    parser.add_argument("--tmp", type=Path, help="where the big inputs go (default: a new temp folder)")
    parser.add_argument("--conv-1g", action="store_true", help="conv-stream also on a 1 GiB session (minutes)")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(BENCHMARKS)
    names = [ALIASES.get(n, n) for n in names]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmarks: {', '.join(unknown)} (known: {', '.join(BENCHMARKS)})")
    compile_package()  # measure the package as pip installs it, bytecode compiled
    tmp = Path(tempfile.mkdtemp(prefix="wuu-bench-", dir=args.tmp))
    ctx = Ctx(tmp, args.quick, args.runs or (3 if args.quick else 5), {"conv-1g": args.conv_1g})
    rows: list[Row] = []
    try:
        for name in names:
            print(f"running {name} ...", file=sys.stderr, flush=True)
            rows += BENCHMARKS[name](ctx)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(table(rows))
    targets = [r for r in rows if r.target != "–"]  # the rest are information (the same through the CLI)
    missed = [r for r in rows if not r.ok]
    met = len(targets) - len([r for r in missed if r in targets])
    print(f"\n{met}/{len(targets)} targets met" + (" (--quick sizes)" if args.quick else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
