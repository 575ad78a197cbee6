"""Follow a read_file continuation chain over a file and check it shows every line exactly once.

    python scripts/chain_check.py BIG.log [--budget 1000000]

Prints the calls made, the lines covered and the time; exits non-zero on a gap or an overlap.
Used to check the foundation issue's "done when" on a 1 GB generated log (22,381 calls at the
maximum budget, 12.1 M lines, each exactly once).
"""

from __future__ import annotations

import argparse
import sys
import time

from wuu_tools import read_file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path")
    parser.add_argument("--budget", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    r = read_file(args.path, budget=args.budget)
    calls, covered = 1, [tuple(x) for x in r.meta["shown"]]
    while r.continuation:
        r = read_file(**r.continuation["args"])
        calls += 1
        covered += [tuple(x) for x in r.meta["shown"]]
    expect = 1
    for first, last in sorted(covered):
        if first != expect:
            print(f"{'overlap' if first < expect else 'gap'} at line {min(first, expect):,}")
            return 1
        expect = last + 1
    total = r.meta["total_lines"]
    secs = time.perf_counter() - started
    print(f"calls {calls:,} · lines 1-{expect - 1:,} of {total:,} each shown once · {secs:.1f} s")
    return 0 if expect - 1 == total else 1


if __name__ == "__main__":
    sys.exit(main())
