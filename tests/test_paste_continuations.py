"""Continuations are pasteable: the line a view prints runs as it is in ``wuu call`` (a real subprocess).

For every tool, the first view is asked for with ``wuu call NAME 'ARGS_JSON'``; then the line of
its text that names the continuation is pasted, unedited, as ``wuu call 'LINE'`` (or on stdin
with ``wuu call -``), and so on to the end of the chain. The printed call must be the envelope's
continuation, and the chain must show every unit: exactly once where DESIGN's lossless invariant
says so (files, directories, conversations, saved results), at least once otherwise.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _transcripts import transcript_generator

from wuu_tools.core.calls import parse_call
from wuu_tools.core.errors import InvalidArgument

WUU = Path(sys.executable).with_name("wuu")
ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("read_file", "list_dir", "run_command", "read_conversation", "read_saved", "project_result")


def _wuu(*args: str, stdin: str | None = None, cwd: Path | None = None) -> dict[str, Any]:
    if not WUU.exists():
        pytest.skip(f"{WUU} is not installed (pip install -e .)")
    done = subprocess.run(
        [str(WUU), "call", *args, "--json"],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=dict(os.environ),
    )
    assert done.returncode == 0, (args, done.stderr)
    envelope: dict[str, Any] = json.loads(done.stdout)
    return envelope


def _printed_line(envelope: dict[str, Any]) -> str:
    """The line of the text that writes out the envelope's continuation (the first call on it)."""
    for line in reversed(envelope["text"].split("\n")):
        try:
            if parse_call(line, TOOLS) == envelope["continuation"]:
                return line
        except InvalidArgument:
            continue
    raise AssertionError(f"the continuation {envelope['continuation']} is not written in the text")


def _follow(first: dict[str, Any], cwd: Path | None = None, limit: int = 60) -> list[dict[str, Any]]:
    """The first view and every view reached by pasting the printed line (every other time via stdin)."""
    views = [first]
    while views[-1]["continuation"] is not None:
        assert len(views) < limit, "the chain does not end"
        line = _printed_line(views[-1])
        views.append(_wuu(line, cwd=cwd) if len(views) % 2 else _wuu("-", stdin=line + "\n", cwd=cwd))
    return views


def _lines_shown(views: list[dict[str, Any]]) -> list[int]:
    return [n for v in views for a, b in v["meta"]["shown"] for n in range(a, b + 1)]


def _once(numbers: list[int], total: int) -> None:
    assert sorted(numbers) == list(range(1, total + 1)), "each line must be shown exactly once"


