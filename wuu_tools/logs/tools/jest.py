"""jest's, vitest's and mocha's output: passing tests' check marks and passing files folded.

Known by the command (``jest``, ``vitest``, ``mocha``, ``npm test``/``yarn test``/``pnpm test``, ``npx
jest``) or by the output (jest's ``Tests: N passed`` line, vitest's ``Test Files`` line, mocha's
``N passing (20ms)`` line). Folded, each run into one counted line: ``✓``/``✔``/``√`` lines of
passing tests, jest's ``PASS file`` lines and vitest's passing file lines. Kept as printed: ``FAIL``
files, ``✕``/``×``/numbered failures, every ``●`` failure block with its diff and stack, the
test's own ``console.log`` blocks, and the summary lines (``Tests:``, ``N passing``/``N failing``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import Plan, rule
from .noise import invocations, kinds_by_pattern, plan_of, runs_tests

__all__ = ["js_test_rule"]

_CHECK = re.compile(r"^\s*[✓✔√]\s\S")
_PASS_FILE = re.compile(r"^\s*PASS\s+\S")
_SUMMARY = re.compile(r"^\s*(Tests:\s+.*\d+ total|\d+ passing \(\S+\)|Tests\s+\d+ (passed|failed).*)\s*$")
_KIND = kinds_by_pattern([(_CHECK, "passing test line"), (_PASS_FILE, "PASS file line")])
_SIGNS = re.compile(r"^\s*(Tests:\s|Test Suites:\s|Test Files\s|\d+ passing \()")


def _is_js_test(command: str | None, lines: Sequence[str]) -> bool:
    for words in invocations(command):
        if words[0] in ("jest", "vitest", "mocha"):
            return True
    if runs_tests(command) and any(w[0] in ("npm", "yarn", "pnpm", "bun") for w in invocations(command)):
        return True
    return any(_SIGNS.match(line) for line in lines[-40:])


@rule("jest")
def js_test_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for a jest, vitest or mocha run, or None when the output is not one (or nothing is noise)."""
    if not lines or not _is_js_test(command, lines):
        return None

    return plan_of("jest", lines, _KIND, _SUMMARY, strip=True)
