"""A pattern no engine should hang on, sent through the Python API, the CLI and ``wuu mcp serve``.

``HANG`` is two patterns in one: ``(a+)+c`` backtracks catastrophically on a line of ``a``s
(Python's ``re`` would take ~2^38 steps on the first line of the log), and ``[ab]*a[ab]{20}x``
has more DFA states than RE2 keeps, so RE2 searches the log on its slower NFA path (a few MB/s):
the search is linear, but lasts a few seconds, long enough to send other calls, a cancel, an
end of input or a signal while it runs. The server must answer or end the work within 1 s of each.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from _faults import Marked, RawMCP, wuu_argv

HANG = "(a+)+c|[ab]*a[ab]{20}x"
LOG_BYTES = 12 << 20
PROMPT_S = 1.0
"""How soon the server must answer, or end the work, after each request (the issue's target)."""
SLACK_S = 1.0
"""Added to PROMPT_S where a test times a whole process (its start, a busy shared CI machine)."""


def _slow_log(tree: Marked, tmp: Path, size: int = LOG_BYTES) -> str:
    """Save a log of ``size`` bytes (a line of 38 ``a``s and a ``b``, then random lines of ``a`` and ``b``); its ref."""
    noise = bytes(b"ab"[x & 1] for x in os.urandom(size))
    lines = b"\n".join(noise[i : i + 60] for i in range(0, len(noise), 60))
    path = tmp / "slow.log"
    path.write_bytes(b"a" * 38 + b"b\n" + lines + b"\n")
    done = subprocess.run(wuu_argv("run", "--json", "--", "cat", str(path)), env=tree.env, capture_output=True)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["source"])


def _server_cpu(tree: Marked) -> float:
    """CPU seconds used so far by the marked ``wuu mcp serve`` process."""
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmd = " ".join(proc.info["cmdline"] or [])
            if "mcp serve" in cmd and proc.environ().get("WUU_FAULT_MARK") == tree.mark:
                times = proc.cpu_times()
                return float(times.user + times.system)
        except psutil.Error:
            continue
    raise AssertionError("the server process is not running")


def test_the_python_api_and_the_cli_return_on_a_backtracking_pattern(tree: Marked, tmp_path: Path) -> None:
    ref = _slow_log(tree, tmp_path, 2 << 20)  # the backtracking line is the first: 2 MB is enough to return on
    code = (
        "import sys, time\nfrom wuu_tools import read_saved\n"
        "t = time.monotonic(); r = read_saved(sys.argv[1], pattern=sys.argv[2])\n"
        "print(r.meta['matches'], round(time.monotonic() - t, 2))"
    )
    api = tree.popen([sys.executable, "-c", code, ref, HANG], text=True)
    out, err = api.communicate(timeout=90)  # Python's re: ~2^38 steps on the first line
    assert api.returncode == 0, err
    assert out.split()[0] == "0"
    cli = tree.popen(wuu_argv("saved", ref, "--pattern", HANG), text=True)
    out, err = cli.communicate(timeout=90)
    assert cli.returncode == 1, err  # as grep: no line matched
    assert "0 matching lines" in out


def test_unsupported_constructs_are_named(tree: Marked, tmp_path: Path) -> None:
    ref = _slow_log(tree, tmp_path, 1 << 16)
    for pattern, named in ((r"(a)\1", "backreference"), ("a(?=b)", "lookahead"), ("(?<!a)b", "lookbehind")):
        done = subprocess.run(wuu_argv("saved", ref, "-p", pattern), env=tree.env, capture_output=True, text=True)
        assert done.returncode == 2 and named in done.stderr, done.stderr


def test_other_calls_and_a_cancel_are_answered_while_a_search_runs(tree: Marked, tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")
    import anyio
    from mcp import Client, StdioServerParameters

    ref = _slow_log(tree, tmp_path)
    (tmp_path / "small.txt").write_text("one\ntwo\n")
    argv = wuu_argv("mcp", "serve", "--root", str(tmp_path))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=tree.env)
    timings: dict[str, Any] = {}

    async def body() -> None:
        async with Client(params) as client:
            async with anyio.create_task_group() as tg:

                async def search() -> None:
                    started = time.monotonic()
                    result = await client.call_tool("read_saved", {"ref": ref, "pattern": HANG})
                    timings["search"] = time.monotonic() - started
                    timings["search_text"] = result.content[0].text

                tg.start_soon(search)
                await anyio.sleep(0.3)
                for tool, args in (("list_dir", {"path": "."}), ("read_file", {"path": "small.txt"})):
                    started = time.monotonic()
                    with anyio.fail_after(10):  # was: no answer while the search ran
                        answer = await client.call_tool(tool, args)
                    timings[tool] = time.monotonic() - started
                    assert not answer.is_error, answer.content[0].text
                timings["search_running"] = "search" not in timings
            # A cancel, sent by the SDK when the caller gives up on the call.
            with anyio.move_on_after(0.5) as scope:
                await client.call_tool("read_saved", {"ref": ref, "pattern": HANG})
            assert scope.cancelled_caught
            cancelled = time.monotonic()
            before = _server_cpu(tree)
            await anyio.sleep(PROMPT_S)
            await anyio.sleep(0.5)
            timings["cpu_after_cancel"] = _server_cpu(tree) - before
            with anyio.fail_after(10):
                answer = await client.call_tool("read_file", {"path": "small.txt"})
            timings["after_cancel"] = time.monotonic() - cancelled
            assert "two" in answer.content[0].text

    anyio.run(body)
    print(timings)
    assert timings["list_dir"] < PROMPT_S and timings["read_file"] < PROMPT_S, timings
    assert "0 matching lines" in timings["search_text"]
    # The work of the cancelled search ended: the server idles (RE2's NFA would take seconds more).
    assert timings["cpu_after_cancel"] < 0.3, timings


def test_end_of_input_during_a_search_ends_the_server_at_once(tree: Marked, tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")
    ref = _slow_log(tree, tmp_path)
    server = RawMCP(tree)
    server.call(2, "read_saved", {"ref": ref, "pattern": HANG})
    time.sleep(0.5)
    assert server.proc.poll() is None
    started = time.monotonic()
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.proc.wait(timeout=30) == 0  # was: ran on; only SIGKILL ended it
    print(f"exited {time.monotonic() - started:.2f} s after the end of input")
    assert time.monotonic() - started < PROMPT_S + SLACK_S
    tree.assert_none_left(settle=0.5)


def test_sigterm_during_a_search_answers_it_and_ends_the_server(tree: Marked, tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")
    ref = _slow_log(tree, tmp_path)
    server = RawMCP(tree)
    server.call(2, "read_saved", {"ref": ref, "pattern": HANG})
    time.sleep(0.5)
    started = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    answer = server.recv(timeout=30)  # was: ignored
    assert answer["id"] == 2 and "stopped by SIGTERM" in answer["result"]["content"][0]["text"]
    assert server.proc.wait(timeout=30) == 128 + signal.SIGTERM
    print(f"answered and exited {time.monotonic() - started:.2f} s after SIGTERM")
    assert time.monotonic() - started < PROMPT_S + SLACK_S
    tree.assert_none_left(settle=0.5)
