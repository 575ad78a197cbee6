"""Listings: ``find`` and ``ls -l``/``ls -la``.

What the agent uses next in a listing is its paths and names (the recorded runs: 130 of 130 items
of ``find`` outputs on DEV were paths or names, never a permission or an owner), and a rule never
rewrites a line, so only whole lines are folded: ``find``'s ``Permission denied`` / ``No such file``
complaints, and ``ls -l``'s ``total N`` line and its ``.`` and ``..`` entries. Every path is kept, in
the order printed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import Plan, rule
from .noise import fold_noise, invocations

__all__ = ["find_rule", "ls_rule"]

_FIND_NOISE = re.compile(r"^find: .*(Permission denied|No such file or directory)$")
_TOTAL = re.compile(r"^total \d+(\.\d+)?[KMG]?$")
_DOTS = re.compile(r"^[dl-][rwxsStT-]{9}[.@+]?\s+\d+\s.*\s\.\.?$")


@rule("find")
def find_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for a ``find`` run (first in its pipeline): its complaints folded, the paths kept."""
    calls = invocations(command)
    if not calls or calls[0][0] != "find" or any(w in ("-exec", "-execdir", "-printf", "-ls") for w in calls[0]):
        return None
    kind = {True: "find complaint"}
    folds = fold_noise(lines, lambda _, line: kind.get(bool(_FIND_NOISE.match(line))), min_run=1)
    return Plan("find", folds, None)


@rule("ls -l")
def ls_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for ``ls -l``/``-la``: the ``total`` lines and the ``.``/``..`` entries folded."""
    calls = invocations(command)
    if not calls or calls[0][0] != "ls" or not any(re.fullmatch(r"-[a-zA-Z]*l[a-zA-Z]*", w) for w in calls[0]):
        return None

    def kind(_: int, line: str) -> str | None:
        if _TOTAL.match(line):
            return "total line"
        if _DOTS.match(line):
            return "./.. entry"
        return None

    return Plan("ls -l", fold_noise(lines, kind), None)
