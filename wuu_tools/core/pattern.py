r"""Search patterns: Python regular expressions with ripgrep's smart case.

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
"""

from __future__ import annotations

import re

from .errors import InvalidArgument, check_length, quote

__all__ = ["compile_pattern", "is_case_sensitive"]

_NOT_LETTERS = re.compile(r"\\[A-Za-z]|\(\?P[<=]\w+>?|\(\?<\w+>|\\N\{[^}]*\}|\{[\d,]+\}")


def is_case_sensitive(pattern: str) -> bool:
    """Smart case: whether ``pattern`` holds an upper-case letter outside escapes and group names."""
    return any(c.isupper() for c in _NOT_LETTERS.sub("", pattern))


def compile_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``pattern`` compiled with smart case; :class:`InvalidArgument` when it is empty or not a regex."""
    if not isinstance(pattern, str) or not pattern:
        raise InvalidArgument(f"pattern must be a non-empty regular expression, not {quote(pattern)}")
    check_length("pattern", pattern)  # a huge one costs seconds to compile, and every view would repeat it
    if not is_case_sensitive(pattern):
        flags |= re.IGNORECASE
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise InvalidArgument(f"pattern {quote(pattern)} is not a valid regular expression: {exc}") from None
