"""``core/pattern.py``: search patterns on RE2, smart case, constructs RE2 lacks named, one hit per line."""

from __future__ import annotations

import sys
import time

import pytest

from wuu_tools import InvalidArgument
from wuu_tools.core.pattern import compile_pattern


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        (r"(a)\1", "backreference (\\1)"),
        ("(?P<x>a)(?P=x)", "named backreference"),
        ("a(?=b)", "lookahead"),
        ("a(?!b)", "negative lookahead"),
        ("(?<=a)b", "lookbehind"),
        ("(?<!a)b", "negative lookbehind"),
        ("(?>a+)b", "atomic group"),
        ("a*+", "possessive quantifier"),
        ("(a)?(?(1)b|c)", "conditional"),
        (r"end\Z", r"\Z"),
        ("(?x) a b", "inline flag"),
    ],
)
def test_a_construct_re2_lacks_is_named(pattern: str, named: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        compile_pattern(pattern)
    assert named in caught.value.message and "RE2" in caught.value.message, caught.value.message


def test_a_malformed_pattern_says_why_in_one_line() -> None:
    with pytest.raises(InvalidArgument) as caught:
        compile_pattern("(unclosed\n")
    assert "missing )" in caught.value.message and "\n" not in caught.value.message


def test_catastrophic_backtracking_patterns_return_at_once() -> None:
    line = "a" * 5000 + "b"
    started = time.monotonic()
    for pattern in ("(a+)+$", "(a|aa)+$", "(a*)*c", "^(a+)+c"):
        assert compile_pattern(pattern).search(line) is None
    assert time.monotonic() - started < 5  # Python's re: ~2^5000 steps for any of them


def test_smart_case_is_unicode_aware() -> None:
    assert compile_pattern("straße").search("STRASSE") is None  # no full case folding, as ripgrep
    assert compile_pattern("émile").search("ÉMILE sent it")
    assert compile_pattern("Émile").search("émile") is None


def test_line_starts_gives_each_matching_line_once() -> None:
    data = b"ok\nerror error error\nfine\nERROR again\n\xff\xfe error in bad bytes\nlast"
    rx = compile_pattern("error", multiline=True)
    starts = list(rx.line_starts(data))
    assert [data[s : data.find(b"\n", s)] for s in starts] == [
        b"error error error",
        b"ERROR again",
        b"\xff\xfe error in bad bytes",
    ]
    assert list(compile_pattern("^last$", multiline=True).line_starts(data)) == [data.rfind(b"last")]


def test_the_engine_is_loaded_on_the_first_search_only() -> None:
    import subprocess

    code = (
        "import sys\nfrom wuu_tools import read_file\nread_file(sys.argv[1])\n"
        "print('re2' in sys.modules)\nfrom wuu_tools.core.pattern import compile_pattern\n"
        "compile_pattern('x')\nprint('re2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, __file__], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
