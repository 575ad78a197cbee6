"""Make a big Claude Code transcript for issue 35's benchmark: a real session concatenated to a target size.

    python scripts/bench/big_transcript.py /tmp/big100.jsonl --mib 96
    python scripts/bench/big_transcript.py /tmp/big1g.jsonl --mib 1024

The source is a real session from ``../shared/realdata/transcripts`` (never copied into the
project); the output goes wherever asked (``/tmp``), whole copies of the session until the size is reached.
"""

from __future__ import annotations

import argparse
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[3] / "shared/realdata/transcripts/agentcmd_full-session-four.jsonl"
"""A genuine Claude Code v2.0.27 session (``uuid``, ``sessionId``, ``message.id``): the converted sessions under
``trajectories/claude-code`` lack that bookkeeping and are not read as sessions at all."""


def make(out: Path, mib: float, source: Path = SOURCE) -> int:
    """Write whole copies of ``source`` to ``out`` until it holds at least ``mib`` MiB; the copies written."""
    data = source.read_bytes()
    if not data.endswith(b"\n"):
        data += b"\n"
    copies = max(1, -(-int(mib * 2**20) // len(data)))
    with out.open("wb") as fh:
        for _ in range(copies):
            fh.write(data)
    return copies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--mib", type=float, default=96.0)
    ap.add_argument("--source", type=Path, default=SOURCE)
    args = ap.parse_args()
    if not args.source.is_file():
        ap.error(
            f"{args.source} is absent: the real sessions are in ../shared/realdata beside the checkout (or --source)"
        )
    copies = make(args.out, args.mib, args.source)
    print(f"{args.out}: {copies} copies of {args.source.name}, {args.out.stat().st_size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
