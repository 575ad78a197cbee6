"""`wuu run` as a person types it at a terminal: shell lines, the live status on a real pty, timeouts.

The live status is checked on a real pseudo-terminal (``pty``): stderr is the pty, stdout a
pipe, and the saved log is read back from the store, so the test sees exactly what a person's
terminal, a pipe reader and a later ``read_saved`` would see.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from wuu_tools import read_saved

WUU = Path(sys.executable).with_name("wuu")
SLOW = "for i in $(seq 1 25); do echo step $i of a build that prints a long line every 0.1 s; sleep 0.1; done"


def wuu(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(WUU), *args], capture_output=True, text=True, timeout=120, cwd=cwd, env={**os.environ, **(env or {})}
    )


def test_one_argument_with_shell_syntax_runs_as_a_shell_line(tmp_path: Path) -> None:
    r = wuu("run", "echo first && echo second | tr s S")
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert r.stdout == "first\nSecond\n"  # a quick success: its output as printed, no verdict line
    assert wuu("run", "test 1 = 2").returncode == 1
    exact = wuu("run", "--", "echo first")  # after -- the argv is exact: a program named "echo first"
    assert exact.returncode == 127 and "echo first: command not found" in exact.stdout
    assert "leave out --" in exact.stderr  # and says how to run it as a shell line
    tool = tmp_path / "my tools" / "say hi.sh"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho hi from the tool\n")
    tool.chmod(0o755)
    own = wuu("run", "--cwd", str(tmp_path), "my tools/say hi.sh")  # an executable path is run as it is
    assert own.returncode == 0 and "hi from the tool" in own.stdout, own.stdout
    as_json = json.loads(wuu("run", "--json", "echo a; echo b").stdout)
    assert as_json["meta"]["exit_code"] == 0 and as_json["text"].endswith("\nb")


def test_a_command_line_with_a_byte_that_is_not_utf8_runs(tmp_path: Path) -> None:
    """An argument holding an undecodable byte (a file name in Latin-1, say) runs and its log is saved."""
    for argv in ([b"run", b"printf 'x\\xff\\n'; echo \xff"], [b"run", b"echo", b"\xff"]):
        r = subprocess.run(
            [bytes(WUU), *argv], capture_output=True, timeout=120, cwd=tmp_path, env={**os.environ, "WUU_SESSION": "b1"}
        )
        assert r.returncode == 0, r.stderr.decode(errors="replace")
        assert b"Traceback" not in r.stderr and r.stdout.startswith(b"[exit 0")
        assert "\ufffd" in r.stdout.decode()  # the byte the program printed, shown as U+FFFD


def test_a_timeout_says_how_to_raise_it_and_zero_means_none() -> None:
    r = wuu("run", "--timeout", "0.5", "sleep 30")
    verdict = r.stdout.splitlines()[0]
    assert r.returncode == 124
    assert "timed out after 0.5 s" in verdict and "--timeout" in verdict and "WUU_TIMEOUT" in verdict
    by_env = wuu("run", "sleep 30", env={"WUU_TIMEOUT": "0.5"})
    assert by_env.returncode == 124 and "timed out after 0.5 s" in by_env.stdout
    none = wuu("run", "--timeout", "0", "sleep 1.5; echo done", env={"WUU_TIMEOUT": "0.5"})
    assert none.returncode == 0 and "\ndone\n" in none.stdout, none.stdout
    bad = wuu("run", "true", env={"WUU_TIMEOUT": "soon"})
    assert bad.returncode == 2 and "WUU_TIMEOUT" in bad.stderr


def _drain(master: int, proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Read the pty and the stdout pipe until the process ended and both are dry: (stdout, pty bytes)."""
    assert proc.stdout is not None
    out, seen = bytearray(), bytearray()
    fds = {master: seen, proc.stdout.fileno(): out}
    while fds:
        ready, _, _ = select.select(list(fds), [], [], 0.1)
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the pty's other side is closed
                chunk = b""
            if chunk:
                fds[fd] += chunk
            else:
                del fds[fd]
        if not ready and proc.poll() is not None:
            break
    proc.wait(timeout=30)
    return bytes(out), bytes(seen)


def _on_a_pty(args: list[str], columns: int) -> tuple[int, str, bytes]:
    """Run ``wuu ARGS`` with stderr on a pty ``columns`` wide and stdout on a pipe: (exit, stdout, pty bytes)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    with subprocess.Popen(
        [str(WUU), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=os.environ.copy()
    ) as proc:
        os.close(slave)
        out, seen = _drain(master, proc)
    os.close(master)
    return proc.returncode, out.decode(), seen


def test_live_status_on_a_terminal_stays_out_of_stdout_and_the_log() -> None:
    code, out, terminal = _on_a_pty(["run", "--json", SLOW], columns=60)
    assert code == 0
    drawn = [d for d in terminal.decode().split("\r\x1b[2K") if d]
    assert len(drawn) >= 5, terminal  # redrawn while the command ran (2.5 s, every 0.1 s after 0.5 s)
    assert all(d.startswith("wuu run · ") and len(d) <= 59 for d in drawn), drawn  # cut to the width
    assert any(re.search(r" s · \d+ lines · \d+ B · step \d+ of a", d) for d in drawn), drawn
    assert terminal.endswith(b"\r\x1b[2K"), terminal[-80:]  # erased before the view
    result = json.loads(out)  # stdout is exactly the envelope: nothing of the status
    assert "wuu run ·" not in out and result["meta"]["exit_code"] == 0
    log = read_saved(result["source"], budget=8000)
    assert "wuu run ·" not in log.text and "\x1b" not in log.text
    assert log.meta["total_lines"] == 25


def test_no_live_status_without_a_terminal() -> None:
    r = wuu("run", "sleep 0.8; echo done")
    assert r.returncode == 0 and r.stderr == ""
    assert "wuu run ·" not in r.stdout


def test_a_quick_command_leaves_the_terminal_clean() -> None:
    code, out, terminal = _on_a_pty(["run", "echo quick"], columns=80)
    assert code == 0 and out == "quick\n"
    assert terminal == b"" or terminal.endswith(b"\r\x1b[2K")  # usually nothing; on a loaded machine, erased


def test_interrupted_run_erases_its_status() -> None:
    master, slave = pty.openpty()
    with subprocess.Popen(
        [str(WUU), "run", "sleep 20"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave
    ) as proc:
        os.close(slave)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        _, seen = _drain(master, proc)
    os.close(master)
    assert b"wuu run \xc2\xb7" in seen
    assert seen.rfind(b"\r\x1b[2K") > seen.rfind(b"wuu run \xc2\xb7"), seen  # the last status was erased
    assert proc.returncode != 0


@pytest.mark.parametrize("columns", [20, 200])
def test_status_fits_any_width(columns: int) -> None:
    _, _, terminal = _on_a_pty(["run", "--timeout", "0", "sleep 0.7; echo x"], columns=columns)
    drawn = [d for d in terminal.decode().split("\r\x1b[2K") if d and "wuu run" in d]
    assert drawn and all(len(d) <= columns - 1 for d in drawn), drawn


def test_a_terminal_with_no_size_set_gets_a_readable_status() -> None:
    """A pty whose size was never set reports 0 columns (``script``, some CI runners): 80 are assumed."""
    _, _, terminal = _on_a_pty(["run", "--timeout", "0", "sleep 0.8; echo x"], columns=0)
    drawn = [d for d in terminal.decode().split("\r\x1b[2K") if d and "wuu run" in d]
    assert drawn and all(re.match(r"wuu run · \d+\.\d s · ", d) for d in drawn), drawn
