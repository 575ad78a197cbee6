"""`wuu read`, `wuu saved` and `wuu --version` as a user runs them: a real process, piped output."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests._cli import wuu
from wuu_tools.core.store import Store


@pytest.fixture
def big(tmp_path: Path) -> Path:
    f = tmp_path / "big.txt"
    f.write_text("".join(f"line number {i}\n" for i in range(1, 20001)))
    return f


def test_version() -> None:
    r = wuu("--version")
    assert r.returncode == 0 and r.stdout.startswith("wuu-tools ")


def test_piped_output_is_the_exact_text(big: Path) -> None:
    from wuu_tools import read_file

    r = wuu("read", str(big), "--budget", "300")
    assert r.returncode == 0
    assert r.stdout == read_file(str(big), budget=300).text + "\n"


def test_json_envelope_and_pasted_continuation(big: Path) -> None:
    r = wuu("read", str(big), "--json")
    env = json.loads(r.stdout)
    assert set(env) == {"text", "complete", "continuation", "source", "revision", "tokens", "attachments", "meta"}
    args = env["continuation"]["args"]
    r2 = wuu(
        "read",
        args["path"],
        "--start-line",
        str(args["start_line"]),
        "--end-line",
        str(args["end_line"]),
        "--revision",
        args["revision"],
        "--json",
    )
    env2 = json.loads(r2.stdout)
    assert env2["meta"]["shown"][0][0] == args["start_line"]


def test_bad_arguments_exit_2_with_one_line(big: Path) -> None:
    r = wuu("read", str(big), "--start-line", "0")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "start_line" in r.stderr
    r = wuu("read", str(big), "--budget", "5")
    assert r.returncode == 2 and "budget" in r.stderr


def test_missing_file_exits_1_with_one_line(tmp_path: Path) -> None:
    r = wuu("read", str(tmp_path / "nope"))
    assert r.returncode == 1 and r.stderr.strip() == f"wuu: {tmp_path / 'nope'}: no such file or directory"


def test_saved_with_pattern(store_dir: Path) -> None:
    ref = Store(store_dir).save("ok\nfatal: bad object\nok\n", "log")
    r = wuu("saved", ref, "--pattern", "fatal")
    assert r.returncode == 0 and "2:\tfatal: bad object" in r.stdout
    r = wuu("saved", "../../etc/passwd")
    assert r.returncode == 2 and "not a saved-result reference" in r.stderr


def test_terminal_output_uses_rich(big: Path) -> None:
    pytest.importorskip("pty")
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # child: run the CLI on a terminal
        os.execv(sys.executable, [sys.executable, "-m", "wuu_tools.cli", "read", str(big), "--budget", "200"])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    text = out.decode()
    assert "\x1b[" in text  # styled
    assert "line number 1" in text and "read_file(path=" in text
