"""The examples of the README and of ``docs/`` run as written, and the tool loops work with the real SDKs.

The Python blocks of the landing page and of the integrations section (``docs/integrations.md``)
are extracted and executed as they are; every fenced ``wuu`` command of every page is run. The
two tool loops they define are then driven with the real ``anthropic`` and ``openai`` clients
against a small scripted model API on 127.0.0.1, which asks for one ``read_file`` call and
then answers; the requests it receives show what the loops sent back.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import _docs
import pytest

README = _docs.README
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks() -> list[str]:
    return BLOCK.findall(_docs.section("integrations"))


def landing_blocks() -> list[str]:
    """The Python blocks of the README's "Four ways in" (one short example per face)."""
    text = README.read_text(encoding="utf-8")
    assert "\n## Four ways in\n" in text, "the README shows one short example per face"
    return BLOCK.findall(text.split("\n## Four ways in\n", 1)[1].split("\n## ", 1)[0])


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(README.parent)
    return README.parent


def test_the_section_has_python_examples() -> None:
    assert len(python_blocks()) >= 3


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_each_python_example_runs(index: int, in_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, Any] = {"__name__": f"readme_example_{index}"}
    exec(compile(python_blocks()[index], f"README.md integrations block {index}", "exec"), namespace)
    if index == 0:
        out = capsys.readouterr().out
        assert "# wuu-tools" in out
        assert "error: read_file: path '../elsewhere.txt' is outside the allowed root" in out


def test_the_landing_page_examples_run(in_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = landing_blocks()
    exec(compile(block, "README.md, Four ways in", "exec"), {"__name__": "landing_example"})
    out = capsys.readouterr().out
    assert out.startswith("__init__.py\n") and "\nstore.py\n" in out, out  # a quick success: no verdict line


class ScriptedModel(BaseHTTPRequestHandler):
    """Answers like a model: first asks for ``read_file(README.md)``, then replies in text."""

    requests: list[dict[str, Any]]

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        return

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append({"path": self.path, "body": body})
        first = len(self.requests) == 1
        if self.path.endswith("/messages"):
            reply = anthropic_reply(first)
        elif self.path.endswith("/chat/completions"):
            reply = openai_reply(first)
        else:
            self.send_error(404)
            return
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def anthropic_reply(first: bool) -> dict[str, Any]:
    content: list[dict[str, Any]] = (
        [{"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "README.md"}}]
        if first
        else [{"type": "text", "text": "The README is about wuu-tools."}]
    )
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": content,
        "stop_reason": "tool_use" if first else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def openai_reply(first: bool) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None if first else "The README is about wuu-tools."}
    if first:
        call = {"name": "read_file", "arguments": json.dumps({"path": "README.md"})}
        message["tool_calls"] = [{"id": "call_01", "type": "function", "function": call}]
    return {
        "id": "chatcmpl-01",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "tool_calls" if first else "stop", "message": message}],
    }


