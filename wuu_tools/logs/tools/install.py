"""Install and build progress: ``pip install``, ``npm install``/``run build``, ``cargo build``/``check``/``install``.

Folded into counted lines: pip's ``Collecting``, ``Downloading``, ``Using cached``, ``Requirement
already satisfied``, its progress bars, build-step lines (``Building wheel for x: started``), the
uninstall steps, the root-user warning and ``[notice]`` lines; npm's ``npm WARN deprecated``,
``npm notice`` and funding/audit hints, and in a build a warning that repeats one printed earlier;
cargo's ``Compiling``/``Checking``/``Downloaded``/``Updating`` lines. Kept as printed: every error
and warning of the program, pip's ``Successfully installed …``, npm's ``added N packages`` and
vulnerability count, cargo's ``Finished`` line, and whatever else the command printed (a script run
after ``pip install -q && python x.py`` keeps all its output).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from . import Plan, rule
from .noise import fold_noise, invocations, runs_tests

__all__ = ["cargo_rule", "npm_rule", "pip_rule"]

_PIP_NOISE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^\s*Collecting \S"), "Collecting line"),
    (re.compile(r"^\s*(Downloading|Using cached|Obtaining|Looking in indexes:|Processing) \S"), "download line"),
    (re.compile(r"^\s*[━╸╺\-\s]*[━╸╺]{3,}.*(eta|MB|kB|B/s)"), "progress bar"),
    (re.compile(r"^\s*\|[█▉▊▋▌▍▎▏ ]+\|"), "progress bar"),
    (re.compile(r"^\s*Requirement already satisfied: "), "Requirement already satisfied line"),
    (
        re.compile(
            r"^\s*(Installing build dependencies|Getting requirements to build|Preparing (editable )?metadata|"
            r"Installing backend dependencies|Building (editable|wheel) for|Created wheel for|Stored in directory:|"
            r"Running setup\.py|Building wheels for collected packages|Installing collected packages:|"
            r"Attempting uninstall:|Found existing installation:|Uninstalling |Successfully uninstalled |"
            r"Successfully built |Checking if build backend supports|Preparing (editable )?metadata)"
        ),
        "build step",
    ),
    (re.compile(r"^WARNING: Running pip as the 'root' user"), "pip root-user warning"),
    (re.compile(r"^\[notice\] "), "pip notice"),
    (re.compile(r"^Reshimming asdf "), "asdf line"),
]
_PIP_SUMMARY = re.compile(r"^(Successfully installed .*|ERROR: .*|error: .*)$")

_NPM_NOISE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^npm (WARN|warn) deprecated "), "npm WARN deprecated line"),
    (re.compile(r"^npm (notice|timing|http|sill|verb)\b"), "npm notice"),
    (re.compile(r"^\d+ packages? (is|are) looking for funding$|^\s+run `npm fund` for details$"), "funding hint"),
    (
        re.compile(r"^To address (all )?issues.*run:$|^\s+npm audit fix( --force)?$|^Run `npm audit` for details\.$"),
        "audit hint",
    ),
    (re.compile(r"^[⸨(][#░█ ]+[⸩)]|^[\\|/-] ?$"), "progress line"),
]
_NPM_SUMMARY = re.compile(r"^(added|removed|changed|up to date)\b.*(packages?|in \d).*$|^✓ built in .*$")

_CARGO_NOISE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^\s+(Compiling|Checking|Fresh|Documenting) \S+ v\d"), "Compiling line"),
    (re.compile(r"^\s+(Downloaded|Downloading|Updating|Locking|Adding|Blocking|Installing) "), "fetch line"),
    (re.compile(r"^\s+Downloaded \d+ crates?"), "fetch line"),
]
_CARGO_SUMMARY = re.compile(r"^\s+Finished .*$|^\s+Installed package .*$|^error: could not compile .*$")


_FAILED = re.compile(r"error|fail", re.I)


def _kinds(patterns: list[tuple[re.Pattern[str], str]]) -> Callable[[int, str], str | None]:
    def kind_of(_: int, line: str) -> str | None:
        if _FAILED.search(line):  # "finished with status 'error'": a step that failed is not progress
            return None
        for pattern, kind in patterns:
            if pattern.search(line):
                return kind
        return None

    return kind_of


def _last(lines: Sequence[str], pattern: re.Pattern[str]) -> str | None:
    for line in reversed(lines):
        if pattern.match(line):
            return line.strip()
    return None


def _runs(command: str | None, program: str, subs: Sequence[str]) -> bool:
    for words in invocations(command):
        if words[0] == program and len(words) > 1 and words[1] in subs:
            return True
        if words[0] == program and not subs:
            return True
    return False


@rule("pip install")
def pip_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for output of a command that runs ``pip install`` (``pip3``, ``python -m pip``, ``uv pip``)."""
    if not any(w[0] in ("pip", "pip3") and w[1:2] == ["install"] for w in invocations(command)):
        return None
    if runs_tests(command):
        return None
    return Plan("pip install", fold_noise(lines, _kinds(_PIP_NOISE)), _last(lines, _PIP_SUMMARY))


def _repeats(kind_of: Callable[[int, str], str | None], lines: Sequence[str]) -> Callable[[int, str], str | None]:
    """``kind_of`` that also names a warning line (and its ``More info`` line) repeating an earlier one."""
    seen: set[str] = set()
    repeated: set[int] = set()
    for i, line in enumerate(lines):
        text = line.strip()
        if len(text) > 20 and re.search(r"warn|deprecat", text, re.I):
            if text in seen:
                repeated.add(i)
                if i + 2 < len(lines) and not lines[i + 1].strip() and lines[i + 2].startswith("More info"):
                    repeated.update((i + 1, i + 2))
            seen.add(text)

    def kind(i: int, line: str) -> str | None:
        return "repeated warning line" if i in repeated else kind_of(i, line)

    return kind


@rule("npm")
def npm_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for ``npm install``/``i``/``ci``/``run build`` (and ``yarn``/``pnpm install``)."""
    build = _runs(command, "npm", ("run",)) and any(
        w[0] == "npm" and w[1:2] == ["run"] and w[2:3] and "build" in w[2] for w in invocations(command)
    )
    if not (build or any(_runs(command, p, ("install", "i", "ci", "add")) for p in ("npm", "pnpm", "yarn"))):
        return None
    if runs_tests(command):
        return None
    kind_of = _kinds(_NPM_NOISE)
    if build:
        kind_of = _repeats(kind_of, lines)
    return Plan("npm run build" if build else "npm install", fold_noise(lines, kind_of), _last(lines, _NPM_SUMMARY))


@rule("cargo build")
def cargo_rule(command: str | None, lines: Sequence[str], exit_code: int | None) -> Plan | None:
    """The plan for ``cargo build``/``check``/``install``/``run``/``clippy`` (cargo test is the test runners')."""
    if not _runs(command, "cargo", ("build", "check", "install", "run", "clippy", "b", "c", "r")) or runs_tests(
        command
    ):
        return None
    return Plan("cargo build", fold_noise(lines, _kinds(_CARGO_NOISE)), _last(lines, _CARGO_SUMMARY))
