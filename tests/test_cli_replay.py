"""``wuu replay PATH…`` as a user runs it: a real process on a run of each format (``fixtures/replay``).

The figures are checked against ``scripts/replay.py --json`` on the same files (the same code must give
the same numbers), the Codex reader against what the rollout holds, and the edges a user meets: a file
in no known format (one line on stderr, skipped), only such files (exit 1), a folder like
``~/.claude/projects`` given as it is, and rtk missing.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from wuu_tools.replay.rtk import rtk_available
from wuu_tools.replay.sources import load_run

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "replay"
CLAUDE = FIXTURES / "claude" / "session.jsonl"
CODEX = FIXTURES / "codex" / "rollout-2026-01-06T09-00-00-0000-fixture.jsonl"
MINI = FIXTURES / "mini-swe-agent" / "acme__widget-7.traj.json"
UNKNOWN = FIXTURES / "unknown.jsonl"
RUNS = [str(CLAUDE), str(CODEX), str(MINI)]


def wuu(
    *args: str, python: str = sys.executable, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "wuu_tools.cli", "replay", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env or dict(os.environ),
        cwd=ROOT,
    )


def _notes(stderr: str) -> list[str]:
    """stderr's lines, without the one that says rtk is missing (that depends on the machine)."""
    return [line for line in stderr.splitlines() if "rtk not installed" not in line]


def test_the_codex_reader_takes_both_shell_calls_with_their_exit_codes() -> None:
    run = load_run(CODEX)
    assert run.source == "codex"
    assert [o.command for o in run.outputs] == ["ls", "python -m pytest tests -v"]
    assert [o.exit_code for o in run.outputs] == [0, 1]
    assert run.outputs[0].text == "README.md\nsrc\ntests\n"
    assert run.outputs[1].text.startswith("tests/test_widget.py::test_case_1 PASSED")  # Codex's header dropped
    assert {"test_case_79", "4141", "4242", "lopsided_gear"} <= run.outputs[1].items


def test_table_output_on_one_run_of_each_format() -> None:
    r = wuu(*RUNS, "--budget", "500")
    assert r.returncode == 0, r.stderr
    assert _notes(r.stderr) == []  # no progress bar: stderr is not a terminal
    out = r.stdout
    assert out.startswith("wuu replay: 3 runs (1 Claude Code, 1 Codex, 1 mini-swe-agent), 6 tool outputs;")
    rows = {line.split("  ")[0]: line.split() for line in out.splitlines() if "  " in line}
    assert {
        "as recorded",
        "wuu with a session (recovery counted)",
        "plain head+tail cut at 500 tokens (recovery counted)",
    } <= set(rows)
    assert ("rtk (its hook's rewrites)" in rows) == rtk_available()
    assert "items lost (words and numbers the agent's next message used that the view does not hold):" in out
    # The plain cut at 500 tokens drops the failure in the middle of the pytest run, in both sessions.
    lost = out.split("plain head+tail cut:", 1)[1]
    assert "$ python -m pytest tests -v  lost: 4141, 4242, lopsided_gear" in lost
    figures = json.loads(wuu(*RUNS, "--budget", "500", "--json").stdout)
    wuu_row = rows["wuu with a session (recovery counted)"]
    assert wuu_row[-5] == f"{figures['whole_run']['wuu']['tokens']:,}"
    assert wuu_row[-4] == f"{figures['whole_run']['wuu']['ratio']:.3f}"


def test_json_has_the_scripts_keys_and_the_same_figures(tmp_path: Path) -> None:
    r = wuu(*RUNS, "--budget", "500", "--json")
    assert r.returncode == 0, r.stderr
    fig = json.loads(r.stdout)
    script = tmp_path / "script.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "replay.py"), *RUNS, "--budgets", "500", "--json", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    theirs = json.loads(script.read_text())
    peers = ["wuu", "wuu_no_session", *(["rtk"] if rtk_available() else [])]
    assert set(theirs["whole_run"]) == {"recorded", *peers}
    assert fig["whole_run"]["recorded"] == theirs["whole_run"]["recorded"] > 0
    for key in peers:
        for f in ("ratio", "per_run_median", "per_run_max"):
            assert fig["whole_run"][key][f] == theirs["whole_run"][key][f], (key, f)
    assert fig["items"] == theirs["items"] and set(fig["items"]["500"]) == {"wuu", "plain", "rtk"}
    assert fig["reused_visible"] == theirs["reused_visible"]
    # What wuu replay adds: the plain cut's whole run, and the items each view lost.
    assert set(fig["whole_run"]["plain"]) == {"ratio", "per_run_median", "per_run_max", "tokens"}
    assert fig["sources"] == {"claude-code": 1, "codex": 1, "mini-swe-agent": 1}
    assert fig["counted"] == 4 and fig["items_total"] > 0
    for view in ("wuu", "plain", *(["rtk"] if rtk_available() else [])):
        lost = fig["lost"][view]
        assert lost["lost"] == sum(e["lost"] for e in lost["examples"])  # 4 outputs count: all listed
        assert round(1 - lost["lost"] / fig["items_total"], 4) == fig["kept"][view]
    assert fig["lost"]["plain"]["lost"] > fig["lost"]["wuu"]["lost"]
    assert fig["files"] == {"read": RUNS, "skipped": []}