@pytest.fixture
def model_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    requests: list[dict[str, Any]] = []
    handler = type("Handler", (ScriptedModel,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def loops() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    for block in python_blocks():
        if "def anthropic_loop" in block:
            exec(compile(block, "README.md tool loops", "exec"), namespace)
    return namespace


def test_the_anthropic_loop_with_the_real_sdk(in_repo: Path, model_api: tuple[str, list[dict[str, Any]]]) -> None:
    anthropic = pytest.importorskip("anthropic", reason="anthropic (a test dependency) is not installed")
    url, requests = model_api
    client = anthropic.Anthropic(api_key="test", base_url=url, max_retries=0)
    assert loops()["anthropic_loop"](client, "What is this project?") == "The README is about wuu-tools."
    first, second = (r["body"] for r in requests)
    assert [t["name"] for t in first["tools"]][:2] == ["read_file", "list_dir"]
    result = second["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_01"
    assert "# wuu-tools" in result["content"][0]["text"]


def test_the_openai_loop_with_the_real_sdk(in_repo: Path, model_api: tuple[str, list[dict[str, Any]]]) -> None:
    openai = pytest.importorskip("openai", reason="openai (a test dependency) is not installed")
    url, requests = model_api
    client = openai.OpenAI(api_key="test", base_url=f"{url}/v1", max_retries=0)
    assert loops()["openai_loop"](client, "What is this project?") == "The README is about wuu-tools."
    first, second = (r["body"] for r in requests)
    assert first["tools"][0]["function"]["name"] == "read_file"
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_01"
    assert "# wuu-tools" in tool_message["content"]


# -- every fenced `wuu …` command of the README, run as written ----------------------------------------

WUU = Path(sys.executable).with_name("wuu")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
WUU_WORD = re.compile(r"(?:^|\| |&& )(?:\S*/)?wuu ")
LINKED = ("fixtures", "wuu_tools", "docs", "README.md", "pyproject.toml")  # what the commands read


def readme_commands() -> list[tuple[str, int]]:
    """Each shell line of the README's fenced blocks that runs ``wuu`` (with the setup lines before it in
    its block) and the exit status the README gives it: the ``[exit N · …]`` verdict shown under it, else 0."""
    commands: list[tuple[str, int]] = []
    for lang, body in FENCE.findall(_docs.all_text()):
        if lang not in ("bash", "console"):
            continue
        lines = body.splitlines()
        for i, line in enumerate(lines):
            if lang == "console" and not line.startswith("$ "):
                continue
            command = line.removeprefix("$ ")
            if not WUU_WORD.search(command) and not command.startswith(("python ", "seq ")):
                continue
            if command.startswith("claude "):
                continue  # an MCP client's command line: run by test_mcp_client_snippets_start_the_server
            command = command.rsplit(" && ", 1)[-1] if " && " in command else command  # the install is done
            shown = lines[i + 1] if i + 1 < len(lines) else ""
            verdict = re.match(r"\[exit (\d+) ·", shown)
            commands.append((command, int(verdict.group(1)) if verdict else 0))
    return commands


def test_the_readme_has_wuu_commands() -> None:
    run = [c for c, _ in readme_commands() if WUU_WORD.search(c)]
    assert len(run) >= 12, run
    assert any(code == 2 for _, code in readme_commands())  # the failing build's `wuu run`


def test_every_fenced_wuu_command_runs_as_the_readme_says(tmp_path: Path) -> None:
    from test_cli_ls import demo  # the README's `wuu ls demo` project

    work = tmp_path / "work"
    work.mkdir()
    for name in LINKED:
        (work / name).symlink_to(README.parent / name)
    demo(work)
    bin_dir = tmp_path / "bin"  # `wuu`, `.venv/bin/wuu` and `python` mean this environment's
    (bin_dir / ".venv" / "bin").mkdir(parents=True)
    (work / ".venv").symlink_to(bin_dir / ".venv")
    for link in (bin_dir / "wuu", bin_dir / ".venv" / "bin" / "wuu"):
        link.symlink_to(WUU)
    (bin_dir / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "WUU_STORE": str(tmp_path / "store")}
    last_output = ""
    for command, expected in readme_commands():
        ref = re.search(r'ref="(log-[0-9a-f]+)"', last_output)
        if ref:  # a saved log's reference is new on every run: the one the previous command printed
            command = re.sub(r"\blog-[0-9a-f]{8,32}\b", ref.group(1), command)
        if "…'" in command:  # a cursor shown shortened: the one of the previous view's [next: …] line
            cursor = re.search(r'cursor="([^"]+)"', last_output)
            assert cursor, (command, last_output[-300:])
            command = re.sub(r"'[^']*…'", f"'{cursor.group(1)}'", command)
        r = subprocess.run(
            ["bash", "-c", command],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == expected, (command, r.returncode, r.stdout[-1500:], r.stderr[-1500:])
        assert "Traceback" not in r.stderr, (command, r.stderr)
        last_output = r.stdout


def test_mcp_client_snippets_start_the_server() -> None:
    pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    from _mcp_client import run_client
    from mcp import Client, StdioServerParameters

    text = _docs.all_text()
    blocks = dict(
        (lang, body) for lang, body in FENCE.findall(_docs.section("integrations")) if lang in ("toml", "json")
    )
    claude = [
        line for line in FENCE.findall(text) for line in line[1].splitlines() if line.startswith("claude mcp add")
    ]
    servers = [
        tomllib.loads(blocks["toml"])["mcp_servers"],
        json.loads(blocks["json"])["mcpServers"],
        {
            line.split()[3]: {
                "command": line.split(" -- ", 1)[1].split()[0],
                "args": line.split(" -- ", 1)[1].split()[1:],
            }
            for line in claude
        },
    ]
    venv_wuu = "/path/to/wuu-tools/.venv/bin/wuu"  # where the README's own install puts it
    for config in servers:
        assert {s["command"] for s in config.values()} == {venv_wuu}, config
        wuu_server = config["wuu"]
        args = [README.parent.as_posix() if a == "/path/to/repo" else a for a in wuu_server["args"]]

        async def body(client: Client) -> list[str]:
            return [t.name for t in (await client.list_tools()).tools]

        params = StdioServerParameters(command=str(WUU), args=args, env=dict(os.environ))
        assert run_client(params, body)[:2] == ["read_file", "list_dir"]
