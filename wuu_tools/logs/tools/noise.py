"""Shared by the rule modules: which program a shell line runs, and runs of noise lines made into folds.

A rule names each line that is its program's noise by a kind (``"Collecting line"``, ``"hint"``) and
:func:`fold_noise` turns the runs of such lines into :class:`Fold` s counted by kind. Blank lines
between two noise lines join the run; a run is folded only when its one line is shorter than what
it stands for (two lines or more, or one long line), so a fold never makes a view longer.

>>> lines = ["Collecting rich", "  Downloading rich-14.whl (240 kB)", "Successfully installed rich-14.0"]
>>> kinds = {0: "Collecting line", 1: "download line"}
>>> fold_noise(lines, lambda i, line: kinds.get(i))
[Fold(start=1, end=2, label='2 lines: 1 Collecting, 1 download')]
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Callable, Sequence

from . import Fold, Plan

__all__ = ["fold_noise", "invocations", "kinds_by_pattern", "plan_of", "runs_program", "runs_tests"]

LONG_LINE = 60
"""A single noise line this long (characters) is folded alone; a shorter one is left as printed."""

_SPLIT = re.compile(r"&&|\|\||;|\||\n")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = {"sudo", "time", "env", "nice", "timeout", "npx", "uv", "poetry", "pipenv", "pdm", "hatch"}


def invocations(command: str | None) -> list[list[str]]:
    """The words of each simple command in ``command`` (split at ``&&``, ``||``, ``;``, ``|``), wrappers dropped.

    ``cd x && FOO=1 python -m pip install -q rich | tail`` gives ``[["cd", "x"], ["pip", "install", "-q",
    "rich"], ["tail"]]``: assignments, ``sudo``/``time``/``npx``/``uv run``/… and ``python -m`` are
    dropped so that the program's own name comes first.
    """
    if not command:
        return []
    out = []
    for part in _SPLIT.split(command):
        try:
            words = shlex.split(part, comments=False)
        except ValueError:
            words = part.split()
        while words and (_ENV.match(words[0]) or words[0] in _WRAPPERS or words[0] == "run"):
            words = words[1:]
            if words and words[0].isdigit():  # timeout 60 …
                words = words[1:]
        if len(words) >= 3 and re.fullmatch(r"python[0-9.]*", words[0]) and words[1] == "-m":
            words = words[2:]
        if words:
            words[0] = words[0].rsplit("/", 1)[-1]  # .venv/bin/ruff, ./node_modules/.bin/tsc
            out.append(words)
    return out


_TEST_PROGRAMS = {"pytest", "py.test", "tox", "nox", "jest", "mocha", "vitest", "unittest", "runtests.py", "nosetests"}


def runs_tests(command: str | None) -> bool:
    """Whether ``command`` runs a test runner (``pytest``, ``go test``, ``npm test``, ``manage.py test``, …).

    An install or build rule declines such a line (``pip install -q x && pytest``): the test
    runner's rule knows more of its output, and the first rule that answers wins.
    """
    for words in invocations(command):
        head, rest = words[0], words[1:]
        if head in _TEST_PROGRAMS or (head in ("go", "cargo", "dotnet") and rest[:1] == ["test"]):
            return True
        if head in ("npm", "yarn", "pnpm", "bun") and (rest[:1] in (["test"], ["t"]) or rest[:2] == ["run", "test"]):
            return True
        if (
            re.fullmatch(r"python[0-9.]*", head)
            and rest
            and (rest[0].endswith("runtests.py") or rest[:2] == ["manage.py", "test"])
        ):
            return True
    return False


def runs_program(command: str | None, program: str, subcommands: Sequence[str] = ()) -> list[str] | None:
    """The words after ``program`` (and its subcommand, one of ``subcommands`` when given) of the first call of it.

    Options before the subcommand are skipped (``git -C repo --no-pager log`` runs ``git log``); None
    when ``command`` does not run the program so.
    """
    for words in invocations(command):
        if words[0] != program:
            continue
        if not subcommands:
            return words[1:]
        rest = words[1:]
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] in ("-C", "-c") else rest[1:]
        if rest and rest[0] in subcommands:
            return rest
    return None


def _plural(n: int, noun: str) -> str:
    if n == 1:
        return f"1 {noun}"
    head, _, tail = noun.partition(" (")
    if head.endswith("y") and not head.endswith(("ay", "ey", "oy")):
        many = head[:-1] + "ies"
    else:
        many = head + ("es" if head.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{n} {many}" + (f" ({tail}" if tail else "")


_LINE_WORD = re.compile(r" lines?(?= \(|$)")


def _label(kinds: Counter[str], blanks: int) -> str:
    """``3 PASSED lines``; of several kinds (or with blank lines), ``5 lines: 3 PASSED, 1 progress``.

    In a label of several kinds the total says they are lines, so each kind drops its ``line``
    word, and the blank lines are counted in the total only: a fold's line costs tokens too.
    """
    total = sum(kinds.values()) + blanks
    if len(kinds) == 1 and not blanks:
        return ", ".join(_plural(n, kind) for kind, n in kinds.items())
    named = ", ".join(_LINE_WORD.sub("", _plural(n, kind)) for kind, n in kinds.items())
    return f"{total} lines: {named}"


def fold_noise(lines: Sequence[str], kind_of: Callable[[int, str], str | None], *, min_run: int = 2) -> list[Fold]:
    """The folds of the runs of noise lines: ``kind_of(index, line)`` names a noise line's kind, None for any other.

    Blank lines inside a run join it; a run shorter than ``min_run`` lines is folded only when its
    text is longer than :data:`LONG_LINE` characters.
    """
    folds: list[Fold] = []
    start: int | None = None
    kinds: Counter[str] = Counter()
    blanks = 0
    last = -1  # index of the run's last noise line
    size = 0

    def close() -> None:
        nonlocal start, blanks, size
        if start is not None:
            count = sum(kinds.values()) + blanks
            if count >= min_run or size > LONG_LINE:
                folds.append(Fold(start + 1, last + 1, _label(kinds, blanks)))
        start, blanks, size = None, 0, 0
        kinds.clear()

    pending_blanks = 0
    for i, line in enumerate(lines):
        kind = kind_of(i, line)
        if kind is not None:
            if start is None:
                start = i
            else:
                blanks += pending_blanks
            pending_blanks = 0
            kinds[kind] += 1
            size += len(line)
            last = i
        elif not line.strip() and start is not None:
            pending_blanks += 1
        else:
            close()
            pending_blanks = 0
    close()
    return folds


def kinds_by_pattern(table: Sequence[tuple[re.Pattern[str], str]]) -> Callable[[int, str], str | None]:
    """A ``kind_of`` for :func:`fold_noise`: the kind of the first pattern in ``table`` that matches the line."""

    def kind_of(i: int, line: str) -> str | None:
        return next((kind for pattern, kind in table if pattern.match(line)), None)

    return kind_of


def plan_of(
    tool: str,
    lines: Sequence[str],
    kind_of: Callable[[int, str], str | None],
    summary: re.Pattern[str],
    *,
    strip: bool = False,
) -> Plan | None:
    """The plan folding ``lines``' noise, its summary the last line ``summary`` matches; None when nothing folds."""
    folds = fold_noise(lines, kind_of)
    if not folds:
        return None
    last = next((line for line in reversed(lines) if summary.match(line)), None)
    return Plan(tool, folds, last.strip() if strip and last is not None else last)
