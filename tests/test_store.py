"""The saved-result store: references, atomic private writes, eviction, concurrency, failures."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from wuu_tools import InvalidReference, SourceNotFound, Store, StoreError


def test_save_is_content_addressed_and_private(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    ref = store.save(b"hello\n", "log", meta={"command": "echo hello"})
    assert ref.startswith("log-") and len(ref) == 4 + 8  # handed out short, as git shortens hashes
    assert store.save("hello\n", "log") == ref  # same bytes, same reference
    path = store.path(ref)
    assert path.read_bytes() == b"hello\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "s").stat().st_mode) == 0o700
    assert store.meta(ref) == {"command": "echo hello"}
    assert list((tmp_path / "s" / "tmp").iterdir()) == []  # no partial files left behind


@pytest.mark.parametrize(
    "ref",
    [
        "../../etc/passwd",
        "log-../../x",
        "log-" + "0" * 7,
        "log-" + "0" * 33,
        "log-" + "0" * 32 + "\n",
        "LOG-" + "0" * 32,
        "",
        "log-" + "g" * 32,
        "/etc/passwd",
    ],
)
def test_crafted_references_are_refused(tmp_path: Path, ref: str) -> None:
    with pytest.raises(InvalidReference, match="not a saved-result reference"):
        Store(tmp_path).path(ref)


def test_missing_reference_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFound, match="not in the store"):
        Store(tmp_path).path("log-" + "0" * 32)


def test_streaming_writer_names_by_digest(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.writer("log") as w:
        for i in range(1000):
            w.write(f"line {i}\n".encode())
    assert w.ref is not None
    assert store.path(w.ref).read_text().count("\n") == 1000
    assert w.ref == store.save("".join(f"line {i}\n" for i in range(1000)), "log")


def test_writer_abort_leaves_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with pytest.raises(RuntimeError), store.writer("log") as w:
        w.write(b"partial")
        raise RuntimeError("boom")
    assert not (tmp_path / "objects").exists() or list((tmp_path / "objects").iterdir()) == []
    assert list((tmp_path / "tmp").iterdir()) == []


def test_eviction_removes_oldest_first(tmp_path: Path) -> None:
    store = Store(tmp_path, max_bytes=2500)
    refs = []
    for i in range(5):
        refs.append(store.save(bytes([65 + i]) * 1000, "blob"))
        os.utime(store.path(refs[-1]), ns=(i * 10**9, i * 10**9))
    store.evict()
    alive = [r for r in refs if store.exists(r)]
    assert alive == refs[-2:]


def test_eviction_never_drops_the_object_just_saved(tmp_path: Path) -> None:
    store = Store(tmp_path, max_bytes=10)
    ref = store.save(b"x" * 1000, "blob")
    assert store.exists(ref)


def test_max_bytes_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WUU_STORE_MAX_BYTES", "1234")
    assert Store(tmp_path).max_bytes == 1234


def test_unusable_store_raises_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = Store(blocker / "store")  # below a regular file: cannot be created, even as root
    with pytest.raises(StoreError, match="cannot create the store"):
        store.save(b"data", "log")


_WRITER = """
import sys
from wuu_tools import Store
store = Store(sys.argv[1])
refs = [store.save(f"{sys.argv[2]}:{i}\\n".encode() * 200, "log") for i in range(50)]
print("\\n".join(refs))
"""


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), str(w)], stdout=subprocess.PIPE, text=True)
        for w in range(6)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    store = Store(tmp_path)
    refs = [r for out in outputs for r in out.split()]
    assert len(set(refs)) == 300
    for w, out in enumerate(outputs):
        for i, ref in enumerate(out.split()):
            assert store.path(ref).read_bytes() == f"{w}:{i}\n".encode() * 200


def test_short_references_resolve_like_git_hashes(tmp_path: Path) -> None:
    store = Store(tmp_path)
    ref = store.save(b"alpha\n", "result")
    full = next(p.name for p in (tmp_path / "objects").iterdir() if not p.name.endswith(".meta.json"))
    assert full.startswith(ref) and len(full) == len("result-") + 32
    for given in (ref, full, full[:-5]):  # the short form, the full one, any unique prefix of 8+ digits
        assert store.path(given).read_bytes() == b"alpha\n"
    # A second object sharing the first 8 digits: the new one is handed out longer, the shared prefix is ambiguous.
    twin = tmp_path / "objects" / (full[: len("result-") + 8] + "f" * 24)
    if twin.name == full:
        twin = tmp_path / "objects" / (full[: len("result-") + 8] + "e" * 24)
    twin.write_bytes(b"beta\n")
    assert store.short(twin.name) == twin.name[: len("result-") + 9] or len(store.short(twin.name)) > len(ref)
    with pytest.raises(InvalidReference, match="names 2 saved results"):
        store.path(ref)
    assert store.path(full).read_bytes() == b"alpha\n"
    assert store.path(store.short(full)).read_bytes() == b"alpha\n"


def test_a_records_short_reference_is_unique_when_it_is_handed_out(tmp_path: Path) -> None:
    store = Store(tmp_path)
    refs = set()
    for i in range(200):
        with store.writer("log", record=True) as w:
            w.write(f"run {i}\n".encode())
        assert w.ref is not None
        refs.add(w.ref)
        assert store.path(w.ref).read_bytes() == f"run {i}\n".encode()
    assert len(refs) == 200 and all(len(r) == len("log-") + 8 for r in refs)


def test_a_records_reference_costs_the_same_tokens_whatever_is_drawn(tmp_path: Path) -> None:
    """A command's log is named by a random id; its short form costs the same tokens on every draw.

    Otherwise the same output is cut one line apart from one run to the next (where the reference
    is counted against the budget).
    """
    from wuu_tools.core.budget import count_tokens

    store = Store(tmp_path / "s")
    costs = set()
    for _ in range(300):
        w = store.writer("log", record=True)
        w.write(b"x\n")
        ref = store.short(w.close())
        assert ref.startswith("log-") and ref[4:].isdigit() and len(ref) == 12, ref
        for shown in (f'read_saved(ref="{ref}", start_line=2)', f"wuu saved {ref} --start-line 2", f"[saved {ref} ·"):
            costs.add((shown.split(ref)[0], count_tokens(shown)))
    assert len(costs) == 3, costs  # one cost per context
