"""Every definition a name answers to, and every member by its qualified name (issue 33, on json.hpp's shape).

In nlohmann/json's ``json.hpp`` 3.11.3, ``symbol="dump"`` read ``detail.serializer.dump`` alone and
``basic_json::dump`` was "not defined". ``fixtures/structure/json_like.hpp`` has that file's shape:
namespaces opened by macros, ``class basic_json`` after a template-head macro and a base class on
its own line, a ``detail`` class with a ``dump`` of its own, overloads (one with a ``requires``
clause), a member defined out of its class through a macro (``NLOHMANN_BASIC_JSON_TPL::dump``) and
one through its whole scope (``nlohmann::detail::serializer<T>::dump_escaped``), and a ``std::hash``
specialization. Each test runs on the header as written, with the macro on the class's own line,
and with a line the grammar cannot read (then :mod:`~wuu_tools.views.structure.cheads` reads the
definitions the parse left unread). The lookup is shared by every language, so the last tests run
it on Python, Go, Rust, Java and TypeScript too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests._cli import wuu
from wuu_tools import InvalidArgument, read_file
from wuu_tools.views.structure import outline_of_bytes
from wuu_tools.views.symbols import parts

HEADER = Path(__file__).resolve().parents[1] / "fixtures" / "structure" / "json_like.hpp"
NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
CALL = re.compile(r"read_file\([^()]*\)")


def body(text: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for ln in text.split("\n") if (m := NUMBERED.match(ln))}


def line_of(source: str, needle: str) -> int:
    return next(k for k, ln in enumerate(source.split("\n"), 1) if needle in ln)


VARIANTS = {
    "as written": lambda t: t,
    "macro on the class's line": lambda t: (
        t.replace(
            "NLOHMANN_BASIC_JSON_TPL_DECLARATION\nclass basic_json // NOLINT(cppcoreguidelines-special-member-"
            "functions,hicpp-special-member-functions)\n    : public",
            "NLOHMANN_BASIC_JSON_TPL_DECLARATION class basic_json : public",
        )
        .replace(
            "NLOHMANN_BASIC_JSON_TPL_DECLARATION\nvoid NLOHMANN", "NLOHMANN_BASIC_JSON_TPL_DECLARATION void NLOHMANN"
        )
        .replace(
            "    JSON_HEDLEY_WARN_UNUSED_RESULT\n    static basic_json parse(IteratorType",
            "    JSON_HEDLEY_WARN_UNUSED_RESULT static basic_json parse(IteratorType",
        )
    ),
    "with a line the grammar cannot read": lambda t: t.replace(
        "    /// @brief serialize into a stream",
        "    JSON_HEDLEY_DEPRECATED_FOR(3.0,\n        dump(int))\n    basic_json(const char* s) : m_data()\n"
        "    {\n        static_cast<void>(s);\n    }\n\n    /// @brief serialize into a stream",
    ),
}


@pytest.fixture(params=list(VARIANTS))
def header(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    text = VARIANTS[request.param](HEADER.read_text())
    assert request.param == "as written" or text != HEADER.read_text(), "the variant changed nothing"
    path = tmp_path / "json.hpp"
    path.write_text(text)
    return path


def candidates(path: Path, symbol: str) -> list[tuple[int, int, str]]:
    r = read_file(str(path), symbol=symbol)
    assert "candidates" in r.meta, r.text
    return [(first, last, q) for first, last, q in r.meta["candidates"]]


def reads(path: Path, first: int, last: int, needle: str) -> bool:
    """Whether lines ``first``-``last`` read whole and hold ``needle``."""
    r = read_file(str(path), start_line=first, end_line=last)
    return r.complete and any(needle in text for text in body(r.text).values())


def test_dump_lists_the_detail_method_and_both_public_ones_in_line_order(header: Path) -> None:
    source = header.read_text()
    r = read_file(str(header), symbol="dump")
    assert r.text.startswith(f"[{header}: 'dump' names 3 definitions"), r.text
    found = candidates(header, "dump")
    assert [q for _, _, q in found] == ["detail.serializer.dump", "basic_json.dump", "basic_json.dump"]
    needles = [
        "void dump(const BasicJsonType& val,",
        "string_t dump(const int indent = -1,",
        "::dump(std::ostream& os)",
    ]
    for (first, last, qualname), needle in zip(found, needles, strict=True):
        assert first <= line_of(source, needle) < last, (qualname, first, last)
        assert f"{first}-{last}  {qualname}  ·  " in r.text
        assert reads(header, first, last, needle)
    assert [f for f, _, _ in found] == sorted(f for f, _, _ in found)
    declared = line_of(source, "void dump(std::ostream& os) const;")  # gives way to its definition
    assert not any(first <= declared <= last for first, last, _ in found)


@pytest.mark.parametrize("name", ["basic_json.dump", "basic_json::dump", "nlohmann::basic_json::dump"])
def test_basic_json_dump_reads_by_its_qualified_name(header: Path, name: str) -> None:
    found = candidates(header, name)
    assert [q for _, _, q in found] == ["basic_json.dump", "basic_json.dump"]  # in the class, and below it
    text = read_file(str(header), symbol=name).text
    assert "read one by its lines (they share one qualified name)" in text.split("\n")[0]
    assert 'symbol="basic_json.dump"' not in text  # no call that would list them again
    first, last, _ = found[0]
    assert f"start_line={first}, end_line={last}" in text


@pytest.mark.parametrize(
    ("name", "count", "needle"),
    [
        ("parse", 2, "static basic_json parse("),
        ("basic_json::parse", 2, "static basic_json parse("),
        ("operator<=>", 2, "std::partial_ordering operator<=>("),  # one after a ``requires`` clause
        ("basic_json::operator<=>", 2, "std::partial_ordering operator<=>("),
    ],
)
def test_overloads_are_all_listed(header: Path, name: str, count: int, needle: str) -> None:
    found = candidates(header, name)
    assert len(found) == count and all(q == f"basic_json.{name.split('::')[-1]}" for _, _, q in found), found
    assert all(reads(header, first, last, needle) for first, last, _ in found)


@pytest.mark.parametrize(
    ("name", "qualname", "needle"),
    [
        ("detail::serializer::dump", "detail.serializer.dump", "void dump(const BasicJsonType& val,"),
        ("serializer.dump", "detail.serializer.dump", "void dump(const BasicJsonType& val,"),
        ("nlohmann::detail::serializer::dump", "detail.serializer.dump", "void dump(const BasicJsonType& val,"),
        ("dump_escaped", "nlohmann.detail.serializer.dump_escaped", "::dump_escaped(const string_t& s"),
        ("detail::serializer::dump_escaped", "nlohmann.detail.serializer.dump_escaped", "{"),
        ("nlohmann::detail::serializer::dump_escaped", "nlohmann.detail.serializer.dump_escaped", "o += s;"),
        ("basic_json::data", "basic_json.data", "struct data"),
        ("hash", "std.hash<nlohmann::NLOHMANN_BASIC_JSON_TPL>", "struct hash<"),
        ("std::hash", "std.hash<nlohmann::NLOHMANN_BASIC_JSON_TPL>", "struct hash<"),
        ("std::hash::operator()", "std.hash<nlohmann::NLOHMANN_BASIC_JSON_TPL>.operator()", "operator()("),
        ("std::hash<nlohmann::NLOHMANN_BASIC_JSON_TPL>", "std.hash<nlohmann::NLOHMANN_BASIC_JSON_TPL>", "{"),
    ],
)
def test_one_definition_reads_whole(header: Path, name: str, qualname: str, needle: str) -> None:
    r = read_file(str(header), symbol=name)
    assert r.meta.get("symbol") == qualname, r.text
    assert r.complete and any(needle in text for text in body(r.text).values()), r.text


def test_the_map_nests_the_class_whatever_wraps_it(header: Path) -> None:
    o = outline_of_bytes(str(header), header.read_bytes())
    assert o is not None
    rows = [(o.qualname(i), d.kind) for i, d in enumerate(o.defs)]
    classes = [i for i, d in enumerate(o.defs) if d.name == "basic_json" and d.kind == "class"]
    assert len(classes) == 1 and o.qualname(classes[0]) == "basic_json", rows
    members = [o.defs[j].name for j in o.members(classes[0])]
    # the class's two dumps (one only declared there) and the one defined below it
    assert members.count("dump") == 3 and members.count("parse") == 2 and members.count("operator<=>") == 2, members
    assert {"data", "dump", "parse", "operator<=>"} <= set(members)
    named = {part for q, _ in rows for part in parts(q)}  # no base class, constraint or macro read as a name
    assert not any(p in named for p in ("json_base_class", "is_scalar_v", "NLOHMANN_BASIC_JSON_TPL")), rows
    assert not any(k == "prototype" for _, k in rows), rows  # ``serializer s(result, ...)`` is an object
    source = header.read_text()
    assert o.defs[classes[0]].start == line_of(source, "class basic_json") - (
        "NLOHMANN_BASIC_JSON_TPL_DECLARATION class" not in source
    )


def test_a_qualifier_naming_another_definition_is_not_passed_over(header: Path) -> None:
    with pytest.raises(InvalidArgument, match="'serializer::parse' is not defined"):
        read_file(str(header), symbol="serializer::parse")


def test_parts_keep_template_arguments_and_operators_whole() -> None:
    assert parts("std::hash<nlohmann::json>::operator()") == ["std", "hash<nlohmann::json>", "operator()"]
    assert parts("basic_json.operator<=>") == ["basic_json", "operator<=>"]
    assert parts("a::operator<<") == ["a", "operator<<"]
    assert parts("less< ::ns::value_t>.operator()") == ["less< ::ns::value_t>", "operator()"]
    assert parts("Client#start") == ["Client", "start"]


def test_the_printed_calls_read_each_candidate(tmp_path: Path) -> None:
    path = tmp_path / "json.hpp"
    path.write_text(HEADER.read_text())
    listing = wuu("read", "json.hpp", "--symbol", "dump", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert "detail.serializer.dump" in listing.stdout and listing.stdout.count("basic_json.dump") == 2
    calls = CALL.findall(listing.stdout)
    assert calls == [
        'read_file(path="json.hpp", symbol="detail.serializer.dump")',
        'read_file(path="json.hpp", start_line=76, end_line=106)',
    ], listing.stdout
    rows = re.findall(r"^(\d+)-(\d+)  (\S+)  ·", listing.stdout, re.M)
    for first, last, _ in rows:  # each listed range, pasted as the call the hint shows
        calls.append(f'read_file(path="json.hpp", start_line={first}, end_line={last})')
    for call in calls:
        shown = wuu("call", call, cwd=tmp_path)
        assert shown.returncode == 0, (call, shown.stderr)
        numbers = sorted(body(shown.stdout))
        assert numbers and "dump(" in "\n".join(body(shown.stdout).values()), (call, shown.stdout)
    missing = wuu("read", "json.hpp", "--symbol", "basic_json::dump", cwd=tmp_path)
    assert missing.returncode == 0 and "names 2 definitions" in missing.stdout, missing.stdout + missing.stderr


LANGUAGES = {
    "m.py": (
        "class Server:\n    def start(self):\n        return 1\n\n\nclass Client:\n    def start(self):\n"
        "        return 2\n\n    class Retry:\n        def start(self):\n            return 3\n\n\n"
        "def start():\n    return 4\n",
        ["Server.start", "Client.start", "Client.Retry.start", "start"],
        "Client::Retry::start",
    ),
    "m.go": (
        "package m\n\ntype Server struct{}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n\n"
        "type Client struct{}\n\nfunc (c Client) Start() error {\n\treturn nil\n}\n\nfunc Start() {}\n",
        ["Server.Start", "Client.Start", "Start"],
        "Client::Start",
    ),
    "m.rs": (
        "struct Server;\nimpl Server {\n    fn start(&self) -> u8 {\n        1\n    }\n}\nstruct Client;\n"
        "impl Client {\n    fn start(&self) -> u8 {\n        2\n    }\n}\nfn start() {}\n",
        ["Server.start", "Client.start", "start"],
        "Client::start",
    ),
    "M.java": (
        "class M {\n    int start(String s) {\n        return 1;\n    }\n\n    int start(String s, int r) {\n"
        "        return 2;\n    }\n\n    static class Inner {\n        int start(String s) {\n"
        "            return 3;\n        }\n    }\n}\n",
        ["M.start", "M.start", "M.Inner.start"],
        "Inner::start",
    ),
    "m.ts": (
        "namespace app {\n  export class Server {\n    start(): number {\n      return 1;\n    }\n  }\n}\n"
        "class Client {\n  start(): number {\n    return 2;\n  }\n}\nfunction start(): void {}\n",
        ["app.Server.start", "Client.start", "start"],
        "Server::start",
    ),
}


@pytest.mark.parametrize("name", list(LANGUAGES))
def test_every_language_lists_every_definition_of_a_name(tmp_path: Path, name: str) -> None:
    source, qualnames, one = LANGUAGES[name]
    path = tmp_path / name
    path.write_text(source)
    word = qualnames[-1].split(".")[-1]
    found = candidates(path, word)
    assert [q for _, _, q in found] == qualnames
    assert [f for f, _, _ in found] == sorted(f for f, _, _ in found)
    for first, last, _ in found:
        assert reads(path, first, last, word)
    r = read_file(str(path), symbol=one)
    assert r.meta.get("symbol", "").endswith(one.replace("::", ".")) and r.complete, r.text


def test_the_note_names_a_qualifier_passed_over_only_where_it_was(header: Path) -> None:
    note = "'nlohmann' names no definition of this file's map and was passed over"
    assert note in read_file(str(header), symbol="nlohmann::basic_json::dump").text.split("\n")[0]
    direct = read_file(str(header), symbol="nlohmann::detail::serializer::dump_escaped")  # its own scope names it
    assert note not in direct.text and direct.meta["symbol"] == "nlohmann.detail.serializer.dump_escaped"


def test_libstdcxx_macros_around_a_class_and_after_a_method_name_nothing(tmp_path: Path) -> None:
    path = tmp_path / "stl_vector.h"
    path.write_text(
        "namespace std _GLIBCXX_VISIBILITY(default)\n{\n_GLIBCXX_BEGIN_NAMESPACE_VERSION\n"
        "_GLIBCXX_BEGIN_NAMESPACE_CONTAINER\n\n  template<typename _Tp, typename _Alloc>\n    class vector\n    {\n"
        "    public:\n      iterator\n      begin() _GLIBCXX_NOEXCEPT\n      { return iterator(this->_M_start); }\n\n"
        "      const_iterator\n      begin() const _GLIBCXX_NOEXCEPT\n      { return const_iterator(this->_M_p); }\n\n"
        "      size_type\n      size() const _GLIBCXX_NOEXCEPT_IF(__is_nothrow(_Tp))\n      { return 0; }\n"
        "    };\n\n_GLIBCXX_END_NAMESPACE_CONTAINER\n_GLIBCXX_END_NAMESPACE_VERSION\n} // namespace std\n"
    )
    o = outline_of_bytes(str(path), path.read_bytes())
    assert o is not None
    rows = [(o.qualname(i), d.kind, d.start, d.end) for i, d in enumerate(o.defs)]
    assert rows == [
        ("std", "namespace", 1, 25),
        ("std.vector", "class", 6, 21),
        ("std.vector.begin", "method", 10, 12),
        ("std.vector.begin", "method", 14, 16),
        ("std.vector.size", "method", 18, 20),
    ], rows
    assert [q for _, _, q in candidates(path, "vector::begin")] == ["std.vector.begin", "std.vector.begin"]
    assert read_file(str(path), symbol="std::vector::size").meta["symbol"] == "std.vector.size"


def test_a_list_cut_by_the_budget_says_where_the_rest_are_and_how_to_list_them(
    header: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(header.parent)
    r = read_file("json.hpp", symbol="dump", budget=150)
    assert r.tokens <= 150 and r.text.count("  ·  ") == 1, r.text
    assert '[2 more not listed: 2 in basic_json; e.g. read_file(path="json.hpp", symbol="basic_json.dump")]' in r.text
    assert [q for _, _, q in candidates(Path("json.hpp"), "basic_json.dump")] == ["basic_json.dump"] * 2
    assert len(r.meta["candidates"]) == 3  # the whole list is in the meta, whatever the text holds
