"""``wuu mcp serve`` stopped by its client: a cancelled call, a closed stdin, a signal, a kill.

Each running command's whole tree is ended and its log kept; a cancelled request gets no
answer (MCP: the receiver SHOULD NOT respond) and the server goes on serving.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")

import anyio
from _faults import Marked, RawMCP, saved_logs, wait_for, wuu_argv
from mcp import Client, StdioServerParameters

TREE = "echo started; echo to-stderr >&2; setsid sleep 321 & sleep 322"


def _log(store: Path) -> tuple[bytes, dict[str, Any]]:
    (log,) = saved_logs(store)
    return log.read_bytes(), json.loads(log.with_name(log.name + ".meta.json").read_text())


def test_a_cancelled_call_from_a_real_client_ends_the_tree_and_the_server_goes_on(tree: Marked) -> None:
    argv = wuu_argv("mcp", "serve", "--root", str(tree.store.parent))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=tree.env)

    async def body() -> tuple[bool, str]:
        async with Client(params) as client:
            with anyio.move_on_after(60) as scope:  # cancelled below, once the tree runs
                async with anyio.create_task_group() as tg:
                    tg.start_soon(client.call_tool, "run_command", {"command": TREE})
                    await wait_for_async(lambda: tree.count("sleep") == 2)
                    tg.cancel_scope.cancel()  # the SDK sends notifications/cancelled for the call
            assert not scope.cancelled_caught
            await wait_for_async(lambda: not tree.count("sleep"))
            after = await client.call_tool("run_command", {"command": "echo still serving"})
            return after.is_error, after.content[0].text

    is_error, text = anyio.run(body)
    assert not is_error and "still serving" in text
    tree.assert_none_left()
    logs = wait_for(lambda: len(saved_logs(tree.store)) == 2 and saved_logs(tree.store), what="both logs saved")
    cancelled = [p for p in logs if b"started" in p.read_bytes()]
    assert len(cancelled) == 1 and cancelled[0].read_bytes() == b"started\nto-stderr\n"
    meta = json.loads(cancelled[0].with_name(cancelled[0].name + ".meta.json").read_text())
    assert meta["cancelled"] == "the MCP client (notifications/cancelled)"


async def wait_for_async(predicate: Any, timeout: float = 15.0) -> None:
    with anyio.fail_after(timeout):
        while not predicate():
            await anyio.sleep(0.02)


def test_a_cancelled_request_gets_no_answer_and_the_next_one_does(tree: Marked) -> None:
    server = RawMCP(tree)
    server.call(2, "run_command", {"command": TREE})
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    server.cancel(2)
    wait_for(lambda: tree.count("sleep") == 0, what="the tree ended")
    server.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    answer = server.recv()
    assert answer["id"] == 3 and answer["result"]["tools"]  # nothing came for request 2
    wait_for(lambda: saved_logs(tree.store), what="the cancelled command's log saved")
    data, meta = _log(tree.store)
    assert data == b"started\nto-stderr\n" and meta["cancelled"].startswith("the MCP client")
    assert server.close() == 0
    tree.assert_none_left(settle=0.5)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"this is not json", -32700),
        (b'{"jsonrpc": "2.0", "id": 5, "method": ', -32700),
        (b"\xff\xfe{not utf-8}", -32700),
        (b"x" * 1_000_000, -32700),
        (b'{"foo": 1}', -32600),
        (b"[1, 2, 3]", -32600),
    ],
    ids=["text", "cut-json", "bad-utf8", "1MB", "not-jsonrpc", "array"],
)
def test_a_malformed_line_gets_a_jsonrpc_error_with_a_null_id_and_the_server_goes_on(
    tree: Marked, line: bytes, code: int
) -> None:
    server = RawMCP(tree)
    server.send(line)
    answer = server.recv()
    assert answer["id"] is None and answer["error"]["code"] == code
    assert len(json.dumps(answer)) < 300  # the bad line is not echoed back
    server.call(7, "run_command", {"command": "echo after the bad line"})
    result = server.recv()
    assert result["id"] == 7 and "after the bad line" in result["result"]["content"][0]["text"]
    assert server.close() == 0
    tree.assert_none_left(settle=0.5)


def test_closing_stdin_ends_running_commands_and_the_server(tree: Marked) -> None:
    server = RawMCP(tree)
    server.call(2, "run_command", {"command": TREE})
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    assert server.proc.stdin is not None
    started = time.monotonic()
    server.proc.stdin.close()
    assert server.proc.wait(timeout=30) == 0
    assert time.monotonic() - started < 10  # was: not ended within 10 s
    tree.assert_none_left(settle=0.5)
    data, meta = _log(tree.store)
    assert data == b"started\nto-stderr\n" and meta["cancelled"] == "the MCP client closing the connection"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_the_server_ends_running_commands_and_answers_them(tree: Marked, sig: signal.Signals) -> None:
    server = RawMCP(tree)
    server.call(2, "run_command", {"command": TREE})
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    server.proc.send_signal(sig)
    answer = server.recv()
    text = answer["result"]["content"][0]["text"]
    assert answer["id"] == 2 and text.startswith(f"[cancelled by {sig.name}: ")
    assert server.proc.wait(timeout=30) == 128 + sig.value
    tree.assert_none_left(settle=0.5)
    data, meta = _log(tree.store)
    assert data == b"started\nto-stderr\n" and meta["cancelled"] == sig.name
    assert meta["processes_ended"] >= 3


def test_sigkill_of_the_server_still_ends_the_tree(tree: Marked) -> None:
    """SIGKILL cannot be caught: the run's watchdog (a sh holding a pipe from the server) ends the tree."""
    server = RawMCP(tree)
    server.call(2, "run_command", {"command": TREE})
    wait_for(lambda: tree.count("sleep") == 2, what="the command's tree started")
    wait_for(tree.watchdog_started, what="the watchdog started (0.1 s into the run)")
    killed = time.monotonic()
    server.proc.send_signal(signal.SIGKILL)
    assert server.proc.wait(timeout=30) == -signal.SIGKILL
    tree.assert_none_left(settle=10)
    assert time.monotonic() - killed < 10
    # The log was being written when the server died: it never became a saved result (no
    # reference to it was handed out, so none dangles).
    assert saved_logs(tree.store) == []
