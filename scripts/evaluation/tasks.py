"""The task model, the generated suite, and the real material in ``../shared/realdata`` with its ground truth.

A task is one question about one source, answered by one tool: the command's failing log,
a successful command's output (search results, a patch, JSON),
a file, a tree, a transcript or an MCP result. Its evidence is a list of groups of
alternative strings; the task is solved when, for every group, one of its strings is
visible in what the agent has been shown (and, for a screenshot, when the image reached the
model). ``search`` is what a real agent would grep for once the first view falls short.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wuu_tools.core.text import clean_terminal

__all__ = ["COMMAND_KINDS", "Evidence", "Search", "Task", "load_manifest", "mcp_result", "normalize", "realdata_tasks"]

COMMAND_KINDS = ("log", "output", "ci-log")
"""Tasks about a command's output: a failing build (``log``) or a command that printed data (``output``)."""

LOG_GREP = "error|fail|panic|exception|assert|undefined"
"""The generic pattern an agent greps a failing log for (case-insensitive), the same for every policy."""


@dataclass(frozen=True)
class Search:
    """What a real agent greps for: ``mode`` is ``lines`` (grep -n), ``only`` (grep -o, the match and the
    80 characters after it: for one huge line), or ``paths`` (find -path)."""

    pattern: str
    mode: str = "lines"
    read_after: int = 0
    ignore_case: bool = False


@dataclass(frozen=True)
class Evidence:
    """Groups of alternative strings; all groups must be visible. ``attachment``: an image must arrive."""

    groups: tuple[tuple[str, ...], ...]
    attachment: bool = False

    def found(self, seen: str, images: int) -> bool:
        """True when every group has one string in the normalised ``seen`` text (and an image arrived)."""
        if self.attachment and images == 0:
            return False
        return all(any(normalize(s) in seen for s in group) for group in self.groups)


@dataclass(frozen=True)
class Task:
    """One question about one source."""

    id: str
    kind: str  # log | output | file | config | tree | transcript | mcp
    question: str
    source: dict[str, Any]
    evidence: Evidence
    search: Search | None = None
    origin: str = "generated"
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        """The file or folder the task reads (the log for a command)."""
        return Path(self.source.get("log") or self.source["path"])


_SPACE = re.compile(r"[ \t]+")


def normalize(text: str) -> str:
    """Text as a reader sees it: terminal codes and redraws removed, runs of blanks folded, lines stripped."""
    return "\n".join(_SPACE.sub(" ", clean_terminal(line)).strip() for line in text.split("\n"))


def mcp_result(task: Task) -> dict[str, Any]:
    """The MCP result of an ``mcp`` task, as the server returned it."""
    data = json.loads(task.path.read_text())
    return {"content": data} if task.source.get("content_only") else data


def _search(raw: dict[str, Any] | None) -> Search | None:
    return Search(**raw) if raw else None


def load_manifest(manifest: Path) -> list[Task]:
    """The generated suite: ``manifest.json`` written by ``fixtures/eval/generate.py``.

    Paths become absolute; every log task gets the generic :data:`LOG_GREP` search (the
    agent does not know the cause, so it greps as a person would), whatever the manifest says.
    """
    data = json.loads(manifest.read_text())
    base = manifest.parent
    tasks = []
    for t in data["tasks"]:
        source = dict(t["source"])
        for key in ("log", "path"):
            if key in source:
                source[key] = str(base / source[key])
        search = _search(t["search"])
        if t["kind"] == "log":
            search = Search(LOG_GREP, "lines", 0, ignore_case=True)
        evidence = Evidence(tuple(tuple(g) for g in t["evidence"]["groups"]), t["evidence"]["attachment"])
        tasks.append(Task(t["id"], t["kind"], t["question"], source, evidence, search))
    return tasks


