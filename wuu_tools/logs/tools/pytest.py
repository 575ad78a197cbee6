"""pytest's output: the session header, PASSED lines and progress dots folded; failures, prints and the summary kept.

Known by the command (``pytest``, ``python -m pytest``, ``py.test``, ``tox``) or by the output
(pytest's ``test session starts`` rule line or its closing ``N passed in 0.31s`` line). Folded, each
run into one counted line: the session header (platform, rootdir, plugins, ``collected N items``),
``-v``'s PASSED/SKIPPED/XFAIL lines, the progress lines of dots (``tests/test_a.py .....  [ 40%]``
and ``-q``'s bare dots), and ``-v -s``'s bare ``PASSED`` lines. Kept as printed: every line with
an ``F`` or ``E`` in its progress, the test's own prints, the FAILURES and ERRORS blocks (less the
frames :mod:`.pytest_tb` folds), the warnings summary (unless deprecations only), the short test
summary and the closing line (the plan's summary).

A run that passed (its closing line counts no failure nor error, and it printed no failure section)
is its closing line and one counted fold: the session header, the PASSED lines and the warnings
summary, whatever its warnings (the closing line counts them). Its fold names no test nor class,
unless the run was narrowed (``-k`` or a node id) to :data:`NAMED_TESTS` tests at most: those it names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import Fold, Plan, rule
from .noise import fold_noise, invocations
from .pytest_tb import failure_folds, warnings_fold, warnings_spans

__all__ = ["pytest_rule"]

_START = re.compile(r"^=+ test session starts =+$")
_SUMMARY = re.compile(
    r"^(=+ )?(\d+ (passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)|no tests ran)\b.* in [\d.]+s"
    r"( \([\d:]+\))?( =+)?$"
)
_VERBOSE = re.compile(
    r"^(\[gw\d+\] (\[\s*\d+%\] )?(PASSED|SKIPPED|XFAIL)\b.*"
    r"|\S+::\S.*? (PASSED|SKIPPED|XFAIL)\b[^\[]*(\[\s*\d+%\])?\s*)$"
)
_FAILED = re.compile(
    r"^(?:\[gw\d+\] (?:\[\s*\d+%\] )?(?:FAILED|ERROR) (\S+::\S+).*"
    r"|(\S+::\S.*?) (?:FAILED|ERROR)\b[^\[]*(?:\[\s*\d+%\])?\s*)$"
)
_LISTED = re.compile(r"^(?:FAILED|ERROR) (\S+(?:\[.*?\])?)(?: - .*)?$")
_BAR = re.compile(r"^.{0,80}?\s\d{1,3}%\|.*\|.*\[[\d:?]+<[\d:?]+.*\]\s*$")
"""A progress bar's line (tqdm's ``name:  50%|████▉     | 46.5k/93.3k [00:00<00:00, 465kB/s]``), e.g. a download."""
_DOTS = re.compile(r"^(\S+\.py )?[.sx]+\s*(\[\s*\d+%\])?\s*$")
_BARE = re.compile(r"^(PASSED|SKIPPED|XFAIL)$")
_HEADER = re.compile(
    r"^(platform |cachedir: |rootdir: |configfile: |inifile: |testpaths: |plugins: |"
    r"(collecting \.\.\. ?)?collected \d+ items?( / \d+ (deselected|selected|errors?|skipped))*\s*$|"
    r"collecting \.\.\.\s*$|"
    r"created: \d+/\d+ workers|\d+ workers \[|asyncio: |django: |hypothesis profile|Using --randomly-seed|"
    r"benchmark: |metadata: |timeout: |sensitiveurl: |Test order randomisation|anyio: |"
    r"cov: |Django settings: |celery: |required plugins)"
)


NAMED_TESTS = 8
"""A fold of PASSED lines names its tests (by function, parameters counted) when it holds at most this many."""
NARROWED_NAMED = 24
"""A failing run narrowed by ``-k`` or a node id names up to this many (the agent reads the names of the tests it
chose); a passing one, :data:`NAMED_TESTS` (on the held-out runs, 1 item of 27 was in a longer list, whose names
cost 980 tokens over all passing runs)."""
LABEL_CLASSES = 12
"""Past :data:`NAMED_TESTS`, a fold of PASSED lines names the test classes they belong to, up to this many."""
_NODE = re.compile(r"^(?:\[gw\d+\] (?:\[\s*\d+%\] )?\w+ )?(\S+?)::(\S+?)(?:\[.*?\])? ")


def _tests_of(lines: Sequence[str]) -> dict[str, dict[str, int]]:
    """The verbose lines' tests, by file and class: ``{"tests/test_a.py::TestA": {"test_x": 2}}``.

    The file stays in the name: an agent's next command names the file it runs (measured on the recorded
    runs, the replay's reused words: without it, 0.5 points of them were no longer visible).
    """
    out: dict[str, dict[str, int]] = {}
    for line in lines:
        if not _VERBOSE.match(line) or not (m := _NODE.match(line)):
            continue
        path, _, name = m.group(2).rpartition("::")
        owner = f"{m.group(1)}::{path}" if path else m.group(1)
        tests = out.setdefault(owner, {})
        tests[name] = tests.get(name, 0) + 1
    return out


def _named(fold: Fold, lines: Sequence[str], named: int = NAMED_TESTS, classes_too: bool = True) -> Fold:
    """``fold``, its label naming the tests of its PASSED lines when they are few, else their classes when few."""
    if "PASSED" not in fold.label:
        return fold
    owners = _tests_of(lines[fold.start - 1 : fold.end])
    if not owners:
        return fold
    if sum(len(t) for t in owners.values()) <= named:
        parts = [
            f"{owner}: " + ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in tests.items())
            for owner, tests in owners.items()
        ]
        return Fold(fold.start, fold.end, f"{fold.label} ({'; '.join(parts)})")
    classes = [o for o in owners if not o.endswith(".py")]
    if not classes_too or not classes or len(classes) > LABEL_CLASSES:
        return fold
    return Fold(fold.start, fold.end, f"{fold.label} ({', '.join(classes)})")


def _is_pytest(command: str | None, lines: Sequence[str]) -> bool:
    for words in invocations(command):
        if words[0] in ("pytest", "py.test", "tox") or words[0].startswith("pytest"):
            return True
    return any(_START.match(line) for line in lines[:200]) or any(_SUMMARY.match(line) for line in lines[-20:])


def _merged(noise: list[Fold], failures: list[Fold], warnings: Fold | None) -> list[Fold]:
    """The folds in line order; one that overlaps a fold before it is left out (its lines stay shown)."""
    out: list[Fold] = []
    for fold in sorted([*noise, *failures, *([warnings] if warnings else [])], key=lambda f: (f.start, -f.end)):
        if not out or fold.start > out[-1].end:
            out.append(fold)
    return out


@rule("pytest")
def pytest_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for a pytest run, or None when the output is not pytest's (or nothing is noise)."""
    if not lines or not _is_pytest(command, lines):
        return None
    header: set[int] = set()
    for i, line in enumerate(lines):
        if _START.match(line):
            header.add(i)
            j = i + 1
            while j < len(lines) and j < i + 40:
                k = j
                while k < len(lines) - 1 and not lines[k].strip():
                    k += 1  # (blank lines inside the header join it: "collecting ... ERROR …", "", "collected 0 items")
                if not _HEADER.match(lines[k]):
                    break
                header.update(range(j, k + 1))
                j = k + 1

    listed = {m.group(1) for line in lines if (m := _LISTED.match(line))}
    summary = next((line.strip("= ") for line in reversed(lines[-20:]) if _SUMMARY.match(line)), None)
    passed = _passed(lines, summary)
    warned = _warnings_section(lines) if passed else set()

    def kind(i: int, line: str) -> str | None:
        if i in header:
            return "session header line"
        if i in warned:
            return "warnings summary line"
        if _VERBOSE.match(line) or _BARE.match(line):
            word = "SKIPPED" if "SKIPPED" in line else "XFAIL" if "XFAIL" in line else "PASSED"
            return f"{word} line"
        if listed and (m := _FAILED.match(line)) and (m.group(1) or m.group(2)) in listed:
            return "FAILED line (listed below)"
        if _BAR.match(line):
            return "progress bar line"
        if _DOTS.match(line) and line.strip():
            return "progress line"
        return None

    narrowed = any("-k" in w or any("::" in x for x in w) for w in invocations(command))
    named = NARROWED_NAMED if narrowed and not passed else NAMED_TESTS
    noise = fold_noise(lines, kind)
    if narrowed or not passed:  # (a passing run's fold is counted only: the tests the agent chose it names)
        noise = [_named(f, lines, named, classes_too=not passed) for f in noise]
    folds = _merged(noise, failure_folds(lines), None if passed else warnings_fold(lines))
    if not folds:
        return None
    return Plan("pytest", folds, summary)


_FAILING = re.compile(r"\b\d+ (failed|errors?)\b")
_SECTION = re.compile(r"^=+ (FAILURES|ERRORS|short test summary info) =+$")


def _passed(lines: Sequence[str], summary: str | None) -> bool:
    """Whether the run passed: its closing line counts no failure nor error, and no failure section was printed."""
    if summary is None or _FAILING.search(summary):
        return False
    return not any(_SECTION.match(line) for line in lines)


def _warnings_section(lines: Sequence[str]) -> set[int]:
    """The 0-based indexes of the warnings summary's lines, its rule line and its ``-- Docs:`` line included.

    In a passing run they are the runner's report on libraries, not the behaviour under test: the closing
    line counts them, and the fold names how many lines they were.
    """
    return {i for start, end in warnings_spans(lines) for i in range(start, end + 1)}
