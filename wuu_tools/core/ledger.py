"""The gain ledger: one JSON line per projected command and per recovery read, for ``wuu gain``.

Kept in the store at ``ledger/gain.jsonl`` (beside ``objects/``, never evicted with them). Two kinds
of record, each one line::

    {"v": 1, "type": "command", "ts": "2026-12-06T22:40:01Z", "day": "2026-12-06", "session": "abc",
     "log": "log-3c32210e…", "command": "seq 1 100000", "kind": "seq", "view": "output", "exit_code": 0,
     "raw_bytes": 588895, "raw_tokens": 299001, "raw_estimated": false, "printed_tokens": 1980}
    {"v": 1, "type": "read", "ts": …, "day": …, "session": "abc", "log": "log-3c32210e…",
     "tool": "read_saved", "args": {"start_line": 50000}, "printed_tokens": 312}

``log`` is the saved log's full reference, so a read matches the command whose output it read.

- **Append-only and safe under parallel processes:** a record is written with one ``write()`` on a
  file opened with ``O_APPEND``, and is kept under :data:`MAX_RECORD_BYTES` (the command line is
  clipped), so concurrent appends land whole, one after another. A reader skips a line that is not
  a record.
- **Bounded:** past ``WUU_LEDGER_MAX_BYTES`` (default 4 MiB, ~12,000 records) the file becomes
  ``gain.1.jsonl`` and a new one starts; the older generation is dropped. The rotation takes an
  exclusive lock and checks the size again, so two processes never rotate twice.
- **Never in the way:** :func:`append` swallows every error (a read-only store, a full disk, a
  ledger path that is a folder) and returns it, so the command's output and exit status are the
  same with or without a ledger. ``WUU_LEDGER=0`` turns it off.

Raw tokens are counted exactly for a log up to :data:`EXACT_MAX_BYTES`; a larger one (or one the log
cap cut) is estimated from three counted windows (head, middle, tail) scaled by its size, and the
record says ``raw_estimated``.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .env import env_int

__all__ = [
    "DEFAULT_MAX_BYTES",
    "EXACT_MAX_BYTES",
    "MAX_RECORD_BYTES",
    "append",
    "enabled",
    "ledger_path",
    "raw_tokens",
    "read_records",
    "record_base",
]

DEFAULT_MAX_BYTES = 4 << 20
MIN_MAX_BYTES = 4096
MAX_RECORD_BYTES = 4000
"""Under PIPE_BUF (4096 on Linux): one ``write()`` of a record is never split or interleaved."""
EXACT_MAX_BYTES = 1 << 20
WINDOW_BYTES = 128 << 10
VERSION = 1
NAME = "gain.jsonl"
OLD_NAME = "gain.1.jsonl"

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


def enabled() -> bool:
    """Whether records are kept (``WUU_LEDGER=0``, ``off`` or ``no`` turns the ledger off)."""
    return os.environ.get("WUU_LEDGER", "").strip().lower() not in ("0", "off", "no", "false")


def ledger_path(store_root: str | os.PathLike[str]) -> Path:
    """The ledger file of the store at ``store_root`` (it may not exist yet)."""
    return Path(store_root) / "ledger" / NAME


def record_base(kind: str, session: str | None = None, now: float | None = None) -> dict[str, Any]:
    """The fields every record starts with: version, type, UTC time and day, session (``WUU_SESSION`` if None)."""
    stamp = time.gmtime(time.time() if now is None else now)
    if session is None:
        session = os.environ.get("WUU_SESSION", "").strip() or None
    return {
        "v": VERSION,
        "type": kind,
        "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", stamp),
        "day": time.strftime("%Y-%m-%d", stamp),
        "session": session,
    }


def _line(record: dict[str, Any]) -> bytes:
    """``record`` as one JSON line under :data:`MAX_RECORD_BYTES` (long strings clipped, then dropped)."""
    data = (json.dumps(record, sort_keys=True) + "\n").encode("ascii")
    if len(data) <= MAX_RECORD_BYTES:
        return data
    clipped = dict(record)
    for key in ("command", "args", "session"):
        value = clipped.get(key)
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(text) > 200:
            clipped[key] = text[:200] + "…"
            clipped["clipped"] = True
    data = (json.dumps(clipped, sort_keys=True) + "\n").encode("ascii")
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(f"a ledger record of {len(data)} bytes is over {MAX_RECORD_BYTES}")
    return data


def _max_bytes() -> int:
    return env_int("WUU_LEDGER_MAX_BYTES", DEFAULT_MAX_BYTES, minimum=MIN_MAX_BYTES, unit="bytes")


def append(store_root: str | os.PathLike[str], record: dict[str, Any]) -> str | None:
    """Append ``record`` to the ledger; None when written, else why not (the error is never raised)."""
    if not enabled():
        return None
    try:
        path = ledger_path(store_root)
        data = _line(record)
        root = Path(store_root)
        if not path.parent.is_dir():
            if not root.is_dir():
                root.parent.mkdir(parents=True, exist_ok=True)
                root.mkdir(mode=0o700, exist_ok=True)
            path.parent.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            written = os.write(fd, data)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if written != len(data):
            return f"wrote {written} of {len(data)} bytes to {path}"
        if size > _max_bytes():
            _rotate(path)
    except Exception as exc:  # never fail the command for its ledger
        return f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}"
    return None


def _rotate(path: Path) -> None:
    """Make the full ledger the old generation (dropping the one before), under a lock."""
    fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_size > _max_bytes():  # not rotated meanwhile by another process
                os.replace(path, path.with_name(OLD_NAME))
    finally:
        os.close(fd)


def read_records(store_root: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Every record in the ledger, oldest first (the old generation, then the current); bad lines skipped."""
    path = ledger_path(store_root)
    for file in (path.with_name(OLD_NAME), path):
        try:
            with open(file, "rb") as fh:
                for raw in fh:
                    try:
                        record = json.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(record, dict) and record.get("type") in ("command", "read"):
                        yield record
        except OSError:
            continue


def _window_tokens(fh: Any, start: int, size: int, total: int) -> tuple[int, int]:
    """Tokens and bytes of the whole lines in ``size`` bytes from ``start`` of a file of ``total`` bytes."""
    from .budget import count_tokens

    fh.seek(start)
    data = fh.read(size)
    if start + len(data) < total:  # a partial last line is left out
        end = data.rfind(b"\n")
        data = data[: end + 1] if end >= 0 else data
    if start:  # and a partial first line
        cut = data.find(b"\n")
        data = data[cut + 1 :] if 0 <= cut < len(data) - 1 else data
    return count_tokens(data.decode("utf-8", "replace")), len(data)


def raw_tokens(path: str | os.PathLike[str], dropped_bytes: int = 0) -> tuple[int, bool]:
    """The tokens of the output saved at ``path`` (plus ``dropped_bytes`` the log cap cut); and whether estimated."""
    from .budget import count_tokens

    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size <= EXACT_MAX_BYTES:
            counted = count_tokens(fh.read().decode("utf-8", "replace"))
            if not dropped_bytes:
                return counted, False
            return round(counted * (size + dropped_bytes) / max(size, 1)), True
        tokens = nbytes = 0
        for start in (0, (size - WINDOW_BYTES) // 2, size - WINDOW_BYTES):
            t, n = _window_tokens(fh, start, WINDOW_BYTES, size)
            tokens += t
            nbytes += n
    return round(tokens * (size + dropped_bytes) / max(nbytes, 1)), True
