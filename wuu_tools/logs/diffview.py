"""The first view of a diff or patch: the files changed with ``+N -M`` each, then the hunks from the start.

``git diff``, ``git show``, ``git log -p``, ``diff -u`` and any unified patch are read once
(:func:`diff_stat`): hunks are followed by their line counts, so a removed line that starts
with ``--`` is never taken for a file header. Commits (``git log -p``, ``git show``) keep their
own order, newest first as git prints them, each with its subject and its files. The lines
below the stat are the head of the output, so the chain from the first view reads every
line once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.lines import LineFile
from ..core.text import plural
from .frame import Frame, cut, fit_share
from .lineiter import OutputLines

__all__ = ["Commit", "DiffStat", "FileChange", "diff_frame", "diff_stat"]

DIFF_SCAN_BYTES = 4 << 20  # a diff is followed line by line this far (100,000 lines: about 0.2 s)
STAT_SHARE = 0.4  # of the budget, at most, for the list of files
COMMITS_SHARE = 0.5  # ... and for the list of commits of a ``git log -p``
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_COMMIT = re.compile(r"^commit ([0-9a-f]{7,64})\b")


@dataclass
class FileChange:
    """One file of a diff: where its header is, lines added and removed."""

    path: str
    line: int
    added: int = 0
    removed: int = 0
    binary: bool = False


@dataclass
class Commit:
    """A commit of ``git log -p`` / ``git show`` and its files (the sha is empty for a plain diff)."""

    sha: str
    line: int
    subject: str = ""
    files: list[FileChange] = field(default_factory=list)


@dataclass
class DiffStat:
    """The commits (at least one, maybe without a sha) and what the pass covered."""

    commits: list[Commit] = field(default_factory=list)
    scanned_to: int = 0
    capped: bool = False

    @property
    def files(self) -> list[FileChange]:
        return [f for c in self.commits for f in c.files]


def _path(header: str) -> str:
    """``a/x.py`` / ``b/x.py`` / ``x.py\\t2024-01-01 …`` -> ``x.py``."""
    name = header.split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    return name[2:] if name[:2] in ("a/", "b/") else name


def diff_stat(lf: LineFile) -> DiffStat:
    """Commits and files of the diff in ``lf``, with lines added and removed (one pass)."""
    stat = DiffStat()
    commit = Commit("", 1)
    stat.commits.append(commit)
    current: FileChange | None = None
    old = new = 0  # lines of the current hunk still to come
    want_subject = git_header = False
    pending_minus: str | None = None
    pending_line = 0
    lines = OutputLines(lf, DIFF_SCAN_BYTES)
    n = 0
    for text in lines:
        n += 1
        if old > 0 or new > 0:
            tag = text[:1]
            if tag == "+":
                new -= 1
                if current is not None:
                    current.added += 1
            elif tag == "-":
                old -= 1
                if current is not None:
                    current.removed += 1
            elif tag == "\\":
                pass
            else:
                old -= 1
                new -= 1
            continue
        m = _HUNK.match(text)
        if m:
            old = int(m.group(1)) if m.group(1) is not None else 1
            new = int(m.group(2)) if m.group(2) is not None else 1
            git_header = False
            continue
        c = _COMMIT.match(text)
        if c:
            commit = Commit(c.group(1), n)
            if stat.commits == [Commit("", 1)]:
                stat.commits = []
            stat.commits.append(commit)
            current, want_subject, pending_minus, git_header = None, True, None, False
            continue
        if want_subject and text.startswith("    ") and text.strip():
            commit.subject = text.strip()
            want_subject = False
            continue
        if text.startswith("diff --git "):
            parts = text[len("diff --git ") :].split(" b/", 1)
            current = FileChange(_path(parts[1] if len(parts) == 2 else parts[0]), n)
            commit.files.append(current)
            want_subject, pending_minus, git_header = False, None, True
        elif git_header and text.startswith(("--- ", "+++ ")):
            continue
        elif text.startswith("--- "):
            pending_minus, pending_line, current = _path(text[4:]), n, None
        elif text.startswith("+++ ") and pending_minus is not None:
            path = _path(text[4:])
            current = FileChange(pending_minus if path == "/dev/null" else path, pending_line)
            commit.files.append(current)
            pending_minus = None
        elif text.startswith("Binary files ") and current is not None:
            current.binary = True
    stat.scanned_to = n
    stat.capped = lines.capped
    stat.commits = [c for c in stat.commits if c.sha or c.files] or stat.commits[:1]
    return stat


def _file_line(f: FileChange, indent: str) -> str:
    change = "binary" if f.binary else f"+{f.added:,} -{f.removed:,}"
    return cut(f"{indent}{f.path} {change} (line {f.line:,})")


def _commit_line(c: Commit, files: bool) -> str:
    head = f"commit {c.sha[:12]} (line {c.line:,}) {c.subject}"
    if files:
        return cut(head)
    head = f"{c.sha[:8]} (line {c.line:,}) {c.subject}"
    added = sum(f.added for f in c.files)
    removed = sum(f.removed for f in c.files)
    return cut(f"{head} · {plural(len(c.files), 'file')} +{added:,} -{removed:,}")


def _by_folder(files: list[FileChange], indent: str) -> list[str]:
    """Files grouped by folder, ``name +N -M`` each, 12 a line."""
    groups: dict[str, list[str]] = {}
    for f in files:
        folder, _, name = f.path.rpartition("/")
        change = "binary" if f.binary else f"+{f.added:,} -{f.removed:,}"
        groups.setdefault(folder, []).append(f"{name} {change}")
    return [
        cut(f"{indent}{folder + '/' if folder else './'}: {', '.join(names[i : i + 12])}", 600)
        for folder, names in groups.items()
        for i in range(0, len(names), 12)
    ]


def _listings(stat: DiffStat) -> list[list[str]]:
    """The list of changes at three levels of detail, the most detailed first."""
    full: list[str] = []
    compact: list[str] = []
    commits: list[str] = []
    for c in stat.commits:
        indent = "  " if c.sha else ""
        if c.sha:
            full.append(_commit_line(c, True))
            compact.append(_commit_line(c, True))
            commits.append(_commit_line(c, False))
        full.extend(_file_line(f, indent) for f in c.files)
        compact.extend(_by_folder(c.files, indent))
        if not c.sha:
            commits.extend(_by_folder(c.files, indent))
    return [full, compact, commits]


def diff_frame(lf: LineFile, budget: int) -> Frame:
    """The frame of a diff: facts, then the commits and their files (a share of ``budget``), above the head.

    The files are listed one a line with the line their diff starts on; when that list is too
    long, grouped by folder; when that is too long too, the commits alone with their counts.
    """
    stat = diff_stat(lf)
    files = stat.files
    added = sum(f.added for f in files)
    removed = sum(f.removed for f in files)
    commits = [c for c in stat.commits if c.sha]
    facts = []
    if commits:
        facts.append(plural(len(commits), "commit"))
    facts.append(f"{plural(len(files), 'file')} · +{added:,} -{removed:,}")
    if stat.capped:
        facts.append(f"counted in the first {stat.scanned_to:,} lines ({DIFF_SCAN_BYTES >> 20} MiB)")
    share = int(budget * (STAT_SHARE if len(commits) < 2 else COMMITS_SHARE))
    levels = _listings(stat)
    shown: list[str] = []
    for summary in levels:
        shown = fit_share(summary, share, "")
        if shown is summary:
            break
    if shown and shown[-1] == "":
        left = len(summary) - (len(shown) - 1)
        shown[-1] = f"  … {plural(left, 'more line')} of the list: read on with the continuation"
    meta = {"files_changed": len(files), "added": added, "removed": removed, "commits": len(commits)}
    return Frame("diff", " · ".join(facts), shown, "head", meta)
