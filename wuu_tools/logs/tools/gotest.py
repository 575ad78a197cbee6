"""``go test``'s output: ``=== RUN`` and ``--- PASS`` lines and the ``ok`` line of each passing package folded.

Known by the command (``go test``) or by the output (``=== RUN`` lines, ``ok  \\tpkg\\t0.1s`` lines).
Folded, each run into one counted line: ``=== RUN``/``=== PAUSE``/``=== CONT``, ``--- PASS``/``--- SKIP``
(nested ones too), a bare ``PASS``, ``ok`` lines and ``[no test files]`` lines. Kept as printed:
``--- FAIL`` lines and what the test logged (``x_test.go:12: got 1``), panics, ``FAIL`` lines and
build errors; the last ``FAIL``/``ok`` line is the plan's summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import Plan, rule
from .noise import invocations, kinds_by_pattern, plan_of

__all__ = ["go_test_rule"]

_RUN = re.compile(r"^=== (RUN|PAUSE|CONT|NAME)\s")
_PASS = re.compile(r"^\s*--- (PASS|SKIP): \S+ \([\d.]+s\)$")
_OK = re.compile(r"^ok\s+\S+\s+(\(cached\)|[\d.]+s)(\s.*)?$")
_NO_FILES = re.compile(r"^\?\s+\S+\s+\[no test files\]$")
_VERDICT = re.compile(r"^(ok|FAIL)\s+\S+\s+.*$|^FAIL$|^PASS$")
_KIND = kinds_by_pattern(
    [
        (_RUN, "=== RUN line"),
        (_PASS, "--- PASS line"),
        (re.compile(r"PASS\Z"), "PASS line"),
        (_OK, "ok line"),
        (_NO_FILES, "no-test-files line"),
    ]
)


def _is_go_test(command: str | None, lines: Sequence[str]) -> bool:
    if any(w[0] == "go" and w[1:2] == ["test"] for w in invocations(command)):
        return True
    return sum(1 for line in lines[:400] if _RUN.match(line) or _OK.match(line)) >= 2


@rule("go test")
def go_test_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for a ``go test`` run, or None when the output is not one (or nothing is noise)."""
    if not lines or not _is_go_test(command, lines):
        return None

    return plan_of("go test", lines, _KIND, _VERDICT)
