"""One JSON line of a session decoded as the whole-file reader decodes it, in a quarter of the time.

The turn index (:mod:`.turnindex`, :mod:`.turnfast`) and the turns decoded from its spans
(:mod:`.lazy`) read lines and values this way: msgspec first (the typed pass, :mod:`.turnline`, uses
it too), and what it refuses as :func:`json.loads` reads the line's UTF-8 text. msgspec reads what it
accepts as json does, integers of any size included (orjson, used before, read ``10**30`` as a float).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["blank", "load_line"]

try:  # a third of the time of indexing a session is decoding its lines: msgspec does it in under half json's
    from msgspec.json import Decoder as _Decoder

    _fast_loads = _Decoder().decode
except ImportError:  # pragma: no cover - msgspec is a dependency; json reads the same, slower
    _fast_loads = json.JSONDecoder().decode

_decode = json.JSONDecoder().decode


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
