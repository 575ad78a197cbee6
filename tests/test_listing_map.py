"""A command that printed one source file, or a range of it, is mapped like ``read_file`` maps the file.

``cat FILE``, ``cat -n FILE``, ``nl FILE``, ``head -n N FILE``, ``sed -n 'A,Bp' FILE`` (after ``cd DIR &&``
too): the first view of ``run_command`` names what its omitted middle defines, from the printed text
itself (the saved output), in the output's line numbers, and in the file's too where the command
says which lines it printed. Real subprocesses and the real Python grammar; the chain from the first
view still reads every line of the output exactly once.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuu_tools import ToolResult, read_saved, run_command
from wuu_tools.commands.run import project_captured
from wuu_tools.core.budget import count_tokens
from wuu_tools.logs.listing import Listing, listing_of

NUMBERED = re.compile(r"^(\d+)\t")
ENTRY = re.compile(r"^( *)(\d+)-(\d+)(?: \((\d+)-(\d+)\))?  (\S.*)$")


def module(classes: int = 24, methods: int = 8, body: int = 5) -> str:
    """A Python module whose middle holds many named definitions (about 60 KB at the defaults)."""
    out = ['"""A generated module."""', "", "import os", ""]
    for c in range(classes):
        out += ["", f"class Widget{c}(Base):", f'    """Widget {c}."""', ""]
        for m in range(methods):
            out += [f"    def handle_{c}_{m}(self, value: int) -> int:"]
            out += [f"        value += {k}  # step {k} of widget {c}" for k in range(body)]
            out += ["        return value", ""]
    out += ["", "def main() -> None:", "    print(os.sep)", ""]
    return "\n".join(out)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "widgets.py"
    path.write_text(module())
    return path


def entries(view: ToolResult) -> list[tuple[int, int, int | None, str]]:
    """(first, last, file's first or None, signature) of each map line."""
    out = []
    for line in view.text.split("\n"):
        m = ENTRY.match(line)
        if m:
            out.append((int(m.group(2)), int(m.group(3)), int(m.group(4)) if m.group(4) else None, m.group(6)))
    return out


def chain_lines(first: ToolResult) -> list[int]:
    """The output's line numbers that the first view and its read_saved chain show, in order (repeats kept)."""
    shown = [n for a, b in first.meta["shown"] for n in range(a, b + 1)]
    view = first
    while view.continuation is not None:
        assert view.continuation["tool"] == "read_saved"
        view = read_saved(**view.continuation["args"])
        shown += [int(m.group(1)) for ln in view.text.split("\n") if (m := NUMBERED.match(ln))]
        assert len(shown) < 100_000
    return shown


# -- the commands that are listings -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat app.py", Listing("app.py", "", 0, None)),
        ("cat -n src/app.py", Listing("src/app.py", "cat -n", 0, None)),
        (["cat", "-n", "main.go"], Listing("main.go", "cat -n", 0, None)),
        ("nl lib.rs", Listing("lib.rs", "nl", 0, None)),
        ("nl -ba lib.rs", Listing("lib.rs", "nl", 0, None)),
        ("head -n 200 app.py", Listing("app.py", "", 0, 200)),
        ("head -200 app.py", Listing("app.py", "", 0, 200)),
        ("head --lines=50 app.py", Listing("app.py", "", 0, 50)),
        ("tail -n +40 app.py", Listing("app.py", "", 39, None)),
        ("tail -n 40 app.py", Listing("app.py", "", None, None)),
        ("sed -n '120,180p' app.py", Listing("app.py", "", 119, 180)),
        ("sed -n -e 120,180p app.py", Listing("app.py", "", 119, 180)),
        ("sed -n '120,$p' app.py", Listing("app.py", "", 119, None)),
        ("cd /testbed && sed -n '5,9p' ./pkg/mod.py", Listing("./pkg/mod.py", "", 4, 9)),
        ('cd "/my repo"; cat README.md', Listing("README.md", "", 0, None)),
        # one last head or tail cuts the listing: head keeps where its lines are, tail does not say
        ("cat app.py | head -200", Listing("app.py", "", 0, 200)),
        ("cat -n app.py | head -n 250", Listing("app.py", "cat -n", 0, 250)),
        ("sed -n '100,300p' app.py | head -50", Listing("app.py", "", 99, 149)),
        ("sed -n '100,120p' app.py | head -50", Listing("app.py", "", 99, 120)),
        ("cat app.py | head", Listing("app.py", "", 0, 10)),
        ("cat app.py|tail -20", Listing("app.py", "", None, None)),
    ],
)
def test_commands_that_print_one_source_file_are_listings(command: str | list[str], expected: Listing) -> None:
    assert listing_of(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "cat app.py | grep def",  # a pipe into something else
        "cat app.py | grep def | head -5",
        "cat app.py | head -n +5",
        "cat app.py > copy.py",  # a redirection
        "cat a.py b.py",  # two files
        "cat -A app.py",  # an option that changes the text
        "cat notes.txt",  # no language known from the name
        "cat *.py",  # a glob
        "cat $FILE",  # a variable
        "sed -n '1,5p;9,12p' app.py",  # two ranges
        "sed -i 's/a/b/' app.py",
        "head -c 100 app.py",
        "cat app.py && echo done",
        "grep -n def app.py",
        "cat 'unterminated",
        "",
    ],
)
def test_anything_else_is_not_a_listing(command: str) -> None:
    assert listing_of(command) is None


