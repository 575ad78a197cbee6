"""Content must never drive the terminal: every printing command, on a pty, with and without NO_COLOR.

The content holds a window-title OSC, a screen clear, a DCS request, an OSC 8 link, an OSC 52
clipboard write (BEL-terminated), a bell, a backspace, and the 8-bit C1 forms of CSI and OSC.
On a terminal wuu may write only its own colours (SGR, ``ESC [ … m``); with ``NO_COLOR`` not
one escape; and never a C0 control but tab, newline and carriage return (the pty's own line
ending), nor a C1 control.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import termios
from pathlib import Path

import pytest
from _faults import Marked, wuu_argv

HOSTILE = (
    "title \x1b]2;PWNED\x1b\\ clear \x1b[2J dcs \x1bP+q544e\x1b\\ link \x1b]8;;http://x\x1b\\here\x1b]8;;\x1b\\ "
    "clip \x1b]52;c;ZXZpbA==\x07 bell \x07 back\x08space c1csi \u009b2J c1osc \u009d0;T\u009c end"
)
SGR = re.compile(r"\x1b\[[0-9;]*m")
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def on_a_terminal(argv: list[str], env: dict[str, str], cwd: Path, stdin: bytes | None = None, cols: int = 120) -> str:
    """What ``argv`` writes to a pty ``cols`` wide (stdout and stderr both)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    with subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
    ) as proc:
        os.close(slave)
        if stdin is not None:
            assert proc.stdin is not None
            proc.stdin.write(stdin)
            proc.stdin.close()
        seen = bytearray()
        while True:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        proc.wait(timeout=60)
    os.close(master)
    return seen.decode("utf-8", "replace")


@pytest.fixture
def sources(tmp_path: Path, tree: Marked) -> dict[str, str]:
    content = "".join(f"line {n}: {HOSTILE}\n" for n in range(1, 4))
    (tmp_path / "e.txt").write_text(content)
    chat = [{"role": "user", "content": f"please {HOSTILE}"}, {"role": "assistant", "content": f"ok {HOSTILE}"}]
    (tmp_path / "chat.json").write_text(json.dumps(chat))
    names = tmp_path / "names"
    names.mkdir()
    for name in ("t\x1b]2;PWNED\x07x", "c1\u009b2Jy", "bell\x07z"):
        (names / name).write_text("x\n")
    saved = subprocess.run(
        wuu_argv("project", "--json", "--kind", "text"), input=content.encode(), env=tree.env, capture_output=True
    )
    assert saved.returncode == 0, saved.stderr
    ref = json.loads(saved.stdout)["source"] or ""
    if not ref:  # small enough to be shown whole: save it through a command instead
        run = subprocess.run(
            wuu_argv("run", "--json", "--", "cat", "e.txt"), cwd=tmp_path, env=tree.env, capture_output=True
        )
        ref = json.loads(run.stdout)["source"]
    return {"ref": ref, "dir": str(tmp_path), "content": content}


COMMANDS = {
    "read": ["read", "e.txt"],
    "saved": ["saved", "{ref}"],
    "saved --raw": ["saved", "{ref}", "--raw"],
    "saved --pattern": ["saved", "{ref}", "--pattern", "clip"],
    "run": ["run", "--", "cat", "e.txt"],
    "run (fails)": ["run", "--", "sh", "-c", "cat e.txt; exit 3"],
    "conv": ["conv", "chat.json"],
    "ls": ["ls", "names"],
    "project": ["project", "--kind", "text"],
    "call": ["call", "read_file", '{"path": "e.txt"}'],
    "read --json": ["read", "e.txt", "--json"],
    "error": ["read", "no\x1b]2;PWNED\x07such\u009b2J"],
}


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_content_reaches_the_terminal_raw(
    command: str, no_color: bool, sources: dict[str, str], tree: Marked
) -> None:
    argv = wuu_argv(*(a.replace("{ref}", sources["ref"]) for a in COMMANDS[command]))
    env = {k: v for k, v in tree.env.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update({"TERM": "xterm-256color", "COLUMNS": "120", **({"NO_COLOR": "1"} if no_color else {})})
    stdin = sources["content"].encode() if command == "project" else None
    out = on_a_terminal(argv, env, Path(sources["dir"]), stdin)
    assert "PWNED" in out or "clip" in out or "no" in out, out  # something was printed
    rest = SGR.sub("", out) if not no_color else out
    if no_color:
        assert "\x1b" not in out, repr(out[:400])
    assert "\x1b" not in rest, repr(out[:400])  # only wuu's own colours
    bad = FORBIDDEN.findall(rest.replace("\r\n", "\n"))
    assert not bad, (bad[:5], repr(out[:400]))


def test_raw_bytes_stay_exact_in_a_pipe(sources: dict[str, str], tree: Marked) -> None:
    piped = subprocess.run(wuu_argv("saved", sources["ref"], "--raw"), env=tree.env, capture_output=True, timeout=60)
    assert piped.returncode == 0
    assert "\x1b]52;c;ZXZpbA==\x07" in piped.stdout.decode()  # for a pipe or a file: the stored bytes


def test_a_name_too_wide_for_the_terminal_is_cut_in_the_middle_and_marked(tmp_path: Path, tree: Marked) -> None:
    for end in ("A", "B"):
        (tmp_path / ("n" * 103 + end)).write_text("x\n")
    env = {k: v for k, v in tree.env.items() if k not in ("NO_COLOR", "COLUMNS")}
    out = on_a_terminal(wuu_argv("ls"), {**env, "TERM": "xterm-256color"}, tmp_path, cols=80)
    entries = [SGR.sub("", line) for line in out.replace("\r\n", "\n").split("\n") if "nnnn" in line]
    assert len(entries) == 2 and entries[0] != entries[1], entries  # was: two identical lines
    for line, end in zip(entries, ("A", "B"), strict=True):
        assert "…" in line and f"{end}  (" in line and len(line) <= 80, line
