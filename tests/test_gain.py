"""``wuu gain`` and its ledger, run as an agent's hook runs them: real processes, a real store.

The done-when flow of issue 34: a Claude Code PreToolUse payload for ``seq 1 100000`` goes through
``wuu hook claude``; bash runs the rewritten line, then the ``wuu saved …`` line it printed (through
the hook again, as the agent's next shell call is); ``wuu gain --json`` reports the command, its raw
and printed tokens and the recovery read, every figure checked against an independent count.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from wuu_tools.core.budget import count_tokens

WUU = Path(sys.executable).with_name("wuu")
PAYLOAD = Path(__file__).resolve().parent.parent / "fixtures" / "hooks" / "claude" / "pretooluse-bash.json"
_SHELL_LINE = re.compile(r"(wuu saved log-[^\]…]*?)\s*(?:…|\])")
_REF = re.compile(r"log-[0-9a-f]{8,32}")


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{WUU.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for name in ("WUU_CONTINUE_AS", "WUU_SESSION", "WUU_LEDGER", "WUU_LEDGER_MAX_BYTES"):
        env.pop(name, None)
    return {**env, **extra}


def wuu(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(WUU), *args], input=stdin, capture_output=True, text=True, timeout=120, env=env or _env()
    )


def bash(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=120, cwd=cwd, env=_env())


def through_hook(line: str, session: str) -> str:
    payload = json.loads(PAYLOAD.read_text())
    payload["session_id"] = session
    payload["tool_input"]["command"] = line
    out = wuu("hook", "claude", stdin=json.dumps(payload))
    assert out.returncode == 0, out.stderr
    return str(json.loads(out.stdout)["hookSpecificOutput"]["updatedInput"]["command"])


def gain_json(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    out = wuu("gain", "--json", *args, env=env)
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


def test_the_hook_flow_shows_the_command_its_tokens_and_the_recovery_read(tmp_path: Path) -> None:
    session = json.loads(PAYLOAD.read_text())["session_id"]
    view = bash(through_hook("seq 1 100000", session), tmp_path)
    assert view.returncode == 0, view.stderr
    assert count_tokens(view.stdout) <= 2_100
    line = _SHELL_LINE.search(view.stdout)
    assert line, view.stdout[-400:]
    jump = re.sub(r"--start-line \d+", "--start-line 50000", line.group(1))
    more = bash(through_hook(jump, session), tmp_path)  # the agent's next call: its own Bash, through the hook
    assert more.returncode == 0, more.stderr
    assert "50000\t50000" in more.stdout.split("\n")

    summary = gain_json(env=_env(WUU_SESSION=session))  # the default: the session WUU_SESSION names
    assert summary["scope"] == {"session": session, "day": None, "all": False, "chosen_by": "WUU_SESSION"}
    [cmd] = summary["commands"]
    raw = count_tokens(subprocess.run(["seq", "1", "100000"], capture_output=True, text=True).stdout)
    assert cmd["command"] == "seq 1 100000"
    assert cmd["kind"] == "seq" and cmd["session"] == session and cmd["exit_code"] == 0
    assert (cmd["raw_tokens"], cmd["raw_estimated"]) == (raw, False)
    assert cmd["printed_tokens"] == count_tokens(view.stdout.rstrip("\n"))
    assert _REF.search(view.stdout).group() in cmd["log"]  # type: ignore[union-attr]
    [read] = cmd["reads"]
    assert read["log"] == cmd["log"] and read["tool"] == "read_saved"
    assert read["args"]["start_line"] == 50000
    assert read["printed_tokens"] == count_tokens(more.stdout.rstrip("\n"))
    assert summary["total"] == {
        "commands": 1,
        "raw_tokens": raw,
        "printed_tokens": cmd["printed_tokens"],
        "recovery_reads": 1,
        "recovery_tokens": read["printed_tokens"],
        "net_saved": raw - cmd["printed_tokens"] - read["printed_tokens"],
    }
    assert gain_json("--session", "another")["commands"] == []


KIND_KEYS = {"kind", "commands", "raw_tokens", "printed_tokens", "recovery_reads", "recovery_tokens", "net_saved"}
COMMAND_KEYS = {"ts", "session", "log", "command", "kind", "view", "exit_code", "raw_tokens", "raw_estimated"}
COMMAND_KEYS |= {"printed_tokens", "reads"}
READ_KEYS = {"ts", "session", "log", "tool", "args", "printed_tokens"}


def test_the_json_shape_sums_by_kind_and_keeps_reads_of_unknown_logs_apart(tmp_path: Path) -> None:
    env = _env(WUU_SESSION="shape")
    for line in ("seq 1 3000", "seq 1 5", "printf 'a\\nb\\n'; exit 3"):
        wuu("run", line, env=env)
    log = _REF.search(wuu("run", "seq 1 20000", env=env).stdout).group()  # type: ignore[union-attr]
    assert wuu("saved", log, "--start-line", "900", env=env).returncode == 0
    assert wuu("call", f'read_saved(ref="{log}", pattern="^1999$")', env=env).returncode == 0
    unrecorded = wuu("run", "seq 1 9000", env=_env(WUU_LEDGER="0")).stdout  # a log no recorded command made
    foreign = _REF.search(unrecorded).group()  # type: ignore[union-attr]
    assert wuu("saved", foreign, "--start-line", "8000", env=env).returncode == 0

    summary = gain_json("--session", "shape")
    assert set(summary) == {"scope", "kinds", "total", "commands", "other_reads", "ledger"}
    assert summary["scope"]["chosen_by"] == "options"
    assert Path(summary["ledger"]).is_file()
    for row in summary["kinds"]:
        assert set(row) == KIND_KEYS
        assert row["net_saved"] == row["raw_tokens"] - row["printed_tokens"] - row["recovery_tokens"]
    for key in KIND_KEYS - {"kind"}:
        assert summary["total"][key] == sum(row[key] for row in summary["kinds"])
    kinds = {row["kind"]: row for row in summary["kinds"]}
    assert kinds["seq"]["commands"] == 3 and kinds["seq"]["recovery_reads"] == 2
    assert kinds["printf"]["commands"] == 1
    assert [c["command"] for c in summary["commands"]][-1] == "seq 1 20000"
    for cmd in summary["commands"]:
        assert set(cmd) == COMMAND_KEYS
        for read in cmd["reads"]:
            assert set(read) == READ_KEYS
    failed = next(c for c in summary["commands"] if c["command"].startswith("printf"))
    assert failed["exit_code"] == 3
    reads = summary["commands"][-1]["reads"]
    assert [r["tool"] for r in reads] == ["read_saved", "read_saved"]
    assert reads[1]["args"] == {"pattern": "^1999$"}
    [other] = summary["other_reads"]  # counted apart, under a kind of its own
    assert other["kind"] == "(no command)" and other["log"].startswith(foreign)
    assert set(other) == READ_KEYS | {"kind"}
    assert kinds["(no command)"]["recovery_reads"] == 1 and kinds["(no command)"]["commands"] == 0


def test_the_table_has_a_total_row_with_the_json_totals() -> None:
    env = _env(WUU_SESSION="table")
    wuu("run", "seq 1 30000", env=env)
    wuu("run", "ls -la /", env=env)
    out = wuu("gain", "--all")
    assert out.returncode == 0, out.stderr
    assert "all time" in out.stdout.split("\n")[0]
    [total] = [line for line in out.stdout.split("\n") if re.match(r"^\W*total\b", line)]
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", total)]
    t = gain_json("--all")["total"]
    keys = ["commands", "raw_tokens", "printed_tokens", "recovery_reads", "recovery_tokens", "net_saved"]
    assert numbers == [t[k] for k in keys]
    assert {"seq", "ls"} <= {line.split()[1] for line in out.stdout.split("\n") if line.startswith("│")}


def test_the_default_is_today_without_a_session_and_it_says_so() -> None:
    wuu("run", "seq 1 10")
    out = wuu("gain")
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert f"{today} (UTC), today" in out.stdout.split("\n")[0]
    assert gain_json()["scope"] == {"session": None, "day": today, "all": False, "chosen_by": "today"}
    assert gain_json("--day", "2000-01-01")["total"]["commands"] == 0
    empty = wuu("gain", "--day", "2000-01-01")
    assert empty.returncode == 0 and "no commands or reads recorded" in empty.stdout
    assert wuu("gain", "--all", "--session", "x").returncode == 2
    assert wuu("gain", "--day", "yesterday").returncode == 2


_APPENDER = """
import sys, time
from wuu_tools.core.ledger import append, record_base
root, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
while time.time() < float(sys.argv[4]):
    pass