# -- the first view of a listing ----------------------------------------------------------------------


def test_cat_of_a_source_file_names_its_omitted_middle_with_ranges(source: Path) -> None:
    r = run_command(["cat", source.name], cwd=str(source.parent), budget=2000)
    assert r.tokens <= 2000 and not r.complete
    ((gap_first, gap_last),) = r.meta["omitted"]
    lines = r.text.split("\n")
    omitted_at = next(i for i, ln in enumerate(lines) if ln.startswith("[… lines"))
    assert lines[omitted_at + 1] == f"[what lines {gap_first:,}-{gap_last:,} define]"
    found = entries(r)
    assert len(found) >= 5, r.text
    file_lines = source.read_text().split("\n")
    for first, last, in_file, signature in found:
        assert gap_first <= first <= gap_last and first <= last and in_file is None
        assert file_lines[first - 1].strip().rstrip(":").startswith(signature.split(" · ")[0].rstrip(":"))
    assert [e[0] for e in found] == sorted(e[0] for e in found)
    assert any(sig.startswith("class Widget") for *_, sig in found)
    # the continuation reads the omitted lines, and the chain shows every line once
    assert r.continuation["args"] == {"ref": r.source, "start_line": gap_first, "end_line": gap_last, "budget": 2000}
    total = r.meta["total_lines"]
    assert sorted(chain_lines(r)) == list(range(1, total + 1))


def test_sed_range_gives_the_files_line_numbers_beside_the_outputs(source: Path) -> None:
    r = run_command(f"cd {source.parent} && sed -n '301,1500p' {source.name}", budget=1500)
    assert r.tokens <= 1500 and not r.complete
    gap_first, gap_last = r.meta["omitted"][0]
    in_file = f"{source.name} lines {gap_first + 300:,}-{gap_last + 300:,}"
    header = f"[what lines {gap_first:,}-{gap_last:,} ({in_file}) define]"
    assert header in r.text
    found = entries(r)
    assert found, r.text
    file_lines = source.read_text().split("\n")
    for first, _, in_file, signature in found:
        assert in_file == first + 300  # output line n is the file's line n + 300
        assert signature.split(" · ")[0].rstrip(":") in file_lines[in_file - 1]
    assert sorted(chain_lines(r)) == list(range(1, r.meta["total_lines"] + 1))


