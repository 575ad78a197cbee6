"""Property: whatever the output and whichever view its shape picks, the chain from the first view loses no line.

Outputs are drawn from pieces of every shape (search hits, diff hunks, JSON, table rows, log
lines, failure summaries, giant lines, blank lines, CRLF), mixed, so the guess is often wrong;
the first view may order lines as it likes, but the first view plus its ``read_saved`` chain
must show every line, the chain must show each line once, and every view holds the budget.
"""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from wuu_tools import ToolResult, read_saved
from wuu_tools.core.budget import count_tokens
from wuu_tools.core.store import Store
from wuu_tools.core.text import clean_terminal
from wuu_tools.logs.output import project_output
from wuu_tools.views.ceiling import TOO_SMALL

NUMBERED = re.compile(r"^ *(\d+)\t")
SETTINGS = settings(
    # 300: the CI profile's fixed examples still reach new lines and branches between 100 and 300
    # (90 of 3,378, coverage.py), so the count stays.
    max_examples=int(os.environ.get("WUU_PROPERTY_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

_word = st.text(st.sampled_from('abcdefxyz_ ./-:{}[],"0123456789'), max_size=40)
_path = st.from_regex(r"[a-c]{1,3}(/[a-c]{1,3}){0,2}\.py", fullmatch=True)
_piece = st.one_of(
    st.builds(lambda p, n, t: f"{p}:{n}:{t}", _path, st.integers(1, 999), _word),  # search hit
    st.builds(lambda p, n: f"{p}:{n}", _path, st.integers(0, 9)),  # grep -c
    st.sampled_from(["diff --git a/x.py b/x.py", "--- a/x.py", "+++ b/x.py", "@@ -1,3 +1,4 @@", "commit " + "a" * 40]),
    st.builds(lambda t: "+" + t, _word),
    st.builds(lambda t: "-" + t, _word),
    st.sampled_from(["{", "}", "[", "]", '  "id": 1,', '{"a": 1}', "---", "key: value", "  - item"]),
    st.sampled_from(["total 12", "-rw-r--r-- 1 u g 0 Jan 1 00:00 f", "PID USER COMMAND", "----- -----", "a,b,c"]),
    st.sampled_from(["=== 3 failed, 1 passed in 0.1s ===", "error: boom", "x.c:1:2: warning: w", "Traceback"]),
    st.text(st.sampled_from("ab xyz"), min_size=300, max_size=3000),  # a long line
    st.just(""),
    _word,
)


_hit = st.builds(lambda p, n, t: f"{p}:{n}:{t}", _path, st.integers(1, 999), _word)
_diff = st.lists(
    st.one_of(
        st.builds(lambda p: f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1,2 +1,2 @@", _path),
        st.builds(lambda t: "+" + t, _word),
        st.builds(lambda t: "-" + t, _word),
        st.builds(lambda t: " " + t, _word),
        st.just("commit " + "b" * 40 + "\nAuthor: x\n\n    subject"),
    ),
    min_size=1,
    max_size=300,
).map(lambda ls: ["diff --git a/a.py b/a.py", "--- a/a.py", "+++ b/a.py", "@@ -1,3 +1,3 @@", *ls])
SHAPES = {
    "search": st.lists(_hit, min_size=3, max_size=400),
    "counts": st.lists(st.builds(lambda p, n: f"{p}:{n}", _path, st.integers(0, 9)), min_size=3, max_size=300),
    "heading": st.lists(
        st.one_of(_path, st.builds(lambda n, t: f"{n}:{t}", st.integers(1, 99), _word)), min_size=3, max_size=300
    ),
    "diff": _diff,
    "json": st.lists(
        st.builds(lambda i, t: f'  {{"id": {i}, "t": "{t}"}},', st.integers(), _word), min_size=3, max_size=400
    ).map(lambda ls: ["[", *ls, '  {"id": 0}', "]"]),
    "ndjson": st.lists(st.builds(lambda i: f'{{"id": {i}}}', st.integers()), min_size=3, max_size=400),
    "yaml": st.lists(
        st.sampled_from(["key: value", "  nested: 1", "  - item", "other:"]), min_size=3, max_size=400
    ).map(lambda ls: ["---", "top:", *ls]),
    "ls": st.lists(
        st.builds(lambda n: f"-rw-r--r-- 1 u g {n} Jan 1 00:00 f{n}", st.integers(0, 10**6)), max_size=400
    ).map(lambda ls: ["total 12", *ls]),
    "csv": st.lists(st.builds(lambda a, b: f"{a},{b},x", st.integers(), st.integers()), min_size=3, max_size=400).map(
        lambda ls: ["name,size,kind", *ls]
    ),
    "plain": st.lists(_word, min_size=3, max_size=400),
}


@st.composite
def outputs(draw: st.DrawFn) -> bytes:
    """Mostly one shape, sometimes with pieces of others mixed in (so the guess may be wrong)."""
    lines = list(draw(SHAPES[draw(st.sampled_from(sorted(SHAPES)))]))
    lines *= draw(st.sampled_from([1, 5, 30, 100]))  # long enough to be cut
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 5]))):
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(_piece))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    final = draw(st.booleans())
    return (newline.join(lines) + (newline if final and lines else "")).encode()


