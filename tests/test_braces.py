"""Matching braces of C-family text (``views/structure/braces.py``): code braces pair as a stack pairs
them; braces inside comments, string and character literals and preprocessor lines never count."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wuu_tools.views.structure.braces import closing

# Pieces of text that hold braces the matcher must pass over.
NOISE = [
    "/* } { */",
    "// } {\n",
    '"}"',
    '"{\\"}"',
    "'}'",
    "'{'",
    "'\\''",
    'R"x(}{)x"',
    "\n#define OPEN {\n",
    "\n#if X /* { */\n",
    "\n#define BODY(a) \\\n  { a; }\n",
    "int a = 1;",
    "\n",
    " ",
]
TOKENS = st.lists(st.sampled_from(["{", "}", *NOISE]), max_size=60)


@settings(max_examples=300, deadline=None)
@given(TOKENS)
def test_code_braces_pair_as_a_stack_and_no_other_brace_counts(tokens: list[str]) -> None:
    text = ""
    expected: dict[int, int] = {}
    stack: list[int] = []
    for token in tokens:
        if token == "{":
            stack.append(len(text))
        elif token == "}" and stack:
            expected[stack.pop()] = len(text)
        text += token
    assert closing(text.encode()) == expected


def test_an_unclosed_comment_or_string_ends_the_text_without_a_wrong_pair() -> None:
    assert closing(b"{ /* } ") == {}
    assert closing(b'{ "} \n}') == {0: 6}  # an unclosed string ends with its line
    assert closing(b"} { }") == {2: 4}  # a stray close pairs nothing