def test_cat_n_and_nl_listings_are_mapped_without_their_numbers(source: Path) -> None:
    for argv in (["cat", "-n", source.name], ["nl", source.name]):
        r = run_command(argv, cwd=str(source.parent), budget=2000)
        found = entries(r)
        assert found, r.text
        assert all("\t" not in sig and not sig[:1].isdigit() for *_, sig in found)
        file_lines = source.read_text().split("\n")
        for first, *_ in found:  # one output line per file line: the numbers are the file's
            assert file_lines[first - 1].strip().startswith(("class ", "def ", "@"))
        assert sorted(chain_lines(r)) == list(range(1, r.meta["total_lines"] + 1))


def test_a_listing_cut_by_a_last_head_is_mapped_in_the_files_numbers(source: Path) -> None:
    # A real shell pipeline: `cat -n FILE | head -N` was shown as a table.
    n = len(source.read_text().split("\n")) // 2
    r = run_command(f"cat -n {source.name} | head -n {n}", cwd=str(source.parent), budget=1500)
    assert r.meta["view"] != "table" and r.tokens <= 1500
    found = entries(r)
    assert found, r.text
    file_lines = source.read_text().split("\n")
    for first, *_ in found:
        assert first <= n and file_lines[first - 1].strip().startswith(("class ", "def ", "@"))
    assert sorted(chain_lines(r)) == list(range(1, r.meta["total_lines"] + 1))


def test_the_map_comes_from_the_output_not_from_the_file(tmp_path: Path) -> None:
    """Recovery never re-runs: a listing replayed where no such file exists is still mapped."""
    text = module().encode()
    r = project_captured(f"cat {tmp_path / 'gone' / 'widgets.py'}", text, 0, budget=2000)
    assert entries(r) and "[what lines" in r.text


def test_other_outputs_of_the_same_text_get_no_map(tmp_path: Path) -> None:
    text = module().encode()
    for command in ("cat widgets.py | cat", "cat widgets.txt", "python gen.py"):
        r = project_captured(command, text, 0, budget=2000)
        assert not entries(r) and "[what lines" not in r.text, command
    failed = project_captured("cat widgets.py", text, 1, budget=2000)  # a failure keeps the error-first view
    assert failed.meta["view"] == "failing log" and "[what lines" not in failed.text


def test_a_short_gap_is_not_mapped(tmp_path: Path) -> None:
    """A map costs at most a tenth of what it names: a listing a little over the budget has none."""
    text = module(classes=4).encode()
    r = project_captured("cat widgets.py", text, 0, budget=2000)
    assert not r.complete and "[what lines" not in r.text


@pytest.mark.parametrize("budget", [100, 300, 600, 1000, 2000, 4000])
def test_listing_views_hold_their_budget(budget: int) -> None:
    for command in ("cat widgets.py", "sed -n '50,2000p' widgets.py"):
        r = project_captured(command, module().encode(), 0, budget=budget)
        assert r.tokens <= budget, (command, budget, r.tokens)


# -- property: any listing, any budget ---------------------------------------------------------------

_name = st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True)


@st.composite
def listings(draw: st.DrawFn) -> tuple[str, bytes, int]:
    """A listing command, what it printed (a Python module or a range of it), and the range's offset."""
    parts = ["import os", ""]
    for _ in range(draw(st.integers(1, 40))):
        if draw(st.booleans()):
            parts += [f"class {draw(_name).title()}:", "    x = 1", ""]
            for _ in range(draw(st.integers(0, 6))):
                parts += [f"    def {draw(_name)}(self):", *["        pass"] * draw(st.integers(0, 12)), ""]
        else:
            parts += [f"def {draw(_name)}():", *["    return 1"] * draw(st.integers(0, 20)), ""]
    form = draw(st.sampled_from(["cat", "cat -n", "nl", "sed", "head"]))
    if form == "sed":
        a = draw(st.integers(1, len(parts)))
        b = draw(st.integers(a, len(parts) + 20))
        printed = parts[a - 1 : b]
        return f"sed -n '{a},{b}p' m.py", ("\n".join(printed) + "\n").encode(), a - 1
    if form == "head":
        n = draw(st.integers(1, len(parts) + 5))
        return f"head -n {n} m.py", ("\n".join(parts[:n]) + "\n").encode(), 0
    if form == "cat -n":
        return "cat -n m.py", "".join(f"{i + 1:6}\t{t}\n" for i, t in enumerate(parts)).encode(), 0
    if form == "nl":
        width = 0
        out = []
        for t in parts:
            width += bool(t)
            out.append(f"{width:6}\t{t}" if t else " " * 7)
        return "nl m.py", ("\n".join(out) + "\n").encode(), 0
    return "cat m.py", ("\n".join(parts) + "\n").encode(), 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=listings(), budget=st.sampled_from([100, 300, 700, 1500]))
