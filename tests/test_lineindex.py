"""A huge file's first view from its line count alone (core/lineindex.py count_for, core/lines.py ends).

The first view of a large file needs its size, line count, final newline and revision and the
lines near its two ends; the chunk marks are built when a view first needs a line far from both.
Every view must be the one the full index gives, with ``wc -l`` or without it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wuu_tools.core.lineindex as lineindex
import wuu_tools.core.lines as lines
from wuu_tools import read_file


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count-only from 256 KiB, ends of 16 KiB: the paths of a gigabyte file on a file of a few MiB."""
    monkeypatch.setattr(lineindex, "COUNT_ONLY_MIN", 256 * 1024)
    monkeypatch.setattr(lineindex, "DISK_CACHE_MIN", 256 * 1024)
    monkeypatch.setattr(lineindex, "CONTENT_HASH_LIMIT", 256 * 1024)
    monkeypatch.setattr(lines, "END_WINDOW", 16 * 1024)
    lineindex._memory.clear()


def _write(path: Path, n: int, final: bool = True, crlf: bool = False) -> Path:
    end = "\r\n" if crlf else "\n"
    text = end.join(f"{i:07d} request handled path=/api/items/{i * 7 % 1000} status=200" for i in range(1, n + 1))
    path.write_bytes((text + (end if final else "")).encode())
    return path


def _full_index_views(path: Path, calls: list[dict[str, object]], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as m:
        m.setattr(lineindex, "COUNT_ONLY_MIN", 1 << 62)
        lineindex._memory.clear()
        views = [read_file(str(path), **c).text for c in calls]  # type: ignore[arg-type]
    lineindex._memory.clear()
    return views


@pytest.mark.usefixtures("small_thresholds")
@pytest.mark.parametrize(("final", "crlf"), [(True, False), (False, False), (True, True)])
def test_first_view_from_the_count_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, final: bool, crlf: bool
) -> None:
    path = _write(tmp_path / "big.log", 40_000, final, crlf)
    first = read_file(str(path))
    (idx,) = lineindex._memory.values()
    assert idx.marks is None and idx.newlines == 40_000 - (not final)  # counted, not indexed
    assert first.meta["total_lines"] == 40_000
    cont = first.continuation["args"]  # type: ignore[index]
    nxt = read_file(**cont)  # the middle from its start: near the head, still no marks
    assert next(iter(lineindex._memory.values())).marks is None
    middle = read_file(str(path), start_line=20_000, end_line=20_050, revision=first.revision)
    assert next(iter(lineindex._memory.values())).marks is not None  # built for a line far from both ends
    rest = {k: v for k, v in cont.items() if k != "path"}
    calls = [{}, rest, {"start_line": 20_000, "end_line": 20_050, "revision": first.revision}]
    assert [first.text, nxt.text, middle.text] == _full_index_views(path, calls, monkeypatch)


@pytest.mark.usefixtures("small_thresholds")
def test_without_wc_the_full_index_is_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "big.log", 30_000)
    with monkeypatch.context() as m:
        m.setenv("PATH", str(tmp_path / "empty"))  # no wc to run
        first = read_file(str(path))
    (idx,) = lineindex._memory.values()
    assert idx.marks is not None
    assert first.text == _full_index_views(path, [{}], monkeypatch)[0]


@pytest.mark.usefixtures("small_thresholds")
def test_the_count_is_kept_on_disk_for_the_next_process(
    tmp_path: Path, store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "big.log", 30_000)
    first = read_file(str(path))
    lineindex._memory.clear()  # a new process
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # the saved count is used: no wc needed
    again = read_file(str(path))
    assert again.text == first.text and next(iter(lineindex._memory.values())).marks is None
    later = read_file(str(path), start_line=15_000, end_line=15_002)  # marks built and saved over the count
    assert "15000\t0015000 request" in later.text
    lineindex._memory.clear()
    key = lineindex.key_of(os.stat(path))
    disk = lineindex._load_disk(key)
    assert disk is not None and disk.marks is not None


@pytest.mark.usefixtures("small_thresholds")
def test_a_file_changing_while_counted_is_not_trusted(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.log", 30_000)
    fd = os.open(path, os.O_RDONLY)
    try:
        stale = os.fstat(fd)
        with path.open("a") as fh:
            fh.write("one more line\n")
        assert lineindex._wc_lines(fd, stale) is None
        assert lineindex._wc_lines(fd, os.fstat(fd)) == 30_001
    finally:
        os.close(fd)


@pytest.mark.usefixtures("small_thresholds")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    n=st.integers(3_000, 9_000),
    final=st.booleans(),
    budget=st.sampled_from([100, 300, 2000]),
    start=st.floats(0, 1),
    span=st.integers(0, 40),
)
def test_any_range_reads_as_with_the_full_index(
    tmp_path_factory: pytest.TempPathFactory, n: int, final: bool, budget: int, start: float, span: int
) -> None:
    path = _write(tmp_path_factory.mktemp("c") / "f.log", n, final)
    first = max(1, int(start * n))
    calls: list[dict[str, object]] = [{"budget": budget}, {"start_line": first, "end_line": first + span}]
    lineindex._memory.clear()
    ours = [read_file(str(path), **c).text for c in calls]  # type: ignore[arg-type]
    lineindex._memory.clear()
    saved = lineindex.COUNT_ONLY_MIN
    lineindex.COUNT_ONLY_MIN = 1 << 62
    try:
        theirs = [read_file(str(path), **c).text for c in calls]  # type: ignore[arg-type]
    finally:
        lineindex.COUNT_ONLY_MIN = saved
        lineindex._memory.clear()
    assert ours == theirs
