"""``read_saved`` of a numbered listing (``cat -n``, ``nl``, ``| tail``) shows each line's number once.

The saved log's own line numbers head every line of a page; a ``cat -n`` line's padded number said the
same again (``22\\t    22\\ttext``). Real subprocess output, read through the continuations a real
``run_command`` first view hands out; ``raw=True`` still gives the bytes as printed.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from wuu_tools import ToolResult, read_saved, run_command

PAGE_LINE = re.compile(r"^(\d+)\t(.*)$")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A 300-line Python file whose lines are too many for one 800-token view."""
    lines = []
    for i in range(300):
        lines.append(f"def func_{i}(x):" if i % 20 == 0 else f"    value_{i} = compute(x, {i}) + offset_{i % 7}")
    path = tmp_path / "big.py"
    path.write_text("\n".join(lines) + "\n")
    return path


def page_lines(view: ToolResult) -> list[tuple[int, str]]:
    """(number, text) of each numbered line of a read_saved page."""
    return [(int(m.group(1)), m.group(2)) for line in view.text.split("\n") if (m := PAGE_LINE.match(line))]


def chain(first: ToolResult) -> list[ToolResult]:
    """The read_saved pages that follow a first view's continuation to the end."""
    pages: list[ToolResult] = []
    cont = first.continuation
    while cont is not None:
        assert cont["tool"] == "read_saved"
        pages.append(read_saved(**cont["args"]))
        cont = pages[-1].continuation
    return pages


def test_a_cat_n_listing_read_on_shows_each_number_once_and_each_line_exact(source: Path) -> None:
    first = run_command(["cat", "-n", str(source)], budget=800)
    assert not first.complete
    printed = subprocess.run(["cat", "-n", str(source)], capture_output=True, text=True, check=True).stdout
    printed_lines = printed.split("\n")
    file_lines = source.read_text().split("\n")
    pages = chain(first)
    shown = [pair for page in pages for pair in page_lines(page)]
    assert len(shown) > 200
    for n, text in shown:
        assert text == file_lines[n - 1]  # the file's line, exact, after the one number
        assert printed_lines[n - 1] == f"{n:>6}\t{text}"  # which is the printed line without its padded copy
    assert not any(re.match(r"^\d+\t +\d+\t", line) for page in pages for line in page.text.split("\n"))
    # The pages show the first view's omitted lines, each once, in order.
    ((gap_first, gap_last),) = first.meta["omitted"]
    assert [n for n, _ in shown] == list(range(gap_first, gap_last + 1))


def test_a_page_holds_more_lines_than_with_both_numbers(source: Path) -> None:
    first = run_command(["cat", "-n", str(source)], budget=800)
    assert first.source is not None
    folded = read_saved(ref=first.source, start_line=22, budget=800)
    raw = read_saved(ref=first.source, start_line=22, budget=800, raw=True)
    # The padded copy cost a token or more a line (measured: 37 -> 44 lines of this file in 800 tokens).
    assert folded.meta["shown"][0][1] - 21 > 1.1 * (raw.meta["shown"][0][1] - 21)
    assert page_lines(raw)[0] == (22, f"{22:>6}\t" + source.read_text().split("\n")[21])  # the bytes as printed


def test_read_saved_of_a_cat_n_listing_opens_with_its_lines_numbered_once(source: Path) -> None:
    """Its first view is the saved output's head and tail, not a TSV table of ``    1\ttext`` rows."""
    first = run_command(["cat", "-n", str(source)], budget=800)
    assert first.source is not None
    opened = read_saved(ref=first.source, budget=800)
    file_lines = source.read_text().split("\n")
    shown = page_lines(opened)
    assert len(shown) > 30 and shown[0] == (1, file_lines[0]) and shown[-1] == (300, file_lines[299])
    assert all(text == file_lines[n - 1] for n, text in shown)
    assert opened.meta["omitted"] and "view" not in opened.meta


def test_a_listing_whose_numbers_are_not_the_lines_shows_them_compact(source: Path) -> None:
    """``cat -n FILE | tail -n 100``: output line 1 is the file's line 201; both numbers are kept, unpadded."""
    first = run_command(f"cat -n {source} | tail -n 100", budget=300)
    assert first.source is not None
    page = read_saved(ref=first.source, start_line=10, end_line=12)
    file_lines = source.read_text().split("\n")
    assert page_lines(page) == [(n, f"{n + 200} {file_lines[n + 199]}") for n in (10, 11, 12)]


def test_a_search_of_a_cat_n_listing_shows_each_number_once(source: Path) -> None:
    first = run_command(["cat", "-n", str(source)], budget=800)
    assert first.source is not None
    found = read_saved(ref=first.source, pattern=r"def func_2\d0\(", budget=400)
    hits = [line for line in found.text.split("\n") if re.match(r"^\d+:\t", line)]
    assert hits[:2] == ["201:\tdef func_200(x):", "221:\tdef func_220(x):"]
    raw = read_saved(ref=first.source, pattern=r"def func_200\(", raw=True, budget=400)
    assert "201:\t   201\tdef func_200(x):" in raw.text.split("\n")


def test_an_output_without_a_gutter_is_paged_as_before(tmp_path: Path) -> None:
    """Numbers that only look like a gutter on some lines (a table of counts) stay as printed."""
    rows = "\n".join(f"{n:>6}\tcount {n * 3}" if n % 2 else f"row {n}" for n in range(1, 400))
    path = tmp_path / "rows.txt"
    path.write_text(rows + "\n")
    first = run_command(["cat", str(path)], budget=300)
    assert first.source is not None
    page = read_saved(ref=first.source, start_line=5, end_line=6)
    assert page_lines(page) == [(5, f"{5:>6}\tcount 15"), (6, "row 6")]
