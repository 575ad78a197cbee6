"""run_command with real subprocesses: nothing waits for a person, trees are ended, logs are saved whole."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuu_tools import InvalidArgument, NotAFile, SourceNotFound, run_command
from wuu_tools.core.budget import HARD_CAP_BYTES
from wuu_tools.core.store import Store
from wuu_tools.files.saved import read_saved
from wuu_tools.views.ceiling import TOO_SMALL

WUU = Path(sys.executable).with_name("wuu")


def test_verdict_first_and_the_whole_log_saved_with_its_facts() -> None:
    r = run_command("echo out; echo err >&2; exit 3")
    assert r.text == "[exit 3]\nout\nerr"  # it fits: as printed, under the verdict alone
    assert r.complete and r.continuation is None and r.source is not None
    assert r.meta["exit_code"] == 3 and r.meta["signal"] is None and not r.meta["timed_out"]
    assert r.meta["stderr_lines"] == [[2, 2]] and r.meta["total_lines"] == 2
    assert Store().path(r.source).read_bytes() == b"out\nerr\n"
    side = Store().meta(r.source)
    assert side["command"] == "echo out; echo err >&2; exit 3" and side["exit_code"] == 3
    assert side["stderr_lines"] == [[2, 2]] and "duration_s" in side


def test_stdin_is_closed_so_a_reading_command_returns_at_once() -> None:
    r = run_command(["cat"], timeout=30)
    assert not r.meta["timed_out"] and r.meta["exit_code"] == 0
    r = run_command("read answer; echo got=$answer", timeout=30)
    assert not r.meta["timed_out"] and "got=" in r.text


def test_pagers_prompts_and_editors_never_wait(tmp_path: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for i in range(3):
        (tmp_path / "f.txt").write_text(f"{i}\n")
        subprocess.run([*git, "-C", str(tmp_path), "add", "."], check=True)
        subprocess.run([*git, "-C", str(tmp_path), "commit", "-qm", f"commit {i}"], check=True)
    r = run_command(["git", "log"], cwd=str(tmp_path), timeout=30)
    assert not r.meta["timed_out"] and r.meta["exit_code"] == 0 and "commit 2" in r.text
    r = run_command([*git, "commit", "--allow-empty"], cwd=str(tmp_path), timeout=30)  # would open an editor
    assert not r.meta["timed_out"] and r.meta["exit_code"] != 0
    env = run_command("env", timeout=30).text
    for line in ("PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "EDITOR=false", "VISUAL=false"):
        assert line in env


def _sleepers(marker: str) -> list[psutil.Process]:
    out = []
    for p in psutil.process_iter(["name", "cmdline", "status"]):
        live = p.info["name"] == "sleep" and p.info["status"] != psutil.STATUS_ZOMBIE
        if live and marker in " ".join(p.info["cmdline"] or []):
            out.append(p)
    return out


def test_timeout_ends_the_whole_tree_including_a_new_session_grandchild() -> None:
    marker = f"30{time.time_ns() % 10**6}.5"
    try:
        r = run_command(f"setsid sleep {marker} & sleep {marker}; echo never", timeout=1.5)
        assert r.meta["timed_out"] and r.meta["processes_ended"] >= 3
        assert "timed out after 1.5 s" in r.text and "processes ended" in r.text
        assert "never" not in r.text
        assert _sleepers(marker) == []
    finally:
        for p in _sleepers(marker):
            p.kill()


def test_output_of_300_mb_stays_within_the_memory_bound(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import json, resource, sys
        from wuu_tools import run_command
        r = run_command("yes | head -c 300000000", timeout=300)
        # VmHWM is this process's own peak; ru_maxrss would also count the parent it was forked from.
        try:
            with open("/proc/self/status") as fh:
                rss = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM:")) / 1024
        except OSError:
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({"rss_mb": rss, "bytes": r.meta["output_bytes"], "tokens": r.tokens}))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True)
    facts = json.loads(out.stdout)
    assert facts["bytes"] == 300_000_000
    assert facts["rss_mb"] <= 100, facts
    assert facts["tokens"] <= 2000


def test_a_failing_pytest_run_shows_its_assertion_and_summary_first(tmp_path: Path) -> None:
    (tmp_path / "test_shop.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.parametrize('n', range(300))\n"
        "def test_many(n):\n    print('noise line', n)\n    assert n >= 0\n\n"
        "def test_total():\n    total = sum([1, 2])\n    assert total == 4\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    r = run_command([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"], cwd=str(tmp_path), timeout=120)
    assert r.meta["exit_code"] == 1
    text = r.text
    assert "E       assert 3 == 4" in text
    assert "1 failed, 300 passed" in text
    # pytest's view by tool (issue 33): the 300 PASSED lines folded into one counted line, the rest as printed
    assert r.meta["view"] == "pytest" and "test_many[7] PASSED" not in text
    fold = re.search(r"^\[… .*\b300 PASSED\b", text, re.M)
    assert fold is not None, text
    assert fold.start() < text.index("E       assert 3 == 4") < text.index("1 failed, 300 passed")


def test_a_noisy_successful_build_shows_its_tail() -> None:
    r = run_command("for i in $(seq 1 4000); do echo compiling unit $i; done; echo BUILD SUCCESSFUL", timeout=60)
    assert r.meta["exit_code"] == 0 and "[error evidence" not in r.text
    assert r.text.endswith("\ncompiling unit 3999\ncompiling unit 4000\nBUILD SUCCESSFUL")  # the tail, as printed
    assert r.continuation is not None and r.continuation["tool"] == "read_saved"


def test_non_utf8_output_is_replaced_in_the_view_and_kept_raw() -> None:
    r = run_command(["printf", "ok \\377\\376 bytes\\n"])
    assert r.meta.get("invalid_utf8_replaced") and "\ufffd" in r.text
    assert Store().path(r.source).read_bytes() == b"ok \xff\xfe bytes\n"


def test_a_command_killed_by_a_signal() -> None:
    r = run_command("echo before; kill -SEGV $$")
    assert r.meta["signal"] == "SIGSEGV" and r.meta["exit_code"] is None
    assert r.text.startswith("[killed by SIGSEGV")


def test_a_missing_command_gives_127_with_a_clear_line() -> None:
    r = run_command(["no-such-command-wuu"])
    assert r.meta["exit_code"] == 127 and "no-such-command-wuu: command not found" in r.text
    r = run_command("no-such-command-wuu --flag")
    assert r.meta["exit_code"] == 127 and "not found" in r.text


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    for kwargs in (
        {"command": ""},
        {"command": []},
        {"command": "true", "timeout": -1},
        {"command": "true", "timeout": True},
    ):
        with pytest.raises(InvalidArgument):
            run_command(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(SourceNotFound):
        run_command("true", cwd=str(tmp_path / "absent"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotAFile):
        run_command("true", cwd=str(tmp_path / "file"))


def test_the_log_cap_drops_the_middle_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WUU_LOG_MAX_BYTES", "65536")
    r = run_command("for i in $(seq 1 30000); do echo line $i; done; echo boom >&2; exit 1", timeout=60)
    raw = Store().path(r.source).read_bytes()
    assert len(raw) <= 65536
    assert r.meta["dropped_bytes"] > 0 and "dropped from the middle" in r.text
    assert raw.startswith(b"line 1\n") and raw.endswith(b"line 30000\nboom\n")
    assert b"of output dropped here" in raw
    total = raw.count(b"\n")
    assert r.meta["total_lines"] == total and r.meta["stderr_lines"] == [[total, total]]


WRITER = """
import os, sys, time
os.write(1, b"filler\\n" * (900 << 10 >> 3))  # past the log's head: what follows goes through its ring
for i in range(3000):
    os.write(1, f"out {i} ".encode())  # a line written in two pieces ...
    if i % 5 == 0:
        time.sleep(0.0005)  # (so that the reader catches it mid-line now and then)
    if i % 47 == 0:
        os.write(2, f"ERR {i}\\n".encode())  # ... with a stderr line between them now and then
    os.write(1, f"{'x' * (i % 50)} end\\n".encode())
