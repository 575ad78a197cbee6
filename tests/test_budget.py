"""Token counting and fitting."""

from __future__ import annotations

from pathlib import Path

import pytest

from wuu_tools import InvalidArgument
from wuu_tools._budget import (
    DEFAULT_BUDGET,
    count_tokens,
    count_tokens_batch,
    fit_count,
    fit_prefix,
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
    import wuu_tools._budget as b

    monkeypatch.setattr(b, "_encoding", None)
    monkeypatch.setattr(b, "_loaded", True)
    assert b.tokenizer_name().startswith("estimate")
    assert b.count_tokens("abcdef") == 2
    assert b.fit_prefix("x" * 100, 10) == 30


def test_vocabulary_cache_is_written_once_and_survives_corruption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wuu_tools._budget import _load_encoding

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    enc = _load_encoding()
    caches = list((tmp_path / "wuu-tools" / "cache").glob("cl100k-*.marshal"))
    assert len(caches) == 1 and oct(caches[0].stat().st_mode & 0o777) == "0o600"
    assert _load_encoding().encode_ordinary("hello world") == enc.encode_ordinary("hello world") == [15339, 1917]
    caches[0].write_bytes(b"not marshal data")
    assert _load_encoding().encode_ordinary("hello world") == [15339, 1917]
    assert caches[0].stat().st_size > 1_000_000  # rewritten
