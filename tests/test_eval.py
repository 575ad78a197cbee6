"""``scripts/eval.py`` and its ``evaluation`` package on the tiny generated suite (seconds, real tools).

Checks the suite (deterministic, every answer present in its source), the peer caps, the
scripted agent's stopping rule and history arithmetic, and the whole run: wuu-tools finds
every answer with zero non-advancing calls, and the report carries every policy.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from wuu_tools.core.budget import count_tokens

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from evaluation.agent import FOLLOW_UP_TOKENS, FOLLOW_UPS, MAX_CALLS, Call, Trace, run_task  # noqa: E402
from evaluation.peer_agent import PeerPolicy, listing, mcp_text  # noqa: E402
from evaluation.peers import PEERS, Doc, HeadBytes, HeadTail, Reader, TailLines  # noqa: E402
from evaluation.report import markdown, summarize, to_json  # noqa: E402
from evaluation.tasks import Evidence, Task, load_manifest, mcp_result, normalize, realdata_tasks  # noqa: E402
from evaluation.wuu import WuuPolicy  # noqa: E402

_spec = importlib.util.spec_from_file_location("wuu_eval_generate", REPO / "fixtures" / "eval" / "generate.py")
assert _spec is not None and _spec.loader is not None
_generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_generator)
generate = _generator.generate


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> list[Task]:
    out = tmp_path_factory.mktemp("suite")
    return load_manifest(generate(out, "tiny"))


@pytest.fixture(scope="module")
def traces(suite: list[Task], tmp_path_factory: pytest.TempPathFactory) -> list[Trace]:
    store = tmp_path_factory.mktemp("evalstore")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WUU_STORE", str(store))
        mp.delenv("WUU_BUDGET", raising=False)
        policies = [WuuPolicy(), *(PeerPolicy(p) for p in PEERS)]
        return [run_task(p, t) for p in policies for t in suite]


def test_generator_is_deterministic(tmp_path: Path) -> None:
    generate(tmp_path / "a", "tiny")
    generate(tmp_path / "b", "tiny")
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")


def test_suite_covers_every_tool_and_answers_are_in_the_sources(suite: list[Task]) -> None:
    assert {t.kind for t in suite} == {"log", "output", "file", "config", "tree", "transcript", "mcp"}
    own = [t for t in suite if t.id.startswith("log-")]
    assert len(own) == 21  # seven toolchains x start/middle/end
    shared = REPO / "fixtures" / "logs" / "generate.py"
    assert any(t.id.startswith("log3-") for t in suite) == shared.is_file()
    for task in suite:
        if task.kind == "tree":
            source = listing(task.path)
        elif task.kind == "mcp":
            source, images = mcp_text(mcp_result(task))
            assert bool(images) == task.evidence.attachment, task.id
        else:
            source = task.path.read_text(encoding="utf-8", errors="replace")
        for group in task.evidence.groups:
            assert any(normalize(s) in normalize(source) for s in group), (task.id, group)


def test_peer_caps_cut_as_documented() -> None:
    text = "".join(f"line {i}\n" for i in range(10_000))
    shown, spans = HeadTail(100, 200).apply(text)
    assert shown.startswith(text[:100]) and shown.endswith(text[-200:]) and "characters truncated" in shown
    covered = Doc("x", text).covered(spans)
    assert 0 in covered and 9_999 in covered and 5_000 not in covered
    shown, _ = HeadBytes(51200).apply(text)
    assert len(shown.split("\n[output truncated")[0].encode()) <= 51200
    shown, spans = TailLines(100).apply(text)
    assert shown.count("\n") == 101 and Doc("x", text).covered(spans) == set(range(9_900, 10_000))
    page, seen = Reader("Read", line_chars=5).page(Doc("x", "abcdefgh\nij\n"), 0)
    assert "abcde... [line truncated]" in page and seen == {0, 1}
    page, seen = Reader("Read", tokens=50).page(Doc("x", text), 0)
    assert count_tokens(page) <= 50 and seen == set(range(len(seen))) and 5 < len(seen) < 100


class _Blind:
    """A policy that never shows the evidence: the agent must stop at the call cap."""

    name = "blind"

    def calls(self, task: Task) -> Iterator[Call]:
        for i in itertools.count():
            yield Call(f"look({i})", f"nothing here {i % 3}", advancing=i % 3 == 0 or i < 3)


def test_agent_stops_at_the_cap_and_counts_the_history() -> None:
    task = Task("t", "file", "Where is it?", {"path": "/nowhere"}, Evidence((("needle",),)))
    trace = run_task(_Blind(), task)
    assert not trace.found and trace.reading_calls == MAX_CALLS
    assert trace.non_advancing == sum(1 for i in range(1, MAX_CALLS) if not (i % 3 == 0 or i < 3))
    sent = trace.history()
    assert len(sent) == MAX_CALLS + FOLLOW_UPS and sent[0] == trace.question_tokens
    steps = [c.tokens_request + c.tokens_result for c in trace.calls] + [FOLLOW_UP_TOKENS] * (FOLLOW_UPS - 1)
    assert all(b - a == s for a, b, s in zip(sent[:-1], sent[1:], steps, strict=True))
    assert trace.total_input == sum(sent)


def test_wuu_tools_finds_everything_without_non_advancing_calls(traces: list[Trace]) -> None:
    wuu = [t for t in traces if t.policy == "wuu-tools"]
    assert [t.task for t in wuu if t.error] == []
    assert [t.task for t in wuu if not t.found] == []
    assert sum(t.non_advancing for t in wuu) == 0
    screenshot = next(t for t in wuu if t.task == "mcp-screenshot")
    assert screenshot.calls[0].images, "the screenshot must reach the model as an image"


def test_peer_views_respect_their_caps(traces: list[Trace]) -> None:
    first = {(t.policy, t.task): t.calls[0] for t in traces}
    for task in ("log-pytest-middle", "conv-request", "tree-deep"):
        assert len(first[("cap-50k", task)].text.encode()) <= 51200 + 100
        assert first[("goose", task)].text.count("\n") <= 101
    assert summarize(traces).keys() == {"wuu-tools", *(p.name for p in PEERS)}


def test_report_markdown_and_json(traces: list[Trace]) -> None:
    sweep = {2000: summarize([t for t in traces if t.policy == "wuu-tools"])["wuu-tools"]}
    text = markdown(traces, sweep, ["nothing"], "python scripts/eval.py")
    for p in PEERS:
        assert f"| {p.name} |" in text
    assert "## Budget sweep" in text and "- nothing" in text
    data = json.loads(json.dumps(to_json(traces, sweep, [])))
    assert data["headline"]["tasks"] == len([t for t in traces if t.policy == "wuu-tools"])
    assert data["headline"]["best_peer"] in {p.name for p in PEERS}
    assert len(data["traces"]) == len(traces)


def test_eval_script_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "docs"
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "eval.py"),
            "--suite",
            str(tmp_path / "suite"),
            "--scale",
            "tiny",
            "--no-realdata",
            "--policies",
            "wuu-tools,goose",
            "--tasks",
            "log-go,tree,mcp-screenshot",
            "--sweep",
            "500",
            "--out",
            str(out),
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    data = json.loads(run.stdout)
    assert set(data["policies"]) == {"wuu-tools", "goose"}
    assert data["policies"]["wuu-tools"]["tasks"] == 6
    assert list(data["sweep"]) == ["500"]
    assert (out / "eval.md").read_text().startswith("# Evaluation across whole tasks")
    pytest.importorskip("matplotlib", reason="charts need the [eval] extra (matplotlib)")
    assert (out / "eval.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.realdata
def test_realdata_tasks_carry_their_ground_truth(realdata: Path) -> None:
    tasks, skipped = realdata_tasks(realdata)
    logs = [t for t in tasks if t.kind == "log"]
    assert len(logs) == 9 and all(all(g) for t in logs for g in t.evidence.groups)
    assert {t.kind for t in tasks} >= {"log", "config", "transcript", "mcp"}
    assert all(isinstance(s, str) and s for s in skipped)


def test_bench_measures_peak_rss_per_process() -> None:
    from bench.support import GNU_TIME, table, timed

    if GNU_TIME is None:
        pytest.skip("GNU time is not installed: bench.py reports an upper bound of the peak RSS")
    big = [sys.executable, "-c", "b = bytearray(80 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"]
    small = ["true"]
    _, rss_big, code = timed(big)
    assert code == 0 and rss_big >= 80 * 1024 * 1024
    _, rss_small, code = timed(small)
    assert code == 0 and rss_small < 20 * 1024 * 1024  # not the maximum over earlier children
    _, _, code = timed(["sh", "-c", "exit 3"])
    assert code == 3
    assert table([]).count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "splice"), reason="the pipe-hop floor splices (Linux); elsewhere it is cat")
def test_bench_pipe_hop_floor_copies_the_whole_output(tmp_path: Path) -> None:
    from bench.run_output import SPLICE, settle

    data = b"".join(b"line %d\n" % i for i in range(300_000))  # ~3 MB: more than the 1 MiB pipe
    out = tmp_path / "out.txt"
    done = subprocess.run([sys.executable, "-c", SPLICE, str(out)], input=data, check=False)
    assert done.returncode == 0 and out.read_bytes() == data
    settle(tmp_path / "scratch.bin", 3 << 20)
    assert not (tmp_path / "scratch.bin").exists()


class _ScriptedModel(BaseHTTPRequestHandler):
    """A Chat Completions endpoint on 127.0.0.1: asks for one read_file call, then answers."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        if len(type(self).requests) == 1:
            path = re.search(r"Source: (\S+)", body["messages"][1]["content"]).group(1)  # type: ignore[union-attr]
            args = json.dumps({"path": path, "start_line": 2, "end_line": 3})
            call = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": args}}
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        else:
            message = {"role": "assistant", "content": "It is 37."}
        data = json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_model_policy_drives_the_tools_through_an_openai_compatible_endpoint(suite: list[Task]) -> None:
    from evaluation.model import ModelPolicy

    server = ThreadingHTTPServer(("127.0.0.1", 0), _ScriptedModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        policy = ModelPolicy(f"http://127.0.0.1:{server.server_address[1]}/v1", "k", "scripted")
        trace = run_task(policy, next(t for t in suite if t.id == "file-middle"))
    finally:
        server.shutdown()
        server.server_close()
    assert trace.error is None and trace.policy == "model:scripted"
    assert [c.request.split("(")[0] for c in trace.calls] == ["read_file", "read_file"]
    first, second = _ScriptedModel.requests
    assert "read_file" in {t["function"]["name"] for t in first["tools"]}
    assert first["messages"][1]["content"].startswith("What does compute_checksum_v2 return")
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"] == trace.calls[1].text
    assert "2\t" in trace.calls[1].text and trace.calls[1].advancing is False  # lines 2-3 were in the first view
