"""Settings read from the environment: one parser, one error message.

>>> env_int("WUU_DOES_NOT_EXIST", 7, unit="bytes")
7
"""

from __future__ import annotations

import os

from .errors import InvalidArgument, clip, quote

__all__ = ["DEFAULT_MEDIA_MAX_BYTES", "env_float", "env_int", "media_limit"]

DEFAULT_MEDIA_MAX_BYTES = 5 * 1024 * 1024


def env_int(name: str, default: int, minimum: int = 0, unit: str = "") -> int:
    """The whole number in ``$name``, ``default`` when unset or blank; a malformed value is an error."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    what = f" {unit}" if unit else ""
    try:
        value = int(raw)
    except ValueError:
        raise InvalidArgument(f"{name}={quote(raw)} is not a whole number{what}") from None
    if value < minimum:
        raise InvalidArgument(f"{name} must be at least {minimum:,}{what}, not {value:,}")
    return value


def env_float(name: str, default: float, minimum: float = 0, unit: str = "") -> float:
    """The number in ``$name``, ``default`` when unset or blank; a malformed value is an error."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    what = f" {unit}" if unit else ""
    try:
        value = float(raw)
    except ValueError:
        raise InvalidArgument(f"{name}={quote(raw)} is not a number{what}") from None
    if not value >= minimum:  # NaN too
        raise InvalidArgument(f"{name} must be at least {minimum:g}{what}, not {clip(raw, 40)}")
    return value


def media_limit() -> int:
    """The media size limit in force: ``WUU_MEDIA_MAX_BYTES``, else 5 MiB."""
    return env_int("WUU_MEDIA_MAX_BYTES", DEFAULT_MEDIA_MAX_BYTES, unit="bytes")
