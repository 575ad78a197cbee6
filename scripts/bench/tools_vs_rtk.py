"""The ``tools-vs-rtk`` benchmark of ``scripts/bench.py``: views of real commands beside rtk's (issue 33).

Each command runs three times on the same input, each in a fresh copy of it: as printed (stdout
and stderr together), as rtk 1.1.0's hook would run it (``rtk rewrite CMD``, then the rewritten
line; a command rtk leaves alone prints as printed), and under ``wuu run CMD`` (the first view).
The commands, on real projects:

- ``pytest -v`` of this project's own suite (two test files, passing), and of a small file with
  two failing tests among 30;
- ``git log -n 20`` and ``git status`` in a local clone of this repository (two files changed, three
  untracked);
- ``pip install rich`` from the package registry into a new virtual environment (the download is
  made once beforehand, so every side reads the same ``Using cached`` output);
- ``ruff check`` of a file with four errors.

For each: the tokens of each view and what it keeps of what the agent reads next in such an
output, checked on the raw output: the failing tests' names and their ``assert`` lines, the
summary line, the commit hashes and full subjects, the changed and untracked files' names, the
installed packages, each diagnostic's ``file:line:col``. A row's target is that wuu keeps all of
it; the tokens beside rtk's are information.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .support import Ctx, Row, unavailable, wuu_argv

__all__ = ["bench_tools_vs_rtk"]

ROOT = Path(__file__).resolve().parents[2]
FAILING = "\n".join(
    [
        "import pytest",
        "",
        "",
        "@pytest.mark.parametrize('n', range(28))",
        "def test_square(n):",
        "    assert n * n >= n",
        "",
        "",
        "def test_parse_header():",
        "    header = {'version': '1.0'}",
        "    assert header.get('encoding') == 'utf-8'",
        "",
        "",
        "def test_total():",
        "    prices = [3, 4, 5]",
        "    print('prices', prices)",
        "    assert sum(prices) == 13",
        "",
    ]
)
BAD_PY = "import os\nimport sys\n\n\ndef f(x):\n    y = 1\n    return undefined_name + x\n\n\nprint(f'{1}')\n"


@dataclass
class Case:
    """One command: its shell line, the folder it runs in, and the strings of its raw output a view should keep."""

    name: str
    command: str
    cwd: Path
    wants: Callable[[str], list[str]]
    prepare: Callable[[], None] | None = None  # run before each of the three runs (a fresh environment)
    path_first: Path | None = None  # a bin folder put first on PATH (the new virtual environment's)


def _sh(command: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> str:
    done = subprocess.run(
        command, shell=True, cwd=cwd, env=env, capture_output=True, timeout=timeout, check=False, text=True
    )
    return done.stdout + done.stderr


def _rtk_line(rtk: str, command: str, env: dict[str, str]) -> str:
    done = subprocess.run([rtk, "rewrite", command], capture_output=True, text=True, env=env, check=False)
    out = done.stdout.strip()
    return out if done.returncode in (0, 3) and out else command


def _tokens(text: str) -> int:
    from wuu_tools.core.budget import count_tokens

    return count_tokens(text)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _cases(tmp: Path) -> list[Case]:
    work = tmp / "rtk-bench"
    work.mkdir()
    (work / "test_mixed.py").write_text(FAILING)
    (work / "bad.py").write_text(BAD_PY)
    repo = work / "repo"
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(repo)], check=True)
    for rel in ("README.md", "CHANGELOG.md"):
        with (repo / rel).open("a") as fh:
            fh.write("\nedited\n")
    for rel in ("notes.txt", "scratch.py", "docs/draft.md"):
        (repo / rel).write_text("new\n")
    venv = work / "venv"

    def fresh_venv() -> None:
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)

    def failing(raw: str) -> list[str]:
        names = re.findall(r"^FAILED \S+::(\w+)", raw, re.M)
        asserts = [m.strip() for m in re.findall(r"^E\s+(assert .*)$", raw, re.M)]
        return names + asserts + _summary(raw)

    def hashes(_: str) -> list[str]:
        pairs = [line.partition("\t") for line in _git(repo, "log", "-n", "20", "--format=%h%x09%s").splitlines()]
        return [h for h, _, _ in pairs] + [subject for _, _, subject in pairs]

    def status(_: str) -> list[str]:
        return ["README.md", "CHANGELOG.md", "notes.txt", "scratch.py", "docs/"]

    def installed(raw: str) -> list[str]:
        m = re.search(r"^Successfully installed (.*)$", raw, re.M)
        return ["Successfully installed", *(m.group(1).split() if m else ["(no install line)"])]

    def diagnostics(raw: str) -> list[str]:
        return re.findall(r"bad\.py:\d+:\d+", raw) + _summary(raw)

    return [
        Case(
            "pytest -v (passing, this project's suite)",
            "pytest -v -p no:cacheprovider tests/test_tool_views_git.py tests/test_tool_views_install.py",
            ROOT,
            _summary,
        ),
        Case("pytest (2 failing of 30)", "pytest -p no:cacheprovider test_mixed.py", work, failing),
        Case("git log -n 20", "git log -n 20", repo, hashes),
        Case("git status", "git status", repo, status),
        Case("pip install rich", "pip install --no-color rich", work, installed, fresh_venv, venv / "bin"),
        Case("ruff check", "ruff check --no-cache --isolated bad.py", work, diagnostics),
    ]


def _summary(raw: str) -> list[str]:
    """pytest's and ruff's verdict words: ``2 failed, 28 passed`` / ``Found 5 errors.``."""
    m = re.search(r"(\d+ (failed|passed)(, \d+ \w+)*)", raw.splitlines()[-1] if raw.strip() else "")
    found = re.search(r"^Found \d+ errors?\.", raw, re.M)
    return [x for x in (m.group(1) if m else None, found.group(0) if found else None) if x]


def _kept(view: str, wants: list[str]) -> int:
    return sum(1 for w in wants if w in view)


def bench_tools_vs_rtk(ctx: Ctx) -> list[Row]:
    bin_dir = Path(sys.executable).parent
    rtk = shutil.which("rtk", path=str(bin_dir)) or shutil.which("rtk")
    if rtk is None:
        return [unavailable("tools-vs-rtk", "views of real commands beside rtk's", "keeps all", "rtk not installed")]
    home = ctx.tmp / "rtk-home"
    for sub in ("config", "data", "cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "WUU_BUDGET"}
    env.update(
        PATH=f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}",
        HOME=str(home),
        XDG_CONFIG_HOME=f"{home}/config",
        XDG_DATA_HOME=f"{home}/data",
        XDG_CACHE_HOME=f"{home}/cache",
        NO_COLOR="1",
        RTK_TELEMETRY="0",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        COLUMNS="120",
    )
    try:
        cases = _cases(ctx.tmp)
    except (subprocess.CalledProcessError, OSError) as exc:
        return [unavailable("tools-vs-rtk", "views of real commands beside rtk's", "keeps all", str(exc))]
    wuu = " ".join(wuu_argv())
    rows: list[Row] = []
    for case in cases:
        case_env = dict(env)
        if case.path_first is not None:
            case_env["PATH"] = f"{case.path_first}:{env['PATH']}"
            assert case.prepare is not None
            case.prepare()
            _sh(case.command, case.cwd, case_env)  # the download, once: every side then reads the same output
        views: dict[str, str] = {}
        for side in ("raw", "rtk", "wuu"):
            if case.prepare is not None:
                case.prepare()
            line = case.command
            if side == "rtk":
                line = _rtk_line(rtk, case.command, case_env)
            elif side == "wuu":
                line = f"WUU_STORE={ctx.store()['WUU_STORE']} {wuu} run {_quote(case.command)}"
            views[side] = _sh(line, case.cwd, case_env)
        wants = case.wants(views["raw"])
        raw_t, rtk_t, wuu_t = (_tokens(views[s]) for s in ("raw", "rtk", "wuu"))
        kept = {s: _kept(views[s], wants) for s in ("raw", "rtk", "wuu")}
        rows.append(
            Row(
                "tools-vs-rtk",
                f"{case.name}: tokens (raw {raw_t:,}), kept of {len(wants)} checks",
                f"{wuu_t:,} tok, {kept['wuu']}/{len(wants)}",
                f"rtk {rtk_t:,} tok, {kept['rtk']}/{len(wants)}",
                f"{wuu_t / max(rtk_t, 1):.1f}× rtk",
                "keeps all",
                kept["wuu"] == len(wants),
            )
        )
    return rows


def _quote(command: str) -> str:
    import shlex

    return shlex.quote(command)
