r"""The error-pattern library for logs: which lines are evidence of a failure, ranked.

Pure functions over lines of text, no I/O. A :class:`Rule` names one kind of evidence
(a Python exception line, a compiler ``error:``, a pytest ``E`` line, a Go ``panic:`` …)
with a score (how causal it usually is), how much context belongs with it, and whether the
*first* of its repetitions (a cascade of compiler errors) or the *last* (the final
traceback) is the one that matters. Runner summary lines (``3 failed, 56 passed``,
``test result:``, ``Tests:`` …) are recognised apart: a view always keeps them.

:class:`Collector` takes classified lines in log order, folds duplicates (the same text
after timestamps and colours are removed) into one item with a count, and
:meth:`Collector.ranked` orders the items most causal first. :data:`PREFILTER` is a fast
byte pattern that every evidence or summary line contains somewhere, so a scanner only
decodes and classifies the few lines it finds.

>>> classify("src/app.c:12:5: error: 'x' undeclared").name
'compiler-error'
>>> is_summary("===== 3 failed, 56 passed in 1.04s =====")
True
>>> classify("collecting ... done") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.text import clean_line
from .tone import GREEN, tone

__all__ = ["KEYS", "PREFILTER", "Collector", "Evidence", "Rule", "classify", "clean_line", "is_summary", "normalize"]


@dataclass(frozen=True)
class Rule:
    """One kind of evidence line.

    Attributes:
        name: A short stable name (``"python-exception"``).
        pattern: Matched (``search``) against the normalized line.
        score: How causal such a line usually is, 0-100.
        before: Context lines shown above it.
        after: Context lines shown below it.
        last_wins: True when the last occurrence outranks earlier ones (tracebacks);
            False when the first of a cascade does (compiler errors).
        run: True when consecutive matching lines belong to one item (pytest ``E`` lines).
    """

    name: str
    pattern: re.Pattern[str]
    score: int
    before: int = 0
    after: int = 0
    last_wins: bool = False
    run: bool = False


_EXCEPTION = r"^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure)(?::\s.*|:?\s*$)"


def _r(name: str, regex: str, score: int, before: int = 0, after: int = 0, **kw: bool) -> Rule:
    return Rule(name, re.compile(regex), score, before, after, **kw)


# Ordered: the first rule that matches a line classifies it, so consequences ("error: aborting
# due to …", Maven's help lines) come before the general rule they would otherwise hit.
RULES: tuple[Rule, ...] = (
    # Noise that looks like errors: zero counts, Maven's boilerplate, flags.
    _r(
        "noise",
        r"\b0 (?:errors?|failures?|failed)\b|\bFailures: 0, Errors: 0\b"
        r"|(?:\.{3}|…)\s*(?:ok|OK|PASS(?:ED)?|passed|skipped)\b"
        r"|^\[ERROR\] (?:-> \[Help|Re-run Maven|For more information|To see the full|\s*$)|^\[ERROR\] \[Help \d"
        r"|^[-+]?\s*(?:raise|throw|except|catch)\b",
        0,
    ),
    # Consequences of an earlier error: kept, but below their cause.
    _r("rust-abort", r"^error: (?:aborting due to|could not compile|Could not compile|process didn't exit)", 55),
    _r("linker-exit", r"collect2: error: ld returned|ld returned \d+ exit status|linker command failed", 60),
    _r("gha-exit", r"^##\[error\]Process completed with exit code", 58),
    _r("ci-step-failed", r"\"\s*exited with [1-9]\d*\.\s*$|^ERROR: Job failed\b", 58),
    _r("make", r"\bmake(?:\[\d+\])?: \*\*\* ", 50),
    _r("ninja-failed", r"^FAILED: \S", 62, after=1),
    _r("maven-goal", r"^\[ERROR\] Failed to execute goal", 55),
    # Causes.
    _r("exception", _EXCEPTION, 80, before=1),
    _r("python-traceback", r"^\s*Traceback \(most recent call last\):", 40, last_wins=True),
    _r("pytest-e", r"^E\s{2,}\S|^E\s+(?:assert|[A-Z]\w*(?:Error|Exception))\b", 86, before=1, run=True),
    _r(
        "pytest-location",
        r"^\S+\.py:\d+: (?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Failure|Exit)\b",
        84,
        run=True,
    ),
    _r("pytest-short", r"^(?:FAILED|ERROR) \S+(?:::\S*|\s+-\s)", 80, run=True),
    _r("unittest", r"^(?:FAIL|ERROR): \S+", 84),
    _r("phpt-fail", r"^(?:FAIL|BORK|LEAK)\s.*\[\S+\.phpt\]\s*$|^FAILED TEST SUMMARY\b", 82, run=True),
    _r(
        "tex-error",
        r"^! (?:LaTeX Error|Undefined control sequence|Emergency stop|Missing|Package \S+ Error)",
        86,
        after=2,
    ),
    _r("xcode-failed", r"^\*\* (?:BUILD|TEST|ARCHIVE) FAILED \*\*|^\s*❌\s", 80),
    _r(
        "compiler-error",
        r"^\S[^:]*:\d+(?::\d+)?:\s+(?:fatal\s+)?error(?:\s*\[[^\]]+\])?:(?:\s|$)|: error C\d{4}:",
        92,
        after=2,
    ),
    _r("rust-error", r"^error(?:\[E\d{4}\])?: ", 90, after=3),
    _r("tsc-error", r"\(\d+,\d+\): error TS\d+:|:\d+:\d+ - error TS\d+:|^error TS\d+:", 90),
    _r("maven-compile", r"^\[ERROR\] \S.*\.(?:java|kt|scala|groovy):\[\d+(?:,\d+)?\]", 90, run=True),
    _r(
        "undefined-reference",
        r"undefined reference to|undefined symbol|Undefined symbols? for architecture|cannot find -l\S+",
        92,
        before=1,
        run=True,
    ),
    _r("go-panic", r"^panic: ", 92, after=4),
    _r("rust-panic", r"panicked at", 90, after=2),
    _r("go-fail", r"^\s*--- FAIL: ", 85, after=3),
    _r("go-test-line", r"^\s+\S+_test\.go:\d+: ", 80, run=True),
    _r("segfault", r"Segmentation fault|core dumped|SIGSEGV", 92),
    _r("command-not-found", r"command not found|: not found$|No such file or directory", 88),
    _r("killed", r"^Killed\b|\bKilled$|Out of memory|OutOfMemoryError", 85),
    _r("fatal", r"\bfatal:|\bFATAL\b|\bFatal error\b", 86, after=2),
    _r(
        "tap-dubious",
        r"Dubious, test returned|Failed \d+/\d+ (?:subtests|test programs)|^not ok \d+",
        86,
        after=1,
        run=True,
    ),
    _r("jest", r"^\s*● \S|✕ ", 80, after=3),
    _r("gha-error", r"^##\[error\]", 75),
    _r("npm", r"^npm (?:ERR!|error) ", 60, run=True),
    _r(
        "test-failed",
        r"(?:\s|::)(?:FAILED|FAIL)\b\s*(?:\(.*\))?\s*$|\.\.\. (?:FAILED|FAIL|ERROR)\s*$",
        76,
        after=4,
        run=True,
    ),
    _r("cargo-stdout", r"^---- \S+ stdout ----$", 50, after=3),
    _r("pytest-section", r"^_{3,} \S.* _{3,}$", 45),
    _r("maven-error", r"^\[ERROR\] \S", 62, run=True),
    _r("sbt-error", r"^\[error\] \S", 66, run=True),
    _r(
        "aborted",
        r"^Aborted\b|\bAbort trap\b|exit(?:ed)? (?:with )?(?:status|code) [1-9]\d*\b|returned non-zero exit status",
        50,
        before=2,  # a command's exit status follows its last output: the lines that say why
    ),
    _r("error-word", r"(?<![/\-.=])\b(?:error|Error|ERROR|Exception)\b(?!\.\w)|\bfailure status\b", 35, run=True),
    _r("fail-word", r"(?<![/\-.=,])\b(?:FAIL(?:ED|URE)?|[Ff]ail(?:ed|ure)?)\b(?!\.\w)", 30, run=True),
)

_SUMMARIES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        r"^=+ .*\b(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|no tests ran)\b.* in [\d.]+s",
        r"^(?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?)(?:, |\s))+in [\d.]+s",
        r"^Ran \d+ tests? in ",
        r"^(?:FAILED|OK) \((?:failures|errors|skipped|expected)",
        r"^test result: ",
        r"^Tests:\s+\d+",
        r"^Test Suites:\s+\d+",
        r"^(?:FAIL|ok)\s+\S+\s+(?:[\d.]+s|\(cached\))",
        r"^\s*\d+ (?:passing|failing)\b",
        r"Executed \d+ of \d+.*\b(?:SUCCESS|FAILED|ERROR)\b",
        r"^\[(?:INFO|ERROR|WARNING)\] Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+\s*$",
        r"^\[(?:INFO|ERROR)\] BUILD (?:SUCCESS|FAILURE)",
        r"^BUILD (?:SUCCESSFUL|FAILED)\b",
        r"^Result: (?:PASS|FAIL)",
        r"^Files=\d+, Tests=\d+",
        r"^Found \d+ errors?\b",
    )
)

# Literals of which every rule above (except noise) and every summary needs at least one.
KEYS = (
    "! Missing",
    "! Package",
    "Undefined control",
    "LaTeX Error",
    "Emergency stop",
    "BORK",
    "LEAK",
    "❌",
    "rror",
    "RROR",
    "ail",
    "AIL",
    "xception",
    "Exit",
    "Interrupt",
    "raceback",
    "E  ",
    "E\t",
    "ERR!",
    "npm error",
    "***",
    "nic",
    "anicked",
    "Segmentation",
    "core dump",
    "SIGSEGV",
    "not found",
    "No such file",
    "Killed",
    "emory",
    "atal",
    "FATAL",
    "Dubious",
    "not ok",
    "●",
    "✕",
    "##[",
    "undefined",
    "Undefined",
    "cannot find",
    "---- ",
    "___",
    "Abort",
    "xit",
    "returned",
    "Ran ",
    "test result:",
    "Tests:",
    "Test Suites:",
    "ok ",
    "ok\t",
    "passing",
    "failing",
    "Executed",
    "Tests run:",
    "BUILD",
    "Result:",
    "Files=",
    "Found ",
    "_test.go:",
    "ERROR",
    "Error",
    "passed",
    "skipped",
    "deselected",
)

# The final line of a Python traceback: the exception that ended it (the last one outranks earlier ones).
TRACEBACK_EXCEPTION = _r("traceback-exception", _EXCEPTION, 90, before=2, last_wins=True)
TRACEBACK_REACH = 400  # lines after a "Traceback" header within which its exception line is expected
PREFILTER: re.Pattern[bytes] = re.compile(b"|".join(re.escape(k.encode()) for k in KEYS))
"""A byte pattern found in every line that :func:`classify` or :func:`is_summary` accepts."""

# Timestamps CI systems put in front of every line (GitHub Actions, Travis, Jenkins).
_STAMP = re.compile(
    r"^(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+"
    r"|\[\d\d:\d\d:\d\d(?:\.\d+)?\]\s+|\d\d:\d\d:\d\d(?:\.\d+)?\s+)"
)


def normalize(line: str) -> str:
    """A line as classified and compared: colours, redraws and a leading timestamp removed."""
    line = clean_line(line)
    if line[:1].isdigit() or line[:1] == "[":
        line = _STAMP.sub("", line, count=1)
    return line


def classify(line: str) -> Rule | None:
    """The first rule the (normalized) line matches, or None when it is ordinary output."""
    for rule in RULES:
        if rule.pattern.search(line):
            return None if rule.score == 0 else rule
    return None


def is_summary(line: str) -> bool:
    """True for a test runner's or build tool's own summary line (normalized)."""
    return _summary_kind(line) >= 0


@dataclass
class Evidence:
    """One evidence item: a line (or a run of lines) with its duplicates folded in.

    Attributes:
        line: The line number of its first (or, for ``last_wins`` rules, its last) occurrence.
        rule: The rule it matched.
        text: Its normalized text.
        run_end: The last line of the run it starts (``line`` when it is alone).
        count: How many times the same text occurred.
        repeats: Line numbers of other occurrences (the first few).
        order: Its position among the distinct items of the same rule (0 = first).
        score: Its rank score, set by :meth:`Collector.ranked`.
    """

    line: int
    rule: Rule
    text: str
    run_end: int
    count: int = 1
    repeats: list[int] = field(default_factory=list)
    order: int = 0
    score: float = 0.0


MAX_ITEMS = 20_000
MAX_STEP_ENDS = 64
STEP_END_RULES = frozenset({"ci-step-failed", "gha-exit"})
MAX_REPEATS = 5
GREEN_IS_PASS = True


class Collector:
    """Gathers classified lines in log order, folding duplicates; bounded in memory."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], Evidence] = {}
        self.summaries: dict[int, tuple[int, str]] = {}  # summary kind -> (line, text), last wins
        self.per_rule: dict[str, int] = {}
        self.dropped = 0
        self.total = 0
        self._last: tuple[int, Rule, Evidence] | None = None
        self._traceback = 0  # line of the last Traceback header whose exception line is still to come
        self.step_ends: list[int] = []  # lines that end a CI step that failed (the first MAX_STEP_ENDS)

    def add(self, number: int, raw_line: str) -> None:
        """Classify ``raw_line`` (line ``number``) and keep it if it is evidence or a summary."""
        text = normalize(raw_line)
        kind = _summary_kind(text)
        if kind >= 0:
            self.summaries[kind] = (number, text)
            return
        rule = classify(text)
        if rule is None:
            return
        if GREEN_IS_PASS and rule.name not in STEP_END_RULES and tone(raw_line)[0] == GREEN:
            return  # printed in green: the tool says it passed, whatever words it holds
        if rule.name in STEP_END_RULES and len(self.step_ends) < MAX_STEP_ENDS:
            self.step_ends.append(number)
        if rule.name == "python-traceback":
            self._traceback = number
        elif rule.name == "exception" and self._traceback and number - self._traceback <= TRACEBACK_REACH:
            if not text[:1].isspace():
                rule = TRACEBACK_EXCEPTION
            self._traceback = 0
        self.total += 1
        last = self._last
        if rule.run and last is not None and last[1] is rule and last[0] == number - 1:
            last[2].run_end = number
            self._last = (number, rule, last[2])
            return
        key = (rule.name, text.strip())
        item = self.items.get(key)
        if item is not None:
            item.count += 1
            if rule.last_wins:
                item.repeats = [*item.repeats[-MAX_REPEATS + 1 :], item.line]
                item.line = item.run_end = number
            elif len(item.repeats) < MAX_REPEATS:
                item.repeats.append(number)
        elif len(self.items) >= MAX_ITEMS:
            self.dropped += 1
            return
        else:
            order = self.per_rule.get(rule.name, 0)
            self.per_rule[rule.name] = order + 1
            item = self.items[key] = Evidence(number, rule, text, number, order=order)
        self._last = (number, rule, item)

    def ranked(self) -> list[Evidence]:
        """The items, most causal first: rule score, then first-of-cascade or last-of-kind."""
        out = list(self.items.values())
        last_line: dict[str, int] = {}
        for item in out:
            if item.rule.last_wins:
                last_line[item.rule.name] = max(last_line.get(item.rule.name, 0), item.line)
        for item in out:
            rule = item.rule
            n = self.per_rule[rule.name]
            if rule.last_wins:
                position = 10.0 if item.line == last_line[rule.name] else -min(15.0, 1.0 * (n - 1 - item.order))
            else:
                position = 10.0 if item.order == 0 else -min(15.0, 0.5 * item.order)
            item.score = rule.score + position
        out.sort(key=lambda e: (-e.score, e.line if not e.rule.last_wins else -e.line))
        return out

    def summary_lines(self) -> list[tuple[int, str]]:
        """The last summary line of each kind, in log order."""
        return sorted(self.summaries.values())


def _summary_kind(text: str) -> int:
    """The index of the summary pattern ``text`` matches, or -1."""
    for i, pattern in enumerate(_SUMMARIES):
        if pattern.search(text):
            return i
    return -1
