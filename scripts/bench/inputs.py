"""Big generated inputs for ``scripts/bench.py``.

Everything is written under the benchmark's temp folder and removed with it.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

__all__ = ["big_text", "claude_jsonl", "small_file", "small_tree", "tree"]

LINE = "{:>10} INFO request handled path=/api/v2/items/{} status=200 bytes={} ms={}\n"


def big_text(path: Path, size: int) -> int:
    """A log-like text file of about ``size`` bytes; returns its line count."""
    rng = random.Random(5)
    block_lines = [
        LINE.format(i, rng.randint(1, 99999), rng.randint(10, 99999), rng.randint(1, 999)) for i in range(100_000)
    ]
    block = "".join(block_lines).encode()
    lines = 0
    with path.open("wb") as fh:
        written = 0
        while written < size:
            fh.write(block)
            written += len(block)
            lines += len(block_lines)
    return lines


def small_file(path: Path) -> None:
    """A 300-line Python file."""
    path.write_text("".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(100)))


def small_tree(root: Path) -> None:
    """A small project: 3 folders of 8 files, a README and a .gitignore (30 entries)."""
    for folder in ("src", "tests", "docs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for i in range(8):
            (root / folder / f"part_{i}.py").write_text(f"def part_{i}():\n    return {i}\n")
    (root / "README.md").write_text("# small\n")
    (root / ".gitignore").write_text("build/\n")


def tree(root: Path, kept: int, ignored: int) -> None:
    """``kept`` files under ``src/`` and ``ignored`` under a git-ignored ``node_modules/``, 100 a folder."""
    (root / ".gitignore").parent.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text("node_modules/\n")
    for base, count in (("src", kept), ("node_modules", ignored)):
        for i in range(count):
            folder = root / base / f"pkg{i // 100:05d}"
            if i % 100 == 0:
                folder.mkdir(parents=True, exist_ok=True)
            (folder / f"mod{i % 100:03d}.js").write_bytes(b"")


def claude_jsonl(path: Path, size: int) -> None:
    """A Claude Code session transcript of at least ``size`` bytes (the eval suite's generator)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures" / "eval"))
    from eval_sources import claude_transcript

    turns = 200
    while True:
        text = claude_transcript(turns, random.Random(3))
        if len(text.encode()) >= size:
            break
        turns = int(turns * size / len(text.encode())) + 10
    path.write_text(text)
