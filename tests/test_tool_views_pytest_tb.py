"""pytest's failure blocks (issue 33): the frames between the test and the raise folded, on real pytest runs.

Each run's view keeps the test's own frame, the raising frame's ``>`` and ``E`` lines and its
location, the test's prints, the verdict and the short summary; the frames it went through and
the raising function's source above the ``>`` line are counted lines, and a warnings summary of
deprecations only is one counted line. The chain of the view's continuation reads every folded
line back exactly (``_check_projection``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests._tool_views import planned, sh
from tests.test_tool_views import _check_projection
from wuu_tools.commands.run import run_command

PY = sys.executable

LIB = '''
import warnings


def load(name):
    """Read the setting ``name``."""
    return _lookup(name)


def _lookup(name):
    return _resolve(name)


def _resolve(name):
    table = {"a": 1}
    aliases = {"b": "a"}
    name = aliases.get(name, name)
    known = sorted(table)
    if name not in table:
        detail = "settings are not configured"
        raise LookupError(f"no setting {name}: {detail}")
    return table[name]


def old():
    warnings.warn("old() is deprecated", DeprecationWarning, stacklevel=2)
    return 1
'''

TESTS = """
import lib


def test_reads_a_setting():
    assert lib.old() == 1
    print("printed by test_reads_a_setting")
    assert lib.load("missing_setting") == 2


def test_passes():
    assert lib.old() == 1
"""


def _suite(tmp_path: Path, tests: str = TESTS) -> Path:
    (tmp_path / "lib.py").write_text(LIB)
    (tmp_path / "test_settings.py").write_text(tests)
    return tmp_path


@pytest.mark.parametrize("flags", ["", "-v", "-x", "--tb=short"])
def test_the_frames_between_the_test_and_the_raise_are_folded(tmp_path: Path, flags: str) -> None:
    suite = _suite(tmp_path)
    view = run_command(f"cd {suite} && {PY} -m pytest -p no:cacheprovider {flags} test_settings.py", budget=2000)
    assert view.meta["view"] == "pytest", view.text
    text = view.text
    assert re.search(r"^E\s+LookupError: no setting missing_setting", text, re.M)
    assert 'assert lib.load("missing_setting") == 2' not in text  # the test's own line: in the frames' fold
    assert "printed by test_reads_a_setting" in text  # the test's print (Captured stdout call)
    # The test's frame and those it went through are one line that counts them and places the last.
    assert re.search(r"\[… 3 traceback frames, the last at \S*lib\.py:\d+: lines \d+-\d+\]", text), text
    assert "return _lookup(name)" not in text  # a frame it went through, folded
    assert "lib.py:" in text and "LookupError" in text  # where it raised
    assert re.search(r"1 failed, (1 passed, )?\d warnings? in", text)  # the closing line
    assert re.search(r"\[… warnings summary of \d DeprecationWarnings?: lines \d+-\d+\]", text), text
    assert "old() is deprecated" not in text
    assert "FAILED test_settings.py::test_reads_a_setting" in text  # the short summary
    if "--tb=short" not in flags:
        assert "raise LookupError(" in text  # the raising frame's > line
        assert 'aliases = {"b": "a"}' not in text  # its source above the > line, in the frames' fold
        assert 'detail = "settings are not configured"' not in text
    lines = _check_projection(view)
    assert any("return _lookup(name)" in line for line in lines)  # (read back by the chain)
    assert any('assert lib.load("missing_setting") == 2' in line for line in lines)


def test_a_warning_that_is_not_a_deprecation_keeps_the_summary(tmp_path: Path) -> None:
    tests = TESTS.replace("DeprecationWarning", "UserWarning")
    suite = _suite(tmp_path, tests)
    (suite / "lib.py").write_text(LIB.replace("DeprecationWarning", "UserWarning"))
    lines = sh(f"{PY} -m pytest -p no:cacheprovider test_settings.py", suite)
    _, kept, folded = planned("pytest test_settings.py", lines, 1)
    assert any("UserWarning: old() is deprecated" in line for line in kept)
    assert any("warnings summary" in line for line in kept)
    assert not any("E   " in line or line.startswith("E ") for line in folded)


def test_a_chained_exception_keeps_both_errors(tmp_path: Path) -> None:
    tests = """
import lib


def test_chained():
    try:
        lib.load("missing")
    except LookupError as exc:
        raise RuntimeError("could not load") from exc
"""
    suite = _suite(tmp_path, tests)
    lines = sh(f"{PY} -m pytest -p no:cacheprovider test_settings.py", suite)
    _, kept, folded = planned("pytest test_settings.py", lines, 1)
    assert any(line.startswith("E ") and "LookupError: no setting missing" in line for line in kept)
    assert any(line.startswith("E ") and "RuntimeError: could not load" in line for line in kept)
    assert any("direct cause of the following exception" in line for line in kept)
    assert not any(line.startswith("E ") for line in folded)


def test_a_collection_error_is_named_not_folded_into_the_header(tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_a():\n    pass\n")
    lines = sh(f"{PY} -m pytest -p no:cacheprovider -v test_one.py::test_missing", tmp_path)
    _, kept, folded = planned("pytest -v test_one.py::test_missing", lines, 4)
    assert any("ERROR: not found" in line or "no match in any of" in line for line in kept), lines
    assert any(line.startswith("rootdir: ") for line in folded)