def _line_needles(lines: list[str], numbers: list[int]) -> tuple[str, ...]:
    """Ground-truth line numbers (1-based, ``str.splitlines()``) as the strings a reader must see."""
    out = []
    for n in numbers:
        text = _SPACE.sub(" ", clean_terminal(lines[n - 1])).strip() if n <= len(lines) else ""
        if len(text) >= 8:
            out.append(text[:100])
    return tuple(out)


REAL_LABELS = {
    "pytest": "pytest",
    "django": "./tests/runtests.py",
    "ld": "rpmbuild -ba siril.spec",
    "ci": "mvn -B verify",
    "travis": "travis build",
}

REAL_TRANSCRIPTS = [
    ("agentcmd_full-session-four.jsonl", "What was the original request of this session?", "first two initials"),
    ("subagent_agent-95ed9ff0.jsonl", "Which type-check error did the build report?", "TS6133"),
    ("claude-history_v2.1.29_agent-aae161c.jsonl", "Which lint errors was the agent asked to fix?", "QF1003"),
    (
        "rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl",
        "What did the user ask Codex to do?",
        "supabase-js to prisma",
    ),
    (
        "mini-swe-agent_astropy__astropy-12907.traj.json",
        "Which issue was the agent asked to fix?",
        "nested CompoundModels",
    ),
    ("basic_gui_mode.json", "What app did the user ask for?", "VueJS app"),
]


def realdata_tasks(root: Path) -> tuple[list[Task], list[str]]:
    """Tasks over the real third-party material, and the reasons for anything left out."""
    if not root.is_dir():
        return [], [f"{root} is absent: the real-material tasks were skipped"]
    tasks: list[Task] = []
    skipped: list[str] = []
    gt = json.loads((root / "logs" / "groundtruth.json").read_text())
    for entry in gt["logs"]:
        path = root / "logs" / entry["file"]
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        groups = tuple(_line_needles(lines, g) for g in entry["groups"])
        if not all(groups):
            skipped.append(f"{entry['file']}: a ground-truth group has no line of 8+ characters to look for")
            continue
        label = REAL_LABELS.get(entry["toolchain"], entry["toolchain"])
        source = {"type": "command", "log": str(path), "label": label, "exit_code": 1}
        stem = entry["file"].split(".")[0]
        tasks.append(
            Task(
                f"real-log-{stem}",
                "log",
                f"`{label}` fails. What is the decisive cause?",
                source,
                Evidence(groups),
                Search(LOG_GREP, "lines", 0, ignore_case=True),
                "realdata",
            )
        )
    files = root / "files"
    tasks.append(
        Task(
            "real-file-cargo-lock",
            "config",
            "Which tokio version does uv lock?",
            {"type": "file", "path": str(files / "uv_Cargo.lock")},
            Evidence((('name = "tokio"',), ('version = "1.53.1"',))),
            Search('^name = "tokio"$', "lines", 3),
            "realdata",
        )
    )
    tasks.append(
        Task(
            "real-file-schema",
            "config",
            "How does the ccusage schema describe the hermes key?",
            {"type": "file", "path": str(files / "ccusage_config-schema.json")},
            Evidence((("Hermes Agent configuration.",),)),
            Search('"hermes": \\{', "lines", 4),
            "realdata",
        )
    )
    for name, question, needle in REAL_TRANSCRIPTS:
        tasks.append(
            Task(
                f"real-conv-{name.split('.')[0][:28]}",
                "transcript",
                question,
                {"type": "transcript", "path": str(root / "transcripts" / name)},
                Evidence(((needle,),)),
                None,
                "realdata",
            )
        )
    mcp = root / "mcp" / "toolu_vrtx_012MJZ91gaNgkUPtRF99kMEN.mcp_content.json"
    tasks.append(
        Task(
            "real-mcp-playwright-ref",
            "mcp",
            'Which ref has the "Trust Notebook" menu item?',
            {"type": "mcp", "path": str(mcp), "tool": "browser_press_key", "content_only": True},
            Evidence((('"Trust Notebook" [ref=e1419]',),)),
            Search("Trust Notebook", "lines", 0),
            "realdata",
        )
    )
    return tasks, skipped