def test_read_file_chain(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text("".join(f"value_{n} = {n} * 3  # line {n}\n" for n in range(1, 121)))
    # (each view shows a new line at least; how many depends on the length of tmp_path, which every
    # view names: a pytest-xdist worker's is longer)
    first = _wuu("read_file", '{"path": "big.py", "budget": 150}', cwd=tmp_path)
    views = _follow(first, cwd=tmp_path, limit=121)
    assert len(views) > 3 and views[-1]["complete"]
    _once(_lines_shown(views), 120)


def test_read_saved_chain(tmp_path: Path) -> None:
    script = tmp_path / "out.py"
    script.write_text("for i in range(1, 101):\n    print(f'step {i} \\x1b[32mok\\x1b[0m')\n")
    ran = _wuu("run_command", json.dumps({"command": [sys.executable, str(script)], "budget": 200}))
    ref = ran["source"]
    views = _follow(_wuu("read_saved", json.dumps({"ref": ref, "budget": 150})))
    assert len(views) > 3
    _once(_lines_shown(views), 100)
    assert all("\x1b" not in v["text"] for v in views)
    # the search a view suggests pastes too, and its chain shows every match once
    grep = _follow(_wuu("read_saved", json.dumps({"ref": ref, "pattern": "OK", "budget": 100})))
    assert len(grep) == 1 and grep[0]["meta"]["matches"] == 0  # smart case: "OK" is case-sensitive
    grep = _follow(_wuu("read_saved", json.dumps({"ref": ref, "pattern": "ok", "budget": 250})))
    assert len(grep) > 2
    hits = [int(m) for v in grep for m in re.findall(r"^\s*(\d+):\t", v["text"], re.MULTILINE)]
    assert sorted(hits) == list(range(1, 101))


def test_run_command_chain(tmp_path: Path) -> None:
    script = tmp_path / "fail.py"
    script.write_text(
        "import sys\nfor i in range(1, 301):\n    print(f'compiling unit {i}')\n"
        "print('src/x.c:3:1: error: expected identifier')\nsys.exit(2)\n"
    )
    first = _wuu("run_command", json.dumps({"command": [sys.executable, str(script)], "budget": 300}))
    assert first["meta"]["exit_code"] == 2
    views = _follow(first)
    assert len(views) > 2 and views[-1]["complete"]
    # a run_command view pulls evidence out of order, so its chain may show those lines again
    assert set(_lines_shown(views)) == set(range(1, 302))
    later = _lines_shown(views[1:])  # the read_saved chain of the omitted lines shows each once
    assert len(later) == len(set(later))


def test_list_dir_chain(tmp_path: Path) -> None:
    names = [f"file_{n:03}.txt" for n in range(1, 51)]
    for name in names:
        (tmp_path / name).write_text("x\n")
    (tmp_path / "sub").mkdir()
    for n in range(1, 16):
        (tmp_path / "sub" / f"inner_{n:02}.txt").write_text("y\n")
    views = _follow(_wuu("list_dir", json.dumps({"path": str(tmp_path), "budget": 150})))
    assert len(views) > 3
    text = "\n".join(v["text"] for v in views)
    for name in [*names, *(f"sub/inner_{n:02}.txt" for n in range(1, 16))]:
        assert len(re.findall(rf"^{re.escape(name)}\s", text, re.MULTILINE)) == 1, name


def test_read_conversation_chain(tmp_path: Path) -> None:
    gen = transcript_generator()
    path = gen.write_claude(gen.session(seed=3, steps=40), tmp_path / "s.jsonl")
    views = _follow(_wuu("read_conversation", json.dumps({"path": str(path), "budget": 800})))
    assert len(views) > 2
    turns = [n for v in views for a, b in v["meta"]["shown_turns"] for n in range(a, b + 1)]
    assert sorted(turns) == list(range(1, views[0]["meta"]["total_turns"] + 1))


def test_project_result_chain() -> None:
    body = "\n".join(f"row {n}: status=ok value={n * 7}" for n in range(1, 151))
    result = {"content": [{"type": "text", "text": body}]}
    first = _wuu("project_result", json.dumps({"result": result, "budget": 200}))
    assert first["source"] and first["continuation"]["tool"] == "read_saved"
    views = _follow(first)
    assert views[-1]["complete"]
    text = "\n".join(v["text"] for v in views)
    for n in range(1, 151):
        assert f"row {n}: status=ok" in text, n


def test_call_line_forms_and_refusals(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 50)))
    plain = _wuu('read_file(path="a.txt", start_line=3, end_line=4)', cwd=tmp_path)
    assert plain["meta"]["shown"] == [[3, 4]]
    wrapped = _wuu(
        '[to read the omitted lines: read_file(path="a.txt", start_line=3, end_line=4, budget=null)]', cwd=tmp_path
    )
    assert wrapped["meta"]["shown"] == [[3, 4]]
    piped_json = _wuu("read_file", "-", stdin='{"path": "a.txt", "start_line": 5, "end_line": 5}', cwd=tmp_path)
    assert piped_json["meta"]["shown"] == [[5, 5]]
    whole = _wuu("-", stdin=json.dumps({"tool": "read_file", "args": {"path": "a.txt", "start_line": 6}}), cwd=tmp_path)
    assert whole["meta"]["shown"][0][0] == 6
    for bad, words in [
        ('read_file(path=__import__("os").getcwd())', "only literal values"),
        ('read_file("a.txt")', "named arguments only"),
        ('read_file(path="a.txt"', "no call like"),
    ]:
        done = subprocess.run([str(WUU), "call", bad], capture_output=True, text=True, cwd=tmp_path, timeout=60)
        assert done.returncode == 2 and words in done.stderr, (bad, done.stderr)
