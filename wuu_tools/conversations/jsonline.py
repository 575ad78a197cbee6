"""One JSON line of a session decoded as the whole-file reader decodes it, in a quarter of the time.

The turn index (:mod:`.turnindex`, :mod:`.turnfast`) and the turns decoded from its spans
(:mod:`.lazy`) read lines and values this way: msgspec first (the typed pass, :mod:`.turnline`, uses
it too), and what it refuses as :func:`json.loads` reads the line's UTF-8 text. msgspec reads what it
accepts as json does, integers of any size included (orjson, used before, read ``10**30`` as a float).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["blank", "load_line"]

_decode = json.JSONDecoder().decode


_fast: Callable[[bytes], Any] | None = None
LOAD_AT_BYTES = 64 << 10
"""Before msgspec is loaded (the index pass loads it), a line shorter than this is read by json: loading
msgspec costs some 8 ms, about what json spends on a megabyte of lines (a view decodes the few it shows)."""


def _fast_loads(raw: bytes) -> Any:
    """msgspec's decoder, loaded at the first line decoded (a view of a kept index decodes few or none)."""
    global _fast
    if _fast is None and len(raw) < LOAD_AT_BYTES:  # json reads a few small lines faster than msgspec loads
        return _decode(raw.decode("utf-8"))
    if _fast is None:
        try:  # a third of the time of indexing a session is decoding its lines: msgspec does it in under half json's
            from msgspec.json import Decoder
        except ImportError:  # pragma: no cover - msgspec is a dependency; json reads the same, slower
            _fast = json.loads
        else:
            _fast = Decoder().decode
    return _fast(raw)


def load_line(raw: bytes, first: bool = False) -> Any:
    """One line's JSON value, as :func:`json.loads` of its UTF-8 text reads it; ``first``: the file's first line.

    msgspec reads a line first; what it refuses (lone surrogates, ``NaN``, numbers out of a float's
    range, a byte-order mark, bytes that are not UTF-8) is read again as the whole-file reader reads it:
    the bytes decoded with replacement, a byte-order mark dropped at the start of the file only.
    """
    try:
        return _fast_loads(raw)
    except ValueError:
        pass
    try:
        return _decode(raw.decode("utf-8"))
    except ValueError:  # not UTF-8 (the whole-file reader decodes with replacement), or not JSON
        text = raw.decode("utf-8", "replace")
        return json.loads(text.lstrip("\ufeff") if first else text)


def blank(raw: bytes, first: bool = False) -> bool:
    """True for a line the whole-file reader skips: only whitespace once decoded (``\\x1c``, no-break spaces too)."""
    if raw[:1] == b"{":
        return False
    text = raw.decode("utf-8", "replace")
    return not (text.lstrip("\ufeff") if first else text).strip()
