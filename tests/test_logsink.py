"""LogSink: a capped, line-counted saved log with its stderr lines and a primed line index."""

from __future__ import annotations

import os
import random

from wuu_tools.commands.sink import PENDING_MAX, LogSink
from wuu_tools.core import lineindex
from wuu_tools.core.store import Store
from wuu_tools.files.saved import read_saved


def _sink(max_bytes: int, chunks: list[tuple[int, bytes]]) -> tuple[LogSink, str | None]:
    sink = LogSink(Store(), max_bytes)
    for stream, data in chunks:
        sink.feed(stream, data)
    return sink, sink.finish({"command": "test"})


def test_lines_and_stderr_ranges_are_recorded() -> None:
    sink, ref = _sink(1 << 20, [(1, b"a\nb\n"), (2, b"oops\n"), (1, b"c\n"), (2, b"x\ny\n")])
    assert ref is not None
    assert Store().path(ref).read_bytes() == b"a\nb\noops\nc\nx\ny\n"
    assert sink.stderr == [[3, 3], [5, 6]] and sink.saved_lines == 6
    assert Store().meta(ref)["stderr_lines"] == [[3, 3], [5, 6]]


def test_partial_lines_are_not_interleaved() -> None:
    sink, ref = _sink(1 << 20, [(1, b"progress 50%"), (2, b"warning\n"), (1, b" done\n")])
    assert ref is not None
    assert Store().path(ref).read_bytes() == b"warning\nprogress 50% done\n"
    assert sink.stderr == [[1, 1]]


def test_the_middle_is_dropped_beyond_the_cap_and_stderr_lines_follow_the_tail() -> None:
    chunks = [(1, f"line {i}\n".encode()) for i in range(1, 20_001)] + [(2, b"the error\n"), (1, b"last\n")]
    sink, ref = _sink(32 << 10, chunks)
    assert ref is not None
    raw = Store().path(ref).read_bytes()
    lines = raw.split(b"\n")[:-1]
    assert len(raw) <= 32 << 10 and sink.dropped_bytes > 0
    assert lines[0] == b"line 1" and lines[-2:] == [b"the error", b"last"]
    drop = next(i for i, s in enumerate(lines) if s.startswith(b"[wuu: "))
    assert b"of output dropped here" in lines[drop] and lines[drop + 1].startswith(b"line ")
    assert sink.stderr == [[len(lines) - 1, len(lines) - 1]]
    assert sink.saved_lines == len(lines)


def test_a_big_log_hands_on_a_correct_line_index() -> None:
    data = b"".join(f"{i}\n".encode() for i in range(1, 1_500_001))
    _, ref = _sink(512 << 20, [(1, data[i : i + 999_983]) for i in range(0, len(data), 999_983)])
    assert ref is not None
    path = Store().path(ref)
    st = os.stat(path)
    primed = lineindex._memory[lineindex.key_of(st)]
    with open(path, "rb") as fh:
        built = lineindex._build(fh, st)
    assert (primed.size, primed.newlines, primed.final_newline, primed.revision) == (
        built.size,
        built.newlines,
        built.final_newline,
        built.revision,
    )
    assert list(primed.marks) == list(built.marks)
    assert read_saved(ref, start_line=1_234_567, end_line=1_234_567).text.split("\n")[1].endswith("\t1234567")


def test_a_failing_store_keeps_the_head_in_memory(tmp_path) -> None:  # type: ignore[no-untyped-def]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    sink = LogSink(Store(blocker / "store"), 1 << 20)
    sink.feed(1, b"kept\n" * 20_000)
    assert sink.finish({}) is None
    assert sink.error is not None and bytes(sink.memory).startswith(b"kept\nkept\n")
    assert sink.size == 100_000