def test_listing_maps_stay_in_the_omitted_lines_and_the_chain_loses_nothing(
    case: tuple[str, bytes, int], budget: int
) -> None:
    command, printed, offset = case
    r = project_captured(command, printed, 0, budget=budget)
    assert r.tokens <= budget or r.meta.get("budget_too_small")
    total = r.meta["total_lines"]
    found = entries(r)
    if found:
        ((gap_first, gap_last),) = r.meta["omitted"]
        assert [e[0] for e in found] == sorted(e[0] for e in found)
        for first, last, in_file, _ in found:
            assert gap_first <= first <= gap_last and first <= last <= total
            assert in_file == (first + offset if offset else None)
    assert sorted(chain_lines(r)) == list(range(1, total + 1))


def test_a_padded_gutter_is_shown_compact_and_the_saved_output_keeps_it(source: Path) -> None:
    """``cat -n``'s six-column numbers are shown as ``N `` in a cut first view; ``read_saved`` has the bytes."""
    first = run_command(["cat", "-n", str(source)], budget=800)
    assert not first.complete
    shown = [line for line in first.text.split("\n") if re.match(r"\d+( |$)", line)]
    assert len(shown) > 20
    assert [int(line.split(" ", 1)[0]) for line in shown[:20]] == list(range(1, 21))
    assert not any(re.match(r"^ +\d+\t|^\d+\t", line) for line in first.text.split("\n"))
    saved = read_saved(ref=first.source, start_line=1, end_line=2, raw=True)
    assert "     1\t" in saved.text and "     2\t" in saved.text


def test_an_agents_file_read_just_over_the_budget_fits_once_its_gutter_is_compact() -> None:
    """A captured file read (``    12→text``) of more tokens than the budget is shown whole as ``12 text``."""
    lines = [f"{n:>6}→word value_{n} = compute({n})" for n in range(1, 161)]
    raw = "\n".join(lines) + "\n"
    assert count_tokens(raw) > 2000
    view = project_captured("Read /tmp/x.py", raw.encode(), 0, budget=2000)
    assert view.complete and view.tokens <= 2000
    assert [f"{n} word value_{n} = compute({n})" for n in range(1, 161)] == view.text.split("\n")[1:161]
    assert lines[-1] in read_saved(ref=view.source, start_line=160, end_line=160, raw=True).text
    # Paged, its number is the saved line's own number, shown once.
    assert "160\tword value_160 = compute(160)" in read_saved(ref=view.source, start_line=160, end_line=160).text


@pytest.mark.parametrize("spare", [2, 15, 40, 70])
def test_a_compact_listing_that_fits_only_without_notices_is_shown_whole(spare: int) -> None:
    """The room kept for omission notices is the whole view's when no line is omitted: nothing is cut for it."""
    texts: list[str] = []
    while True:
        text = f"record {len(texts) + 1}: status ok, checksum {len(texts) * 7919 % 10007:05d}"
        shown = "\n".join(f"{n} {t}" for n, t in enumerate([*texts, text], 1))
        if count_tokens(f"[exit 0 · {len(texts) + 1} lines]\n{shown}") > 2000 - spare:
            break
        texts.append(text)
    raw = "".join(f"{n:>6}→{t}\n" for n, t in enumerate(texts, 1))
    assert count_tokens(raw) > 2000
    view = project_captured("Read /tmp/report.txt", raw.encode(), 0, budget=2000)
    assert view.complete and view.tokens <= 2000
    assert view.text.split("\n")[1:] == [f"{n} {t}" for n, t in enumerate(texts, 1)]
