r"""Search patterns: RE2 regular expressions (linear time, whatever the pattern) with ripgrep's smart case.

Every pattern a tool takes (``read_saved``, ``read_conversation``, the searches a view
suggests) is compiled here, by Google's RE2 (the ``google-re2`` package, loaded on the first
search): its matching time is linear in the text searched, so no pattern can hang a call, and
it releases the GIL while it matches, so a long search never stalls the other calls of a
server. Its syntax is Python's and ripgrep's, less the constructs that need backtracking:
backreferences, lookahead and lookbehind, atomic groups, possessive quantifiers and
conditionals are refused with an error that names the construct.

A pattern with no upper-case letter matches regardless of case; one upper-case letter makes
it case-sensitive (escapes such as ``\S`` or ``\W`` and group names do not count). An inline
flag overrides the rule: ``(?i)`` at the start makes any pattern case-insensitive, ``(?-i:…)``
makes the group inside it case-sensitive.

>>> bool(compile_pattern("(error|fail)").search("FAILED tests/test_b.py"))
True
>>> bool(compile_pattern("Fail").search("FAILED"))
False
>>> bool(compile_pattern("(?i)Fail").search("FAILED"))
True
>>> compile_pattern(r"(a)\1")
Traceback (most recent call last):
...
wuu_tools.core.errors.InvalidArgument: pattern '(a)\\1' uses a backreference (\1), which this search does not ...
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .errors import InvalidArgument, check_length, quote

__all__ = ["Pattern", "compile_pattern", "is_case_sensitive"]

_NOT_LETTERS = re.compile(r"\\[A-Za-z]|\(\?P[<=]\w+>?|\(\?<\w+>|\\N\{[^}]*\}|\{[\d,]+\}|\\[px]\{[^}]*\}")

MAX_PROGRAM_BYTES = 8 << 20
"""Memory RE2 may use for one pattern (its compiled program and its DFA cache; RE2's default): a bigger
pattern is refused, and a search whose DFA needs more goes on in RE2's NFA (slower, still linear).
More memory does not help such a search: each search of a window fills the cache before it gives up."""

# RE2's parse errors, by the start of their message (and the operator it quotes): what the construct is called.
_CONSTRUCTS: tuple[tuple[str, str], ...] = (
    ("(?=", "a lookahead (?=…)"),
    ("(?!", "a negative lookahead (?!…)"),
    ("(?<=", "a lookbehind (?<=…)"),
    ("(?<!", "a negative lookbehind (?<!…)"),
    ("(?>", "an atomic group (?>…)"),
    ("(?(", "a conditional (?(…)…)"),
    ("(?P=", "a named backreference (?P=name)"),
    ("(?P>", "a recursive call (?P>name)"),
    ("(?R", "a recursive call (?R)"),
    ("(?#", "a comment group (?#…)"),
    ("*+", "a possessive quantifier (*+)"),
    ("++", "a possessive quantifier (++)"),
    ("?+", "a possessive quantifier (?+)"),
    ("}+", "a possessive quantifier ({n}+)"),
)
_ESCAPES = {
    "Z": r"\Z (end of text; write \z)",
    "u": r"a \uXXXX escape (write \x{XXXX})",
    "U": r"a \UXXXXXXXX escape (write \x{XXXXXX})",
    "N": r"a \N{name} escape (write the character, or \x{XXXX})",
    "G": r"\G (the end of the previous match)",
    "K": r"\K (reset the match start)",
    "R": r"\R (any line break)",
    "X": r"\X (a grapheme cluster)",
    "h": r"\h (horizontal space; write [ \t])",
}


class Pattern:
    """A compiled search pattern: ``search`` and ``finditer`` as ``re`` has them, on ``str`` or UTF-8 ``bytes``.

    Attributes:
        source: The pattern as the caller wrote it.
    """

    __slots__ = ("_rx", "source")

    def __init__(self, source: str, rx: Any) -> None:
        self.source = source
        self._rx = rx

    def search(self, text: str | bytes, pos: int = 0, endpos: int | None = None) -> Any:
        """The first match in ``text[pos:endpos]`` (an ``re``-like match object), or None."""
        return self._rx.search(text, pos, endpos)

    def finditer(self, text: str | bytes, pos: int = 0, endpos: int | None = None) -> Iterator[Any]:
        """Every non-overlapping match in ``text[pos:endpos]``."""
        return self._rx.finditer(text, pos, endpos)  # type: ignore[no-any-return]

    def line_starts(self, data: bytes | bytearray, pos: int = 0, end: int | None = None) -> Iterator[int]:
        """Where each line of ``data[pos:end]`` that holds a match starts (an offset in ``data``), once per line.

        ``pos`` must be the start of a line. Lines come in order.

        A match found, the search goes on after the end of its line, so a line is matched once
        and the work stays linear however many matches a line holds.
        """
        rx = self._rx._regexp  # the RE2 object: Match() gives byte spans, no match object is built
        unanchored = type(rx).Anchor.UNANCHORED
        end = len(data) if end is None else end
        while pos < end:
            start = rx.Match(unanchored, data, pos, end)[0][0]
            if start < 0:
                return
            yield data.rfind(b"\n", pos, start) + 1 or pos
            nl = data.find(b"\n", start, end)
            if nl < 0:
                return
            pos = nl + 1

    def __repr__(self) -> str:
        return f"Pattern({self.source!r})"


def is_case_sensitive(pattern: str) -> bool:
    """Smart case: whether ``pattern`` holds an upper-case letter outside escapes and group names."""
    return any(c.isupper() for c in _NOT_LETTERS.sub("", pattern))


def compile_pattern(pattern: str, multiline: bool = False) -> Pattern:
    """``pattern`` compiled by RE2 with smart case; :class:`InvalidArgument` when it is empty, malformed or unsupported.

    Args:
        pattern: The regular expression, as the caller wrote it.
        multiline: ``^`` and ``$`` match at every line's start and end (a search over many lines at once).
    """
    if not isinstance(pattern, str) or not pattern:
        raise InvalidArgument(f"pattern must be a non-empty regular expression, not {quote(pattern)}")
    check_length("pattern", pattern)  # a huge one costs seconds to compile, and every view would repeat it
    try:
        pattern.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(f"pattern {quote(pattern)} is not valid text (it holds a lone surrogate)") from None
    import re2  # loaded on the first search only: most calls never search

    options = re2.Options()
    options.log_errors = False  # a bad pattern is our error to report, not a line on stderr
    options.max_mem = MAX_PROGRAM_BYTES
    options.case_sensitive = is_case_sensitive(pattern)
    try:
        rx = re2.compile(("(?m)" if multiline else "") + pattern, options)
    except re2.error as exc:
        raise InvalidArgument(_explain(pattern, exc)) from None
    return Pattern(pattern, rx)


def _explain(pattern: str, exc: Exception) -> str:
    """The error for a pattern RE2 refused: the construct named when it is one RE2 lacks."""
    raw = exc.args[0] if exc.args else str(exc)
    reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    what, _, operator = reason.partition(": ")
    construct = None
    if what in ("invalid perl operator", "bad repetition operator", "missing argument to repetition operator"):
        for start, name in _CONSTRUCTS:
            if operator.startswith(start) or (pattern.find(start) >= 0 and operator == start[: len(operator)]):
                construct = name
                break
        if construct is None and what == "invalid perl operator" and operator.startswith("(?"):
            construct = f"the inline flag or group {operator} (RE2 knows the flags i, m, s and U)"
    elif what == "invalid escape sequence" and len(operator) == 2:
        letter = operator[1]
        construct = f"a backreference ({operator})" if letter.isdigit() else _ESCAPES.get(letter)
    if construct is not None:
        engine = "RE2 has no backreferences" if "backreference" in construct else "RE2 does not support it"
        return (
            f"pattern {quote(pattern)} uses {construct}, which this search does not support: "
            f"patterns run on RE2, in time linear in the text, and {engine}"
        )
    if what == "pattern too large - compile failed" or "too large" in reason:
        return f"pattern {quote(pattern)} is too large to search with: it compiles past RE2's memory limit"
    if what == "invalid repetition size":
        return (
            f"pattern {quote(pattern)} repeats too often ({operator}): "
            "RE2 takes at most 1,000 repetitions, nested ones multiplied"
        )
    return f"pattern {quote(pattern)} is not a valid regular expression: {reason}"
