"""Views by tool: rules that know one program's output and fold its own noise.

A rule reads the decoded lines of a command's saved output (colours and redraws removed) and
returns a :class:`Plan`: which runs of lines are the program's noise (PASSED lines, progress dots,
a session header, download bars), each folded into one counted line, and the tool's one-line
summary when it printed one. Every line not folded is shown as printed, in the order printed:
a rule never reorders or rewrites a line, so the view stays a projection of the saved output and
``read_saved`` reads back any fold exactly.

Rules are tried in the order of :data:`RULES`; the first that answers wins. A rule that does not
know the output returns None, and the output keeps the view it has today. Whatever the rule,
Python tracebacks in the output are folded too (:mod:`.pytrace`), where the rule folded nothing.
A fold whose label is empty has no line of its own (a traceback's ``^^^^`` marker line): the
view's last line counts it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = ["RULES", "Fold", "Plan", "Rule", "plan_for", "rule"]


@dataclass(frozen=True)
class Fold:
    """Lines ``start``-``end`` (1-based, inclusive) of the output, shown as one line naming ``label``."""

    start: int
    end: int
    label: str  # what the lines are, counted: "199 PASSED lines", "412 progress lines"

    def __post_init__(self) -> None:
        if not 1 <= self.start <= self.end:
            raise ValueError(f"a fold spans lines start..end with 1 <= start <= end, not {self.start}..{self.end}")


@dataclass
class Plan:
    """What a rule makes of an output: the tool, its folds in line order, and its summary line."""

    tool: str  # "pytest", "git log", "pip install", …
    folds: list[Fold] = field(default_factory=list)
    summary: str | None = None  # the runner's own verdict line, e.g. "199 passed, 2 failed in 3.1s"

    def __post_init__(self) -> None:
        for a, b in zip(self.folds, self.folds[1:], strict=False):
            if b.start <= a.end:
                raise ValueError(f"folds overlap or are out of order: {a} then {b}")


Rule = Callable[[str | None, Sequence[str], int | None], "Plan | None"]
"""``rule(command, lines, exit_code)``: the plan for an output, or None when the rule does not know it.

``command`` is the shell line as run (None when unknown, e.g. a log read from a file); ``lines``
the output's decoded lines, line 1 first; ``exit_code`` the command's (None when unknown).
"""

RULES: list[tuple[str, Rule]] = []
"""The rules by name, in the order they are tried."""


def rule(name: str) -> Callable[[Rule], Rule]:
    """Register the decorated function as the rule ``name`` (a later registration of the same name replaces it)."""

    def register(fn: Rule) -> Rule:
        for i, (known, _) in enumerate(RULES):
            if known == name:
                RULES[i] = (name, fn)
                return fn
        RULES.append((name, fn))
        return fn

    return register


_RULE_MODULES = ("pytest", "unittest", "gotest", "cargo", "jest", "git", "install", "lint", "files")
"""The modules of this package whose rules :func:`plan_for` loads (on its first call: imports stay cheap)."""


def _load() -> None:
    import importlib

    for name in _RULE_MODULES:
        importlib.import_module(f"{__name__}.{name}")


def plan_for(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The first registered rule's plan for this output with its tracebacks folded, or None when no rule
    knows it and it holds no traceback to fold."""
    _load()
    from .pytrace import merge_folds, traceback_folds

    plan = next((p for _, fn in RULES if (p := fn(command, lines, exit_code)) is not None), None)
    extra = traceback_folds(lines)
    if not extra:
        return plan
    if plan is None:
        return Plan("python traceback", extra)
    return Plan(plan.tool, merge_folds(plan.folds, extra), plan.summary)
