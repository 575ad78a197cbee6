"""read_saved: line views and pattern search over saved results."""

from __future__ import annotations

import re

import pytest

from wuu_tools import InvalidArgument, InvalidReference, SourceNotFound, read_saved
from wuu_tools.core.store import Store

NUMBERED = re.compile(r"^ *(\d+)[\t:-]")


def _log(n: int = 5000) -> str:
    lines = []
    for i in range(1, n + 1):
        if i % 997 == 0:
            lines.append(f"ERROR: widget {i} failed to frob")
        else:
            lines.append(f"INFO step {i} done")
    return "\n".join(lines) + "\n"


def test_line_view_of_a_saved_result() -> None:
    ref = Store().save(_log(), "log")
    r = read_saved(ref)
    assert r.source == ref and not r.complete
    assert r.continuation is not None and r.continuation["tool"] == "read_saved"
    assert r.continuation["args"]["ref"] == ref
    assert "revision" not in r.continuation["args"]  # saved results never change
    # No header: the numbered lines and the omission line say what is shown, and its call names the reference once.
    assert r.text.startswith("1\t") and r.text.count(ref) == 1
    a, b = r.meta["omitted"][0]
    assert f"[… lines {a:,}-{b:,} omitted (" in r.text and f'read_saved(ref="{ref}", start_line={a}' in r.text


def test_pattern_shows_matches_with_context_and_line_numbers() -> None:
    ref = Store().save(_log(), "log")
    r = read_saved(ref, pattern=r"^ERROR")
    assert r.meta["matches"] == 5
    assert "5 matching lines" in r.text.split("\n")[0]
    for n in (997, 1994, 2991, 3988, 4985):
        assert f"{n}:\tERROR: widget {n} failed to frob" in r.text
        assert f"{n - 1}-\tINFO step {n - 1} done" in r.text
    assert r.complete


def test_pattern_pages_forward_without_repeating_matches() -> None:
    text = "".join(f"match {i} " + "pad " * 30 + "\n" for i in range(300))
    ref = Store().save(text, "log")
    r = read_saved(ref, pattern="match", budget=300)
    seen: list[int] = []
    while True:
        matches = [int(m.group(1)) for ln in r.text.split("\n") if (m := re.match(r"^ *(\d+):\t", ln))]
        assert matches and not set(matches) & set(seen)
        seen += matches
        if not r.continuation:
            break
        assert r.continuation["args"]["pattern"] == "match"
        r = read_saved(**r.continuation["args"])
    assert seen == list(range(1, 301))


def test_pattern_with_no_match() -> None:
    ref = Store().save(_log(100), "log")
    r = read_saved(ref, pattern="nothing-like-this")
    assert r.complete and r.meta["matches"] == 0 and "0 matching lines" in r.text


def test_bad_pattern_and_bad_refs() -> None:
    ref = Store().save(_log(10), "log")
    with pytest.raises(InvalidArgument, match="not a valid regular expression"):
        read_saved(ref, pattern="(unclosed")
    with pytest.raises(InvalidReference):
        read_saved("../../etc/passwd")
    with pytest.raises(SourceNotFound, match="not in the store"):
        read_saved("log-" + "f" * 32)


def test_range_of_a_saved_result() -> None:
    ref = Store().save(_log(), "log")
    r = read_saved(ref, start_line=995, end_line=999)
    numbers = [int(m.group(1)) for ln in r.text.split("\n") if (m := NUMBERED.match(ln))]
    assert numbers == [995, 996, 997, 998, 999] and r.complete
