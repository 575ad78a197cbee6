"""The LogChunks corpus (``../shared/realdata/logchunks``): tasks, the recall rule, the DEV/HELD-OUT split, peer cuts.

443 failed Travis CI logs of 45 projects, each labelled with the chunk that states why the
build failed; ``tasks.json`` gives the ``needles`` (chunk lines cut to 60 characters). A first
view *recalls* a log when, after removing terminal codes and collapsing whitespace, it
contains at least one needle (the rule of ``../shared/realdata/INDEX.md``).

Projects are split once, by a hash of the repository name and before anything was read,
into DEV (the logs whose misses may be studied) and HELD-OUT (never studied: the honest
figure). :data:`PEER_CUTS` are the peers' position cuts, computed with the same rule.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wuu_tools.core.store import Store, use_store
from wuu_tools.core.text import clean_terminal, human_size, plural
from wuu_tools.logs.view import project_log

__all__ = [
    "PEER_CUTS",
    "CorpusTask",
    "eval_section",
    "eval_tasks",
    "first_view",
    "is_dev",
    "load",
    "normalize",
    "recalled",
]

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class CorpusTask:
    """One labelled log: its file, language, project and needles."""

    path: Path
    language: str
    repo: str
    needles: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.repo}/{self.path.name}"


def is_dev(repo: str) -> bool:
    """True for a DEV project (about 60%): ``sha256(repo) % 10 < 6``; the rest are HELD-OUT."""
    return int(hashlib.sha256(repo.encode()).hexdigest(), 16) % 10 < 6


def load(root: Path) -> list[CorpusTask]:
    """The corpus tasks under ``root`` (the ``logchunks`` folder), or [] when it is absent."""
    tasks_file = root / "tasks.json"
    if not tasks_file.is_file():
        return []
    out = []
    for t in json.loads(tasks_file.read_text()):
        needles = tuple(n for n in (normalize(x) for x in t["needles"]) if n)
        out.append(CorpusTask(root / t["file"], t["language"], t["repo"], needles))
    return out


def normalize(text: str) -> str:
    """Terminal codes removed and every run of whitespace (newlines included) folded to one space."""
    return _SPACE.sub(" ", clean_terminal(text)).strip()


def view_text(text: str) -> str:
    """A view as the recall rule reads it: each line normalised, the lines joined by newlines."""
    return "\n".join(normalize(line) for line in text.split("\n"))


def recalled(view: str, task: CorpusTask) -> bool:
    """True when the (raw) ``view`` holds at least one of the task's needles."""
    seen = view_text(view)
    return any(n in seen for n in task.needles)


def _head_tail_chars(head: int, tail: int) -> Callable[[str], str]:
    def cut(text: str) -> str:
        if len(text) <= head + tail:
            return text
        return f"{text[:head]}\n\n... [{len(text) - head - tail:,} characters truncated] ...\n\n{text[-tail:]}"

    return cut


def _head_tail_bytes(head: int, tail: int) -> Callable[[str], str]:
    def cut(text: str) -> str:
        data = text.encode()
        if len(data) <= head + tail:
            return text
        first = data[:head].decode("utf-8", "ignore")
        last = data[-tail:].decode("utf-8", "ignore")
        return f"{first}\n\n... [{len(data) - head - tail:,} bytes truncated] ...\n\n{last}"

    return cut


def _last_lines(n: int) -> Callable[[str], str]:
    def cut(text: str) -> str:
        lines = text.splitlines(keepends=True)
        return text if len(lines) <= n else "".join(lines[-n:])

    return cut


PEER_CUTS: dict[str, Callable[[str], str]] = {
    "Gemini CLI (40,000 chars 20/80)": _head_tail_chars(8000, 32000),
    "Cline (48,000 chars half/half)": _head_tail_chars(24000, 24000),
    "Claude Code (30,000 chars middle cut)": _head_tail_chars(15000, 15000),
    "Codex (10 KB head+tail)": _head_tail_bytes(5120, 5120),
    "last 100 lines": _last_lines(100),
}
"""The peers' first view of a command's output: a position cut of the whole text."""


def first_view(store: Store, raw: bytes, budget: int) -> str:
    """The first view ``run_command("cat LOG; exit 1")`` gives of ``raw`` (a failing verdict, ``budget`` tokens)."""
    ref = store.save(raw, "log")
    lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
    verdict = f"[exit 1 · 0.1 s · {plural(lines, 'line')} of output ({human_size(len(raw))}) · log {ref}]"
    return project_log(ref, budget=budget, explicit_budget=None, verdict=verdict).text


def views(tasks: list[CorpusTask], budget: int) -> Iterator[tuple[CorpusTask, bytes, str]]:
    """Each task with its raw log and wuu-tools' first view, in a private temporary store."""
    with tempfile.TemporaryDirectory(prefix="wuu-recall-") as tmp:
        store = Store(tmp)
        with use_store(store):
            for task in tasks:
                raw = task.path.read_bytes()
                yield task, raw, first_view(store, raw, budget)


def eval_tasks(root: Path) -> list[Any]:
    """The corpus as whole tasks for ``scripts/eval.py``: kind ``ci-log``, one per log, origin ``logchunks``.

    The answer is any one needle (the rule above); the agent greps as for every log task.
    """
    from .tasks import LOG_GREP, Evidence, Search, Task

    out = []
    for t in load(root):
        source = {"type": "command", "log": str(t.path), "label": "travis build", "exit_code": 1}
        out.append(
            Task(
                f"ci-log-{t.repo}-{t.path.stem}",
                "ci-log",
                "The CI build fails. Why?",
                source,
                Evidence((t.needles,)),
                Search(LOG_GREP, "lines", 0, ignore_case=True),
                "logchunks",
                {"language": t.language, "repo": t.repo, "dev": is_dev(t.repo)},
            )
        )
    return out


def eval_section(traces: list[Any]) -> list[str]:
    """The markdown section of ``docs/eval.md`` for the ``ci-log`` tasks: per policy, with DEV and HELD-OUT apart."""
    from .report import _policy_table, summarize

    if not traces:
        return []
    held = {t.task for t in traces if t.task.startswith("ci-log-") and not is_dev(t.task[7:].rsplit("-", 1)[0])}
    out = [
        "## Real CI logs (LogChunks: 443 labelled Travis logs of 45 projects), apart from the suite above",
        "",
        *_policy_table(summarize(traces)),
        "",
        "HELD-OUT projects only (never studied while tuning the log view):",
        "",
        *_policy_table(summarize([t for t in traces if t.task in held])),
        "",
    ]
    return out
