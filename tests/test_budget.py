"""Token counting and fitting."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wuu_tools import InvalidArgument
from wuu_tools.core.budget import (
    DEFAULT_BUDGET,
    count_tokens,
    count_tokens_batch,
    fit_count,
    fit_prefix,
    line_costs,
    resolve_budget,
    tokenizer_name,
)


def test_exact_cl100k_counts() -> None:
    assert tokenizer_name() == "cl100k_base"
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0
    assert count_tokens_batch(["hello world", "", "a b c"] * 5) == [2, 0, 3] * 5


def test_budget_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_budget(None) == DEFAULT_BUDGET == 2000
    monkeypatch.setenv("WUU_BUDGET", "750")
    assert resolve_budget(None) == 750
    assert resolve_budget(300) == 300
    monkeypatch.setenv("WUU_BUDGET", "lots")
    with pytest.raises(InvalidArgument, match="WUU_BUDGET"):
        resolve_budget(None)


@pytest.mark.parametrize("bad", [0, -5, 10, True, 2.5, "100"])
def test_bad_budgets_are_refused(bad: object) -> None:
    with pytest.raises(InvalidArgument, match="budget"):
        resolve_budget(bad)  # type: ignore[arg-type]


def test_fit_count_respects_budget_and_bytes() -> None:
    items = [f"line {i} with some words in it" for i in range(1000)]
    n = fit_count(items, 300)
    assert count_tokens("\n".join(items[:n])) <= 300 < count_tokens("\n".join(items[: n + 1]))
    m = fit_count(items, 10**6, byte_cap=1000)
    assert len("\n".join(items[:m]).encode()) <= 1000 < len("\n".join(items[: m + 1]).encode())


def test_fit_prefix_cuts_a_giant_text_in_bounded_time() -> None:
    text = "xq7 " * 2_000_000  # 8 MB: only a window is tokenized
    cut = fit_prefix(text, 500)
    assert 0 < cut < len(text)
    assert count_tokens(text[:cut]) <= 500
    assert fit_prefix("short", 500) == 5
    assert fit_prefix("", 500) == 0


def test_fallback_estimate_when_the_encoding_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import wuu_tools.core.budget as b

    monkeypatch.setattr(b, "_encoding", None)
    monkeypatch.setattr(b, "_loaded", True)
    assert b.tokenizer_name().startswith("estimate")
    assert b.count_tokens("abcdef") == 2
    assert b.fit_prefix("x" * 100, 10) == 30


def test_vocabulary_cache_is_written_once_and_survives_corruption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wuu_tools.core.budget import _load_encoding

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    enc = _load_encoding()
    caches = list((tmp_path / "wuu-tools" / "cache").glob("cl100k-*.marshal"))
    assert len(caches) == 1 and oct(caches[0].stat().st_mode & 0o777) == "0o600"
    assert _load_encoding().encode_ordinary("hello world") == enc.encode_ordinary("hello world") == [15339, 1917]
    caches[0].write_bytes(b"not marshal data")
    assert _load_encoding().encode_ordinary("hello world") == [15339, 1917]
    assert caches[0].stat().st_size > 1_000_000  # rewritten


LINE = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=40)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(LINE, min_size=1, max_size=30), data=st.data())
def test_line_costs_bound_every_run_of_joined_lines(lines: list[str], data: st.DataObject) -> None:
    # Any text at all (line breaks, leading spaces, empty lines) — the attribution or its fallback.
    costs = line_costs(lines)
    assert len(costs) == len(lines) and all(c >= 1 for c in costs)
    a = data.draw(st.integers(0, len(lines) - 1))
    b = data.draw(st.integers(a + 1, len(lines)))
    assert count_tokens("\n".join(lines[a:b])) <= sum(costs[a:b])


def test_line_costs_of_listing_lines_attribute_each_newline_to_its_line() -> None:
    lines = [f"src/pkg{i:05d}/module_{i}.py  ({i * 37} B)" for i in range(500)] + ["é漢 -> x  (link)"]
    costs = line_costs(lines)
    # One tokenization: the costs add up to the joined text with its final newline, exactly.
    assert sum(costs) == count_tokens("\n".join(lines) + "\n")
    assert sum(costs) < sum(count_tokens(line) + 1 for line in lines)  # ")\n" is one token, not two
    assert line_costs([]) == []
