"""Linters and type checkers: ``ruff check``, ``mypy``, ``tsc``, ``eslint``.

Every diagnostic stays, grouped per file as the tool printed it, with its source snippet and its
``help:`` line. Folded: ruff's preview of a fix (the snippet after ``help:``, and its ``note: This is
an unsafe fix`` line), and a mypy/tsc ``note:`` that repeats one printed before (mypy's
``See https://mypy.readthedocs.io/…`` under every missing import). The summary is the tool's own:
``Found 5 errors.``, ``Found 2 errors in 1 file (checked 3 source files)``, ``Success: no issues
found in 3 source files``, ``✖ 4 problems (3 errors, 1 warning)``, ``All checks passed!``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from . import Plan, rule
from .noise import fold_noise, invocations

__all__ = ["lint_rule"]

_TOOLS = {"ruff": "ruff check", "mypy": "mypy", "dmypy": "mypy", "tsc": "tsc", "eslint": "eslint", "vue-tsc": "tsc"}
_SUMMARY = re.compile(
    r"^(Found \d+ errors?.*|All checks passed!|Success: no issues found.*|✖ \d+ problems? .*|"
    r"\d+ files? (reformatted|left unchanged|would be reformatted).*)$"
)
_SNIPPET = re.compile(r"^\s*(\d+\s*)?[|+-](\s|$)|^\s*\|$|^\s*-\s")
_NOTE = re.compile(r"^(?P<where>.+?:\d+(:\d+)?): note: (?P<text>.*)$")


def _tool(command: str | None) -> str | None:
    for words in invocations(command):
        name = _TOOLS.get(words[0])
        if name == "ruff check":
            if words[1:2] in (["check"], []) or words[1].startswith("-") or words[1] == ".":
                return name
            continue
        if name is not None:
            return name
    return None


def _ruff_kinds(lines: Sequence[str]) -> Callable[[int, str], str | None]:
    """The lines of each fix preview: after a ``help:`` line, the snippet up to the next blank line."""
    fix: set[int] = set()
    i = 0
    while i < len(lines):
        if lines[i].startswith("help: ") and i + 1 < len(lines) and _SNIPPET.match(lines[i + 1]):
            j = i + 1
            while j < len(lines) and lines[j].strip() and _SNIPPET.match(lines[j]):
                fix.add(j)
                j += 1
            if j < len(lines) and lines[j].startswith("note: This is an unsafe fix"):
                fix.add(j)
            i = j
        i += 1
    return lambda i, _line: "fix preview line" if i in fix else None


def _repeated_notes(lines: Sequence[str]) -> Callable[[int, str], str | None]:
    seen: set[str] = set()
    repeated: set[int] = set()
    for i, line in enumerate(lines):
        m = _NOTE.match(line)
        if m is None:
            continue
        if m.group("text") in seen:
            repeated.add(i)
        seen.add(m.group("text"))
    return lambda i, _line: "repeated note" if i in repeated else None


@rule("lint")
def lint_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for a ruff/mypy/tsc/eslint output: all diagnostics, the fix previews and repeated notes folded."""
    tool = _tool(command)
    if tool is None:
        return None
    summary = next((line.strip() for line in reversed(lines) if _SUMMARY.match(line.strip())), None)
    if tool == "ruff check":
        folds = fold_noise(lines, _ruff_kinds(lines))
    elif tool in ("mypy", "tsc"):
        folds = fold_noise(lines, _repeated_notes(lines), min_run=1)
    else:
        folds = []
    return Plan(tool, folds, summary)
