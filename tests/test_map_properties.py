"""The map's invariants as hypothesis properties over generated source files and budgets.

For any source file and budget: the first view fits its budget; its map's ranges lie within the
file and its entries start in the omitted lines, in order; the continuation chain from the first
view still shows every line exactly once; and the full map read page by page (``symbol="*"``)
lists every entry once, in order, each page within its budget.
"""

from __future__ import annotations

import os
import re
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuu_tools import ToolResult, read_file
from wuu_tools.views.ceiling import TOO_SMALL
from wuu_tools.views.mapview import map_entries
from wuu_tools.views.structure import outline_of_bytes

NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
ENTRY = re.compile(r"^( *)(\d+)-(\d+)  (\S.*)$")
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

_word = st.text(st.sampled_from("abcdefghij_"), min_size=1, max_size=8).map(lambda s: "n" + s)
_filler = st.one_of(
    st.just(""),
    st.text(st.sampled_from("abc xyz(){};=→é#\t"), max_size=60).map(lambda s: "    x = " + repr(s)),
    st.text(st.sampled_from("abc xyz"), min_size=200, max_size=3000).map(lambda s: "    y = " + repr(s)),
)


@st.composite
def sources(draw: st.DrawFn) -> tuple[str, bytes]:
    """A source file: classes with (decorated, commented) methods, functions and filler, as .py or .rb."""
    out = ['"""Generated."""', ""]
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            out += [f"# comment {draw(_word)}"] if draw(st.booleans()) else []
            out += ["@decorator"] if draw(st.booleans()) else []
            out.append(f"class {draw(_word).capitalize()}:")
            for _ in range(draw(st.integers(0, 6))):
                out += ["    @property"] if draw(st.booleans()) else []
                out.append(f"    def {draw(_word)}(self, a, b):")
                out += [
                    draw(_filler).replace("    ", "        ", 1) or "        pass"
                    for _ in range(draw(st.integers(1, 8)))
                ]
                out.append("        return a")
        else:
            out.append(f"def {draw(_word)}(a):")
            out += [draw(_filler) or "    pass" for _ in range(draw(st.integers(1, 12)))]
            out.append("    return a")
        out.append("")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    suffix = draw(st.sampled_from([".py", ".py", ".rb"]))
    return suffix, newline.join(out).encode()


budgets = st.sampled_from([100, 250, 400, 700, 1200, 2000])


def _write(suffix: str, data: bytes) -> str:
    fd, path = tempfile.mkstemp(prefix="wuu-map-", suffix=suffix)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return path


def _follow(first: ToolResult, limit: int = 5000) -> list[ToolResult]:
    views = [first]
    while views[-1].continuation is not None:
        assert len(views) < limit, "continuation chain does not end"
        views.append(read_file(**views[-1].continuation["args"]))
    return views


@SETTINGS
@given(src=sources(), budget=budgets)
def test_first_view_map_and_chain(src: tuple[str, bytes], budget: int) -> None:
    suffix, data = src
    path = _write(suffix, data)
    try:
        first = read_file(path, budget=budget)
        total = first.meta["total_lines"]
        assert first.tokens <= budget or TOO_SMALL in first.text
        found = [(int(m.group(2)), int(m.group(3))) for m in map(ENTRY.match, first.text.split("\n")) if m]
        if found:
            gap_first, gap_last = first.meta["omitted"][0]
            assert all(1 <= a <= b <= total for a, b in found)  # within the file
            assert all(gap_first <= a <= gap_last for a, _ in found)  # of the omitted lines
            assert [a for a, _ in found] == sorted(a for a, _ in found)  # in order
        views = _follow(first)
        seen: set[int] = set()
        seen_whole: set[int] = set()
        for v in views:
            shown = {int(m.group(1)) for ln in v.text.split("\n") if (m := NUMBERED.match(ln))}
            assert shown, "a view showed no line"
            whole = shown - {v.meta.get("partial_line")}
            assert not (whole & seen_whole), "a line was shown twice"
            seen_whole |= whole
            seen |= shown
        assert seen == set(range(1, total + 1))  # every line, exactly once
    finally:
        os.unlink(path)


@SETTINGS
@given(src=sources(), budget=budgets)
def test_full_map_pages_list_every_entry_once(src: tuple[str, bytes], budget: int) -> None:
    suffix, data = src
    path = _write(suffix, data)
    try:
        outline = outline_of_bytes(path, data)
        if outline is None:
            return
        total = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        pages = _follow(read_file(path, symbol="*", budget=budget))
        listed = []
        for page in pages:
            assert page.tokens <= budget or TOO_SMALL in page.text
            listed += [(int(m.group(2)), int(m.group(3))) for m in map(ENTRY.match, page.text.split("\n")) if m]
        expected = [(outline.defs[i].start, outline.defs[i].end) for i in map_entries(outline, 1, total)]
        assert listed == expected
    finally:
        os.unlink(path)
