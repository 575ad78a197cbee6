"""The read_conversation target table: every real transcript's first view holds the request and the last gist.

For each transcript in ``../shared/realdata/transcripts`` (and its folders) the first view (2,000 tokens) must
contain the user's original request and the gist of the last assistant message (phrases
written by hand in ``fixtures/transcripts/realdata_targets.json``; a transcript without an
entry there is checked against the reader's own first request and last assistant text,
marked ``auto``) and must fit the budget. Then a generated 3 MB Claude Code transcript's
first view is timed: its first read (nothing cached), then the median of five more reads
with the parse cache cleared. The tokenizer is loaded once before any timing.
Exits 1 when any target is missed, 2 when the real data is absent.

    .venv/bin/python scripts/conv_report.py [--budget 2000] [--size 3000000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wuu_tools.conversations import read_conversation  # noqa: E402
from wuu_tools.conversations import tool as conv_tool  # noqa: E402
from wuu_tools.conversations.detect import parse_transcript  # noqa: E402
from wuu_tools.core.budget import count_tokens  # noqa: E402

TRANSCRIPTS = ROOT.parent / "shared" / "realdata" / "transcripts"
TARGETS = ROOT / "fixtures" / "transcripts" / "realdata_targets.json"
MAX_SECONDS = 0.5


def _flat(text: str) -> str:
    return " ".join(text.split())


def _auto_targets(path: Path) -> dict[str, str]:
    conv = parse_transcript(path.read_bytes(), str(path))
    human = next((t.text for t in conv.turns if t.is_human), "")
    last = next((t.text for t in reversed(conv.turns) if t.role == "assistant" and t.text.strip()), "")
    return {"anchor": human.strip().split("\n")[0][:60], "gist": last.strip().split("\n")[0][:60]}


def real_table(budget: int) -> tuple[list[list[str]], bool]:
    """Rows of the table, and whether every target was met."""
    targets = json.loads(TARGETS.read_text())
    rows = []
    ok = True
    for path in sorted(p for p in TRANSCRIPTS.rglob("*") if p.is_file()):
        want = targets.get(path.relative_to(TRANSCRIPTS).as_posix())
        source = "hand"
        if want is None:
            want, source = _auto_targets(path), "auto"
        start = time.perf_counter()
        result = read_conversation(str(path), budget=budget)
        seconds = time.perf_counter() - start
        text = _flat(result.text)
        anchor = _flat(want["anchor"]) in text
        gist = _flat(want["gist"]) in text
        fits = result.tokens <= budget
        ok = ok and anchor and gist and fits
        rows.append(
            [
                path.name if len(path.name) <= 48 else path.name[:45] + "…",
                result.meta["format"],
                str(result.meta["total_turns"]),
                "yes" if anchor else "NO",
                "yes" if gist else "NO",
                f"{result.tokens}" + ("" if fits else " OVER"),
                f"{seconds * 1000:.0f}",
                source,
            ]
        )
    return rows, ok


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "transcript_generator", ROOT / "fixtures" / "transcripts" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["transcript_generator"] = module
    spec.loader.exec_module(module)
    return module


def timing(size: int, budget: int) -> tuple[Path, float, float, int]:
    """``(path, cold seconds, median warm seconds, tokens)`` of a generated transcript's first view."""
    gen = _generator()
    gen.GENERATED.mkdir(parents=True, exist_ok=True)
    path = gen.write_claude(gen.sized_session(size), gen.GENERATED / f"session-7-{size}.jsonl")
    conv_tool._CACHE.clear()
    start = time.perf_counter()
    result = read_conversation(str(path), budget=budget)
    cold = time.perf_counter() - start
    warm = []
    for _ in range(5):
        conv_tool._CACHE.clear()  # time the whole read and parse, not the cache
        start = time.perf_counter()
        read_conversation(str(path), budget=budget)
        warm.append(time.perf_counter() - start)
    return path, cold, statistics.median(warm), result.tokens


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"  # noqa: E731
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *(line(r) for r in rows)])


def main() -> int:
    """Print the table and the timing; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--size", type=int, default=3_000_000)
    args = parser.parse_args()
    if not TRANSCRIPTS.is_dir():
        print(f"{TRANSCRIPTS} is absent: the real transcripts live in ../shared/realdata beside the checkout")
        return 2
    start = time.perf_counter()
    count_tokens("load the tokenizer once, before any timing")
    loaded = (time.perf_counter() - start) * 1000
    print(f"tokenizer loaded in {loaded:.0f} ms (once per process, not in the times below)\n")
    rows, ok = real_table(args.budget)
    header = ["transcript", "format", "turns", "anchor found", "last gist found", "tokens", "ms", "targets"]
    print(_table(header, rows))
    path, cold, warm, tokens = timing(args.size, args.budget)
    fast = cold <= MAX_SECONDS and warm <= MAX_SECONDS
    print(
        f"\ngenerated {path.name} ({path.stat().st_size:,} bytes): first view {tokens} tokens, "
        f"cold {cold * 1000:.0f} ms, warm median {warm * 1000:.0f} ms (target ≤ {MAX_SECONDS * 1000:.0f} ms)"
    )
    met = ok and fast
    print("all targets met" if met else "TARGETS MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
