"""git's views: ``git status``, ``git log``, ``git show`` and ``git diff --stat``.

What is folded, chosen on the recorded runs (none of these lines held a word the agent used next):

- ``git status``: the hint lines ``(use "git add <file>..." to …)`` under each section heading.
- ``git log`` / ``git show`` (the full format): the ``Author:`` line (and ``Merge:``); the hash, the
  date, the subject and the body stay, as do ``--oneline`` and ``--stat`` lines, which have no noise.
- a patch (``git show``): each file's ``diff --git`` and ``index`` header lines; the ``--- a/…`` /
  ``+++ b/…`` lines that name the file stay.
- ``git log`` in a one-line format (``--oneline``, ``--format=%h …``): the commits past the first
  :data:`HEAD_COMMITS` and before the last :data:`TAIL_COMMITS`, as one fold counting them (``[… 15
  commits: …]``); a full-format log keeps every commit (it was asked for the messages and bodies:
  ``scripts/bench.py``'s ``git log -n 20`` row counts all 20 as read). And in ``git log -p``, each
  file's patch, as one fold naming the file and its ``+N -M`` (the commit's hash and message stay:
  what the agent searched the log for).

The summary is git's own last line where it prints one: ``3 files changed, 26 insertions(+), 83
deletions(-)`` or ``nothing to commit, working tree clean``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import Fold, Plan, rule
from .noise import fold_noise, runs_program

__all__ = ["git_rule"]

_SUBCOMMANDS = ("status", "log", "show", "diff", "whatchanged")
HEAD_COMMITS = 4
"""A log shows its first commits, this many (chosen on DEV: the commits its agents used next were among
its first three; rtk shows four lines)."""
TAIL_COMMITS = 1
"""And its last commit, this many: where the range the agent asked for starts (the head of a file's text
and its tail, as ``read_file`` shows them)."""
_FULL_COMMIT = re.compile(r"^commit [0-9a-f]{7,40}\b")
_SHORT_COMMIT = re.compile(r"^[*|\\/ ]*[0-9a-f]{7,40}(\s|$)")
_PATCH_START = re.compile(r"^diff --git a/(\S+) ")
_HINT = re.compile(r'^\s+\(use "git [^"]*"|^\s+\(commit or discard the untracked|^\s+\(fix conflicts and run')
_AUTHOR = re.compile(r"^(Author|Merge): ")
_DIFF_HEAD = re.compile(r"^(diff --git a/|index [0-9a-f]{6,}\.\.[0-9a-f]{6,}( \d{6})?$|similarity index \d+%$)")
_STAT_SUMMARY = re.compile(r"^ \d+ files? changed(, \d+ insertions?\(\+\))?(, \d+ deletions?\(-\))?$")
_STATUS_SUMMARY = re.compile(
    r"^(nothing to commit|nothing added to commit|no changes added to commit|Your branch is (up to date|ahead|behind))"
)


def _status_kind(_: int, line: str) -> str | None:
    return "git hint" if _HINT.match(line) else None


def _log_kind(_: int, line: str) -> str | None:
    if _AUTHOR.match(line):
        return "author line"
    if _DIFF_HEAD.match(line):
        return "diff header line"
    return None


def _summary(lines: Sequence[str]) -> str | None:
    for line in reversed(lines):
        if _STAT_SUMMARY.match(line) or _STATUS_SUMMARY.match(line):
            return line.strip()
    return None


def _looks_like_status(lines: Sequence[str]) -> bool:
    head = [line for line in lines[:3] if line.strip()]
    return bool(head) and (head[0].startswith("On branch ") or head[0].startswith("HEAD detached at "))


@rule("git")
def git_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for a ``git status``/``log``/``show``/``diff`` output (a log file read alone: by its first line)."""
    rest = runs_program(command, "git", _SUBCOMMANDS)
    if rest is None:
        if command is not None or not _looks_like_status(lines):
            return None
        rest = ["status"]
    sub = rest[0]
    if sub == "status":
        if any(a in ("--porcelain", "-s", "--short") or a.startswith("--porcelain") for a in rest[1:]):
            return Plan("git status", [], None)
        return Plan("git status", fold_noise(lines, _status_kind, min_run=1), _summary(lines))
    if sub == "diff" and "--stat" not in rest and "--shortstat" not in rest:
        return None  # a patch is the agent's reading: another view's
    if sub == "log":
        return Plan("git log", _log_folds(lines), _summary(lines))
    tool = "git diff --stat" if sub == "diff" else f"git {sub}"
    return Plan(tool, fold_noise(lines, _log_kind, min_run=1), _summary(lines))


def _commit_starts(lines: Sequence[str]) -> tuple[list[int], bool]:
    """The 0-based index of each commit's first line: ``commit <hash>``, else a line that starts with a hash.

    And whether the log is in the full format (its ``commit <hash>`` lines).
    """
    full = [i for i, line in enumerate(lines) if _FULL_COMMIT.match(line)]
    return (full, True) if full else ([i for i, line in enumerate(lines) if _SHORT_COMMIT.match(line)], False)


def _patch_folds(lines: Sequence[str], starts: set[int], first: int, last: int) -> list[Fold]:
    """Each file's patch between lines ``first`` and ``last`` (0-based, inclusive) as one fold naming the file."""
    out: list[Fold] = []
    i = first
    while i <= last:
        m = _PATCH_START.match(lines[i])
        if m is None:
            i += 1
            continue
        j = i + 1
        while j <= last and j not in starts and not _PATCH_START.match(lines[j]):
            j += 1
        end = j - 1
        while end > i and not lines[end].strip():
            end -= 1  # (the blank line before the next commit stays)
        adds = sum(1 for k in range(i, end + 1) if lines[k].startswith("+") and not lines[k].startswith("+++ "))
        dels = sum(1 for k in range(i, end + 1) if lines[k].startswith("-") and not lines[k].startswith("--- "))
        out.append(Fold(i + 1, end + 1, f"{end - i + 1} lines: the patch of {m.group(1)} (+{adds} -{dels})"))
        i = j
    return out


def _log_folds(lines: Sequence[str]) -> list[Fold]:
    """A log's folds: the commits between its head and its tail, author lines, and the patches."""
    starts, full = _commit_starts(lines)
    middle: Fold | None = None
    if not full and len(starts) >= HEAD_COMMITS + TAIL_COMMITS + 2:
        a, b = starts[HEAD_COMMITS], starts[len(starts) - TAIL_COMMITS] - 1
        middle = Fold(a + 1, b + 1, f"{len(starts) - HEAD_COMMITS - TAIL_COMMITS} commits")
    folds = fold_noise(lines, lambda _, line: "author line" if _AUTHOR.match(line) else None, min_run=1)
    folds += _patch_folds(lines, set(starts), 0, len(lines) - 1)
    if middle is not None:
        folds = [f for f in folds if f.end < middle.start or f.start > middle.end] + [middle]
    return sorted(folds, key=lambda f: f.start)
