"""unittest's and Django's test runner: ``... ok`` lines, progress dots and the test database's setup folded.

Known by the command (``python -m unittest``, ``manage.py test``, ``runtests.py``, ``django-admin
test``) or by the output's ``Ran N tests in 0.1s`` line. Folded, each run into one counted line:
verbosity 2's ``test_x (app.tests.T) ... ok`` lines (and ``skipped``, ``expected failure``), the
lines of dots, and Django's setup (``Creating test database``, migrations applied, ``System check
identified no issues``, ``Found N tests``). Kept as printed: every ``FAIL``/``ERROR`` line and
block, the test's own prints, tracebacks, ``Ran N tests`` and the verdict (``OK``,
``FAILED (failures=1)``), the plan's summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import Plan, rule
from .noise import fold_noise, invocations

__all__ = ["unittest_rule"]

_RAN = re.compile(r"^Ran \d+ tests? in [\d.]+s$")
_OK = re.compile(r"^.* \.\.\. (ok|skipped\b.*|expected failure)$")
_DOTS = re.compile(r"^[.sx]+$")
_SETUP = re.compile(
    r"^(Creating test database for alias |Cloning test database for alias |Destroying test database for alias |"
    r"Destroying old test database for alias |System check identified no issues|Found \d+ tests?\.|"
    r"Testing against Django installed in |Using existing test database|Using existing clone|"
    r"Operations to perform:|Synchronize unmigrated apps: |Apply all migrations: |Synchronizing apps without "
    r"migrations:|  Creating tables\.\.\.|    Creating table |    Running deferred SQL\.\.\.|Running migrations:|"
    r"  Applying \S+\.\.\. OK|Importing application \S+|Skipping setup of unused database|"
    r"Running tests\.\.\.)"
)


def _is_unittest(command: str | None, lines: Sequence[str]) -> bool:
    for words in invocations(command):
        head, rest = words[0], words[1:]
        if head in ("unittest", "runtests.py", "./runtests.py") or head.endswith("runtests.py"):
            return True
        if (head.endswith("manage.py") or head == "django-admin") and rest[:1] == ["test"]:
            return True
        if (
            re.fullmatch(r"python[0-9.]*", head)
            and rest
            and (rest[0].endswith("runtests.py") or rest[:1] == ["manage.py"])
        ):
            return rest[0].endswith("runtests.py") or rest[1:2] == ["test"]
    return any(_RAN.match(line) for line in lines[-30:])


@rule("unittest")
def unittest_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for a unittest or Django test run, or None when the output is not one (or nothing is noise)."""
    if not lines or not _is_unittest(command, lines):
        return None

    def kind(i: int, line: str) -> str | None:
        if _OK.match(line):
            return "ok line"
        if _DOTS.match(line):
            return "progress line"
        if _SETUP.match(line):
            return "setup line"
        return None

    folds = fold_noise(lines, kind)
    if not folds:
        return None
    summary = None
    for i in range(len(lines) - 1, max(-1, len(lines) - 30), -1):
        if _RAN.match(lines[i]):
            after = next((x for x in lines[i + 1 :] if x.strip()), "")
            summary = f"{lines[i]} · {after}" if after else lines[i]
            break
    return Plan("unittest", folds, summary)
