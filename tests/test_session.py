"""Sessions (issue 32): a later view names the lines an earlier one showed; re-runs shown as what changed.

Real files, real processes (``wuu`` through its console script, commands run by bash), a real MCP
client over stdio for a connection's session.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from wuu_tools import Toolset
from wuu_tools.core.session import MAX_LINES, Session, StoredSession, line_key, use_session
from wuu_tools.core.store import Store

WUU = (
    [str(Path(sys.executable).with_name("wuu"))]
    if Path(sys.executable).with_name("wuu").is_file()
    else [
        sys.executable,
        "-c",
        "from wuu_tools.cli import main; main()",
    ]
)


def _module(n: int, changed: dict[int, str] | None = None) -> str:
    lines = [f"def function_number_{i}(value):  # the body of a module line {i}" for i in range(1, n + 1)]
    for number, text in (changed or {}).items():
        lines[number - 1] = text
    return "\n".join(lines) + "\n"


def test_line_keys_ignore_gutters_and_short_lines() -> None:
    assert (
        line_key("  12\tdef main() -> None:") == line_key("def main() -> None:") == line_key("12→def main() -> None:")
    )
    assert line_key("3001:\tdef main() -> None:") == line_key("def main() -> None:   ")
    assert line_key("    }") is None and line_key("") is None
    assert line_key("def main() -> None:") != line_key("def main() -> int:")


def test_a_session_is_bounded_oldest_first() -> None:
    s = Session()
    s.record("read_file", "file:a", keys=[i.to_bytes(8, "big") for i in range(MAX_LINES + 500)])
    s.record("read_file", "file:b", keys=[(0).to_bytes(8, "big")])  # shown again: the newest now
    assert s.shown_in((0).to_bytes(8, "big")) == 2
    assert s.shown_in((1).to_bytes(8, "big")) is None  # evicted
    assert s.shown_in((MAX_LINES + 499).to_bytes(8, "big")) == 1
    assert len(s._lines) == MAX_LINES


def test_a_re_read_names_what_was_shown_and_fresh_shows_it_again(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(_module(60))
    ts = Toolset(root=tmp_path)
    first = ts.call("read_file", {"path": "m.py"})
    again = ts.call("read_file", {"path": "m.py"})
    assert "function_number_30" in first.text
    assert again.text.splitlines()[0] == "[lines 1-60 unchanged since call 1]"
    assert again.tokens < 60 and "function_number_30" not in again.text
    assert again.continuation == {"tool": "read_file", "args": {"path": "m.py", "fresh": True}}
    whole = ts.call(again.continuation["tool"], again.continuation["args"])
    assert whole.text == first.text  # fresh: as if the session had shown nothing
    alone = Toolset(root=tmp_path, session=False)
    assert (
        alone.call("read_file", {"path": "m.py"}).text == alone.call("read_file", {"path": "m.py"}).text == first.text
    )


def test_a_re_read_of_a_long_file_reads_on_where_its_first_view_stopped(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(_module(400))
    ts = Toolset(root=tmp_path)
    first = ts.call("read_file", {"path": "m.py", "budget": 600})
    shown = {n for a, b in first.meta["shown"] for n in range(a, b + 1)}
    assert 1 in shown and 400 in shown and len(shown) < 100
    again = ts.call("read_file", {"path": "m.py", "budget": 600})
    top = again.text.splitlines()[0]
    head, tail = first.meta["shown"][0], first.meta["shown"][-1]
    assert top.startswith(f"[lines {head[0]}-{head[1]}, {tail[0]}-{tail[1]} unchanged since call 1 (again: read_file(")
    assert "fresh=true)); read on:]" in top and again.tokens <= 600
    assert again.meta["shown"][0][0] == head[1] + 1  # the middle, from where the first view stopped
    # following the chain from here shows each line of the middle once, and nothing the first view showed
    seen = list(range(again.meta["shown"][0][0], again.meta["shown"][0][1] + 1))
    view = again
    while view.continuation and not view.continuation["args"].get("fresh"):
        view = ts.call(view.continuation["tool"], view.continuation["args"])
        seen += [n for a, b in view.meta["shown"] for n in range(a, b + 1)]
    assert sorted(seen) == sorted(set(seen)) and set(seen) | shown == set(range(1, 401))
    third = ts.call("read_file", {"path": "m.py", "budget": 600})
    # every line shown now: nothing to read on to, the first view with its lines named
    assert third.text.splitlines()[0] == f"[lines {head[0]}-{head[1]} unchanged since call 1]"
    (tmp_path / "m.py").write_text(_module(400, {200: "def changed(value):  # a line the agent never saw"}))
    changed = ts.call("read_file", {"path": "m.py", "budget": 600})
    assert changed.text.startswith("[changed since call")  # a new revision is said, not read on


def test_an_edit_between_reads_shows_the_changed_lines_with_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(_module(80))
    ts = Toolset(root=tmp_path)
    ts.call("read_file", {"path": "m.py"})
    path.write_text(_module(80, {40: "def function_number_40(value, extra):  # edited by the agent"}))
    after = ts.call("read_file", {"path": "m.py"})
    lines = after.text.splitlines()
    assert "40\tdef function_number_40(value, extra):  # edited by the agent" in lines
    assert "[lines 1-38 unchanged since call 1]" in lines and "[lines 42-80 unchanged since call 1]" in lines
    assert any(line.startswith("39\t") for line in lines) and any(line.startswith("41\t") for line in lines)
    assert after.meta["session"]["named_lines"] == 77


def test_a_re_run_after_a_fix_shows_what_changed(tmp_path: Path) -> None:
    # (a checker of its own: pytest's output would get pytest's view by tool, smaller than the diff)
    script = tmp_path / "check.sh"
    body = "".join(f"echo 'check case_{i} pass'\n" for i in range(1, 41))
    script.write_text(body + "echo 'check case_41 fail'\necho 'result: 1 failed, 40 passed'\nexit 1\n")
    ts = Toolset(root=tmp_path)
    first = ts.call("run_command", {"command": "bash check.sh"})
    assert first.meta["exit_code"] == 1
    script.write_text(body + "echo 'check case_41 pass'\necho 'result: 41 passed'\n")
    second = ts.call("run_command", {"command": "bash check.sh"})
    lines = second.text.splitlines()
    assert lines[0].startswith("[exit 0") and "as in call 1 but 2 new, 2 gone" in lines[0]
    assert "-check case_41 fail" in lines
    assert "+check case_41 pass" in lines and "+result: 41 passed" in lines
    assert "case_12 pass" not in second.text
    assert first.source in second.text and second.source in second.text
    for ref, wanted in ((first.source, "1 failed"), (second.source, "41 passed")):
        assert wanted in ts.call("read_saved", {"ref": ref, "fresh": True}).text
    fresh = ts.call("run_command", {"command": "bash check.sh", "fresh": True})
    assert "case_12 pass" in fresh.text and "as in call" not in fresh.text


def test_stored_sessions_merge_concurrent_processes(tmp_path: Path, store_dir: Path) -> None:
    for i in range(6):
        (tmp_path / f"f{i}.py").write_text(_module(20))
    env = {**os.environ, "WUU_SESSION": "agent-session-1"}
    procs = [
        subprocess.Popen([*WUU, "read", str(tmp_path / f"f{i}.py")], env=env, stdout=subprocess.PIPE) for i in range(6)
    ]
    outs = [p.communicate(timeout=60)[0].decode() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum("unchanged since" in o for o in outs) <= 5  # (the first to commit showed its lines)
    stored = StoredSession(store_dir, "agent-session-1")
    assert stored.calls == 6
    again = subprocess.run([*WUU, "read", str(tmp_path / "f0.py")], env=env, capture_output=True, text=True, check=True)
    assert again.stdout.startswith("[lines 1-20 unchanged since call")
    other = subprocess.run(
        [*WUU, "read", str(tmp_path / "f0.py")], env={**env, "WUU_SESSION": ""}, capture_output=True, text=True
    )
    assert other.stdout.startswith("1\tdef function_number_1")  # no session: the whole view


def test_wuu_session_names_lines_across_wuu_run_and_wuu_saved(tmp_path: Path) -> None:
    env = {**os.environ, "WUU_SESSION": "shell-1"}
    cmd = "seq -f 'line %g of a long and boring output' 1 40"
    first = subprocess.run([*WUU, "run", cmd], env=env, capture_output=True, text=True, cwd=tmp_path)
    again = subprocess.run([*WUU, "run", cmd], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert "line 20 of a long" in first.stdout
    assert "the same output as call 1" in again.stdout and "line 20 of a long" not in again.stdout


def test_a_session_is_in_force_only_inside_use_session(tmp_path: Path) -> None:
    from wuu_tools import read_file

    (tmp_path / "m.py").write_text(_module(30))
    with use_session(Session()):
        read_file(str(tmp_path / "m.py"))
        inside = read_file(str(tmp_path / "m.py"))
    outside = read_file(str(tmp_path / "m.py"))
    assert "unchanged since call 1" in inside.text and "function_number_12" in outside.text


def test_toolset_rejects_a_bad_session() -> None:
    from wuu_tools import InvalidArgument

    with pytest.raises(InvalidArgument):
        Toolset(session=3)  # type: ignore[arg-type]
    assert Toolset(session="named", store=Store(os.environ["WUU_STORE"])).session_name == "named"
