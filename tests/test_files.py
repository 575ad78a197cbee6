"""read_file on real files: first views, ranges, long lines, encodings, odd paths."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from wuu_tools import InvalidArgument, NotAFile, SourceNotFound, read_file
from wuu_tools.core.budget import NOTICE_TOKENS, count_tokens

NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")


def body(text: str) -> dict[int, str]:
    """Line number -> text of every numbered line in a view."""
    return {int(m.group(1)): m.group(2) for line in text.split("\n") if (m := NUMBERED.match(line))}


def write(path: Path, lines: list[str], newline: str = "\n", final: bool = True) -> Path:
    path.write_bytes((newline.join(lines) + (newline if final else "")).encode())
    return path


def test_small_file_is_shown_whole_without_notices(tmp_path: Path) -> None:
    f = write(tmp_path / "a.py", ["import os", "", "print(os.sep)"])
    r = read_file(str(f))
    assert r.complete and r.continuation is None
    assert r.text == "1\timport os\n2\t\n3\tprint(os.sep)"
    assert r.meta["total_lines"] == 3 and r.meta["shown"] == [[1, 3]] and r.meta["omitted"] == []
    assert r.revision and r.source is None


def test_first_view_keeps_head_and_tail_and_names_the_middle(tmp_path: Path) -> None:
    f = write(tmp_path / "big.log", [f"line {i} of the log" for i in range(1, 5001)])
    r = read_file(str(f))
    assert not r.complete
    lines = body(r.text)
    assert 1 in lines and 5000 in lines
    ((gap_first, gap_last),) = r.meta["omitted"]
    assert f"lines {gap_first:,}-{gap_last:,} omitted" in r.text
    assert r.continuation == {
        "tool": "read_file",
        "args": {"path": str(f), "start_line": gap_first, "end_line": gap_last, "revision": r.revision},
    }
    # The omission line names the gap and the call that reads it; no header repeats the path or revision.
    gap = next(ln for ln in r.text.split("\n") if ln.startswith("[… lines"))
    assert "read_file(path=" in gap and f'revision="{r.revision}"' in gap
    assert r.text.startswith("1\tline 1 of the log") and r.text.count(r.revision) == 1
    assert r.tokens <= 2000
    assert r.tokens >= 0.7 * 2000


def test_range_and_end_line(tmp_path: Path) -> None:
    f = write(tmp_path / "f.txt", [f"row {i}" for i in range(1, 101)])
    r = read_file(str(f), start_line=10, end_line=12)
    assert body(r.text) == {10: "row 10", 11: "row 11", 12: "row 12"}
    assert r.complete and r.meta["shown"] == [[10, 12]]
    with pytest.raises(InvalidArgument, match="past the end"):
        read_file(str(f), start_line=101)
    with pytest.raises(InvalidArgument, match="before start_line"):
        read_file(str(f), start_line=5, end_line=4)
    with pytest.raises(InvalidArgument, match="start_line"):
        read_file(str(f), start_line=0)


def test_continuation_chain_reads_every_line_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [f"{i}: " + "word " * (i % 17) for i in range(1, 3001)]
    write(tmp_path / "chain.txt", lines)
    # The budget holds the notices, which name the path twice (header and next call): a short
    # relative path, so that the count of calls measures the paging and not the length of the
    # machine's temporary directory.
    monkeypatch.chdir(tmp_path)
    seen: dict[int, str] = {}
    r = read_file("chain.txt", budget=300)
    calls = 1
    while True:
        new = body(r.text)
        assert new and not (new.keys() & seen.keys())
        seen.update(new)
        if r.continuation is None:
            break
        assert r.tokens >= 0.7 * 300  # every view but the last fills its budget, notices included
        r = read_file(**r.continuation["args"])
        calls += 1
    assert seen == {i: line for i, line in enumerate(lines, 1)}
    total = count_tokens("\n".join(lines))
    # Each view's notices (header, next call) are now inside the budget, up to the allowance they
    # had above it: the lines fill 70% of the rest.
    assert calls <= total / (0.7 * (300 - NOTICE_TOKENS)) + 3


def test_giant_line_is_cut_and_continued_by_character(tmp_path: Path) -> None:
    line = "".join(f"v{i}=f({i});" for i in range(25000))  # ~ 250,000 characters, five times the 50 KiB cap
    f = write(tmp_path / "app.min.js", [line], final=False)
    r = read_file(str(f))
    assert r.meta["partial_line"] == 1 and r.tokens <= 2120
    pieces = [body(r.text)[1]]
    while r.continuation:
        assert r.continuation["args"]["start_char"] == sum(map(len, pieces))
        r = read_file(**r.continuation["args"])
        pieces.append(body(r.text)[1])
    assert "".join(pieces) == line


def test_long_line_in_the_middle_then_whole_lines_follow(tmp_path: Path) -> None:
    lines = ["short a", "x" * 30000, "short b", "short c"]
    f = write(tmp_path / "mixed.txt", lines)
    seen: dict[int, str] = {}
    r = read_file(str(f), budget=500)
    while True:
        for n, t in body(r.text).items():
            seen[n] = seen.get(n, "") + t
        if not r.continuation:
            break
        r = read_file(**r.continuation["args"])
    assert seen == dict(enumerate(lines, 1))


def test_crlf_and_missing_final_newline(tmp_path: Path) -> None:
    f = write(tmp_path / "w.txt", ["alpha", "beta", "gamma"], newline="\r\n", final=False)
    r = read_file(str(f))
    assert body(r.text) == {1: "alpha", 2: "beta", 3: "gamma"}
    assert r.meta["final_newline"] is False


def test_invalid_utf8_is_replaced_and_said(tmp_path: Path) -> None:
    f = tmp_path / "latin1.txt"
    f.write_bytes("caf\xe9\n".encode("latin-1") + b"plain\n")
    r = read_file(str(f))
    assert "invalid UTF-8 replaced" in r.text and "caf\ufffd" in r.text
    assert r.meta["invalid_utf8_replaced"] is True


def test_binary_file_is_described_not_dumped(tmp_path: Path) -> None:
    f = tmp_path / "pic.png"
    f.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    r = read_file(str(f))
    assert r.complete and "binary file, PNG image (image/png), 10.0 KiB" in r.text
    assert len(r.text) < 200 and r.meta["binary"] is True


def test_empty_file(tmp_path: Path) -> None:
    f = tmp_path / "empty"
    f.write_bytes(b"")
    r = read_file(str(f))
    assert r.complete and r.text == f"[{f}: empty (0 bytes)]" and r.meta["total_lines"] == 0


@pytest.mark.parametrize(
    ("target", "error", "message"),
    [
        ("dir", NotAFile, "is a directory"),
        ("missing", SourceNotFound, "no such file"),
        ("fifo", NotAFile, "FIFO"),
        ("/dev/zero", NotAFile, "character device"),
    ],
)
def test_things_that_are_not_readable_files(tmp_path: Path, target: str, error: type, message: str) -> None:
    if target == "dir":
        path = str(tmp_path)
    elif target == "missing":
        path = str(tmp_path / "nope.txt")
    elif target == "fifo":
        path = str(tmp_path / "pipe")
        os.mkfifo(path)
    else:
        path = target
    with pytest.raises(error, match=message):
        read_file(path)


def test_permission_denied_is_one_clear_line(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("running as root: file permissions do not deny reads")
    f = write(tmp_path / "secret", ["x"])
    f.chmod(0)
    from wuu_tools import AccessDenied

    with pytest.raises(AccessDenied, match="permission denied"):
        read_file(str(f))


def test_changed_file_is_reported_and_never_joined(tmp_path: Path) -> None:
    f = write(tmp_path / "c.txt", [f"old {i}" for i in range(2000)])
    first = read_file(str(f), budget=200)
    assert first.continuation
    write(f, [f"new {i}" for i in range(2000)])
    nxt = read_file(**first.continuation["args"])
    head = nxt.text.split("\n")[0]
    assert head.startswith("[changed:") and first.revision in head and nxt.revision in head
    assert nxt.revision != first.revision
    assert all(t.startswith("new") for t in body(nxt.text).values())
    assert nxt.meta["revision_changed"] == {"asked": first.revision, "now": nxt.revision}
    assert nxt.continuation is None or nxt.continuation["args"]["revision"] == nxt.revision


def test_same_content_same_projection(tmp_path: Path) -> None:
    f = write(tmp_path / "d.txt", [f"entry {i}" for i in range(4000)])
    a = read_file(str(f), budget=400)
    os.utime(f, ns=(1, 1))  # touched, not changed: content revision is stable
    b = read_file(str(f), budget=400)
    assert a.text == b.text and a.revision == b.revision


def test_budget_repeated_in_continuation_only_when_explicit(tmp_path: Path) -> None:
    f = write(tmp_path / "e.txt", [f"entry {i}" for i in range(4000)])
    assert "budget" not in read_file(str(f)).continuation["args"]  # type: ignore[index]
    assert read_file(str(f), budget=500).continuation["args"]["budget"] == 500  # type: ignore[index]


def test_env_budget_applies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = write(tmp_path / "f.txt", [f"entry number {i}" for i in range(4000)])
    monkeypatch.setenv("WUU_BUDGET", "300")
    assert read_file(str(f)).tokens <= 300


def test_huge_budget_still_obeys_the_hard_cap(tmp_path: Path) -> None:
    f = write(tmp_path / "g.txt", ["y" * 100 for _ in range(5000)])
    r = read_file(str(f), budget=500_000)
    assert len(r.text.encode()) <= 51200 and not r.complete


def test_large_file_index_is_cached_on_disk(tmp_path: Path, store_dir: Path) -> None:
    f = tmp_path / "large.log"
    with f.open("w") as fh:
        for i in range(400_000):
            fh.write(f"{i:08d} some ordinary log output\n")
    r = read_file(str(f))
    assert list((store_dir / "index").glob("*.idx"))
    import wuu_tools.core.lineindex as lines_mod

    lines_mod._memory.clear()  # a new process would start here: the disk index is used
    mid = read_file(str(f), start_line=300_000, end_line=300_002)
    assert body(mid.text) == {n: f"{n - 1:08d} some ordinary log output" for n in range(300_000, 300_003)}
    assert r.meta["total_lines"] == 400_000


def test_an_image_file_comes_as_an_attachment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import base64

    gif = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00"
    gif += b"\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
    (tmp_path / "dot.gif").write_bytes(gif)
    r = read_file(str(tmp_path / "dot.gif"))
    assert r.complete and "GIF image (image/gif)" in r.text and "in the result's attachments" in r.text
    assert r.attachments == ({"type": "image", "mime_type": "image/gif", "data": base64.b64encode(gif).decode()},)
    monkeypatch.setenv("WUU_MEDIA_MAX_BYTES", "10")
    big = read_file(str(tmp_path / "dot.gif"))
    assert big.attachments == () and "over WUU_MEDIA_MAX_BYTES, not attached" in big.text
    (tmp_path / "a.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    assert read_file(str(tmp_path / "a.zip")).attachments == ()
