"""Reading C++ definitions by name where macros wrap the class (issue 33, found on nlohmann/json's json.hpp).

``fixtures/structure/macro_class.hpp`` is written in json.hpp's style: the namespace opens with a
macro, the class template's head is a macro, access labels are macros, a ``detail`` class has a
method of the same name as the public one, an overload pair is split between an inline definition
and an out-of-class one, and members sit inside ``#if`` branches. Every name that several
definitions answer to lists them all, each readable; every member reads by its qualified name.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wuu_tools import InvalidArgument, read_file
from wuu_tools.views.structure import outline_of_bytes
from wuu_tools.views.structure.cheads import scan

HEADER = Path(__file__).resolve().parents[1] / "fixtures" / "structure" / "macro_class.hpp"
NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")


def body(text: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for ln in text.split("\n") if (m := NUMBERED.match(ln))}


def line_of(source: str, needle: str) -> int:
    return next(k for k, ln in enumerate(source.split("\n"), 1) if needle in ln)


@pytest.fixture(params=["as written", "with a line the grammar cannot read"])
def header(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The fixture, and the fixture with a two-line macro call the grammar reads as an error (then the
    definitions the parse leaves unread come from the text before each body, ``cheads``)."""
    text = HEADER.read_text()
    if request.param != "as written":
        text = text.replace(
            "    /// serialize with an indent\n",
            "    JLIB_DEPRECATED_FOR(3.0,\n                        value(IntType))\n"
            "    explicit value(const char* name) : n(0)\n    {\n        static_cast<void>(name);\n    }\n\n"
            "    /// serialize with an indent\n",
        )
    path = tmp_path / "macro_class.hpp"
    path.write_text(text)
    return path


def test_a_name_several_definitions_answer_to_lists_them_all_each_readable(header: Path) -> None:
    source = header.read_text()
    r = read_file(str(header), symbol="dump")
    assert "'dump' names 3 definitions" in r.text.split("\n")[0]
    found = r.meta["candidates"]
    assert [c[2] for c in found] == ["detail.writer.dump", "value.dump", "value.dump"]
    starts = [line_of(source, "void dump(const ValueType&"), line_of(source, "StringType dump(const int")]
    starts.append(line_of(source, "void value<StringType, IntType>::dump("))
    for (first, last, qualname), sig_line in zip(found, starts, strict=True):
        assert first <= sig_line < last, (qualname, first, last, sig_line)
        assert f"{first}-{last}  {qualname}" in r.text
        lines = body(read_file(str(header), start_line=first, end_line=last).text)
        assert sig_line in lines and lines[last].strip() == "}"


@pytest.mark.parametrize("name", ["value.dump", "value::dump", "jlib::value::dump", "jlib::v1::value::dump"])
def test_the_public_overloads_read_by_qualified_name(header: Path, name: str) -> None:
    r = read_file(str(header), symbol=name)
    assert [c[2] for c in r.meta["candidates"]] == ["value.dump", "value.dump"]  # the overload pair
    if name.startswith("jlib"):  # a namespace a macro opens is not in the map: passed over, and said so
        assert "names no definition of this file's map and was passed over" in r.text


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("detail::writer::dump", "void dump(const ValueType& v, bool pretty)"),
        ("writer.dump", "void dump(const ValueType& v, bool pretty)"),
        ("value.unordered", "static bool unordered("),  # after a macro access label
        ("value::storage", "union storage"),  # a union after a macro label and a block comment
        ("value.storage.release", "void release(kind_t k)"),
        ("value::get", "T get() const"),  # a template method
        ("value.contains", "bool contains(const StringType& key) const"),  # inside an #if branch
        ("value::size", "int value<StringType, IntType>::size() const noexcept"),  # out of class, not the declaration
    ],
)
def test_each_member_reads_by_its_qualified_name(header: Path, name: str, needle: str) -> None:
    r = read_file(str(header), symbol=name)
    assert "candidates" not in r.meta, r.text
    assert any(needle in text for text in body(r.text).values()), r.text
    assert r.complete


def test_the_class_and_its_members_nest_whatever_wraps_it(header: Path) -> None:
    o = outline_of_bytes(str(header), header.read_bytes())
    assert o is not None
    value = next(i for i, d in enumerate(o.defs) if d.name == "value" and d.kind == "class")
    members = {o.defs[j].name for j in o.members(value)}
    assert {"storage", "unordered", "dump", "get", "contains", "size"} <= members
    assert o.defs[value].start == line_of(header.read_text(), "class value") - 1  # its template-head macro
    unordered = next(i for i, d in enumerate(o.defs) if d.name == "unordered")
    assert header.read_text().split("\n")[o.defs[unordered].first - 1].strip().startswith("//"), "its comment"


def test_a_known_qualifier_that_does_not_fit_is_not_passed_over(header: Path) -> None:
    with pytest.raises(InvalidArgument, match="'writer::contains' is not defined"):
        read_file(str(header), symbol="writer::contains")


def test_heads_read_from_the_text() -> None:
    source = b"""
extern "C" {
int c_api(void) { return 0; }
}
namespace outer { namespace {
struct S final : Base<decltype(f())> {
    S() : a{1}, b(2) { if (a) { struct Local { void no() {} }; } }
    auto tail() const -> int { return 1; }
    bool operator==(const S& o) const noexcept { return true; }
    explicit operator bool() const { return true; }
    int a; int b;
};
auto lambda = [](int x) { return x; };
int table[] = {1, 2};
} }
template<typename T, typename U = std::vector<T>>
typename S<T>::type S<T>::convert(U u) { return u; }
"""
    heads = [(h.kind, h.name, h.owner) for h in scan(source)]
    assert heads == [
        ("function", "c_api", None),
        ("namespace", "outer", None),
        ("namespace", "(anonymous)", None),
        ("struct", "S", None),
        ("function", "S", None),
        ("function", "tail", None),
        ("function", "operator==", None),
        ("function", "operator bool", None),
        ("function", "convert", "S"),
    ]


def test_a_namespace_with_a_visibility_macro_is_a_namespace_and_specializations_merge(tmp_path: Path) -> None:
    # libstdc++'s style: ``namespace std _GLIBCXX_VISIBILITY(default)`` must not read as a function
    # named by the macro, nor a specialization ``__is_void<void>`` be listed twice.
    path = tmp_path / "traits.hpp"
    path.write_text(
        "namespace std _LIB_VISIBILITY(default)\n{\n_LIB_BEGIN_VERSION\n\n"
        "  struct __true_type { };\n"
        "  template<typename _Tp> struct __is_void { enum { __value = 0 }; };\n"
        "  template<> struct __is_void<void> { enum { __value = 1 }; };\n"
        "  template<typename T> class holder {\n  _LIB_PRIVATE_UNLESS_TESTED:\n    T t;\n"
        "  public:\n    holder() _LIB_NOEXCEPT : t() { }\n  };\n}\n"
    )
    o = outline_of_bytes(str(path), path.read_bytes())
    assert o is not None
    rows = [(o.qualname(i), o.defs[i].kind, o.defs[i].start) for i in range(len(o.defs))]
    assert ("std", "namespace", 1) in rows and not any("VISIBILITY" in q for q, _, _ in rows), rows
    assert ("std.__true_type", "struct", 5) in rows, rows
    assert [q for q, _, _ in rows].count("std.__is_void<void>") + [q for q, _, _ in rows].count("std.__is_void") == 2
    assert [q for q, _, _ in rows if q.endswith("holder.holder")] == ["std.holder.holder"], rows
