"""The map of a cut source file's omitted lines, and reading one definition by name (``read_file(symbol=...)``)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import rich

from wuu_tools import InvalidArgument, Toolset, read_file
from wuu_tools.views.structure import outline_of_bytes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "structure"
NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
ENTRY = re.compile(r"^( *)(\d+)-(\d+)  (\S.*)$")


def entries(text: str) -> list[tuple[int, int, int, str]]:
    """(indent, first, last, signature) of every map line of a view."""
    return [
        (len(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)) for m in map(ENTRY.match, text.split("\n")) if m
    ]


def module(n_classes: int = 6, methods: int = 8, body: int = 6) -> str:
    out = ['"""A module."""', "", "import os", ""]
    for c in range(n_classes):
        out += ["", f"# Class number {c}.", "@register", f"class Thing{c}(Base):", f'    """Thing {c}."""', ""]
        for m in range(methods):
            out += [f"    def method_{m}(self, value: int) -> int:"]
            out += [f"        value += {k}  # step {k}" for k in range(body)]
            out += ["        return value", ""]
    out += ["", "def main() -> None:", "    print(os.sep)", ""]
    return "\n".join(out)


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # a short relative path, as an agent names a file of its project
    path = tmp_path / "things.py"
    path.write_text(module())
    return Path("things.py")


def test_first_view_maps_the_omitted_lines_between_head_and_tail(source: Path) -> None:
    r = read_file(str(source), budget=1200)
    lines = r.text.split("\n")
    omitted_at = next(i for i, ln in enumerate(lines) if ln.startswith("[… lines"))
    gap_first, gap_last = r.meta["omitted"][0]
    found = entries(r.text)
    assert found, r.text
    # between the omission line and the tail, in order, each within the omitted lines
    map_rows = [i for i, ln in enumerate(lines) if ENTRY.match(ln)]
    tail_rows = [i for i, ln in enumerate(lines) if NUMBERED.match(ln) and i > omitted_at]
    assert omitted_at < min(map_rows) and max(map_rows) < min(tail_rows)
    assert [e[1] for e in found] == sorted(e[1] for e in found)
    assert all(gap_first <= first <= gap_last and first <= last for _, first, last, _ in found)
    assert lines[omitted_at + 1].startswith(f"[what lines {gap_first:,}-{gap_last:,} define; read one: read_file(")
    assert r.tokens <= 1200
    # the continuation still reads the omitted lines
    assert r.continuation["args"]["start_line"] == gap_first and r.continuation["args"]["end_line"] == gap_last


def test_a_map_longer_than_its_share_is_summarised_and_listed_in_full_by_a_call(source: Path) -> None:
    r = read_file(str(source), budget=600)
    assert r.tokens <= 600
    footer = next(ln for ln in r.text.split("\n") if ln.startswith("[map: "))
    shown = entries(r.text)
    counted = [e for e in shown if re.search(r" · \d+ members$", e[3])]
    assert counted, r.text  # a class whose methods are not listed says how many it has
    assert "· 8 members" in counted[0][3]
    call = re.search(r"all: (read_file\(.*\))\]$", footer).group(1)
    # the call pages the whole map of the omitted lines, every entry once, in order
    args = json.loads("{" + re.sub(r"(\w+)=", r'"\1":', call[len("read_file(") : -1]) + "}")
    assert args["symbol"] == "*"
    listed: list[tuple[int, int]] = []
    page = read_file(**args)
    while True:
        assert page.tokens <= 600
        listed += [(a, b) for _, a, b, _ in entries(page.text)]
        if page.continuation is None:
            break
        page = read_file(**page.continuation["args"])
    outline = outline_of_bytes(str(source), source.read_bytes())
    expected = [
        (d.start, d.end)
        for i, d in enumerate(outline.defs)
        if args["start_line"] <= d.start <= args["end_line"] and outline.level(i) <= 1
    ]
    assert listed == expected
    assert len(listed) > len(shown)


def test_a_file_without_a_language_has_no_map(tmp_path: Path) -> None:
    path = tmp_path / "things.txt"
    path.write_text(module())
    r = read_file(str(path), budget=600)
    assert not entries(r.text) and "[what lines" not in r.text


def test_a_small_budget_keeps_the_plain_cut(source: Path) -> None:
    r = read_file(str(source), budget=200)
    assert "[what lines" not in r.text and r.tokens <= 200


def test_read_one_definition_by_name_with_its_decorator_and_comment(source: Path) -> None:
    r = read_file(str(source), symbol="Thing2")
    lines = r.text.split("\n")
    assert lines[0].startswith("[Thing2: class, lines ")
    first_shown = min(int(m.group(1)) for ln in lines if (m := NUMBERED.match(ln)))
    body = {int(m.group(1)): m.group(2) for ln in lines if (m := NUMBERED.match(ln))}
    assert body[first_shown] == "# Class number 2." and body[first_shown + 1] == "@register"
    assert r.complete and r.meta["symbol"] == "Thing2"


def test_a_qualified_name_reads_the_method_in_one_call(source: Path) -> None:
    r = read_file(str(source), symbol="Thing3.method_5")
    body = [m.group(2) for ln in r.text.split("\n") if (m := NUMBERED.match(ln))]
    assert body[0] == "    def method_5(self, value: int) -> int:" and body[-1] == "        return value"
    assert read_file(str(source), symbol="Thing3::method_5").text == r.text


def test_an_ambiguous_name_lists_its_candidates(source: Path) -> None:
    r = read_file(str(source), symbol="method_1")
    assert "names 6 definitions" in r.text.split("\n")[0]
    assert [c[2] for c in r.meta["candidates"]] == [f"Thing{c}.method_1" for c in range(6)]
    assert 'symbol="Thing0.method_1"' in r.text


def test_an_unknown_name_is_an_error_naming_the_closest(source: Path) -> None:
    with pytest.raises(InvalidArgument, match=r"'Thing9' is not defined .*closest: .*Thing\d"):
        read_file(str(source), symbol="Thing9")
    text = Toolset(source.parent).call("read_file", {"path": source.name, "symbol": "methd_1"}).text
    assert text.startswith("error: read_file: symbol 'methd_1' is not defined") and "method_1" in text


def test_a_definition_longer_than_the_budget_goes_on_by_lines(tmp_path: Path) -> None:
    path = tmp_path / "long.py"
    path.write_text(
        "import os\n\n\ndef long():\n" + "".join(f"    x{i} = {i}\n" for i in range(400)) + "    return 1\n"
    )
    r = read_file(str(path), symbol="long", budget=500)
    assert not r.complete and r.tokens <= 500
    seen: list[int] = []
    while True:
        seen += [int(m.group(1)) for ln in r.text.split("\n") if (m := NUMBERED.match(ln))]
        if r.continuation is None:
            break
        r = read_file(**r.continuation["args"])
    assert seen == list(range(4, 406))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"symbol": ""}, "non-empty name"),
        ({"symbol": "rank", "start_line": 5}, 'go with symbol="\\*"'),
        ({"symbol": "a\nb"}, "not a name"),
        ({"symbol": 3}, "non-empty name"),
    ],
)
def test_bad_symbol_arguments(source: Path, args: dict, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        read_file(str(source), **args)


def test_a_file_without_definitions_says_so(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just text\n")
    with pytest.raises(InvalidArgument, match="no definitions to look up"):
        read_file(str(path), symbol="x")


def test_cli_symbol_and_call(source: Path) -> None:
    cli = [sys.executable, "-m", "wuu_tools.cli"]
    out = subprocess.run([*cli, "read", str(source), "--symbol", "main"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("[main: function, lines ") and "print(os.sep)" in out.stdout
    call = f'read_file(path="{source}", symbol="Thing1.method_0")'
    out = subprocess.run([*cli, "call", call], capture_output=True, text=True, check=True)
    assert "def method_0(self, value: int) -> int:" in out.stdout
    out = subprocess.run([*cli, "read", str(source), "--symbol", "nope"], capture_output=True, text=True)
    assert out.returncode != 0 and "is not defined" in out.stderr + out.stdout


def test_schemas_offer_the_symbol_argument() -> None:
    ts = Toolset(".")
    for fmt in ("openai", "anthropic", "mcp"):
        spec = next(s for s in ts.schemas(fmt) if "read_file" in json.dumps(s)[:200])
        assert '"symbol"' in json.dumps(spec), fmt


# -- the targets on large files ---------------------------------------------------------------------


def _generator() -> ModuleType:

    spec = importlib.util.spec_from_file_location("structure_generate", FIXTURES / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_single_header_cpp_library_first_view_names_its_main_class(tmp_path: Path) -> None:
    path = tmp_path / "document.hpp"
    path.write_text(_generator().single_header_cpp())
    r = read_file(str(path))
    assert r.meta["total_lines"] > 23_000 and r.tokens <= 2000
    main = [e for e in entries(r.text) if e[3].startswith("class basic_document")]
    assert main and main[0][2] - main[0][1] > 4000, r.text[-4000:]
    one = read_file(str(path), symbol="basic_document")
    assert one.text.split("\n")[0].startswith("[basic_document: class, lines ") and one.continuation is not None


def test_protobuf_go_first_view_names_its_struct_types(tmp_path: Path) -> None:
    path = tmp_path / "inventory.pb.go"
    path.write_text(_generator().protobuf_go())
    r = read_file(str(path))
    assert r.meta["total_lines"] > 26_000 and r.tokens <= 2000
    structs = [e for e in entries(r.text) if re.match(r"type \w+ struct", e[3])]
    assert len(structs) >= 20, r.text
    name = structs[0][3].split()[1]
    one = read_file(str(path), symbol=name)
    assert one.complete and f"type {name} struct" in one.text


def test_rich_console_first_view_names_its_classes_and_methods() -> None:
    path = Path(rich.__file__).parent / "console.py"
    r = read_file(str(path))
    found = entries(r.text)
    classes = [e for e in found if e[3].startswith("class ")]
    methods = [e for e in found if e[0] > 0 and e[3].startswith("def ")]
    assert any(re.fullmatch(r"class Console( · \d+ members)?", e[3]) for e in classes) and len(classes) >= 10
    assert len(methods) >= 10
    one = read_file(str(path), symbol="Console.print")
    assert "def print(" in one.text and one.text.startswith("[Console.print: method, lines ")
