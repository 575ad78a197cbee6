"""The mapped token table (wuu_tools/core/bpe.py) gives tiktoken's own cl100k tokens, or declines the text.

Counts are exact whichever counts them: for every text the table takes, its tokens are tiktoken's,
token for token — on generated text, on every assigned Unicode code point, and on real files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wuu_tools.core import budget
from wuu_tools.core.bpe import Table, build

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tiktoken_enc():  # type: ignore[no-untyped-def]
    return budget._load_encoding()


@pytest.fixture(scope="module")
def table(tiktoken_enc, tmp_path_factory: pytest.TempPathFactory) -> Table:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("bpe") / "cl100k.table"
    build(tiktoken_enc._mergeable_ranks, path)
    return Table(path)


def _same(table: Table, enc, text: str) -> None:  # type: ignore[no-untyped-def]
    if table.takes(text):
        assert table.encode_ordinary(text) == enc.encode_ordinary(text), repr(text[:200])


CODE = st.sampled_from(
    ["def ", "f(x):", "\n", "    ", "return", " x", " * ", "12345", "'s", "'LL", "'Ve", " don't", "\r\n", "\t"]
)
SPACES = st.sampled_from(["  \n\n", " 's", "\t's", " \t", "\x0b", "\x0c'"])
WORDS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
ODD = st.sampled_from(["ſ", "'ſ", "\x85", "\u2028", "\u3000", "\xa0", "١٢٣", "Ⅻ", "½", "é", "中文", "🙂", "\x1c"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(CODE, SPACES, WORDS, ODD), max_size=40).map("".join))
def test_tokens_are_tiktokens(table: Table, tiktoken_enc, text: str) -> None:  # type: ignore[no-untyped-def]
    _same(table, tiktoken_enc, text)
    if table.takes(text):
        tokens = table.encode_ordinary(text)
        assert table.decode_bytes(tokens) == text.encode()


def test_edges_of_the_pattern(table: Table, tiktoken_enc) -> None:  # type: ignore[no-untyped-def]
    for text in [
        "",
        " ",
        "   ",
        "a  ",
        "a  \n",
        "x\n\n\n  y",
        "  \n  z",
        "it's",
        "IT'S",
        "we'll've",
        "'ſ",
        "1234567",
        "a1b2",
        "x)\n",
        "):\r\n",
        "\t\tindent",
        "trailing spaces   ",
        " ?!",
        "é'sé",
        "\x00\x01\x1f",
        "a" * 199,
        " " * 150 + "x",
    ]:
        assert table.takes(text), repr(text)
        _same(table, tiktoken_enc, text)


def _probe(c: str) -> bool:
    """Every code point but 15 in 16 of the big uniform blocks: private use, ideographs named by number, Hangul."""
    name = unicodedata.name(c, "")
    uniform = unicodedata.category(c) == "Co" or name.endswith(f"-{ord(c):04X}") or name.startswith("HANGUL SYL")
    return not uniform or ord(c) % 16 == 0


def test_every_assigned_code_point(table: Table, tiktoken_enc) -> None:  # type: ignore[no-untyped-def]
    """Each character in contexts where a letter, a number, white space, a space and the rest split differently."""
    chars = [c for c in map(chr, range(0x80, 0x110000)) if unicodedata.category(c) not in ("Cn", "Cs") and _probe(c)]
    for i in range(0, len(chars), 4000):
        text = " ".join(f"a{c}1{c}'s" for c in chars[i : i + 4000])
        assert table.takes(text)
        assert table.encode_ordinary(text) == tiktoken_enc.encode_ordinary(text), (hex(ord(chars[i])), i)


def test_real_files(table: Table, tiktoken_enc) -> None:  # type: ignore[no-untyped-def]
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "wuu_tools").rglob("*.py"))]
    taken = 0
    for path in files:
        text = path.read_text()
        _same(table, tiktoken_enc, text)
        taken += table.takes(text)
    assert taken == len(files)


def test_what_it_declines(table: Table) -> None:
    assert not table.takes("x\udcff")  # a lone surrogate: tiktoken replaces it first
    assert not table.takes("\U000e0080")  # unassigned here: tiktoken's tables may be newer
    assert not table.takes("a" * 200)  # a piece long enough to make the pure-Python merge slow
    assert not table.takes("=" * 300)


def test_a_damaged_table_is_not_used(tmp_path: Path, table: Table) -> None:
    bad = tmp_path / "t"
    bad.write_bytes(b"wuu-bpe\0" + b"\0" * 100)
    with pytest.raises(ValueError):
        Table(bad)
    with pytest.raises(ValueError):
        build({b"a": 1}, tmp_path / "u")  # ranks must be 0..n-1


def test_a_small_read_needs_no_tiktoken(tmp_path: Path) -> None:
    """The first process on a machine writes the table (loading tiktoken); later small reads never load it."""
    small = tmp_path / "small.py"
    small.write_text("".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(100)))
    code = (
        "import sys, json\nfrom wuu_tools.files.file import read_file\n"
        "r = read_file(sys.argv[1])\n"
        "print(json.dumps([r.tokens, r.to_dict()['meta']['tokenizer'], 'tiktoken' in sys.modules]))"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def run() -> str:
        out = subprocess.run([sys.executable, "-c", code, str(small)], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    first, second = run(), run()
    assert first.endswith("true]") and second.endswith("false]")
    assert first.replace("true", "false") == second  # the same count, exact either way
    assert list((tmp_path / "cache" / "wuu-tools" / "cache").glob("cl100k-*.table*"))
