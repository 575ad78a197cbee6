"""``cargo test``'s output: compiling lines, ``test x ... ok`` lines and the runner's banners folded.

Known by the command (``cargo test``, ``cargo nextest run``) or by the output (``running N tests`` and
``test result:`` lines). Folded, each run into one counted line: ``Compiling``/``Downloaded``/
``Finished``/``Running``/``Doc-tests`` lines, ``running N tests``, ``test x ... ok`` (and
``ignored``) lines. Kept as printed: ``test x ... FAILED``, the ``failures:`` blocks with the
test's output and panic message, warnings and errors of the build, and every ``test result:``
line (the last one is the plan's summary).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import Plan, rule
from .noise import invocations, kinds_by_pattern, plan_of

__all__ = ["cargo_test_rule"]

_BUILD = re.compile(
    r"^\s+(Compiling|Downloaded|Downloading|Finished|Running|Doc-tests|Fresh|Checking|Blocking|Updating|Locking|"
    r"Adding|Starting|Locked)\s"
)
_RUNNING = re.compile(r"^running \d+ tests?$")
_OK = re.compile(r"^test \S.* \.\.\. (ok|ignored)$|^\s+PASS \[\s*[\d.]+s\] \S")
_RESULT = re.compile(r"^test result: ")
_KIND = kinds_by_pattern([(_BUILD, "build line"), (_RUNNING, "running line"), (_OK, "ok line")])


def _is_cargo_test(command: str | None, lines: Sequence[str]) -> bool:
    for words in invocations(command):
        if words[0] == "cargo" and ("test" in words[1:3] or "nextest" in words[1:3]):
            return True
    return any(_RESULT.match(line) for line in lines) and any(_RUNNING.match(line) for line in lines)


@rule("cargo test")
def cargo_test_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for a ``cargo test`` run, or None when the output is not one (or nothing is noise)."""
    if not lines or not _is_cargo_test(command, lines):
        return None

    return plan_of("cargo test", lines, _KIND, _RESULT)
