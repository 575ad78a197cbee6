"""The error-pattern library: classification, summaries, folding and ranking of evidence lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wuu_tools.logs.evidence import PREFILTER, Collector, classify, clean_line, is_summary, normalize

CAUSES = [
    ("ZeroDivisionError: division by zero", "exception"),
    ("    def test_x():", None),
    ("E       assert 3 == 4", "pytest-e"),
    ("FAILED tests/test_cart.py::test_total - assert 3 == 4", "pytest-short"),
    ("ERROR tests/test_db.py - ImportError: no module named x", "pytest-short"),
    ("astropy/wcs/tests/test_wcs.py::test_zero_size_input FAILED", "test-failed"),
    ("FAIL: test_slug (blog.tests.PostTests.test_slug)", "unittest"),
    ("ERROR: test_db (app.tests.DbTests)", "unittest"),
    ("src/net/socket.c:88:12: error: 'X' undeclared (first use in this function)", "compiler-error"),
    ("main.c:3:10: fatal error: zlib.h: No such file or directory", "compiler-error"),
    ("Order.java:31: error: cannot find symbol", "compiler-error"),
    ("src/Core/Parse.hs:88:14: error:", "compiler-error"),  # the message on the lines below (GHC)
    ("error[E0308]: mismatched types", "rust-error"),
    ("error: aborting due to 1 previous error", "rust-abort"),
    ("src/app/store.ts(57,3): error TS2322: Type 'string' is not assignable to type 'number'.", "tsc-error"),
    ("src/view.ts:12:7 - error TS2304: Cannot find name 'x'.", "tsc-error"),
    ("main.c:(.text+0x2a): undefined reference to `compress_frame'", "undefined-reference"),
    ("collect2: error: ld returned 1 exit status", "linker-exit"),
    ("make[2]: *** [Makefile:120: build/socket.o] Error 1", "make"),
    ("npm ERR! code ERESOLVE", "npm"),
    ("[ERROR] /ws/Cart.java:[27,18] incompatible types: int cannot be converted to String", "maven-compile"),
    ("[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.8.0:compile", "maven-goal"),
    ("--- FAIL: TestParseDate (0.00s)", "go-fail"),
    ("panic: runtime error: index out of range [3] with length 3", "go-panic"),
    ("thread 'tests::round_trip' panicked at src/codec.rs:88:9:", "rust-panic"),
    ("./ci/deploy.sh: line 14: kubectl: command not found", "command-not-found"),
    ("Killed", "killed"),
    ("./run.sh: line 3:  4242 Segmentation fault      (core dumped) ./bench", "segfault"),
    ("##[error]The job has exceeded the maximum execution time", "gha-error"),
    ("##[error]Process completed with exit code 1.", "gha-exit"),
    ("fatal: unsafe repository ('/github/workspace' is owned by someone else)", "fatal"),
    ("[21:46:14] t9502-gitweb.sh ..... Dubious, test returned 1 (wstat 256, 0x100)", "tap-dubious"),
    ("not ok 13 - snapshot certain objects", "tap-dubious"),
    ("  ● Cart › totals › adds prices", "jest"),
]

NOISE = [
    "g++ -O2 -Werror=format-security -c src/error/error_12.cpp -o build/error_12.o",
    "-- Checking for module 'libfail3' -- found; 0 errors, 0 failures",
    "tests/test_errors.py::test_error_paths_9 PASSED                    [ 40%]",
    "[ERROR] -> [Help 1]",
    "[ERROR] Re-run Maven using the -X switch to enable full debug logging.",
    "        raise ValueError('bad input')",
    "    GEN perl/build/lib/Git/LoadCPAN/Error.pm",
    "export GIT_PROVE_OPTS=--timer --jobs 3 --state=failed,slow,save",
    "[21:54:38] t5530-upload-pack-error.sh ......... ok      205 ms",
    "Compiling serde v1.0.130",
    "",
]

SUMMARIES = [
    "===== 3 failed, 56 passed, 1 warning in 1.04s =====",
    "Ran 2501 tests in 12.004s",
    "3 passed, 1 warning in 0.12s",
    "1 failed, 1 passed in 2.66s",
    "FAILED (failures=1)",
    "test result: FAILED. 16 passed; 7 failed; 0 ignored; 0 measured; 0 filtered out",
    "Tests:       1 failed, 40 passed, 41 total",
    "FAIL\texample.com/cal\t0.012s",
    "[INFO] BUILD FAILURE",
    "Result: FAIL",
    "Found 2 errors.",
]


@pytest.mark.parametrize(("line", "rule"), CAUSES)
def test_each_toolchain_line_is_classified(line: str, rule: str | None) -> None:
    got = classify(normalize(line))
    assert (got.name if got else None) == rule


@pytest.mark.parametrize("line", NOISE)
def test_ordinary_lines_that_look_like_errors_are_not_evidence(line: str) -> None:
    assert classify(normalize(line)) is None


@pytest.mark.parametrize("line", SUMMARIES)
def test_runner_summaries_are_recognised(line: str) -> None:
    assert is_summary(normalize(line))


def test_normalize_removes_colours_redraws_timestamps_and_charset_escapes() -> None:
    assert normalize("2022-05-07T08:49:38.2847211Z fatal: x") == "fatal: x"
    assert normalize("[21:46:14] t1.sh .. Dubious") == "t1.sh .. Dubious"
    assert normalize("\x1b[31mFAILED\x1b[0m") == "FAILED"
    assert normalize("10%\r50%\r100%") == "100%"
    assert clean_line("test x ... FAILED\x1b(B") == "test x ... FAILED"


def test_prefilter_finds_every_cause_and_summary_line() -> None:
    for line, rule in CAUSES:
        if rule:
            assert PREFILTER.search(line.encode()), line
    for line in SUMMARIES:
        assert PREFILTER.search(line.encode()), line


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x1b"), max_size=120))
def test_prefilter_is_a_superset_of_the_rules(line: str) -> None:
    text = normalize(line)
    if classify(text) is not None or is_summary(text):
        assert PREFILTER.search(line.encode("utf-8"))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([c for c, r in CAUSES if r]), st.sampled_from(NOISE[:-1]))
def test_cause_lines_keep_their_rule_inside_noise_words(cause: str, noise: str) -> None:
    assert PREFILTER.search(f"{noise} {cause}".encode()) is not None


def _collect(lines: list[str]) -> Collector:
    col = Collector()
    for n, line in enumerate(lines, 1):
        col.add(n, line)
    return col


def test_duplicates_fold_with_a_count_and_their_line_numbers() -> None:
    col = _collect(["npm ERR! code E1", "ok", "npm ERR! code E1", "x", "npm ERR! code E1"])
    (item,) = col.ranked()
    assert (item.line, item.count, item.repeats) == (1, 3, [3, 5])


def test_first_error_of_a_cascade_outranks_the_later_ones() -> None:
    col = _collect(["a.c:1:1: error: first cause", "noise", "a.c:9:1: error: consequence", "b.c:2:2: error: more"])
    ranked = col.ranked()
    assert ranked[0].text == "a.c:1:1: error: first cause"


def test_last_traceback_outranks_earlier_tracebacks() -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "a.py", line 1, in <module>',
        "ValueError: retried",
        "retrying",
        "Traceback (most recent call last):",
        '  File "a.py", line 1, in <module>',
        "RuntimeError: gave up",
    ]
    ranked = _collect(lines).ranked()
    assert ranked[0].text == "RuntimeError: gave up"
    assert ranked[0].rule.name == "traceback-exception"


def test_consecutive_lines_of_a_run_are_one_item() -> None:
    col = _collect(["E   assert 1 == 2", "E     - 1", "E     + 2", "done"])
    (item,) = col.ranked()
    assert (item.line, item.run_end) == (1, 3)


def test_summaries_keep_the_last_of_each_kind_and_are_not_evidence() -> None:
    col = _collect(["== 1 failed in 1.0s ==", "x", "== 2 failed in 2.0s =="])
    assert col.summary_lines() == [(3, "== 2 failed in 2.0s ==")]
    assert col.ranked() == []


def test_the_collector_is_bounded() -> None:
    from wuu_tools.logs import evidence as _evidence

    col = Collector()
    for n in range(1, _evidence.MAX_ITEMS + 50):
        col.add(n, f"a.c:{n}:1: error: distinct {n}")
    assert len(col.items) == _evidence.MAX_ITEMS
    assert col.dropped == 49
