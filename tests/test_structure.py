"""What a file defines, read with the real tree-sitter grammars (and the keyword fallback without one)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from wuu_tools.views.mapview import map_entries
from wuu_tools.views.structure import outline_of_bytes
from wuu_tools.views.structure.languages import GRAMMARS, language_of
from wuu_tools.views.structure.model import Outline
from wuu_tools.views.structure.treesitter import available
from wuu_tools.views.symbols import find


def outline(name: str, source: str) -> Outline:
    o = outline_of_bytes(name, textwrap.dedent(source).lstrip("\n").encode())
    assert o is not None, f"no outline for {name}"
    return o


def table(o: Outline) -> list[tuple[str, str, int, int]]:
    """(qualified name, kind, first line, last line) of every definition."""
    return [(o.qualname(i), d.kind, d.start, d.end) for i, d in enumerate(o.defs)]


def test_every_grammar_loads_from_its_wheel() -> None:
    # The grammars are dependencies of the package: none is fetched at run time, none is missing.
    assert all(available(lang) for lang in GRAMMARS), [lang for lang in GRAMMARS if not available(lang)]


def test_python_classes_methods_decorators_and_comments() -> None:
    o = outline(
        "m.py",
        """
        import os


        # The evidence of one failure.
        @dataclass(frozen=True)
        class Evidence:
            line: int

            @property
            def rank(self) -> int:
                return 1

            def helper(self):
                def inner():
                    pass
                return inner


        async def rank(items: list[int],
                       key=None) -> int:
            return 0
        """,
    )
    assert o.method == "tree-sitter"
    assert table(o) == [
        ("Evidence", "class", 5, 16),
        ("Evidence.rank", "method", 9, 11),
        ("Evidence.helper", "method", 13, 16),
        ("Evidence.helper.inner", "function", 14, 15),
        ("rank", "function", 19, 21),
    ]
    evidence, method = o.defs[0], o.defs[1]
    assert evidence.doc_start == 4 and evidence.line == 6 and evidence.signature == "class Evidence"
    assert method.signature == "def rank(self) -> int" and method.line == 10
    assert o.defs[4].signature == "async def rank(items: list[int], key=None) -> int"
    assert [o.level(i) for i in range(5)] == [0, 1, 1, 2, 0]


def test_javascript_classes_functions_and_arrow_functions() -> None:
    o = outline(
        "app.js",
        """
        /** Parses input. */
        export class Parser extends Base {
          constructor(src) {
            super(src);
          }
          parse() {
            return this.src;
          }
        }

        export const render = (node) => {
          return node;
        };

        function* walk(tree) {
          yield tree;
        }

        module.exports.helper = function () {};
        """,
    )
    assert table(o) == [
        ("Parser", "class", 2, 9),
        ("Parser.constructor", "method", 3, 5),
        ("Parser.parse", "method", 6, 8),
        ("render", "function", 11, 13),
        ("walk", "function", 15, 17),
        ("helper", "function", 19, 19),
    ]
    assert o.defs[0].doc_start == 1


def test_typescript_interfaces_types_enums_namespaces() -> None:
    o = outline(
        "types.ts",
        """
        export interface Shape {
          area(): number;
        }

        type Id = string | number;

        enum Color { Red, Green }

        namespace Geometry {
          export abstract class Base implements Shape {
            abstract area(): number;
            scale(k: number): void {}
          }
        }
        """,
    )
    assert table(o) == [
        ("Shape", "interface", 1, 3),
        ("Shape.area", "method", 2, 2),
        ("Id", "type", 5, 5),
        ("Color", "enum", 7, 7),
        ("Geometry", "namespace", 9, 14),
        ("Geometry.Base", "class", 10, 13),
        ("Geometry.Base.area", "method", 11, 11),
        ("Geometry.Base.scale", "method", 12, 12),
    ]
    # A namespace adds no level: the class inside it is top level, its methods one level down.
    assert [o.level(i) for i in range(4, 8)] == [0, 0, 1, 1]


def test_tsx_is_read_with_its_own_grammar() -> None:
    o = outline("view.tsx", "export function View(): JSX.Element {\n  return <div>hi</div>;\n}\n")
    assert table(o) == [("View", "function", 1, 3)]


def test_go_types_and_methods_by_receiver() -> None:
    o = outline(
        "store.go",
        """
        package store

        // Store keeps items.
        type Store struct {
            items []string
        }

        type (
            Reader interface {
                Read() string
            }
            ID int64
        )

        func (s *Store) Add(item string) {
            s.items = append(s.items, item)
        }

        func New() *Store {
            return &Store{}
        }
        """,
    )
    assert table(o) == [
        ("Store", "struct", 4, 6),
        ("Reader", "interface", 9, 11),
        ("ID", "type", 12, 12),
        ("Store.Add", "method", 15, 17),
        ("New", "function", 19, 21),
    ]
    assert o.defs[0].doc_start == 3
    assert o.members(0) == [3]  # the method counts as the struct's member


def test_rust_structs_traits_impls_and_modules() -> None:
    o = outline(
        "lib.rs",
        """
        /// A point.
        #[derive(Debug)]
        pub struct Point {
            x: i32,
        }

        pub trait Area {
            fn area(&self) -> f64;
        }

        impl<T> fmt::Display for Wrapper<T> {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                Ok(())
            }
        }

        #[cfg(test)]
        mod tests {
            #[test]
            fn it_works() {}
        }
        """,
    )
    assert table(o) == [
        ("Point", "struct", 2, 5),
        ("Area", "trait", 7, 9),
        ("Area.area", "method", 8, 8),
        ("Wrapper", "impl", 11, 15),
        ("Wrapper.fmt", "method", 12, 14),
        ("tests", "module", 17, 21),
        ("tests.it_works", "function", 19, 20),
    ]
    assert o.defs[0].doc_start == 1  # the doc comment above the attribute
    assert o.defs[6].start == 19  # an attribute belongs to its item
    assert o.defs[3].signature == "impl<T> fmt::Display for Wrapper<T>"


def test_java_classes_interfaces_enums_records() -> None:
    o = outline(
        "Shop.java",
        """
        package shop;

        /** A shop. */
        public class Shop {
            private final int size;

            public Shop(int size) {
                this.size = size;
            }

            @Override
            public String toString() {
                return "shop";
            }

            interface Visitor {
                void visit(Shop s);
            }

            enum Kind { SMALL, LARGE }

            record Item(String name) {}
        }
        """,
    )
    assert table(o) == [
        ("Shop", "class", 4, 23),
        ("Shop.Shop", "method", 7, 9),
        ("Shop.toString", "method", 11, 14),
        ("Shop.Visitor", "interface", 16, 18),
        ("Shop.Visitor.visit", "method", 17, 17),
        ("Shop.Kind", "enum", 20, 20),
        ("Shop.Item", "record", 22, 22),
    ]


def test_c_functions_structs_and_typedefs() -> None:
    o = outline(
        "list.c",
        """
        #include <stdlib.h>

        struct node {
            int value;
            struct node *next;
        };

        typedef enum { RED, GREEN } color_t;

        /* Push a value. */
        static struct node *push(struct node *head, int value)
        {
            return head;
        }

        int main(void) { return 0; }

        static struct node *push(struct node *head, int value);
        API const char *version(void);
        int count(const struct node *head,  /* the list */
                  int limit);                /* at most */
        """,
    )
    assert table(o) == [
        ("node", "struct", 3, 6),
        ("color_t", "type", 8, 8),
        ("push", "function", 11, 14),
        ("main", "function", 16, 16),
        # prototypes count where the file does not define the function (a header's API)
        ("version", "prototype", 19, 19),
        ("count", "prototype", 20, 21),
    ]
    assert o.defs[2].doc_start == 10
    assert o.defs[5].signature == "int count(const struct node *head, int limit);"


def test_a_typedef_of_a_named_type_is_another_name_for_its_lines() -> None:
    # cuda.h's style: the map showed `typedef enum CUarray_format_enum · 1 member`, the member being
    # the typedef's own name for the same lines.
    o = outline(
        "cuda.h",
        """
        typedef enum CUarray_format_enum {
            CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
            CU_AD_FORMAT_UNSIGNED_INT16 = 0x02
        } CUarray_format;

        typedef struct CUctx_st *CUcontext;
        """,
    )
    assert table(o)[:2] == [
        ("CUarray_format_enum", "enum", 1, 4),
        ("CUarray_format_enum.CUarray_format", "type", 1, 4),
    ]
    assert o.is_alias(1) and not o.is_alias(0)
    assert o.members(0) == []  # not a member: the same lines by another name
    assert map_entries(o, 1, 6) == [i for i, d in enumerate(o.defs) if d.name != "CUarray_format"]
    assert find(o, "CUarray_format") == [1]  # still read by its name


def test_cpp_namespaces_templates_out_of_line_methods_and_macro_lines() -> None:
    o = outline(
        "json.hpp",
        """
        LIB_NAMESPACE_BEGIN
        namespace detail
        {
        template<typename T>
        class lexer
        {
          public:
            int scan();
            int peek() const { return 0; }
        };
        }  // namespace detail

        /// the main class
        LIB_TEMPLATE_DECLARATION
        class basic_json : public base
        {
          public:
            template<typename U>
            basic_json(U&& u) {}
        };
        LIB_NAMESPACE_END

        int detail::lexer::scan() { return 1; }
        """,
    )
    assert table(o) == [
        ("detail", "namespace", 1, 11),  # a macro line right above belongs to what it stands before
        ("detail.lexer", "class", 4, 10),
        ("detail.lexer.scan", "method", 8, 8),
        ("detail.lexer.peek", "method", 9, 9),
        ("basic_json", "class", 14, 20),
        ("basic_json.basic_json", "method", 18, 19),
        ("detail.lexer.scan", "function", 23, 23),  # qualified by its whole scope, as written
    ]
    assert o.defs[4].doc_start == 13  # the doc comment above the (blanked) macro line
    assert o.defs[6].owner == "detail::lexer"
    assert o.members(1) == [2, 3, 6]  # the method defined outside is the class's member
    assert find(o, "detail::lexer::scan") == [6]  # the declaration gives way to the definition


def test_a_cpp_type_the_grammar_loses_track_of_keeps_its_whole_body() -> None:
    # An access specifier that is a macro, a comment, then preprocessor branches that each return: the
    # grammar, which does not expand macros, closes the class at line 21 of 25 (as it closes nlohmann
    # json's basic_json at line 674 of 5,118). The braces say where the body ends.
    o = outline(
        "document.hpp",
        """
        LIB_DOCUMENT_TEMPLATE
        class document // NOLINT(special-member-functions)
        {
          LIB_PRIVATE_UNLESS_TESTED:
            // true if:
            // - either operand is NaN and the other is a number
            // - either operand is discarded
            static bool unordered(const_reference lhs, const_reference rhs, bool inverse = false) noexcept
            {
                if ((lhs.is_float() && std::isnan(lhs.m_value.number) && rhs.is_number())
                        || (rhs.is_float() && std::isnan(rhs.m_value.number) && lhs.is_number()))
                {
                    return true;
                }
        #if LIB_LEGACY_COMPARISON
                return (lhs.is_discarded() || rhs.is_discarded()) && !inverse;
        #else
                static_cast<void>(inverse);
                return lhs.is_discarded() || rhs.is_discarded();
        #endif
            }

          private:
            int n = 0;
        };

        int after() { return 0; }
        """,
    )
    rows = table(o)
    assert rows[0] == ("document", "class", 1, 25)
    assert all(name.startswith("document.") for name, _, _, end in rows[1:-1] if end <= 25), rows
    assert rows[-1] == ("after", "function", 27, 27)


def test_markdown_headings_and_their_sections() -> None:
    o = outline(
        "README.md",
        """
        # Project

        Intro.

        ## Install

        ```sh
        # not a heading
        ```

        ### From source

        ## Use

        Setext
        ------
        """,
    )
    assert table(o) == [
        ("Project", "title", 1, 16),
        ("Install", "h2", 5, 12),
        ("Install.From source", "h3", 11, 12),
        ("Use", "h2", 13, 14),
        ("Setext", "h2", 15, 16),
    ]
    assert [o.level(i) for i in range(5)] == [0, 0, 1, 0, 0]  # a single top heading is the title


@pytest.mark.parametrize(
    ("name", "source", "expected"),
    [
        (
            "c.yaml",
            "name: app\nservices:\n  web:\n    image: x\n  db: {}\nenv: []\n",
            ["name", "services", "web", "db", "env"],
        ),
        ("c.toml", 'title = "x"\n[tool.ruff]\nline = 1\n[[bin]]\nname = "a"\n', ["title", "tool.ruff", "bin"]),
        ("c.json", '{\n  "a": 1,\n  "b": {\n    "c": 2\n  }\n}\n', ["a", "b", "c"]),
    ],
)
def test_config_files_map_their_keys(name: str, source: str, expected: list[str]) -> None:
    o = outline(name, source)
    assert [d.name for d in o.defs] == expected


def test_restructuredtext_sections_by_adornment_order() -> None:
    o = outline(
        "doc.rst",
        """
        =====
        Title
        =====

        Part
        ====

        Sub
        ---

        Other
        =====
        """,
    )
    assert table(o) == [
        ("Title", "title", 1, 12),
        ("Part", "h2", 5, 10),
        ("Part.Sub", "h3", 8, 10),
        ("Other", "h2", 11, 12),
    ]
    assert o.method == "keywords"


def test_keyword_fallback_for_a_language_without_a_grammar() -> None:
    o = outline(
        "shop.rb",
        """
        # A shop.
        class Shop
          def initialize(size)
            @size = size
          end

          def to_s
            "shop"
          end
        end

        module Util
        end
        """,
    )
    assert o.method == "keywords"
    assert table(o) == [
        ("Shop", "class", 2, 10),
        ("Shop.initialize", "method", 3, 5),
        ("Shop.to_s", "method", 7, 9),
        ("Util", "module", 12, 13),
    ]
    assert o.defs[0].doc_start == 1


def test_files_of_no_known_kind_have_no_outline() -> None:
    assert language_of("notes.txt") is None and language_of("app.log") is None
    assert outline_of_bytes("notes.txt", b"def f():\n    pass\n") is None
    assert language_of("tool", b"#!/usr/bin/env python3\n") == "python"


def test_a_broken_file_still_gives_what_parses() -> None:
    o = outline("bad.py", "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    pass\n")
    names = [d.name for d in o.defs]
    assert "ok" in names and "Fine" in names


def test_a_file_over_the_parse_limit_is_read_by_keywords(monkeypatch: pytest.MonkeyPatch) -> None:
    from wuu_tools.views.structure import treesitter

    monkeypatch.setattr(treesitter, "PARSE_MAX_BYTES", 10)
    o = outline("big.py", "class A:\n    def f(self):\n        pass\n")
    assert o.method == "keywords" and [d.name for d in o.defs] == ["A", "f"]


def test_a_parse_that_takes_too_much_work_gives_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from wuu_tools.views.structure import treesitter

    source = b"def f():\n    pass\n" * 2000
    assert len(treesitter.definitions("python", source) or []) == 2000
    monkeypatch.setattr(treesitter, "WORK_FLOOR", 5)
    monkeypatch.setattr(treesitter, "WORK_PER_KIB", 0)
    assert treesitter.definitions("python", source) is None
    o = outline_of_bytes("x.py", source)  # the keyword fallback reads it instead
    assert o is not None and o.method == "keywords" and len(o.defs) == 2000


def test_reading_a_fitting_file_does_not_load_tree_sitter() -> None:
    code = (
        "import sys\nfrom wuu_tools import read_file\n"
        "r = read_file(sys.argv[1])\nassert r.complete\n"
        "print(sorted(m for m in sys.modules if 'tree_sitter' in m or 'structure' in m))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, __file__.replace("test_structure.py", "conftest.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"
