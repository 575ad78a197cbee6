"""Finding evidence lines in a saved log: grep and the Python scan agree; huge logs are searched in stretches."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from wuu_tools.core.lines import LineFile
from wuu_tools.core.store import Store
from wuu_tools.logs import scan as _logscan
from wuu_tools.logs.scan import scan_log
from wuu_tools.logs.view import project_log

ROOT = Path(__file__).resolve().parents[1]


def _save(data: str | bytes) -> str:
    return Store().save(data, "log")


def _log() -> bytes:
    lines = [f"ordinary {i} \x1b[32mok\x1b[0m" for i in range(20_000)]
    lines[5] = "src/a.c:1:2: error: first"
    lines[7000] = "npm ERR! code E1"
    lines[7001] = "npm ERR! code E1 again"
    lines[19_990] = "=== 1 failed, 3 passed in 0.1s ==="
    return ("\n".join(lines) + "\n" + "x" * 70_000 + " error: at the end of a long last line").encode()


def _found(ref: str) -> list[tuple[int, str, int]]:
    with LineFile.open(Store().path(ref)) as lf:
        scan = scan_log(lf)
    items = [(e.line, e.text, e.count) for e in scan.collector.ranked()]
    return items + [(n, t, 0) for n, t in scan.collector.summary_lines()]


def test_grep_and_python_find_the_same_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    if _logscan._GREP is None:
        pytest.skip("grep is not installed: only the Python scan exists here")
    ref = _save(_log())
    with_grep = _found(ref)
    monkeypatch.setattr(_logscan, "_GREP", None)
    assert _found(ref) == with_grep
    assert (6, "src/a.c:1:2: error: first", 1) in with_grep
    assert any(n == 19_991 for n, _, _ in with_grep)


def test_candidates_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_logscan, "MAX_CANDIDATES", 50)
    ref = _save("".join(f"m.c:{i}:1: error: distinct {i}\n" for i in range(1, 201)))
    r = project_log(ref, budget=800, explicit_budget=None)
    assert r.meta["search_stopped_at"] == 50
    assert "searched up to line 50 only" in r.text and "start_line=51" in r.text


def test_grep_and_python_scans_give_the_same_view_of_generated_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    if _logscan._GREP is None:
        pytest.skip("grep is not installed: only the Python scan exists here")
    spec = importlib.util.spec_from_file_location("wuu_gen_logs", ROOT / "fixtures" / "logs" / "generate.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for toolchain, position in (("pytest", "middle"), ("npm", "end"), ("actions", "start"), ("tsc", "middle")):
        text, _, _ = gen.render(toolchain, position)
        ref = _save(text)
        with_grep = project_log(ref, budget=2000, explicit_budget=None).text
        monkeypatch.setattr(_logscan, "_GREP", None)
        assert project_log(ref, budget=2000, explicit_budget=None).text == with_grep
        monkeypatch.undo()


def test_a_huge_log_is_searched_in_its_first_and_last_stretches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_logscan, "SCAN_ALL_BYTES", 64 << 10)
    monkeypatch.setattr(_logscan, "SCAN_HEAD_BYTES", 64 << 10)
    monkeypatch.setattr(_logscan, "SCAN_TAIL_BYTES", 128 << 10)
    lines = [f"ordinary line number {i:06d}" for i in range(40_000)]
    lines[10] = "early: error: found in the head stretch"
    lines[20_000] = "middle: error: not searched"
    lines[39_000] = "late: error: found in the tail stretch"
    r = project_log(_save("\n".join(lines) + "\n"), budget=1500, explicit_budget=None)
    assert "found in the head stretch" in r.text and "found in the tail stretch" in r.text
    assert "not searched" not in r.text
    assert "evidence was searched in lines 1-" in r.text
    assert len(r.meta["searched"]) == 2


def test_grep_line_numbers_from_byte_offsets_match_the_python_scan_in_stretches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if _logscan._GREP is None:
        pytest.skip("grep is not installed: only the Python scan exists here")
    monkeypatch.setattr(_logscan, "SCAN_ALL_BYTES", 64 << 10)
    monkeypatch.setattr(_logscan, "SCAN_HEAD_BYTES", 192 << 10)
    monkeypatch.setattr(_logscan, "SCAN_TAIL_BYTES", 320 << 10)
    # Short lines (many per 64 KiB chunk), runs of candidates in one chunk, candidates at chunk edges.
    lines = ["y" * (i % 7) for i in range(300_000)]
    for i in [*range(3, 40), *range(9000, 9100, 3), *range(21_840, 21_860), 120_000, *range(280_000, 300_000, 997)]:
        lines[i] = f"m.c:{i}:1: error: number {i}"
    ref = _save("\n".join(lines) + "\n")
    with_grep = _found(ref)
    monkeypatch.setattr(_logscan, "_GREP", None)
    assert _found(ref) == with_grep
    numbers = {n for n, _, _ in with_grep}
    assert numbers >= {4, 9001, 21_860, 280_001, 299_941} and 120_001 not in numbers
