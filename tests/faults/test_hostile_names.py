"""Names no tool may choke on, from ``list_dir`` back into ``read_file``: the Python API, the CLI and MCP.

Each name is shown escaped and unambiguously, and the path a ``list_dir`` view shows, passed
back as it is shown, reads that very file through every face.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from _faults import Marked, wuu_argv

from wuu_tools import Toolset, WuuError, list_dir, read_conversation, read_file

NAMES: dict[bytes, bytes] = {
    b"a\xff": b"undecodable\n",
    b"new\nline": b"newline\n",
    b"tab\there": b"tab\n",
    b"esc\x1b[31mred\x1b]0;title\x07": b"escape\n",
    b"-rf": b"dash\n",
    b"c1\xc2\x9bx": b"c1\n",
    b" lead and trail ": b"spaces\n",
    b'"quoted"': b"quoted\n",
    b"plain.txt": b"plain\n",
}
"""File name (bytes, as on disk) -> its content, which says which file was read."""


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    root = tmp_path / "names"
    root.mkdir()
    for name, content in NAMES.items():
        with open(os.path.join(os.fsencode(root), name), "wb") as fh:
            fh.write(content)
    sub = root / "sub"
    sub.mkdir()
    with open(os.path.join(os.fsencode(sub), b"b\xfe\nz"), "wb") as fh:
        fh.write(b"nested\n")
    return root


def _shown_paths(text: str) -> list[str]:
    """The paths of a listing's entry lines, exactly as the view shows them (quotes and all)."""
    out = []
    for line in text.split("\n")[1:]:
        if not line or line.startswith(("[", "…")) or line.endswith("/  (1 entry)"):
            continue
        if line.startswith('"'):
            _, end = json.JSONDecoder().raw_decode(line)
            out.append(line[:end])
        else:
            out.append(line.split("  (", 1)[0])
    return out


def _expected() -> set[bytes]:
    return {*NAMES.values(), b"nested\n"}


def _check_listing(text: str) -> list[str]:
    shown = _shown_paths(text)
    assert len(shown) == len(NAMES) + 1, text
    assert len(set(shown)) == len(shown)  # unambiguous
    for path in shown:
        assert path.isprintable(), path  # no control character, no lone surrogate
        path.encode("utf-8")
        assert not path.startswith("-"), path  # no command line takes it for an option
    return shown


def test_the_python_api_round_trips_every_name(hostile_dir: Path, store_dir: Path) -> None:
    tools = Toolset(root=hostile_dir)
    listing = tools.call("list_dir", {"path": "."})
    assert "error" not in listing.meta, listing.text
    read = set()
    for path in _check_listing(listing.text):
        result = tools.call("read_file", {"path": path})  # was: UnicodeEncodeError raised by call
        assert "error" not in result.meta, (path, result.text)
        read.add(result.text.split("\t", 1)[1].encode() + b"\n")
        json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")  # the envelope encodes
    assert read == _expected()
    direct = list_dir(str(hostile_dir))
    for path in _check_listing(direct.text):
        assert read_file(os.path.join(str(hostile_dir), path)).text.split("\t", 1)[1] + "\n" in {
            c.decode() for c in _expected()
        }


def test_a_file_read_by_its_real_name_names_itself_escaped(hostile_dir: Path, store_dir: Path) -> None:
    tools = Toolset(root=hostile_dir, budget=300)
    big = os.path.join(os.fsencode(hostile_dir), b"long\xff\x1b]0;x\x07.txt")
    with open(big, "wb") as fh:
        fh.write(b"".join(b"line %d of a file with a hostile name\n" % n for n in range(400)))
    first = tools.call("read_file", {"path": os.fsdecode(big)})
    assert "error" not in first.meta, first.text
    assert "\x1b" not in first.text and "\udcff" not in first.text and "\x07" not in first.text
    omission = next(line for line in first.text.split("\n") if line.startswith("[… lines "))
    # the call names the file by its quoted form (JSON cannot carry the byte 0xff), escaped once more as a JSON string
    assert 'read_file(path="\\"' in omission and "long\\\\udcff\\\\u001b]0;x\\\\u0007.txt" in omission, omission
    assert first.continuation is not None
    json.dumps(first.continuation).encode("utf-8")
    more = tools.call(first.continuation["tool"], first.continuation["args"])
    assert "error" not in more.meta, more.text
    assert "line 10 of" in more.text, more.text


def test_the_cli_round_trips_every_name(hostile_dir: Path, tree: Marked) -> None:
    done = subprocess.run(wuu_argv("ls", "."), env=tree.env, cwd=hostile_dir, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    read = set()
    for path in _check_listing(done.stdout.decode()):
        shown = subprocess.run(wuu_argv("read", path), env=tree.env, cwd=hostile_dir, capture_output=True, timeout=60)
        assert shown.returncode == 0, (path, shown.stderr)  # was: a UnicodeEncodeError traceback
        read.add(shown.stdout.split(b"\t", 1)[1])
    assert read == _expected()


def test_mcp_round_trips_every_name(hostile_dir: Path, tree: Marked) -> None:
    pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")
    from _mcp_client import run_client
    from mcp import Client, StdioServerParameters

    argv = wuu_argv("mcp", "serve", "--root", str(hostile_dir))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=tree.env)

    async def body(client: Client) -> set[bytes]:
        listing = await client.call_tool("list_dir", {"path": "."})
        assert not listing.is_error, listing.content[0].text
        read = set()
        for path in _check_listing(listing.content[0].text):
            result = await client.call_tool("read_file", {"path": path})  # was: the server refused it
            assert not result.is_error, (path, result.content[0].text)
            read.add(result.content[0].text.split("\t", 1)[1].encode() + b"\n")
        return read

    assert run_client(params, body) == _expected()


def test_a_transcript_with_a_non_utf8_name_reads_on_from_its_continuation(tmp_path: Path, store_dir: Path) -> None:
    name = os.path.join(os.fsencode(tmp_path), b"chat\xff\x1b[2J.jsonl")
    turns = [{"role": role, "content": f"message {i} " * 40} for i, role in enumerate(["user", "assistant"] * 40)]
    with open(name, "w") as fh:
        fh.write("\n".join(json.dumps(t) for t in turns))
    first = read_conversation(os.fsdecode(name), budget=400)
    assert first.continuation is not None
    args = first.continuation["args"]
    assert args["path"].startswith('"') and "\\udcff" in args["path"]  # quoted: JSON cannot carry the byte 0xff
    json.dumps(first.continuation, ensure_ascii=False).encode("utf-8")  # and so the continuation encodes
    more = read_conversation(**args)
    assert "turns before 80" in more.text and "message 77" in more.text, more.text[:300]
    with pytest.raises(WuuError) as missing:
        read_conversation(os.fsdecode(name) + "-missing")
    assert "\\udcff" in str(missing.value) and "\x1b" not in str(missing.value)
