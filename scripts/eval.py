#!/usr/bin/env python3
"""Evaluate wuu-tools across whole tasks against the peers' documented output policies.

Runs the generated task suite (``fixtures/eval/generate.py``; generated on first use) and,
when present, the real material in ``../shared/realdata`` with its ground truth, under
every policy; then the same suite with wuu-tools at budgets 500-8,000. Writes
``docs/eval.md``, ``docs/eval.png`` and ``docs/eval-sweep.png`` and prints the markdown
(or, with ``--json``, the whole report as JSON)::

    python scripts/eval.py                       # the full run (a few minutes)
    python scripts/eval.py --json > eval.json    # for programs
    python scripts/eval.py --scale tiny --suite /tmp/s --no-write   # a quick look
    WUU_EVAL_MODEL=gpt-4.1-mini python scripts/eval.py --model --policies wuu-tools   # with a real model
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evaluation.agent import Policy, Trace, run_task
from evaluation.chart import available, write_charts
from evaluation.logchunks import eval_section, eval_tasks
from evaluation.model import from_env
from evaluation.peer_agent import PeerPolicy
from evaluation.peers import PEERS
from evaluation.report import Summary, markdown, summarize, to_json
from evaluation.tasks import Task, load_manifest, realdata_tasks
from evaluation.wuu import WuuPolicy

from wuu_tools.core.budget import resolve_budget
from wuu_tools.core.errors import InvalidArgument

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SUITE = ROOT / "fixtures" / "generated" / "eval"
DEFAULT_REALDATA = ROOT.parent / "shared" / "realdata"
SWEEP = (500, 1000, 2000, 4000, 8000)


def _suite(args: argparse.Namespace) -> tuple[list[Task], list[str]]:
    manifest = args.suite / "manifest.json"
    stale = manifest.is_file() and json.loads(manifest.read_text()).get("scale") != args.scale
    if args.regenerate or not manifest.is_file() or stale:
        gen = ROOT / "fixtures" / "eval" / "generate.py"
        subprocess.run(
            [sys.executable, str(gen), "--out", str(args.suite), "--scale", args.scale],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    tasks = load_manifest(manifest)
    skipped: list[str] = []
    if args.no_realdata:
        skipped.append("real material: left out (--no-realdata)")
    else:
        real, skipped = realdata_tasks(args.realdata)
        tasks += real
    if args.tasks:
        tasks = [t for t in tasks if any(sel in t.id for sel in args.tasks.split(","))]
    return tasks, skipped


def _policies(names: str | None) -> list[Policy]:
    every: list[Policy] = [WuuPolicy(), *(PeerPolicy(p) for p in PEERS)]
    if not names:
        return every
    wanted = names.split(",")
    unknown = set(wanted) - {p.name for p in every}
    if unknown:
        raise SystemExit(f"unknown policies: {', '.join(sorted(unknown))} (known: {', '.join(p.name for p in every)})")
    return [p for p in every if p.name in wanted]


def _run(policies: list[Policy], tasks: list[Task], quiet: bool) -> list[Trace]:
    traces = []
    for policy in policies:
        started = time.perf_counter()
        for task in tasks:
            traces.append(run_task(policy, task))
        if not quiet:
            s = summarize([t for t in traces if t.policy == policy.name])[policy.name]
            print(
                f"  {policy.name:<16} found {s.found}/{s.tasks}  input {s.total_input:>12,}  "
                f"({time.perf_counter() - started:.1f} s)",
                file=sys.stderr,
            )
    return traces


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--suite", type=Path, default=DEFAULT_SUITE, help="generated suite folder (default: %(default)s)"
    )
    parser.add_argument("--scale", choices=("full", "tiny"), default="full", help="suite scale when generating")
    parser.add_argument("--regenerate", action="store_true", help="regenerate the suite first")
    parser.add_argument("--realdata", type=Path, default=DEFAULT_REALDATA, help="real material (default: %(default)s)")
    parser.add_argument("--no-realdata", action="store_true", help="leave the real material out")
    parser.add_argument(
        "--no-corpus", action="store_true", help="leave out the 443 real CI logs of realdata/logchunks (kind ci-log)"
    )
    parser.add_argument("--policies", help="comma-separated policy names (default: all)")
    parser.add_argument("--tasks", help="comma-separated substrings of task ids to run (default: all)")
    parser.add_argument("--sweep", default=",".join(map(str, SWEEP)), help="wuu-tools budgets to sweep ('' for none)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="where eval.md and the charts go")
    parser.add_argument("--no-write", action="store_true", help="write nothing, only print")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of markdown")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument(
        "--model",
        action="store_true",
        help="also run a real model through an OpenAI-compatible endpoint (WUU_EVAL_MODEL, WUU_EVAL_BASE_URL, "
        "WUU_EVAL_API_KEY); not run in CI",
    )
    args = parser.parse_args(argv)
    policies = _policies(args.policies)
    if args.model:
        policies.append(from_env())
    try:
        budgets = [int(b) for b in args.sweep.split(",") if b.strip()]
        for b in budgets:
            resolve_budget(b)
    except (ValueError, InvalidArgument) as exc:
        parser.error(f"--sweep {args.sweep!r}: {exc}")

    os.environ.pop("WUU_BUDGET", None)
    with tempfile.TemporaryDirectory(prefix="wuu-eval-store-") as store:
        os.environ["WUU_STORE"] = store
        tasks, skipped = _suite(args)
        if not tasks:
            parser.error(f"no task id contains any of {args.tasks!r}")
        if not args.quiet:
            print(f"{len(tasks)} tasks", file=sys.stderr)
        traces = _run(policies, tasks, args.quiet)
        sweep_traces = _run([WuuPolicy(b) for b in budgets], tasks, args.quiet)
        corpus = [] if args.no_corpus or args.no_realdata else eval_tasks(args.realdata / "logchunks")
        if args.tasks:
            corpus = [t for t in corpus if any(sel in t.id for sel in args.tasks.split(","))]
        if not args.quiet and corpus:
            print(f"{len(corpus)} real CI log tasks (kind ci-log, reported apart)", file=sys.stderr)
        corpus_traces = _run(policies, corpus, args.quiet)
    sweep: dict[int, Summary] = {}
    for b in budgets:
        sweep[b] = summarize([t for t in sweep_traces if t.policy == f"wuu-tools@{b}"])[f"wuu-tools@{b}"]

    command = "python scripts/eval.py" + (" --no-realdata" if args.no_realdata else "")
    report = markdown(traces, sweep, skipped, command)
    report = "\n".join([report.rstrip("\n"), "", *eval_section(corpus_traces)])
    if not args.no_write:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "eval.md").write_text(report)
        if available():
            write_charts(traces, sweep, args.out)
        else:
            print("matplotlib is not installed: no charts (pip install 'wuu-tools[eval]')", file=sys.stderr)
    if args.json:
        data = to_json(traces, sweep, skipped)
        data["ci_logs"] = [t.to_dict() for t in corpus_traces]
        print(json.dumps(data, indent=1))
    else:
        print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
