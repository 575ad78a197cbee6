r"""Filter pipes keep the producer's output: ``make test 2>&1 | tail -20`` saves what ``make test`` printed.

A shell line whose last stages are filters (``head``, ``tail``, ``grep``, ``sed``, ``wc``, ``sort``,
``uniq``) prints only what the filters let through; what they dropped is gone, and an agent that
wants another part runs the producer again. :func:`plan` finds the first of those trailing filter
stages of the line's last pipeline and puts a tee (:mod:`.tee`) before it, which copies the
producer's output to a file in the store as it passes. Nothing else changes: the tee exits 0
quietly when the filter closes the pipe (so the producer gets SIGPIPE as before, ``yes | head -1``
ends at once, and under ``pipefail`` the status is the producer's and the filters' own), and the
line prints what it printed. Only lines read with certainty are changed: a quote, escape, ``$(…)``,
backtick or parenthesis is followed; a line with a here-document, a brace group, a comment, ``|&``
or a trailing ``&`` is run as given.

>>> plan_split("cd src && python -m pytest 2>&1 | tail -20")
(32, 'tail')
>>> plan_split("yes | head -1")
(4, 'head')
>>> plan_split("grep -n error build.log") is None
True
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import StoreError, clip
from ..core.result import call_text, continuation
from ..core.store import Store
from ..core.text import human_size

__all__ = ["FILTERS", "Producer", "note", "plan", "plan_split"]

CHUNK = 1 << 20
TEE = str(Path(__file__).with_name("tee.py"))

FILTERS = frozenset({"head", "tail", "grep", "egrep", "fgrep", "sed", "wc", "sort", "uniq"})
"""Programs that, as a pipeline's last stages, print part of what the stage before them printed."""


def _scan(line: str) -> tuple[list[int], list[int]] | None:
    """Top-level pipe positions and list-separator ends in ``line``; None where it is not read with certainty."""
    pipes: list[int] = []
    seps: list[int] = []
    depth = 0
    i, n = 0, len(line)
    word_start = True
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
            word_start = False
            continue
        if c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                return None
            i = end + 1
            word_start = False
            continue
        if c == '"':
            i += 1
            while i < n and line[i] != '"':
                if line[i] == "\\":
                    i += 1
                elif line[i] == "`" or line.startswith("$(", i):
                    return None  # (a substitution inside double quotes: not followed here)
                i += 1
            if i >= n:
                return None
            i += 1
            word_start = False
            continue
        if c == "`" or c in "{}" or (c == "#" and word_start) or line.startswith("<<", i):
            return None
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0:
            if line.startswith("||", i) or line.startswith("&&", i):
                seps.append(i + 2)
                i += 2
                word_start = True
                continue
            if line.startswith("|&", i):
                return None
            if c == "|":
                pipes.append(i)
            elif c == "&" and not (i > 0 and line[i - 1] in "<>") and not line.startswith("&>", i):
                if not line[i + 1 :].strip():
                    return None  # run in the background
                seps.append(i + 1)
            elif c in ";\n":
                seps.append(i + 1)
        word_start = c in " \t\n;|&()"
        i += 1
    return (pipes, seps) if depth == 0 else None


def _first_word(stage: str) -> str | None:
    try:
        words = shlex.split(stage)
    except ValueError:
        return None
    while words and "=" in words[0] and not words[0].startswith("="):  # VAR=value before the program
        words.pop(0)
    return os.path.basename(words[0]) if words else None


def plan_split(line: str) -> tuple[int, str] | None:
    """Where a tee goes in ``line`` (the index of the ``|`` before its first trailing filter) and that filter."""
    scanned = _scan(line)
    if scanned is None:
        return None
    pipes, seps = scanned
    start = seps[-1] if seps else 0
    if not line[start:].strip():
        return None
    bars = [p for p in pipes if p >= start]
    if not bars:
        return None
    bounds = [start, *(p + 1 for p in bars)]
    ends = [*bars, len(line)]
    names = [_first_word(line[a:b]) for a, b in zip(bounds, ends, strict=True)]
    k = len(names)
    while k > 1 and names[k - 1] in FILTERS:
        k -= 1
    if k == len(names) or names[0] is None:
        return None
    return bars[k - 1], str(names[k])


@dataclass
class Producer:
    """A planned tee: the line to run, where the tee writes, the producer stage and the filters after it."""

    line: str
    path: Path
    stage: str
    filters: str

    def state(self) -> dict[str, Any]:
        """What the tee saw: ``total`` bytes, ``kept`` bytes, ``closed`` (the filter closed the pipe early)."""
        try:
            facts = json.loads(Path(f"{self.path}.state").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return facts if isinstance(facts, dict) else {}

    def keep(self, store: Store, meta: dict[str, Any]) -> dict[str, Any] | None:
        """Save what the producer printed as a log of the store; its facts (``ref``, ``lines``, ...) or None.

                None when the tee never ran (the line ended before its last pipeline) or the producer
                printed nothing; the temp files are removed either way. A tee killed outright left no state:
        its file is what it saved.
        """
        try:
            state = self.state() or {"total": self.path.stat().st_size}  # (no state: the tee was killed)
            total = int(state.get("total", 0))
            if total <= 0:
                return None
            lines, last, kept = 0, b"\n", 0
            with open(self.path, "rb") as src:
                while block := src.read(CHUNK):
                    lines += block.count(b"\n")
                    last = block[-1:]
                    kept += len(block)
            lines += last != b"\n"
            facts: dict[str, Any] = {
                "stage": self.stage,
                "filters": self.filters,
                "bytes": max(total, kept),
                "kept_bytes": kept,
                "lines": lines,
                "closed_early": bool(state.get("closed")),
            }
            facts["ref"] = store.adopt(self.path, "log", {**meta, "producer": facts})
            return facts
        except (OSError, StoreError, ValueError):
            return None
        finally:
            self.discard()

    def discard(self) -> None:
        """Remove the tee's temp files."""
        for p in (self.path, Path(f"{self.path}.state")):
            with contextlib.suppress(OSError):
                p.unlink()


def note(facts: dict[str, Any]) -> str:
    """The view's line naming the producer's saved output and the call that reads it."""
    size = human_size(facts["bytes"])
    lines = f"{facts['lines']:,} line{'s' if facts['lines'] != 1 else ''}"
    if facts["kept_bytes"] < facts["bytes"]:
        what = f"printed {size}; its first {human_size(facts['kept_bytes'])} ({lines}) are"
    elif facts["closed_early"]:
        what = f"printed {lines} ({size}) until `{facts['filters']}` closed the pipe; they are"
    else:
        what = f"printed {lines} ({size}); all"
    call = call_text(continuation("read_saved", ref=facts["ref"]))
    return f"[before `{facts['filters']}`: `{clip(facts['stage'], 60)}` {what} saved: {call}]"


def plan(line: str, folder: Path, max_bytes: int) -> Producer | None:
    """The line with a tee before its trailing filters, writing under ``folder``; None when it has none."""
    split = plan_split(line)
    if split is None:
        return None
    at, _ = split
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    path = folder / f"producer-{os.getpid()}-{os.urandom(6).hex()}"
    tee = " ".join(shlex.quote(a) for a in (sys.executable, "-I", TEE, str(path), str(max_bytes)))
    scanned = _scan(line)
    assert scanned is not None
    seps = [s for s in scanned[1] if s <= at]
    stage = line[seps[-1] if seps else 0 : at].strip()
    return Producer(f"{line[:at]}| {tee} {line[at:]}", path, stage, line[at + 1 :].strip())