def _numbers(view: ToolResult) -> list[int]:
    return [int(m.group(1)) for ln in view.text.split("\n") if (m := NUMBERED.match(ln))]


@SETTINGS
@given(data=outputs(), exit_code=st.sampled_from([0, 0, 0, 0, 1, 2, None]), budget=st.sampled_from([60, 100, 200, 600]))
def test_no_view_drops_a_line(data: bytes, exit_code: int | None, budget: int) -> None:
    # Two lines per token of budget is long enough to be cut many times over; longer outputs only made
    # chains of thousands of pages at budget 60 (most of the suite's time), not new cases.
    data = b"".join(data.splitlines(keepends=True)[: budget * 2])
    ref = Store().save(data, "log", {"exit_code": exit_code})
    first = project_output(ref, budget=budget, explicit_budget=budget, exit_code=exit_code)
    assert first is not None
    event(f"view: {first.meta['view']}, {'whole' if first.complete else 'cut'}")
    views = [first]
    while views[-1].continuation is not None:
        assert len(views) < 3000
        views.append(read_saved(**views[-1].continuation["args"]))
    total = first.meta["total_lines"]
    later = [n for v in views[1:] for n in _numbers(v)]
    partial = any("partial_line" in v.meta for v in views)
    if not partial:
        assert len(later) == len(set(later)), "a continuation page repeats a line"
    seen = {n for a, b in first.meta["shown"] for n in range(a, b + 1)} | set(later)  # (shown as printed)
    assert seen >= set(range(1, total + 1)), sorted(set(range(1, total + 1)) - seen)[:10]
    for v in views:
        # the budget is a ceiling, notices included; a budget too small for the header and a line says so
        assert v.tokens <= budget or (TOO_SMALL in v.text and v.meta["budget_too_small"]["budget"] == budget)
        assert len(v.text.encode()) <= 51200
    # read_saved's own first view of the same output: exactly once when it takes a shape.
    saved = read_saved(ref, budget=budget)
    chain = [saved]
    while chain[-1].continuation is not None:
        assert len(chain) < 3000
        chain.append(read_saved(**chain[-1].continuation["args"]))
    shown = [n for v in chain for n in _numbers(v)]
    if not any("partial_line" in v.meta for v in chain):
        assert sorted(shown) == list(range(1, total + 1))


@SETTINGS
@given(data=outputs(), exit_code=st.sampled_from([0, 0, 1, 2, None]), budget=st.sampled_from([100, 200, 600, 2000]))
def test_an_output_that_fits_is_shown_as_printed_under_the_verdict_alone(
    data: bytes, exit_code: int | None, budget: int
) -> None:
    """Issue 23: what fits the budget as printed is shown as printed, at most 15 tokens over its own."""
    ref = Store().save(data, "log", {"exit_code": exit_code})
    printed = "\n".join(clean_terminal(s) for s in data.decode("utf-8", "replace").split("\n"))
    if printed.endswith("\n"):
        printed = printed[:-1]
    verdict = f"[exit {exit_code}]" if exit_code is not None else "[no exit code]"
    first = project_output(ref, budget=budget, explicit_budget=None, exit_code=exit_code, whole_verdict=verdict)
    assert first is not None
    raw = count_tokens(printed)
    if first.meta.get("view_by_tool"):  # a view by tool (issue 33: ls -l rows by name) is smaller, and reads back
        event("by tool")
        assert first.tokens < raw + count_tokens(verdict) and first.continuation is not None
        assert read_saved(**first.continuation["args"]).text.count("\n") >= 1
        return
    if raw + 15 <= budget and "\ufffd" not in printed:
        event("fits")
        assert first.complete and first.continuation is None
        assert first.text == (f"{verdict}\n{printed}" if data else f"{verdict}\n[no output]")
        assert first.tokens <= raw + 15
        assert ref not in first.text  # nothing was left out: nothing to refer to
