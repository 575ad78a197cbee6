"""rtk 1.1.0 as a peer in the replay: what a Claude Code user with rtk's hook would have been shown.

Each recorded command goes through ``rtk rewrite CMD`` (exit 0 or 3: rewritten; 1: left alone). A
rewritten command's recorded output goes through ``rtk pipe -f FILTER``, the filter of the rtk
command it was rewritten to (``rtk pytest`` → ``pytest``, ``rtk git log`` → ``git-log``, …), or,
for a file read (``rtk read F``, and Claude Code's Read), through ``rtk read`` of the file rebuilt
from the output; a rewritten command whose rtk command has no pipe filter, and every command rtk
leaves alone, passes through as printed, as rtk's hook leaves it. rtk runs with a private HOME and
XDG folders (it records nothing in the user's), and its answers are memoized by command and output.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .runs import Output, read_of

__all__ = ["FILTERS", "rtk_available", "rtk_view"]

FILTERS: dict[tuple[str, ...], str] = {
    ("pytest",): "pytest",
    ("cargo", "test"): "cargo-test",
    ("go", "test"): "go-test",
    ("go", "build"): "go-build",
    ("ctest",): "ctest",
    ("tsc",): "tsc",
    ("vitest",): "vitest",
    ("grep",): "grep",
    ("rg",): "rg",
    ("find",): "find",
    ("fd",): "fd",
    ("git", "log"): "git-log",
    ("git", "diff"): "git-diff",
    ("git", "status"): "git-status",
    ("log",): "log",
    ("mypy",): "mypy",
    ("ruff", "check"): "ruff-check",
    ("ruff", "format"): "ruff-format",
    ("prettier",): "prettier",
    ("phpunit",): "phpunit",
    ("phpstan",): "phpstan",
}
"""rtk commands (after ``rtk``) and the ``rtk pipe`` filter that shrinks their output."""
_RTK_CALL = re.compile(r"(?:^|&&|;|\|\||\|)\s*rtk\s+([^|;&]*)")
TIMEOUT_S = 20


@functools.cache
def _rtk() -> str | None:
    beside = Path(sys.executable).parent / "rtk"  # (installed in the venv that runs the replay)
    return str(beside) if beside.is_file() else shutil.which("rtk")


def rtk_available() -> bool:
    return _rtk() is not None


@functools.cache
def _home() -> str:
    home = tempfile.mkdtemp(prefix="wuu-replay-rtk-")
    for sub in ("config", "data", "cache"):
        os.makedirs(os.path.join(home, sub), exist_ok=True)
    return home


def _env() -> dict[str, str]:
    home = _home()
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "XDG_CONFIG_HOME": f"{home}/config",
        "XDG_DATA_HOME": f"{home}/data",
        "XDG_CACHE_HOME": f"{home}/cache",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "RTK_TELEMETRY": "0",
    }


def _call(args: list[str], stdin: str = "", cwd: str | None = None) -> tuple[int, str]:
    rtk = _rtk()
    assert rtk is not None
    try:
        done = subprocess.run(
            [rtk, *args],
            input=stdin.encode("utf-8", "surrogateescape"),
            capture_output=True,
            env=_env(),
            cwd=cwd,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return 124, ""
    return done.returncode, done.stdout.decode("utf-8", "replace")


@functools.lru_cache(maxsize=20_000)
def rewrite(command: str) -> str | None:
    """rtk's rewrite of ``command``, or None when rtk leaves it alone."""
    if not command.strip():
        return None
    code, out = _call(["rewrite", command])
    out = out.strip()
    return out if code in (0, 3) and out and out != command.strip() else None


def filter_of(rewritten: str) -> str | None:
    """The ``rtk pipe`` filter of the first rtk command in ``rewritten`` (``read`` for ``rtk read``), or None."""
    m = _RTK_CALL.search(rewritten)
    if m is None:
        return None
    words = m.group(1).split()
    if words and words[0] == "read":
        return "read"
    for size in (2, 1):
        f = FILTERS.get(tuple(words[:size]))
        if f is not None:
            return f
    return None


@functools.lru_cache(maxsize=50_000)
def _piped(filter_name: str, digest: str, text: str) -> str:
    code, out = _call(["pipe", "-f", filter_name], stdin=text)
    return out if code == 0 else text


def _read(out: Output, folder: Path) -> str | None:
    spec = read_of(out)
    if spec is None or not spec.lines:
        return None
    rel = os.path.basename(spec.path.rstrip("/")) or "file.txt"
    path = folder / rel
    path.write_text("\n".join(spec.lines) + "\n", encoding="utf-8", errors="surrogateescape")
    code, shown = _call(["read", rel], cwd=str(folder))
    return shown if code == 0 else None


def rtk_view(out: Output, folder: Path) -> tuple[str, str | None]:
    """What rtk's hook would have shown for ``out``, and the filter that made it (None: passed through)."""
    if out.tool == "Read":
        shown = _read(out, folder)
        return (shown, "read") if shown is not None else (out.text, None)
    if out.tool not in ("bash", "Bash"):
        return out.text, None
    rewritten = rewrite(out.command)
    if rewritten is None:
        return out.text, None
    name = filter_of(rewritten)
    if name is None:
        return out.text, None
    if name == "read":
        shown = _read(out, folder)
        return (shown, "read") if shown is not None else (out.text, None)
    digest = hashlib.blake2b(out.text.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
    return _piped(name, digest, out.text), name
