r"""A session: what the views of one agent's run have shown, so a later view names it instead of repeating it.

A :class:`Session` remembers, for each view it was told of (:meth:`Session.record`), the call's
number in the session, the tool, the source (a file's path and revision, a saved log, a command
line and its directory) and the *keys* of the lines the view displayed: an 8-byte BLAKE2b digest
of each line's text with its line-number gutter (``12\t``, Claude Code's ``12→``) and trailing
blanks removed. A line of 8 characters or fewer has no key (``}``, ``else:`` and blank lines say
nothing about where they came from). Memory is bounded: at most :data:`MAX_LINES` keys and
:data:`MAX_VIEWS` views, the oldest evicted first; a key shown again moves to the newest place.

Three kinds of session:

- a :class:`Session` in memory: a :class:`~wuu_tools.Toolset`'s, an MCP connection's;
- a :class:`StoredSession`, named by ``WUU_SESSION`` for the CLI (a shell, an agent hook): kept in
  the store under ``sessions/``, read when a view is made, and written back under an exclusive
  lock, merged with what concurrent ``wuu`` processes wrote meanwhile (:meth:`StoredSession.commit`);
- none (:func:`current_session` returns None): every tool behaves as if nothing had been shown.

A session remembers what it showed, never what the agent thought; it never changes what a tool
reads or runs, only how much of it a view repeats.

>>> s = Session()
>>> s.record("read_file", "file:a.py", revision="r1", keys=[line_key("def main() -> None:")])
1
>>> s.shown_in(line_key("  1\tdef main() -> None:"))
1
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import re
import threading
from array import array
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "MAX_LINES",
    "MAX_VIEWS",
    "Session",
    "StoredSession",
    "ViewRecord",
    "content_key",
    "content_keys",
    "current_session",
    "line_key",
    "location",
    "session_from_env",
    "use_session",
]

MAX_LINES = 50_000
"""Line keys a session remembers (12 bytes each on disk; the oldest go first)."""
MAX_VIEWS = 1_000
"""Views a session remembers."""
MAX_STORED_SESSIONS = 64
"""Stored sessions kept in a store; the least recently written go first."""
MIN_KEYED_CHARS = 9
"""A line needs this many characters (gutter and edge blanks removed) to have a key."""
_GUTTER = re.compile(r"^ *\d+(?:[:-]?\t|→)")
_LOCATION = re.compile(r"^(?:([^\s:]*[./][^\s:]*)[:-]| *)(\d+)[:-]")
"""A search hit's location before its text: ``path:12:`` and ``path-12-`` (grep -n, context), or ``12:``/``12-``
(a script's own numbering, right-aligned: `` 206:``)."""
_NAME_MAX = 512


def line_key(line: str) -> bytes | None:
    """The key of a displayed line: its text without gutter and trailing blanks, hashed; None for a short line."""
    return _key(_GUTTER.sub("", line, count=1))


def _key(text: str) -> bytes | None:
    text = text.rstrip()
    if len(text.strip()) < MIN_KEYED_CHARS:
        return None
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()


def location(line: str) -> tuple[str, int, str] | None:
    """A search hit's path (empty when grep printed none), line number and text; None for another line.

    >>> location("django/forms/widgets.py:142:    warnings.warn(")
    ('django/forms/widgets.py', 142, '    warnings.warn(')
    >>> location("1683-                    id='fields.E140',")
    ('', 1683, "                    id='fields.E140',")
    >>> location("Traceback (most recent call last):") is None
    True
    """
    m = _LOCATION.match(line)
    if m is None:
        return None
    return m.group(1) or "", int(m.group(2)), line[m.end() :]


def content_key(line: str) -> bytes | None:
    """The key of a search hit's text without its location (``path:12:``), so a hit matches the line a file view
    showed; None for a line without a location (its :func:`line_key` is its only key) or a short text."""
    keys = content_keys(line)
    return keys[0] if keys else None


def content_keys(line: str) -> tuple[bytes, ...]:
    """The keys a search hit's text may have: :func:`content_key`'s, and the text's without the one space a
    script may print after the number (``741: ` + the source line); none for a line without a location.

    >>> content_keys("741:             opts = orig_opts")[1] == line_key("            opts = orig_opts")
    True
    """
    hit = location(line)
    if hit is None:
        return ()
    keys = [_key(hit[2])]
    if hit[2].startswith(" "):
        keys.append(_key(hit[2][1:]))
    return tuple(k for k in keys if k is not None)


@dataclass
class ViewRecord:
    """One view of the session: its call number, tool, source, revision, saved log and what it is about."""

    call: int
    tool: str
    source: str
    revision: str | None = None
    ref: str | None = None
    spans: list[list[int]] = field(default_factory=list)


class Session:
    """What the views of one session showed (see the module docstring)."""

    def __init__(self) -> None:
        self.calls = 0
        self._lines: OrderedDict[bytes, int] = OrderedDict()
        self._views: OrderedDict[int, ViewRecord] = OrderedDict()
        self._latest: dict[str, int] = {}  # source -> the call of its latest view
        self._lock = threading.Lock()  # (an MCP server makes views in several threads)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(calls={self.calls}, lines={len(self._lines)})"

    # -- reading -----------------------------------------------------------------------

    def shown_in(self, key: bytes | None) -> int | None:
        """The latest call whose view displayed a line with this key, or None."""
        return None if key is None else self._lines.get(key)

    def latest(self, source: str) -> ViewRecord | None:
        """The latest view of ``source`` this session still remembers."""
        call = self._latest.get(source)
        return None if call is None else self._views.get(call)

    def view(self, call: int) -> ViewRecord | None:
        return self._views.get(call)

    @property
    def next_call(self) -> int:
        """The number the next recorded view will get."""
        return self.calls + 1

    # -- writing -----------------------------------------------------------------------

    def record(
        self,
        tool: str,
        source: str,
        *,
        revision: str | None = None,
        ref: str | None = None,
        keys: Iterable[bytes | None] = (),
        spans: list[list[int]] | None = None,
    ) -> int:
        """Remember a view (its source and the keys of the lines it displayed); returns its call number."""
        with self._lock:
            return self._record(tool, source, revision, ref, keys, spans)

    def _record(
        self,
        tool: str,
        source: str,
        revision: str | None,
        ref: str | None,
        keys: Iterable[bytes | None],
        spans: list[list[int]] | None,
    ) -> int:
        self.calls += 1
        call = self.calls
        self._views[call] = ViewRecord(call, tool, source, revision, ref, spans or [])
        self._latest[source] = call
        while len(self._views) > MAX_VIEWS:
            old, rec = self._views.popitem(last=False)
            if self._latest.get(rec.source) == old:
                del self._latest[rec.source]
        lines = self._lines
        for key in keys:
            if key is None:
                continue
            lines[key] = call
            lines.move_to_end(key)
        while len(lines) > MAX_LINES:
            lines.popitem(last=False)
        return call

    # -- persistence (StoredSession) -------------------------------------------------------

    def _state(self) -> dict[str, Any]:
        return {"calls": self.calls, "views": [asdict(v) for v in self._views.values()]}

    def _load_state(self, state: dict[str, Any], lines: bytes) -> None:
        self.calls = int(state.get("calls", 0))
        self._views = OrderedDict()
        self._latest = {}
        for raw in state.get("views", []):
            rec = ViewRecord(**raw)
            self._views[rec.call] = rec
            self._latest[rec.source] = rec.call
        calls = array("I")
        n = len(lines) // 12
        calls.frombytes(lines[8 * n : 12 * n])
        self._lines = OrderedDict((lines[8 * i : 8 * i + 8], calls[i]) for i in range(n))

    def _lines_bytes(self) -> bytes:
        keys = b"".join(self._lines.keys())
        return keys + array("I", self._lines.values()).tobytes()


class StoredSession(Session):
    """A session kept in a store's ``sessions/`` folder under a name (``WUU_SESSION``), shared by processes.

    The state is read when the session is opened; views recorded since are written back by
    :meth:`commit`, which takes an exclusive lock, reads the state again (other processes may have
    recorded views meanwhile), replays this process's views on it and replaces the files
    atomically. A state that cannot be read is started afresh (a session is a cache of what was
    shown: losing it only repeats lines); a store that cannot be written leaves the views unsaved.
    """

    def __init__(self, root: str | os.PathLike[str], name: str) -> None:
        super().__init__()
        if not isinstance(name, str) or not name or len(name) > _NAME_MAX or "\0" in name:
            raise ValueError(f"a session name is 1-{_NAME_MAX} characters without NUL")
        self.name = name
        self.folder = Path(root) / "sessions"
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self._base = self.folder / digest
        self._pending: list[dict[str, Any]] = []
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            self._read()

    def _read(self) -> None:
        state = json.loads((self._base.with_suffix(".json")).read_text(encoding="utf-8"))
        if state.get("name") != self.name:  # (a digest collision, or a foreign file)
            return
        self._load_state(state, self._base.with_suffix(".lines").read_bytes())

    def record(self, tool: str, source: str, **kw: Any) -> int:
        keys = [k for k in kw.pop("keys", ()) if k is not None]
        self._pending.append({"tool": tool, "source": source, "keys": keys, **kw})
        return super().record(tool, source, keys=keys, **kw)

    def commit(self) -> None:
        """Write the views recorded since the session was opened, merged with the stored state."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            with _locked(self._base.with_suffix(".lock")):
                fresh = Session()
                with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
                    state = json.loads(self._base.with_suffix(".json").read_text(encoding="utf-8"))
                    if state.get("name") == self.name:
                        fresh._load_state(state, self._base.with_suffix(".lines").read_bytes())
                for op in pending:
                    Session.record(fresh, **op)
                _write(self._base.with_suffix(".lines"), fresh._lines_bytes())
                _write(self._base.with_suffix(".json"), json.dumps({"name": self.name, **fresh._state()}).encode())
            _evict(self.folder)
        except OSError:  # a read-only or full store: the views are shown all the same
            return


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (closing releases the lock)


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _evict(folder: Path) -> None:
    """Keep the :data:`MAX_STORED_SESSIONS` most recently written sessions."""
    try:
        states = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in states[MAX_STORED_SESSIONS:]:
        for suffix in (".json", ".lines", ".lock"):
            with contextlib.suppress(OSError):
                old.with_suffix(suffix).unlink()


_current: contextvars.ContextVar[Session | None] = contextvars.ContextVar("wuu_session", default=None)


def current_session() -> Session | None:
    """The session in force (set by :func:`use_session`), or None: no session, nothing remembered."""
    return _current.get()


@contextlib.contextmanager
def use_session(session: Session | None) -> Iterator[Session | None]:
    """Make ``session`` the current one inside the block; a stored session's new views are written at its end."""
    token = _current.set(session)
    try:
        yield session
    finally:
        _current.reset(token)
        if isinstance(session, StoredSession):
            session.commit()


def session_from_env(store_root: str | os.PathLike[str]) -> StoredSession | None:
    """The session ``WUU_SESSION`` names in the store at ``store_root``, or None when it is unset or empty."""
    name = os.environ.get("WUU_SESSION", "").strip()
    if not name:
        return None
    try:
        return StoredSession(store_root, name)
    except ValueError:
        return None
