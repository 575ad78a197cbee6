"""``wuu hook AGENT`` and ``wuu init AGENT``, run as the agents run them: real processes, recorded payloads.

Each agent's recorded payload (``fixtures/hooks/``, from its documentation) is piped to ``wuu
hook``; the command in the reply is run by bash as the agent's shell would run it, and the view
it prints, and the ``wuu`` line that continues it, are checked.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from wuu_tools.cli.agents import AGENTS
from wuu_tools.cli.rewrite import rewrite
from wuu_tools.core.budget import count_tokens

WUU = Path(sys.executable).with_name("wuu")
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hooks"
PAYLOADS = {
    "claude": FIXTURES / "claude" / "pretooluse-bash.json",
    "codex": FIXTURES / "codex" / "pretooluse-bash.json",
    "gemini": FIXTURES / "gemini" / "beforetool-shell.json",
    "cursor": FIXTURES / "cursor" / "pretooluse-shell.json",
}
_SHELL_LINE = re.compile(r"(wuu (?:saved|read|ls|conv|call) [^\]…]*?)\s*(?:…|\])")


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{WUU.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("WUU_CONTINUE_AS", None)
    return {**env, **extra}


def hook(agent: str, stdin: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(WUU), "hook", agent, *args], input=stdin, capture_output=True, text=True, timeout=60, env=env or _env()
    )


def bash(line: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=120, cwd=cwd, env=env or _env())


def _rewritten(agent: str, reply: dict[str, Any]) -> str:
    if agent in ("claude", "codex"):
        return reply["hookSpecificOutput"]["updatedInput"]["command"]
    if agent == "gemini":
        return reply["hookSpecificOutput"]["tool_input"]["command"]
    return reply["updated_input"]["command"]


@pytest.mark.parametrize("agent", list(PAYLOADS))
def test_a_recorded_payload_runs_seq_through_wuu_and_its_continuation_runs(agent: str, tmp_path: Path) -> None:
    payload = json.loads(PAYLOADS[agent].read_text())
    out = hook(agent, json.dumps(payload))
    assert out.returncode == 0, out.stderr
    reply = json.loads(out.stdout)
    command = _rewritten(agent, reply)
    assert "seq 1 100000" in command and " run " in command
    if agent in ("claude", "codex"):
        assert reply["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    if agent == "claude":  # the payload is in the default mode: Claude Code's own rules judge the new line
        assert "permissionDecision" not in reply["hookSpecificOutput"]
        assert reply["hookSpecificOutput"]["updatedInput"]["description"] == payload["tool_input"]["description"]
    if agent == "codex":  # bypassPermissions: Codex takes the rewrite with allow only
        assert reply["hookSpecificOutput"]["permissionDecision"] == "allow"

    view = bash(command, tmp_path)
    assert view.returncode == 0, view.stderr
    assert count_tokens(view.stdout) <= 2_100
    assert "100000" in view.stdout.split("\n")
    found = _SHELL_LINE.search(view.stdout)
    assert found, view.stdout[-600:]
    line = found.group(1)
    assert line.startswith("wuu saved log-"), line
    assert "read_saved(" not in view.stdout

    more = bash(line, tmp_path)  # the printed line, run by the agent's shell, prints the continued view
    assert more.returncode == 0, more.stderr
    start = int(re.search(r"--start-line (\d+)", line).group(1))
    assert f"{start}\t{start}" in more.stdout.split("\n")

    # Run through the hook, as the agent's next shell call is, its view continues in shell lines too.
    payload["tool_input"]["command"] = line
    again = _rewritten(agent, json.loads(hook(agent, json.dumps(payload)).stdout))
    assert again.endswith(line) and "WUU_CONTINUE_AS=shell" in again
    more = bash(again, tmp_path)
    assert f"{start}\t{start}" in more.stdout.split("\n")
    assert _SHELL_LINE.search(more.stdout) and "read_saved(" not in more.stdout

    # The printed line says that it reads from any line; the agent changes the one number it names.
    assert "# any line N: --start-line N" in line
    jump = bash(re.sub(r"--start-line \d+", "--start-line 50000", line), tmp_path)  # the same line, further on
    assert jump.returncode == 0, jump.stderr
    assert "50000\t50000" in jump.stdout.split("\n")


def test_the_session_id_becomes_wuu_session(tmp_path: Path) -> None:
    payload = json.loads(PAYLOADS["claude"].read_text())
    payload["session_id"] = "s 'quoted' $HOME"
    payload["tool_input"]["command"] = "echo $WUU_SESSION"
    command = _rewritten("claude", json.loads(hook("claude", json.dumps(payload)).stdout))
    assert "s 'quoted' $HOME" in bash(command, tmp_path).stdout


def test_codex_in_its_approval_mode_is_left_to_codex_unless_allowed(tmp_path: Path) -> None:
    payload = (FIXTURES / "codex" / "pretooluse-bash-default.json").read_text()
    out = hook("codex", payload)
    assert (out.returncode, out.stdout) == (0, "")
    reply = json.loads(hook("codex", payload, "--allow").stdout)
    assert reply["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert "wuu" in reply["hookSpecificOutput"]["updatedInput"]["command"]


def test_claude_in_bypass_mode_gets_allow() -> None:
    payload = json.loads(PAYLOADS["claude"].read_text())
    payload["permission_mode"] = "bypassPermissions"
    reply = json.loads(hook("claude", json.dumps(payload)).stdout)["hookSpecificOutput"]
    assert reply["permissionDecision"] == "allow"


MALFORMED = ["", "   ", "not json", "[1, 2]", "null", '{"tool_name": "Bash"}', '{"tool_input": {"command": "ls"}}']
MALFORMED += ['{"tool_name": "Bash", "tool_input": {"command": 5}}', "\udcff"]


@pytest.mark.parametrize("agent", list(AGENTS))
@pytest.mark.parametrize("stdin", MALFORMED)
def test_malformed_input_never_blocks(agent: str, stdin: str) -> None:
    proc = subprocess.run(
        [str(WUU), "hook", agent], input=stdin.encode("utf-8", "surrogateescape"), capture_output=True, timeout=60
    )
    assert proc.returncode == 0
    assert proc.stdout.decode() == (AGENTS[agent].no_decision + "\n" if AGENTS[agent].no_decision else "")


@pytest.mark.parametrize(
    "path",
    [FIXTURES / "claude" / "pretooluse-write.json", FIXTURES / "cursor" / "beforeshellexecution.json"],
)
def test_calls_that_are_not_the_shell_tool_pass_through(path: Path) -> None:
    agent = path.parent.name
    out = hook(agent, path.read_text())
    assert out.returncode == 0
    assert out.stdout == (AGENTS[agent].no_decision + "\n" if AGENTS[agent].no_decision else "")


@pytest.mark.parametrize(
    "line",
    [
        "vim a.py",
        "less log.txt",
        "top",
        "ssh host",
        "python",
        "python3",
        "node",
        "sleep 5 &",
        "make > out 2>&1 &",
        "cd src",
        "export A=1",
        "source .venv/bin/activate",
        ". ./env.sh",
        "export A=1 && make",
        "wuu run 'make test'",
        "rtk git status",
        "WUU_SESSION=x wuu saved log-1",
        "echo 'unbalanced",
        'echo "unbalanced',
        "tail -f app.log",
        "docker run -it ubuntu bash",
        "sudo vim /etc/hosts",
        "",
        "   ",
    ],
)
def test_lines_left_as_they_are(line: str) -> None:
    assert rewrite(line, "wuu", "s") is None


@pytest.mark.parametrize(
    "line",
    [
        "echo 'it''s' \"$HOME\" \\$HOME `echo tick` $(echo sub)",
        "printf '%s\\n' 'a b' \"c  d\"; echo done",
        'x=1; echo $x ${x} "$x"',
        "echo one\necho two\n",
        "cat <<'EOF'\nit's $HOME, don't expand\nEOF",
        "cat <<EOF | tr a-z A-Z\nhome is set: ${HOME:+yes}\nEOF",
        "echo 'héllo wörld ✓ 日本語 🚀'",
        "echo a && echo b || echo c",
        "for i in 1 2 3; do echo $i; done",
        "python3 -c 'print(\"py\")'",
        'echo "tab\there" | cat -A',
        "false; echo status=$?",
    ],
)
def test_the_rewritten_line_runs_exactly_the_original(line: str, tmp_path: Path) -> None:
    command = rewrite(line, shlex.quote(str(WUU)), "q")
    assert command is not None
    want = bash(line, tmp_path)
    got = bash(command, tmp_path)
    # Each line exits 0 quickly with its whole output shown: the view is exactly what it printed.
    assert want.stdout.strip() and got.stdout.rstrip("\n") == want.stdout.rstrip("\n"), got.stdout


def test_a_lone_wuu_command_gets_the_session_and_shell_continuations() -> None:
    assert rewrite("/usr/local/bin/wuu read a.py", "wuu", "s1") == (
        "WUU_SESSION=s1 WUU_CONTINUE_AS=shell /usr/local/bin/wuu read a.py"
    )
    assert (
        rewrite("wuu saved log-1 --start-line 9", "wuu", None) == "WUU_CONTINUE_AS=shell wuu saved log-1 --start-line 9"
    )
    assert rewrite("wuu run 'make'", "wuu", "s1") is None


def test_leading_cd_stays_outside_so_the_directory_changes(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    command = rewrite("cd sub && pwd", shlex.quote(str(WUU)), None)
    assert command is not None and command.startswith("cd sub && ")
    out = bash(command + "; pwd", tmp_path)
    assert out.stdout.strip().endswith(f"{tmp_path}/sub")
    assert f"{tmp_path}/sub\n" in out.stdout
    (tmp_path / "my dir").mkdir()
    command = rewrite('cd "my dir"; pwd', shlex.quote(str(WUU)), None)
    assert command is not None and command.startswith('cd "my dir"; ')
    assert bash(command + "; pwd", tmp_path).stdout.strip().endswith(f"{tmp_path}/my dir")


@pytest.mark.parametrize("agent", list(AGENTS))
def test_init_writes_the_hook_once_and_uninstall_removes_only_it(agent: str, tmp_path: Path) -> None:
    spec = AGENTS[agent]
    first = subprocess.run([str(WUU), "init", agent], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    path = tmp_path / spec.project_file
    assert "added wuu's entry" in first.stdout
    settings = json.loads(path.read_text())
    (entry,) = settings["hooks"][spec.event]
    command = entry["command"] if spec.flat else entry["hooks"][0]["command"]
    assert entry["matcher"] == spec.matcher
    assert command == f"{WUU} hook {agent}"
    before = path.read_bytes()
    second = subprocess.run([str(WUU), "init", agent], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "nothing changed" in second.stdout and path.read_bytes() == before

    # The installed command is the hook: run as the agent runs it, with the recorded payload.
    reply = bash(command, tmp_path, env=_env())
    assert reply.returncode == 0
    out = subprocess.run(
        ["bash", "-c", command], input=PAYLOADS[agent].read_text(), capture_output=True, text=True, cwd=tmp_path
    )
    if agent != "codex" or json.loads(PAYLOADS[agent].read_text()).get("permission_mode") == "bypassPermissions":
        assert "seq 1 100000" in _rewritten(agent, json.loads(out.stdout))

    # Whatever else is there stays; uninstall takes away only wuu's entry.
    settings["hooks"][spec.event].insert(0, {"matcher": "X", "hooks": [{"type": "command", "command": "other"}]})
    settings["theme"] = "dark"
    path.write_text(json.dumps(settings))
    again = subprocess.run([str(WUU), "init", agent], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "nothing changed" in again.stdout
    gone = subprocess.run(
        [str(WUU), "init", agent, "--uninstall"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert "removed wuu's entry" in gone.stdout
    left = json.loads(path.read_text())
    assert left["theme"] == "dark"
    assert left["hooks"][spec.event] == [{"matcher": "X", "hooks": [{"type": "command", "command": "other"}]}]
    twice = subprocess.run(
        [str(WUU), "init", agent, "--uninstall"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert "nothing changed" in twice.stdout


def test_init_global_writes_the_users_file_and_leaves_a_broken_file_alone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**_env(), "HOME": str(home)}
    env.pop("CODEX_HOME", None)
    out = subprocess.run([str(WUU), "init", "claude", "-g"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert out.returncode == 0 and (home / ".claude" / "settings.json").is_file()
    out = subprocess.run(
        [str(WUU), "init", "codex", "--global"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**env, "CODEX_HOME": str(tmp_path / "ch")},
    )
    assert out.returncode == 0 and (tmp_path / "ch" / "hooks.json").is_file()
    broken = tmp_path / ".gemini" / "settings.json"
    broken.parent.mkdir()
    broken.write_text("{not json")
    out = subprocess.run([str(WUU), "init", "gemini"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert out.returncode == 1 and "left as it is" in out.stderr and broken.read_text() == "{not json"


def test_continuations_map_to_declared_options() -> None:
    from wuu_tools.cli import MODULES
    from wuu_tools.cli.continuations import COMMANDS as SHELL
    from wuu_tools.cli.params import COMMANDS

    for module in set(MODULES.values()):
        __import__(f"wuu_tools.cli.{module}")
    import inspect

    for tool, (name, _positional, options) in SHELL.items():
        declared = {d for p in inspect.signature(COMMANDS[(name,)].fn).parameters.values() for d in p.default.decls}
        assert set(options.values()) <= declared, tool


def test_a_file_continuation_prints_as_wuu_read_and_runs(tmp_path: Path) -> None:
    big = tmp_path / "big file.txt"
    big.write_text("".join(f"row {i}\n" for i in range(1, 20_001)))
    out = subprocess.run(
        [str(WUU), "read", str(big)], capture_output=True, text=True, env=_env(WUU_CONTINUE_AS="shell"), cwd=tmp_path
    )
    found = _SHELL_LINE.search(out.stdout)
    assert found and found.group(1).startswith("wuu read "), out.stdout[-400:]
    more = bash(found.group(1), tmp_path)
    start = int(re.search(r"--start-line (\d+)", found.group(1)).group(1))
    assert f"row {start}" in more.stdout


def test_options_after_a_shell_line_are_wuus(tmp_path: Path) -> None:
    out = subprocess.run(
        [str(WUU), "run", "seq 1 5000", "--budget", "200", "--json"], capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["tokens"] <= 200 and result["meta"]["exit_code"] == 0
    hint = subprocess.run([str(WUU), "run", "echo hi", "--no-such"], capture_output=True, text=True, cwd=tmp_path)
    assert hint.returncode == 127
    assert "give the shell line as one argument: wuu run 'echo hi --no-such'" in hint.stderr
    late = subprocess.run([str(WUU), "run", "ls", "/no/such/dir", "-b", "50"], capture_output=True, text=True)
    assert late.returncode != 0
    assert "-b 50 came after the command" in late.stderr


def test_hook_latency_is_small() -> None:
    payload = PAYLOADS["claude"].read_text()
    hook("claude", payload)  # warm the file cache
    times = []
    for _ in range(3):
        start = time.perf_counter()
        assert hook("claude", payload).returncode == 0
        times.append(time.perf_counter() - start)
    assert min(times) < 1.0, times


def test_a_failing_log_view_names_only_shell_lines_and_its_search_runs(tmp_path: Path) -> None:
    line = 'for i in $(seq 1 5000); do echo "step $i ok"; done; echo "ERROR: boom in x.py:3" >&2; exit 1'
    view = subprocess.run(
        [str(WUU), "run", line], capture_output=True, text=True, env=_env(WUU_CONTINUE_AS="shell"), cwd=tmp_path
    )
    assert view.returncode == 1
    assert not re.search(r"\b(read_saved|read_file|list_dir)\(", view.stdout), view.stdout[-800:]
    lines = [m.group(1) for m in _SHELL_LINE.finditer(view.stdout)]
    assert lines and all(w.startswith("wuu saved log-") for w in lines)
    for printed in lines:
        out = bash(printed, tmp_path)
        assert out.returncode in (0, 1), (printed, out.stderr)  # 1: a search that matched nothing, as grep
        assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("agent", "where"),
    [
        ("claude", ("hookSpecificOutput", "permissionDecision")),
        ("gemini", ("decision",)),
        ("cursor", ("permission",)),
    ],
)
def test_allow_approves_the_rewritten_line_and_init_allow_replaces_the_entry(
    agent: str, where: tuple[str, ...], tmp_path: Path
) -> None:
    payload = PAYLOADS[agent].read_text()
    plain, allowed = json.loads(hook(agent, payload).stdout), json.loads(hook(agent, payload, "--allow").stdout)
    node: Any = allowed
    for key in where:
        node = node[key]
    assert node == "allow"
    assert where[-1] not in (plain.get(where[0], {}) if len(where) > 1 else plain)
    assert _rewritten(agent, plain) == _rewritten(agent, allowed)

    run = [str(WUU), "init", agent, "--allow"]
    assert "added" in subprocess.run(run, cwd=tmp_path, capture_output=True, text=True).stdout
    again = subprocess.run(run[:-1], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "replaced wuu's entry" in again
    text = (tmp_path / AGENTS[agent].project_file).read_text()
    assert f"hook {agent}" in text and "--allow" not in text


def test_an_unknown_agent_in_a_hook_never_blocks_the_command() -> None:
    """Exit 2 from a hook blocks the tool call in Claude Code and Gemini CLI; a misnamed agent must not."""
    r = hook("claud", PAYLOADS["claude"].read_text())
    assert r.returncode == 1 and "unknown agent 'claud'" in r.stderr and r.stdout == ""