def test_the_kept_tail_is_the_streams_last_bytes_whatever_the_read_sizes() -> None:
    # Ring-bound reads are gathered and written in batches that wrap around the ring; the saved
    # log must still be a prefix of the output, the drop line, then the output's last whole lines.
    rng = random.Random(7)
    for max_bytes, pieces in ((16 << 10, 3000), (64 << 10, 1500), (4 << 20, 400)):
        stream = b"".join(f"line {i} {'x' * rng.randrange(0, 300)}\n".encode() for i in range(40_000))
        sink = LogSink(Store(), max_bytes)
        at = 0
        while at < len(stream):
            size = rng.choice([1, 7, 100, 4096, 65_536, 300_000]) if pieces else len(stream)
            sink.feed(1, stream[at : at + size])
            at += size
            pieces -= 1
        ref = sink.finish({})
        assert ref is not None
        raw = Store().path(ref).read_bytes()
        head, drop, tail = raw.partition(b"\n[wuu: ")
        drop, _, tail = tail.partition(b"\n")
        assert b"of output dropped here" in drop and stream.startswith(head + b"\n")
        assert stream.endswith(tail) and stream[len(stream) - len(tail) - 1] == ord("\n")
        assert 0 < len(tail) <= sink.ring_cap and len(raw) <= max_bytes
        assert sink.saved_lines == raw.count(b"\n") and sink.dropped_bytes == len(stream) - len(head) - 1 - len(tail)


def test_a_line_left_open_by_a_splice_is_closed_before_the_other_streams_lines() -> None:
    # Beyond the head, output moves from the pipe into the ring unread (splice), so a spliced
    # piece may end mid-line; stderr's lines then wait until stdout's line is read to its end.
    sink = LogSink(Store(), 64 << 10)
    sink.feed(1, b"".join(f"head line {i}\n".encode() for i in range(6000)))
    assert sink.ring is not None
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        os.write(out_w, b"a stdout li")
        assert sink.splice(1, out_r) == len(b"a stdout li")
        os.write(err_w, b"an error line\n")
        assert sink.splice(2, err_r) == -1  # stdout's line is open: stderr is read and held
        sink.feed(2, os.read(err_r, 1 << 16))
        os.write(out_w, b"ne goes on\nnext stdout line\n")
        assert sink.splice(1, out_r) == -1  # stderr waits: stdout is read to find its line's end
        sink.feed(1, os.read(out_r, 1 << 16))
        assert sink.open is None and not sink.held
        os.write(out_w, b"last line\n")
        assert sink.splice(1, out_r) > 0
        os.close(out_w)
        assert sink.splice(1, out_r) == 0
    finally:
        for fd in (out_r, err_r, err_w):
            os.close(fd)
    ref = sink.finish({})
    assert ref is not None
    lines = Store().path(ref).read_bytes().split(b"\n")[:-1]
    assert lines[-4:] == [b"a stdout line goes on", b"an error line", b"next stdout line", b"last line"]
    assert sink.stderr == [[len(lines) - 2, len(lines) - 2]] and sink.saved_lines == len(lines)


def _open_line_past_the_head(text: bytes) -> tuple[LogSink, int, int]:
    """A sink with a full head (and a 128 KiB ring), ``text`` spliced into it from a new stdout pipe."""
    sink = LogSink(Store(), 1 << 20)
    sink.feed(1, b"x\n" * 460_000)
    assert sink.ring is not None
    out_r, out_w = os.pipe()
    os.write(out_w, text)
    assert sink.splice(1, out_r) == len(text) and sink.open == 1
    return sink, out_r, out_w


def _saved(sink: LogSink) -> bytes:
    ref = sink.finish({})
    assert ref is not None
    return Store().path(ref).read_bytes()


def test_a_stream_that_never_ends_its_line_lets_the_other_through_after_a_while() -> None:
    sink, out_r, out_w = _open_line_past_the_head(b"progress 10%")
    for i in range(PENDING_MAX // 10 + 1):  # more stderr than is held back for an open line
        sink.feed(2, f"err {i:05}\n".encode())
    assert sink.open is None and not sink.held
    os.close(out_r)
    os.close(out_w)
    raw = _saved(sink)
    assert b"progress 10%err 00000\n" in raw and raw.endswith(f"err {PENDING_MAX // 10:05}\n".encode())


def test_the_other_streams_lines_go_on_once_the_stream_with_an_open_line_closes() -> None:
    sink, out_r, out_w = _open_line_past_the_head(b"no newline at the end")
    sink.feed(2, b"held back\n")
    assert sink.held
    sink.ended(1)  # stdout closed mid-line
    assert not sink.held and sink.open is None
    sink.feed(2, b"and this goes straight on\n")
    os.close(out_r)
    os.close(out_w)
    assert _saved(sink).endswith(b"no newline at the endheld back\nand this goes straight on\n")
