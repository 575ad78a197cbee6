"""git's views: ``git status``, ``git log``, ``git show`` and ``git diff --stat``.

What is folded, chosen on the recorded runs (none of these lines held a word the agent used next):

- ``git status``: the hint lines ``(use "git add <file>..." to …)`` under each section heading.
- ``git log`` / ``git show`` (the full format): the ``Author:`` line (and ``Merge:``); the hash, the
  date, the subject and the body stay, as do ``--oneline`` and ``--stat`` lines, which have no noise.
- a patch (``git show``, ``git log -p``): each file's ``diff --git`` and ``index`` header lines; the
  ``--- a/…`` / ``+++ b/…`` lines that name the file stay.

The summary is git's own last line where it prints one: ``3 files changed, 26 insertions(+), 83
deletions(-)`` or ``nothing to commit, working tree clean``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import Plan, rule
from .noise import fold_noise, runs_program

__all__ = ["git_rule"]

_SUBCOMMANDS = ("status", "log", "show", "diff", "whatchanged")
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
    tool = "git diff --stat" if sub == "diff" else f"git {sub}"
    return Plan(tool, fold_noise(lines, _log_kind, min_run=1), _summary(lines))