"""


def test_lines_beyond_the_head_stay_whole_and_stderr_lines_are_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    # Beyond the log's head (7/8 of the cap) output is mostly spliced into the ring unread, and a
    # spliced piece may end mid-line: the other stream's lines must wait for that line's end.
    monkeypatch.setenv("WUU_LOG_MAX_BYTES", str(1 << 20))
    r = run_command([sys.executable, "-c", WRITER], timeout=60)
    assert r.meta["exit_code"] == 0
    lines = Store().path(r.source).read_bytes().decode().split("\n")[:-1]
    errs = set()
    for n, line in enumerate(lines, 1):
        if line.startswith("ERR "):
            errs.add(n)
        elif line != "filler":
            assert re.fullmatch(r"out (\d+) x* end", line) and line.count("x") == int(line.split()[1]) % 50, line
    assert len(errs) == 64 and lines[-1] == "out 2999 " + "x" * (2999 % 50) + " end"
    assert {n for a, b in r.meta["stderr_lines"] for n in range(a, b + 1)} == errs


def test_store_failure_returns_the_output_unshortened_and_no_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("WUU_STORE", str(blocker / "store"))
    r = run_command("seq 1 50000; exit 2", timeout=60)
    assert r.source is None and r.continuation is None
    assert "could not be saved" in r.text and "log-" not in r.text
    assert r.meta["exit_code"] == 2 and r.meta["unsaved_bytes"] > 0
    assert r.complete is False  # output was lost, and the result says so
    assert len(r.text.encode()) <= HARD_CAP_BYTES
    assert "1\n2\n3\n" in r.text
    small = run_command("echo only this; exit 0", timeout=60)
    assert small.complete is True and small.meta["unsaved_bytes"] == 0 and "only this" in small.text


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=4000), st.integers(min_value=80, max_value=2500))
def test_invariants_budget_and_a_chain_that_covers_every_line(n: int, budget: int) -> None:
    r = run_command(
        f"for i in $(seq 1 {n}); do echo row $i; [ $((i % 700)) = 0 ] && echo error: at $i; done; true", budget=budget
    )
    # the budget is a ceiling, notices included; a budget too small for the header and a line says so
    assert r.tokens <= budget or (TOO_SMALL in r.text and r.meta["budget_too_small"]["budget"] == budget)
    assert len(r.text.encode()) <= HARD_CAP_BYTES
    total = r.meta["total_lines"]
    seen = {k for a, b in r.meta["shown"] for k in range(a, b + 1)}
    step = r
    while step.continuation is not None:
        assert step.continuation["args"].get("budget") == budget
        args = step.continuation["args"]
        step = read_saved(**args)
        new = {k for a, b in step.meta["shown"] for k in range(a, b + 1)} - seen
        assert new or args.get("start_char") or "partial_line" in step.meta
        seen |= new
    assert seen == set(range(1, total + 1))


def _wuu(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(WUU), *args], capture_output=True, text=True, timeout=timeout, env=os.environ.copy())


def test_cli_exits_with_the_commands_code() -> None:
    assert _wuu("run", "--", "sh", "-c", "echo hi; exit 3").returncode == 3
    assert _wuu("run", "--timeout", "1", "--", "sleep", "30").returncode == 124
    assert _wuu("run", "--shell", "kill -9 $$").returncode == 137
    missing = _wuu("run", "--", "no-such-command-wuu")
    assert missing.returncode == 127 and "command not found" in missing.stdout
    piped = _wuu("run", "--shell", "echo a | tr a b")
    assert piped.returncode == 0 and piped.stdout == "b\n"
    bad = _wuu("run", "--timeout", "-1", "--", "true")
    assert bad.returncode == 2 and "timeout" in bad.stderr


def test_cli_json_envelope_and_saved_pattern_search() -> None:
    out = _wuu("run", "--json", "--", "sh", "-c", "seq 1 3000; echo 'error: the cause'; exit 1")
    assert out.returncode == 1
    env = json.loads(out.stdout)
    assert env["meta"]["exit_code"] == 1 and env["source"].startswith("log-")
    assert "error: the cause" in env["text"]
    grep = _wuu("saved", env["source"], "--pattern", "the cause")
    assert grep.returncode == 0 and "3001" in grep.stdout


def _same_run(out: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    """A CLI run with its timings and log reference blanked (each run's log has a reference of its own).

    A random reference costs the same tokens on every run (eight decimal digits), so even a cut
    view is cut at the same lines: everything else is compared whole.
    """
    text = re.sub(r" · \d+\.\d s · ", " · T s · ", out.stdout)
    text = re.sub(r"log-[0-9a-f]{8,32}", "log-REF", text)
    with contextlib.suppress(ValueError):
        view = json.loads(text)
        view["meta"]["duration_s"] = "T"
        text = json.dumps(view, sort_keys=True)
    return out.returncode, text, out.stderr


@pytest.mark.parametrize(
    ("fast", "full"),
    [
        # Parsed by wuu's own parser (cli/parse.py, no typer) ... and the same call in a spelling only
        # the typer command takes (an option's value joined to its short name, a number in exponent form).
        (
            ["--json", "-t", "30", "-b", "300", "--", "sh", "-c", "pwd; seq 1 3000; echo e >&2; exit 3"],
            ["--json", "-t3e1", "-b300", "--", "sh", "-c", "pwd; seq 1 3000; echo e >&2; exit 3"],
        ),
        (["--cwd", "/", "--json", "sh", "-c", "pwd"], ["-C/", "--json", "sh", "-c", "pwd"]),
        (["-C", "/", "--shell", "echo", "a", "b;", "pwd"], ["-C/", "--shell", "echo", "a", "b;", "pwd"]),
        (
            ["--json", "sh", "-c", "echo $0 $1", "--json", "-t"],
            ["--json", "-b2000", "sh", "-c", "echo $0 $1", "--json", "-t"],
        ),
        (["--timeout", "0.5", "--json", "sleep", "30"], ["-t5e-1", "--json", "sleep", "30"]),
        (["--json", "--", "no-such-command-wuu"], ["--json", "-t120", "--", "no-such-command-wuu"]),
        (["--cwd", "/no/such/dir", "--", "true"], ["-C/no/such/dir", "--", "true"]),
        (["--json", "--cwd", "/no/such/dir", "--", "true"], ["--json", "-C/no/such/dir", "--", "true"]),
    ],
)
def test_cli_run_parsed_by_hand_gives_what_the_typer_command_gives(fast: list[str], full: list[str]) -> None:
    from wuu_tools.cli import run  # noqa: F401  (declares the command)
    from wuu_tools.cli.params import COMMANDS
    from wuu_tools.cli.parse import parse

    assert parse(COMMANDS[("run",)], fast) is not None and parse(COMMANDS[("run",)], full) is None
    assert _same_run(_wuu("run", *fast)) == _same_run(_wuu("run", *full))


def test_cli_run_leaves_what_it_does_not_parse_to_the_typer_command() -> None:
    assert "Usage: wuu run" in _wuu("run", "--help").stdout
    bad = _wuu("run", "-t", "soon", "--", "true")
    assert bad.returncode == 2 and "Invalid value" in bad.stderr
    missing = _wuu("run", "--json")
    assert missing.returncode == 2 and "Missing argument" in missing.stderr


def test_a_background_process_that_keeps_writing_does_not_hold_the_run_open() -> None:
    # The shell exits at once; the loop it leaves behind holds the pipes and never falls quiet,
    # so the run ends because the command exited (checked while output keeps coming), not on timeout.
    # (Reading stops AFTER_EXIT_S after the exit; waiting for the timeout would take ten times as long.)
    r = run_command("(while :; do echo tick; done) & echo started", timeout=30)
    assert r.meta["timed_out"] is False and r.meta["exit_code"] == 0
    assert r.meta.get("left_running", 0) >= 1
    # The loop may write thousands of lines before the shell's own line: look for it in the log.
    found = read_saved(r.source, pattern="^started$")
    assert found.meta["matches"] == 1 and "started" in found.text
    assert r.meta["duration_s"] < 15


def test_a_quick_success_shown_whole_has_no_verdict_line(tmp_path: Path) -> None:
    """Exit 0 in under a second, the whole output shown: exactly what was printed, as at a terminal."""
    shown = run_command("printf 'one\\ntwo\\n'", cwd=str(tmp_path))
    assert shown.text == "one\ntwo" and shown.complete and shown.meta["exit_code"] == 0
    assert run_command("true", cwd=str(tmp_path)).text == "[no output]"
    failed = run_command("echo nope; exit 1", cwd=str(tmp_path))
    assert failed.text == "[exit 1]\nnope"  # any other end is said, first
    assert run_command("exit 3", cwd=str(tmp_path)).text == "[exit 3 · no output]"
    # an output whose own first line looks like a notice keeps a verdict above it
    assert run_command("echo '[1, 2]'", cwd=str(tmp_path)).text == "[exit 0 · 1 line]\n[1, 2]"
    slow = run_command(f"{sys.executable} -c 'import time; time.sleep(1.1); print(1)'", cwd=str(tmp_path))
    assert re.fullmatch(r"\[exit 0 · 1\.\d s\]\n1", slow.text), slow.text  # the duration from 1 s on
    cut = run_command("seq 1 5000", cwd=str(tmp_path), budget=300)
    assert cut.text.startswith("[exit 0 · 5,000 lines]\n") and not cut.complete  # a cut view leads with it
