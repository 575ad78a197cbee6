"""_preview: first views of in-memory lines by mode."""

from __future__ import annotations

from wuu_tools.views.preview import preview, split_lines


def test_split_lines_numbers_like_read_saved() -> None:
    assert split_lines("") == []
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("\n") == [""]
    assert split_lines("a\r\nb") == ["a\r", "b"]


def test_tail_mode_shows_head_and_tail_and_bounds_the_continuation() -> None:
    lines = [f"line {i}" for i in range(1, 1001)]
    p = preview(lines, "tail", 200, 40_000)
    assert p.mode == "tail" and p.shown[0] == 1 and p.shown[-1] == 1000
    assert p.next_line == max(n for n in p.shown if n < 500) + 1
    assert p.end_line == min(n for n in p.shown if n > 500) - 1
    assert any(s.startswith(f"[… lines {p.next_line:,}-{p.end_line:,}") for s in p.parts)


def test_sections_mode_prefers_headings_and_falls_back_to_tail() -> None:
    lines = []
    for s in range(50):
        lines += [f"## Chapter {s}"] + [f"prose {s}.{k} with several words in it" for k in range(40)]
    p = preview(lines, "sections", 400, 40_000)
    shown = [lines[n - 1] for n in p.shown]
    assert p.mode == "sections" and "## Chapter 49" in shown and p.end_line is None
    assert not any(line.startswith("prose 49") for line in shown)
    plain = preview([f"plain {i} words here" for i in range(2000)], "sections", 300, 40_000)
    assert plain.mode == "tail"


def test_headings_that_do_not_fit_are_sampled_over_the_whole_text() -> None:
    lines = []
    for s in range(400):
        lines += [f"# Part {s}", "body"]
    p = preview(lines, "sections", 300, 40_000)
    headings = [int(lines[n - 1].split()[-1]) for n in p.shown if lines[n - 1].startswith("#")]
    assert headings[-1] >= 390  # the sample reaches the end, not just the first parts


def test_outcome_and_error_modes_pull_their_lines_from_the_middle() -> None:
    lines = ["Applied the edit."] + [f"context {i}" for i in range(3000)]
    lines[1500] = "Next: reviewer-3 takes over"
    p = preview(lines, "outcome", 300, 40_000)
    assert 1501 in p.shown
    err = ["Error: boom"] + [f"  at frame {i}" for i in range(3000)]
    err[2000] = "Caused by: IOError: disk full"
    p = preview(err, "error", 300, 40_000)
    assert 1 in p.shown and 2001 in p.shown and len(err) in p.shown


def test_a_first_line_longer_than_the_budget_is_cut() -> None:
    p = preview(["x" * 100_000, "second"], "tail", 50, 40_000)
    assert p.partial_line == 1 and p.next_line == 1 and 0 < p.next_char < 100_000 and p.shown == []
