"""How views look on a real terminal (a pty as stdout): evidence stands out, NO_COLOR and pipes stay plain."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

WUU = Path(sys.executable).with_name("wuu")
ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "fixtures" / "build.sh"
SGR = re.compile(r"\x1b\[([0-9;]*)m([^\x1b]*)")


def on_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """What ``wuu ARGS`` prints with stdout on a 200-column pty."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update({"TERM": "xterm-256color", "COLUMNS": "200", **(env or {})})
    with subprocess.Popen(
        [str(WUU), *args], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL, env=environ, cwd=ROOT
    ) as proc:
        os.close(slave)
        seen = bytearray()
        while True:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the other side closed
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        proc.wait(timeout=60)
    os.close(master)
    return seen.decode()


def styles_of(output: str, needle: str) -> set[str]:
    """The SGR codes in force for the printed segment that contains ``needle``."""
    codes: set[str] = set()
    for params, text in SGR.findall(output):
        parts = set(params.split(";")) if params else {"0"}
        codes = set() if "0" in parts else codes
        codes |= parts - {"0", "39", "49"}
        if needle in text:
            return codes
    raise AssertionError(f"{needle!r} not printed in {output!r}")


def test_evidence_stands_out_and_the_rest_is_dim() -> None:
    out = on_a_terminal("run", "--budget", "400", "--", "sh", str(BUILD))
    error = styles_of(out, "SOCK_NONBLOCKING undeclared")
    assert "1" in error and "2" not in error, error  # the evidence line: bold, not dim
    context = styles_of(out, "linking 1\r")
    assert "2" not in context, context  # its context keeps the terminal's colour
    assert "2" in styles_of(out, "linking 500"), out  # the tail: dim
    assert "2" in styles_of(out, "compiling unit 1")  # the head: dim


def test_a_files_lines_are_not_dimmed() -> None:
    out = on_a_terminal("read", "fixtures/build.sh")
    assert "2" not in styles_of(out, "#!/bin/sh") and "2" not in styles_of(out, "compiling unit $i")
    assert "2" in styles_of(out, "17")  # only the line numbers are


def test_no_color_and_pipes_stay_plain() -> None:
    piped = subprocess.run(
        [str(WUU), "read", "fixtures/build.sh"], capture_output=True, text=True, cwd=ROOT, timeout=60
    ).stdout
    assert "\x1b" not in piped and "\tcompiling unit" not in piped.split("\n")[0]
    no_color = on_a_terminal("read", "fixtures/build.sh", env={"NO_COLOR": "1"})
    assert "\x1b" not in no_color
    assert no_color.replace("\r\n", "\n") == piped  # the exact text, as when piped
    dumb = on_a_terminal("run", "--", "sh", str(BUILD), env={"TERM": "dumb"})
    assert "\x1b" not in dumb and "SOCK_NONBLOCKING" in dumb
