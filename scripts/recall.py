"""Recall of the error-first log view on real failing logs (``../shared/realdata/logs`` and ``…/logchunks``).

For each log listed in ``groundtruth.json`` the log is saved to a private store and projected
with :func:`wuu_tools.logs.view.project_log` (the view ``run_command`` and ``wuu project --kind
log`` give) at the default budget. A log is *recalled* when, for every ground-truth group,
at least one of its lines appears in the first view.

The ground truth numbers lines the way Python's ``str.splitlines()`` does, while the view
numbers them by ``"\\n"`` (some logs hold bare ``"\\r"``), so recall is judged by a line's
CONTENT, not its number: the line (colours and carriage-return redraws removed, as the view
shows it, surrounding blanks stripped) must occur in the view text; a line longer than the
view's line cut counts when its first ``LINE_CHARS`` characters occur. Blank ground-truth
lines are ignored (they would match anything).

Then the LogChunks corpus (``../shared/realdata/logchunks``, 443 labelled Travis logs of 45
projects; see :mod:`evaluation.logchunks` and :mod:`evaluation.corpus_report`): each log is fed
as the first view of ``cat LOG; exit 1`` would get it, and recall, median and max tokens are
printed overall, for the DEV and HELD-OUT projects, per language and per project, beside the
peers' position cuts, with leave-project-out figures and the list of misses.

Usage: ``python scripts/recall.py [--budget N] [--data DIR] [--corpus DIR] [--target 0.9] [--show NAME]
[--dev-only] [--blind] [--misses dev]`` (while tuning: ``--dev-only --misses dev``, or ``--blind``).
Exits 1 when recall is below the target or the median first-view tokens exceed the budget
(on the 9 logs; the corpus figures are reported, not enforced).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evaluation.corpus_report import corpus_report

from wuu_tools.core.budget import DEFAULT_BUDGET
from wuu_tools.core.store import Store, use_store
from wuu_tools.core.text import clean_terminal
from wuu_tools.logs.view import LINE_CHARS, project_log

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "logs"
DEFAULT_CORPUS = DEFAULT_DATA.parent / "logchunks"


def recalled(view: str, log_lines: list[str], groups: list[list[int]]) -> tuple[bool, list[bool]]:
    """Whether each group has a non-blank line (by content) in ``view``; and all of them."""
    per_group = []
    for group in groups:
        hit = False
        for number in group:
            text = clean_terminal(log_lines[number - 1]).strip()
            if text and text[:LINE_CHARS].strip() in view:
                hit = True
                break
        per_group.append(hit)
    return all(per_group), per_group


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--show", help="print the first view of the log whose name contains this")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the LogChunks folder")
    parser.add_argument("--no-corpus", action="store_true", help="only the 9 logs")
    parser.add_argument("--only-corpus", action="store_true", help="only the LogChunks corpus")
    parser.add_argument("--no-lpo", action="store_true", help="skip the leave-project-out folds (faster)")
    parser.add_argument("--no-peers", action="store_true", help="skip the peers' position cuts (faster)")
    parser.add_argument("--misses", choices=("dev", "all", "none"), default="all", help="which misses to list")
    parser.add_argument("--dev-only", action="store_true", help="the DEV projects of the corpus only (for tuning)")
    parser.add_argument(
        "--blind", action="store_true", help="HELD-OUT projects in the totals only (no rows of theirs, no misses)"
    )
    args = parser.parse_args(argv)
    status = 0 if args.only_corpus else _nine(args)
    if not args.no_corpus:
        corpus_report(
            args.corpus,
            args.budget,
            lpo=not args.no_lpo,
            peers=not args.no_peers,
            misses=args.misses,
            dev_only=args.dev_only,
            blind=args.blind,
        )
    return status


def _nine(args: argparse.Namespace) -> int:
    truth_file = args.data / "groundtruth.json"
    if not truth_file.is_file():
        print(f"no ground truth at {truth_file}: ../shared/realdata is absent", file=sys.stderr)
        return 2
    truth = json.loads(truth_file.read_text())
    rows = []
    with tempfile.TemporaryDirectory() as tmp, use_store(Store(tmp)):
        store = Store(tmp)
        for entry in truth["logs"]:
            raw = (args.data / entry["file"]).read_bytes()
            ref = store.save(raw, "log")
            view = project_log(ref, budget=args.budget, explicit_budget=None)
            lines = raw.decode("utf-8", "replace").splitlines()
            ok, groups = recalled(view.text, lines, entry["groups"])
            rows.append((entry["file"], entry["toolchain"], ok, groups, view.tokens, len(raw)))
            if args.show and args.show in entry["file"]:
                print(view.text, end="\n\n")
    width = max(len(r[0]) for r in rows)
    print(f"{'log':<{width}}  {'toolchain':<9}  {'recalled':<8}  {'groups':<10}  {'tokens':>6}  {'size':>9}")
    for name, chain, ok, groups, tokens, size in rows:
        marks = "".join("+" if g else "-" for g in groups)
        print(f"{name:<{width}}  {chain:<9}  {'yes' if ok else 'NO':<8}  {marks:<10}  {tokens:>6}  {size:>9,}")
    rate = sum(r[2] for r in rows) / len(rows)
    median = statistics.median(r[4] for r in rows)
    print(
        f"\nrecall {sum(r[2] for r in rows)}/{len(rows)} = {rate:.0%} (target {args.target:.0%}); "
        f"median first-view tokens {median:g} (budget {args.budget})"
    )
    return 0 if rate >= args.target and median <= args.budget else 1


if __name__ == "__main__":
    sys.exit(main())
