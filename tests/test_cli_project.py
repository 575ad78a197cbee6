"""``wuu project``: the real console script on piped stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WUU = Path(sys.executable).with_name("wuu")


def run(*args: str, stdin: bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    if not WUU.exists():
        pytest.skip(f"{WUU} is not installed (pip install -e .)")
    return subprocess.run(
        [str(WUU), "project", *args], input=stdin, capture_output=True, timeout=120, env={**os.environ, **(env or {})}
    )


def test_mcp_result_json_on_stdin() -> None:
    result = {"content": [{"type": "text", "text": "done: 2 files"}], "_meta": {"k": 1}}
    p = run("--json", stdin=json.dumps(result).encode())
    assert p.returncode == 0, p.stderr
    envelope = json.loads(p.stdout)
    assert envelope["text"] == "done: 2 files" and envelope["complete"] is True
    assert envelope["meta"]["_meta"] == {"k": 1}


def test_plain_text_is_printed_exactly_when_piped() -> None:
    p = run(stdin=b"hello\nworld\n")
    assert p.returncode == 0 and p.stdout == b"hello\nworld\n"


def test_long_text_names_a_read_saved_continuation() -> None:
    text = "\n".join(f"row {i} " + "z" * 40 for i in range(5000))
    p = run("--kind", "text", "--budget", "300", "--tool", "search", stdin=text.encode())
    assert p.returncode == 0
    out = p.stdout.decode()
    assert out.startswith("[result of search · 5,000 lines")
    assert 'read_saved(ref="result-' in out and "budget=300" in out
    cont = out.split("[to read the omitted lines: ")[1].split(" — ")[0]
    ref = cont.split('ref="')[1].split('"')[0]
    saved = subprocess.run([str(WUU), "saved", ref, "--start-line", "4999"], capture_output=True, timeout=60)
    assert saved.returncode == 0 and b"row 4999" in saved.stdout


def test_kind_json_rejects_invalid_json_with_exit_2() -> None:
    p = run("--kind", "json", stdin=b"not json")
    assert p.returncode == 2
    assert b"stdin is not valid JSON" in p.stderr and b"--kind text" in p.stderr


def test_bad_budget_exits_2() -> None:
    p = run("--budget", "3", stdin=b"x")
    assert p.returncode == 2 and b"budget must be between" in p.stderr


def test_attachments_are_in_the_json_envelope() -> None:
    png = "iVBORw0KGgo="
    result = {"content": [{"type": "text", "text": "shot"}, {"type": "image", "data": png, "mimeType": "image/png"}]}
    p = run("--json", stdin=json.dumps(result).encode())
    envelope = json.loads(p.stdout)
    assert envelope["attachments"] == [{"type": "image", "mime_type": "image/png", "data": png, "block": 1}]
    assert envelope["text"] == "shot\n[image 1/1: image/png, 8 B — attached after this text]"


def test_kind_log_saves_stdin_and_shows_the_error_first_view() -> None:
    lines = [f"step {i}: ok" for i in range(3000)]
    lines[1500] = "Traceback (most recent call last):"
    lines[1501] = '  File "app.py", line 3, in <module>'
    lines[1502] = "ValueError: bad input"
    p = run("--kind", "log", "--json", "--budget", "500", stdin="\n".join(lines).encode())
    assert p.returncode == 0, p.stderr
    envelope = json.loads(p.stdout)
    assert envelope["source"].startswith("log-")
    assert "ValueError: bad input" in envelope["text"]
    assert envelope["continuation"]["tool"] == "read_saved"


def test_unwritable_store_still_shows_the_input(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    text = "\n".join(f"line {i}" for i in range(3000))
    for kind in ("text", "log"):
        p = run("--kind", kind, "--budget", "100", stdin=text.encode(), env={"WUU_STORE": str(blocker / "s")})
        assert p.returncode == 0, p.stderr
        assert b"could not be saved" in p.stdout and b"line 2999" in p.stdout