def test_a_file_in_an_unknown_format_is_skipped_with_one_line() -> None:
    r = wuu(str(UNKNOWN), str(CLAUDE), "--json")
    assert r.returncode == 0, r.stderr
    (line,) = _notes(r.stderr)
    assert line.startswith(f"wuu replay: {UNKNOWN}: unknown format:") and line.endswith("; skipped")
    fig = json.loads(r.stdout)
    assert fig["runs"] == 1 and fig["files"]["skipped"][0]["path"] == str(UNKNOWN)
    only = wuu(str(UNKNOWN), str(ROOT / "README.md"))
    assert only.returncode == 1 and only.stdout == ""
    assert len(_notes(only.stderr)) == 3 and _notes(only.stderr)[-1] == "wuu replay: no run could be read"
    missing = wuu(str(ROOT / "no-such-session.jsonl"))
    assert missing.returncode == 1 and "cannot read it (No such file or directory)" in missing.stderr


def test_a_folder_stands_for_its_runs_at_any_depth(tmp_path: Path) -> None:
    projects = tmp_path / "projects"  # laid out as ~/.claude/projects/<project>/<session>.jsonl
    (projects / "-home-me-acme").mkdir(parents=True)
    shutil.copy(CLAUDE, projects / "-home-me-acme" / "a1b2.jsonl")
    (projects / "-home-me-widget" / "2026" / "01").mkdir(parents=True)
    shutil.copy(CODEX, projects / "-home-me-widget" / "2026" / "01" / CODEX.name)
    shutil.copy(MINI, projects / MINI.name)
    (projects / "notes.txt").write_text("not a run, and not named like one\n")
    r = wuu(str(projects), "--json", "--budget", "500")
    assert r.returncode == 0, r.stderr
    fig = json.loads(r.stdout)
    assert fig["runs"] == 3 and fig["sources"] == {"claude-code": 1, "codex": 1, "mini-swe-agent": 1}
    assert len(fig["files"]["read"]) == 3 and fig["files"]["skipped"] == []
    # The same file named twice is read once; another run of the same name counts as a run of its own.
    (projects / "-home-me-other").mkdir()
    shutil.copy(CODEX, projects / "-home-me-other" / "a1b2.jsonl")
    again = wuu(
        str(projects),
        str(projects / "-home-me-acme" / ".." / "-home-me-acme" / "a1b2.jsonl"),
        "--json",
        "--budget",
        "500",
    )
    assert again.returncode == 0, again.stderr
    both = json.loads(again.stdout)
    one = json.loads(wuu(str(CODEX), "--json", "--budget", "500").stdout)
    assert both["runs"] == 4 and len(both["files"]["read"]) == 4
    assert both["whole_run"]["recorded"] == fig["whole_run"]["recorded"] + one["whole_run"]["recorded"]
    assert both["whole_run"]["wuu"]["tokens"] == fig["whole_run"]["wuu"]["tokens"] + one["whole_run"]["wuu"]["tokens"]
    whole = wuu(str(FIXTURES))  # the fixtures' folder: three runs and the unknown file
    assert whole.returncode == 0 and whole.stdout.startswith("wuu replay: 3 runs (")
    assert "1 file skipped" in whole.stdout.splitlines()[0]
    assert [line for line in _notes(whole.stderr) if "unknown.jsonl" in line] == _notes(whole.stderr)


def test_without_rtk_it_says_so_and_goes_on(tmp_path: Path) -> None:
    """The interpreter, linked into a folder without rtk beside it, with a PATH without rtk."""
    bare = tmp_path / "bin"
    bare.mkdir()
    real = Path(sys.base_prefix) / "bin" / Path(sys.executable).name
    if not real.exists():
        pytest.skip(f"no base interpreter at {real}")
    os.symlink(real, bare / "python")
    env = {
        "PATH": f"{bare}:/usr/bin:/bin",
        "PYTHONPATH": os.pathsep.join([str(ROOT), *site.getsitepackages()]),
        "HOME": str(tmp_path),
    }
    if shutil.which("rtk", path="/usr/bin:/bin"):
        pytest.skip("rtk is installed system-wide")
    r = wuu(str(CLAUDE), "--json", python=str(bare / "python"), env=env)
    assert r.returncode == 0, r.stderr
    assert "wuu replay: rtk not installed" in r.stderr
    fig = json.loads(r.stdout)
    assert "rtk" not in fig["whole_run"] and "rtk" not in fig["lost"] and fig["items"]["2000"]["rtk"] is None


def test_the_progress_bar_runs_on_a_terminal_stderr_only() -> None:
    """stderr a pseudo-terminal, stdout a pipe: the bar draws on stderr, and stdout is still the plain JSON."""
    pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX-only")
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "wuu_tools.cli", "replay", *RUNS, "--json", "--budget", "500"],
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "120"},
    )
    os.close(slave)
    drawn = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the process closed its end
            break
        if not chunk:
            break
        drawn += chunk
    out, _ = proc.communicate(timeout=300)
    os.close(master)
    assert proc.returncode == 0
    text = drawn.decode("utf-8", "replace")
    for step in ("reading runs", "first views (no session)", "sessions, rtk"):
        assert step in text, text[-2000:]
    assert "\x1b[" in text  # drawn with terminal controls
    assert json.loads(out)["runs"] == 3
