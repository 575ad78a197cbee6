"""The README's "Use it from your agent" examples run, and its tool loops work with the real SDKs.

The Python blocks of the integrations section are extracted and executed as they are. The
two tool loops they define are then driven with the real ``anthropic`` and ``openai`` clients
against a small scripted model API on 127.0.0.1, which asks for one ``read_file`` call and
then answers; the requests it receives show what the loops sent back.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = re.compile(r"<!-- section:integrations -->(.*?)<!-- /section:integrations -->", re.S)
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks() -> list[str]:
    match = SECTION.search(README.read_text(encoding="utf-8"))
    assert match, "README.md has an integrations section"
    return BLOCK.findall(match.group(1))


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