for i in range(n):
    r = record_base("command", session=who)
    r.update(log=f"log-{i:032x}", command="x" * (i % 700), kind="x", raw_tokens=i, printed_tokens=1)
    assert append(root, r) is None
"""


def _appenders(store: Path, procs: int, each: int, env: dict[str, str]) -> None:
    start = str(time.time() + 1.5)  # every process starts appending at once
    running = [
        subprocess.Popen([sys.executable, "-c", _APPENDER, str(store), f"p{p}", str(each), start], env=env)
        for p in range(procs)
    ]
    assert [p.wait(timeout=120) for p in running] == [0] * procs


def test_parallel_processes_append_whole_records(store_dir: Path) -> None:
    _appenders(store_dir, 6, 300, _env())
    lines = (store_dir / "ledger" / "gain.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    records = [json.loads(line) for line in lines[:-1]]  # every line whole: none torn or interleaved
    assert len(records) == 1800
    for p in range(6):
        mine = [r["raw_tokens"] for r in records if r["session"] == f"p{p}"]
        assert mine == list(range(300))  # each process's records whole, in its order
    assert gain_json("--all")["total"]["commands"] == 1800


def test_parallel_wuu_runs_are_all_recorded(tmp_path: Path) -> None:
    env = _env(WUU_SESSION="par")
    running = [
        subprocess.Popen([str(WUU), "run", f"seq 1 {2000 + i}"], env=env, stdout=subprocess.DEVNULL) for i in range(5)
    ]
    assert [p.wait(timeout=120) for p in running] == [0] * 5
    got = sorted(c["command"] for c in gain_json("--session", "par")["commands"])
    assert got == sorted(f"seq 1 {2000 + i}" for i in range(5))


def test_the_ledger_is_bounded_and_keeps_the_newest(store_dir: Path) -> None:
    cap = 64 << 10
    _appenders(store_dir, 4, 400, _env(WUU_LEDGER_MAX_BYTES=str(cap)))
    folder = store_dir / "ledger"
    sizes = [p.stat().st_size for p in folder.glob("*.jsonl")]
    assert sorted(p.name for p in folder.glob("*.jsonl")) == ["gain.1.jsonl", "gain.jsonl"]
    assert sum(sizes) <= 2 * (cap + 4 * 4000)
    older, newer = (folder / "gain.1.jsonl").read_bytes(), (folder / "gain.jsonl").read_bytes()
    records = [json.loads(line) for line in (older + newer).splitlines()]
    assert len(records) >= cap // 1000  # whole records, at least a cap's worth
    assert json.loads(newer.splitlines()[-1])["raw_tokens"] == 399  # the newest kept, the oldest dropped
    for p in range(4):
        mine = [r["raw_tokens"] for r in records if r["session"] == f"p{p}"]
        assert mine == sorted(mine) and 0 not in mine


def _masked(text: str) -> str:
    return _REF.sub("log-REF", re.sub(r"\d+(\.\d+)? ?(ms|s)\b", "T", text))


@pytest.mark.parametrize("line", ["seq 1 40000", "seq 1 40000; exit 3"])
def test_an_unwritable_ledger_changes_nothing_but_one_note(store_dir: Path, tmp_path: Path, line: str) -> None:
    good = wuu("run", line, env=_env(WUU_STORE=str(tmp_path / "good")))
    (store_dir / "ledger" / "gain.jsonl").mkdir(parents=True)  # the ledger's path is a folder: no write can work
    bad = wuu("run", line)
    assert bad.returncode == good.returncode == (3 if "exit 3" in line else 0)
    assert _masked(bad.stdout) == _masked(good.stdout)  # (a reference costs the same tokens on every run)
    notes = bad.stderr.strip().split("\n")
    assert len(notes) == 1 and notes[0].startswith("wuu: the gain ledger was not written"), bad.stderr
    log = _REF.search(bad.stdout).group()  # type: ignore[union-attr]
    read = wuu("saved", log, "--start-line", "2")
    assert read.returncode == 0 and "2\t" in read.stdout
    gain = wuu("gain", "--all", "--json")
    assert gain.returncode == 0 and json.loads(gain.stdout)["total"]["commands"] == 0


def test_a_torn_or_foreign_line_is_skipped(store_dir: Path) -> None:
    wuu("run", "seq 1 100")
    with open(store_dir / "ledger" / "gain.jsonl", "ab") as fh:
        fh.write(b'{"type": "command", "raw_tok\n[1, 2]\nnot json\n')
    wuu("run", "seq 1 200")
    assert [c["command"] for c in gain_json("--all")["commands"]] == ["seq 1 100", "seq 1 200"]


def test_ledger_off_writes_nothing(store_dir: Path) -> None:
    assert wuu("run", "seq 1 100", env=_env(WUU_LEDGER="0")).returncode == 0
    assert not (store_dir / "ledger").exists()


def test_a_large_log_is_estimated_from_windows_and_says_so(tmp_path: Path) -> None:
    wuu("run", "seq 1 300000")  # 2 MB: past the exact count's 1 MiB
    [cmd] = gain_json("--all")["commands"]
    exact = count_tokens(subprocess.run(["seq", "1", "300000"], capture_output=True, text=True).stdout)
    assert cmd["raw_estimated"] is True
    assert abs(cmd["raw_tokens"] - exact) <= 0.1 * exact


def test_a_session_name_with_controls_and_a_bad_byte_prints_safely() -> None:
    session = os.fsdecode(b"s\xff\x1b[31m")  # as a process reads such a WUU_SESSION: a lone surrogate
    env = _env(WUU_SESSION=session)
    assert wuu("run", "seq 1 3", env=env).returncode == 0
    table = subprocess.run([str(WUU), "gain"], capture_output=True, env=env, timeout=60)
    assert table.returncode == 0 and b"\x1b" not in table.stdout
    assert "session s\\udcff␛[31m (from WUU_SESSION)" in table.stdout.decode().split("\n")[0]
    summary = json.loads(subprocess.run([str(WUU), "gain", "--json"], capture_output=True, env=env).stdout)
    assert summary["scope"]["session"] == session and summary["commands"][0]["session"] == session


def test_the_kind_is_the_view_by_tool_that_knows_the_output_else_the_program(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = _env(WUU_SESSION="kinds")
    for line in ("git status", "cd . && git status --short", "seq 1 5", "FOO=1 env seq 1 3"):
        assert wuu("run", "--cwd", str(tmp_path), line, env=env).returncode == 0
    kinds = [c["kind"] for c in gain_json("--session", "kinds")["commands"]]
    assert kinds[0] == "git status"  # a clean tree: nothing folded, but the view by tool knows it
    assert kinds[2:] == ["seq", "seq"]
