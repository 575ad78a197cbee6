"""Saved results: a private, content-addressed store on disk.

Layout under the store root (``$WUU_STORE``, else ``$XDG_CACHE_HOME/wuu-tools``, else
``~/.cache/wuu-tools``)::

    objects/<kind>-<32 hex>            the saved bytes (0600), named by their SHA-256 digest (first 128 bits),
                                       or by a random 128-bit id when saved as a record (a command's log)
    objects/<kind>-<32 hex>.meta.json  optional facts about them (command, exit code, ...)
    tmp/                               writes in progress; renamed into objects/ when done
    index/                             caches (line indexes of large files, turn indexes of large transcripts)

Writes are atomic (temp file, then ``os.replace``), so concurrent writers never see or
leave a partial object, and saving the same bytes twice yields the same reference. A
*record* (``writer(kind, record=True)``) is named by a random id instead: a command's log is
the record of one run, whose sidecar holds that run's command and exit code, so two runs
that printed the same bytes keep two references (and their bytes are not hashed: SHA-256
measured ~0.75 ms of CPU per MiB here).
References are validated against one pattern before any path is built, so a crafted
reference cannot leave the store. A reference is handed out short, as git shortens hashes:
``KIND-`` and the first 8 hex digits (more where another object shares them; a record's random
id is drawn so that none does); any unique prefix of 8 digits or more, or the full 32, reads it.
The store has a size cap (``WUU_STORE_MAX_BYTES``, default 1 GiB) enforced after each save by
evicting the least recently saved objects.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from .env import env_int
from .errors import InvalidReference, SourceNotFound, StoreError, WuuError, quote

__all__ = ["Store", "StoreWriter", "current_store", "use_store"]

DEFAULT_MAX_BYTES = 1 << 30
_REF = re.compile(r"([a-z][a-z0-9]{0,15})-([0-9a-f]{8,32})")
SHORT_HEX = 8
"""Hex digits a reference is shown with (more where another object shares them), as git shortens hashes."""
_KIND = re.compile(r"^[a-z][a-z0-9]{0,15}$")


def _default_root() -> Path:
    env = os.environ.get("WUU_STORE")
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME")
    base = Path(cache).expanduser() if cache else Path.home() / ".cache"
    return base / "wuu-tools"


def _max_bytes_from_env() -> int:
    return env_int("WUU_STORE_MAX_BYTES", DEFAULT_MAX_BYTES, unit="bytes")


class Store:
    """A directory of saved results.

    Args:
        root: The store directory; defaults to ``$WUU_STORE`` or the user cache dir.
        max_bytes: Size cap of saved objects; defaults to ``$WUU_STORE_MAX_BYTES`` or 1 GiB.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, max_bytes: int | None = None) -> None:
        self.root = Path(root).expanduser() if root is not None else _default_root()
        self.max_bytes = _max_bytes_from_env() if max_bytes is None else max_bytes

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r}, max_bytes={self.max_bytes})"

    @property
    def objects(self) -> Path:
        return self.root / "objects"

    def _ensure(self, sub: str) -> Path:
        path = self.root / sub
        try:
            if not self.root.is_dir():
                self.root.parent.mkdir(parents=True, exist_ok=True)
                self.root.mkdir(mode=0o700, exist_ok=True)
            path.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the store at {self.root}: {exc.strerror or exc}") from exc
        return path

    # -- writing ---------------------------------------------------------------------------

    def index_path(self, name: str) -> Path:
        """The path of the cache file ``name`` in ``index/`` (it may not exist)."""
        return self.root / "index" / name

    def save_index(self, name: str, data: bytes | Sequence[Any], prefix: str = "idx-") -> None:
        """Write the cache file ``name`` in ``index/`` atomically; a cache that cannot be written is left out.

        ``data`` is the file's bytes, or its bytes-like pieces in order (written one by one, never joined in memory).
        """
        import tempfile  # only when an index is written (keeps a small read quick to start)

        path = self.index_path(name)
        with contextlib.suppress(OSError):
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix)
            with os.fdopen(fd, "wb") as fh:
                for piece in [data] if isinstance(data, bytes) else data:
                    fh.write(piece)
            os.replace(tmp, path)

    def writer(self, kind: str, *, record: bool = False) -> StoreWriter:
        """A streaming writer; the reference exists once it is closed (``with`` block ends).

        With ``record`` the reference is a random id, not the digest of the bytes.
        """
        if not _KIND.fullmatch(kind):
            raise InvalidReference(f"store kind {kind!r} must be 1-16 lowercase letters or digits")
        return StoreWriter(self, kind, record=record)

    def adopt(self, path: Path, kind: str, meta: dict[str, Any] | None = None) -> str:
        """Make a file already written in the store's ``tmp`` folder a record of ``kind``; its reference.

        The file is moved, not copied (a producer's output saved by a tee, :mod:`wuu_tools.commands.pipes`).
        """
        if not _KIND.fullmatch(kind):
            raise InvalidReference(f"store kind {kind!r} must be 1-16 lowercase letters or digits")
        if path.parent.resolve() != self._ensure("tmp").resolve():
            raise StoreError(f"{path} is not in the store's tmp folder {self.root / 'tmp'}")
        return self._commit(path, kind, _random_id(self, kind), dict(meta or {}))

    def save(self, data: bytes | str, kind: str, meta: dict[str, Any] | None = None) -> str:
        """Save ``data`` whole and return its reference (the same bytes give the same reference)."""
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        with self.writer(kind) as w:
            w.write(data)
            if meta:
                w.meta.update(meta)
        assert w.ref is not None
        return w.ref

    def _commit(self, tmp_path: Path, kind: str, digest: str, meta: dict[str, Any]) -> str:
        ref = f"{kind}-{digest}"
        objects = self._ensure("objects")
        target = objects / ref
        try:
            os.chmod(tmp_path, 0o600)
            # The facts first: whoever finds the object finds its meta beside it.
            if meta:
                self._write_meta(ref, meta)
            os.replace(tmp_path, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp_path.unlink()
            raise StoreError(f"cannot save to the store at {self.root}: {exc.strerror or exc}") from exc
        self.evict(keep=ref)
        return self.short(ref)

    def _write_meta(self, ref: str, meta: dict[str, Any]) -> None:
        import tempfile  # only when writing (keeps a read quick to start)

        data = json.dumps(meta, sort_keys=True).encode()  # ASCII: a command's undecodable byte stays an escape
        fd, tmp = tempfile.mkstemp(dir=self._ensure("tmp"), prefix="meta-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, self.objects / f"{ref}.meta.json")

    # -- reading ---------------------------------------------------------------------------

    @staticmethod
    def validate(ref: str) -> str:
        """Return ``ref`` if it is a well-formed reference; raise :class:`InvalidReference` otherwise."""
        if not isinstance(ref, str) or not _REF.fullmatch(ref):
            raise InvalidReference(
                f"{quote(ref)} is not a saved-result reference (expected KIND-<8 to 32 hex digits>, as given "
                "in a result's source or continuation)"
            )
        return ref

    def _named(self, prefix: str) -> list[str]:
        """The objects whose reference starts with ``prefix`` (a validated reference)."""
        try:
            with os.scandir(self.objects) as it:
                return [e.name for e in it if e.name.startswith(prefix) and not e.name.endswith(".meta.json")]
        except OSError:
            return []

    def short(self, ref: str) -> str:
        """The shortest form of the full reference ``ref`` (:data:`SHORT_HEX` digits or more) no other object shares."""
        kind, _, digest = self.validate(ref).partition("-")
        others = [n for n in self._named(f"{kind}-{digest[:SHORT_HEX]}") if n != ref]
        n = SHORT_HEX
        while n < len(digest) and any(o.startswith(f"{kind}-{digest[:n]}") for o in others):
            n += 1
        return f"{kind}-{digest[:n]}"

    def resolve(self, ref: str) -> str:
        """The full reference a short one names; raises when it names none (evicted) or several."""
        digest = self.validate(ref).partition("-")[2]
        if len(digest) == 32:
            return ref
        found = self._named(ref)
        if len(found) == 1:
            return found[0]
        if not found:
            raise SourceNotFound(
                f"saved result {ref} is not in the store at {self.root} (evicted, or saved elsewhere: check WUU_STORE)"
            )
        names = ", ".join(sorted(found)[:5])
        raise InvalidReference(f"{ref} names {len(found)} saved results ({names}); give more of its digits")

    def path(self, ref: str) -> Path:
        """The file holding ``ref``; raises if the reference is malformed or no longer saved."""
        target = self.objects / self.resolve(ref)
        if not target.is_file():
            raise SourceNotFound(
                f"saved result {ref} is not in the store at {self.root} (evicted, or saved elsewhere: check WUU_STORE)"
            )
        return target

    def meta(self, ref: str) -> dict[str, Any]:
        """The facts saved beside ``ref`` (empty when none were)."""
        try:
            path = self.objects / f"{self.resolve(ref)}.meta.json"
            return dict(json.loads(path.read_text()))
        except (OSError, ValueError, SourceNotFound):
            return {}

    def exists(self, ref: str) -> bool:
        try:
            self.path(ref)
        except WuuError:
            return False
        return True

    # -- size cap --------------------------------------------------------------------------

    def evict(self, keep: str | None = None) -> int:
        """Delete the least recently saved objects until the store is under its cap; returns bytes freed."""
        try:
            entries = []
            total = 0
            with os.scandir(self.objects) as it:
                for entry in it:
                    if entry.name.endswith(".meta.json"):
                        continue
                    try:
                        st = entry.stat()
                    except OSError:
                        continue
                    total += st.st_size
                    entries.append((st.st_mtime_ns, entry.name, st.st_size))
        except OSError:
            return 0
        if total <= self.max_bytes:
            return 0
        freed = 0
        for _, name, size in sorted(entries):
            if total - freed <= self.max_bytes:
                break
            if name == keep:
                continue
            for victim in (name, f"{name}.meta.json"):
                with contextlib.suppress(OSError):
                    os.unlink(self.objects / victim)
            freed += size
        return freed


def _random_id(store: Store, kind: str) -> str:
    """A random id whose short form no object in the store shares yet.

    Drawn from decimal digits (still hex, as every reference is): eight digits are three tokens whatever
    they are, where eight hex digits are three to nine, so the same output gets the same view on every
    run instead of one that moves a line at a cut's edge with the token count of its reference.
    """
    while True:
        digest = f"{int.from_bytes(os.urandom(14), 'big') % 10**32:032d}"
        if not store._named(f"{kind}-{digest[:SHORT_HEX]}"):
            return digest


class StoreWriter:
    """Streams bytes into a temp file, hashing as it goes; ``close()`` names it by its digest.

    A ``record`` writer hashes nothing and is named by a random id.
    """

    def __init__(self, store: Store, kind: str, *, record: bool = False) -> None:
        self.store = store
        self.kind = kind
        self.ref: str | None = None
        self.meta: dict[str, Any] = {}
        self.size = 0
        # SHA-NI makes SHA-256 ~3x faster than BLAKE2b here.
        self._hash: Any = None if record else hashlib.sha256()
        tmpdir = store._ensure("tmp")
        import tempfile  # only when writing (keeps a read quick to start)

        try:
            fd, name = tempfile.mkstemp(dir=tmpdir, prefix=f"{kind}-")
        except OSError as exc:
            raise StoreError(f"cannot write to the store at {store.root}: {exc.strerror or exc}") from exc
        self._path = Path(name)
        # Writes bigger than the buffer go straight to the file, not copied through it.
        self._fh: BinaryIO = os.fdopen(fd, "wb", buffering=64 << 10)

    def write(self, data: bytes) -> None:
        """Append ``data``; raises :class:`StoreError` when the disk refuses it."""
        try:
            self._fh.write(data)
        except OSError as exc:
            self.abort()
            raise StoreError(f"cannot write to the store at {self.store.root}: {exc.strerror or exc}") from exc
        if self._hash is not None:
            self._hash.update(data)
        self.size += len(data)

    def close(self) -> str:
        """Finish the object and return its reference."""
        if self.ref is not None:
            return self.ref
        try:
            self._fh.close()
        except OSError as exc:
            self.abort()
            raise StoreError(f"cannot write to the store at {self.store.root}: {exc.strerror or exc}") from exc
        digest = self._hash.hexdigest()[:32] if self._hash is not None else _random_id(self.store, self.kind)
        self.ref = self.store._commit(self._path, self.kind, digest, self.meta)
        return self.ref

    def abort(self) -> None:
        """Drop the partial object."""
        with contextlib.suppress(OSError):
            self._fh.close()
        with contextlib.suppress(OSError):
            self._path.unlink()

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


_current: contextvars.ContextVar[Store | None] = contextvars.ContextVar("wuu_store", default=None)


def current_store() -> Store:
    """The store in force: the one set by :func:`use_store` (a ``Toolset``), else the default."""
    store = _current.get()
    return store if store is not None else Store()


@contextlib.contextmanager
def use_store(store: Store | None) -> Iterator[None]:
    """Make ``store`` the current store inside the ``with`` block (None keeps the current one)."""
    if store is None:
        yield
        return
    token = _current.set(store)
    try:
        yield
    finally:
        _current.reset(token)
