"""A record's kind in short, for the messages that name what a reader did not read (``type=x``, ``role=y``).

Its own module so that the turn index of a big Claude Code session names such lines without
loading every format's reader (:mod:`.formats` re-exports it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["line_kind"]


def line_kind(rec: dict[str, Any]) -> str:
    """A short name for a record's kind, for messages about what was (not) read: ``type=x``, ``role=y kind=z``."""
    if isinstance(rec.get("type"), str):
        label = f"type={rec['type']}"
    elif isinstance(rec.get("role"), str):
        label = f"role={rec['role']}" + (f" kind={rec['kind']}" if isinstance(rec.get("kind"), str) else "")
    else:
        keys = sorted(str(k) for k in rec)
        label = "{" + ",".join(keys[:4]) + (",…" if len(keys) > 4 else "") + "}"
    return label if len(label) <= 48 else label[:47] + "…"
