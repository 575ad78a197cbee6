"""The error-first view of a saved log: order, budget, line numbers, continuation, real logs."""

from __future__ import annotations

import importlib.util
import json
import re
import statistics
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuu_tools.core.budget import HARD_CAP_BYTES, NOTICE_TOKENS
from wuu_tools.core.store import Store
from wuu_tools.files.saved import read_saved
from wuu_tools.logs.evidence import clean_line
from wuu_tools.logs.view import project_log

ROOT = Path(__file__).resolve().parents[1]
NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")


def _load(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


generate = _load(ROOT / "fixtures" / "logs" / "generate.py", "wuu_fixture_logs")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("logs")
    return out, generate.generate(out)


def _save(data: str | bytes) -> str:
    return Store().save(data, "log")


def _numbered(text: str) -> dict[int, str]:
    out = {}
    for line in text.split("\n"):
        m = NUMBERED.match(line)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


def test_every_toolchain_at_every_position_shows_its_cause(generated: tuple[Path, list[dict[str, Any]]]) -> None:
    out, entries = generated
    assert len(entries) == 3 * len(generate.TOOLCHAINS)
    for entry in entries:
        r = project_log(_save((out / entry["file"]).read_bytes()), budget=2000, explicit_budget=None)
        for cause in entry["cause"]:
            assert cause in r.text, (entry["file"], cause)
        assert r.tokens <= 2000 + NOTICE_TOKENS and len(r.text.encode()) <= HARD_CAP_BYTES


def test_order_is_verdict_evidence_tail_head(generated: tuple[Path, list[dict[str, Any]]]) -> None:
    out, _ = generated
    ref = _save((out / "pytest-middle.log").read_bytes())
    r = project_log(ref, budget=2000, explicit_budget=None, verdict="[exit 1 · test]", meta={"exit_code": 1})
    text = r.text
    assert text.startswith("[exit 1 · test]\n[error evidence:")
    assert text.index("E       assert 3 == 4") < text.index("[tail:") < text.index("[head:")
    assert r.meta["exit_code"] == 1 and r.source == ref and r.revision == ref
    assert r.meta["total_lines"] == (out / "pytest-middle.log").read_text().count("\n")


def test_view_line_numbers_are_read_saved_line_numbers(generated: tuple[Path, list[dict[str, Any]]]) -> None:
    out, _ = generated
    for name in ("gcc-middle.log", "npm-start.log", "cargo-end.log"):
        ref = _save((out / name).read_bytes())
        shown = _numbered(project_log(ref, budget=1500, explicit_budget=None).text)
        for n in list(shown)[:: max(1, len(shown) // 15)]:
            again = _numbered(read_saved(ref, start_line=n, end_line=n, budget=4000).text)
            assert clean_line(again[n]).startswith(shown[n].split("… [line cut")[0][:200]), (name, n)


def _chain(first: Any, total: int) -> set[int]:
    """The lines shown by ``first`` and the calls its continuation chain makes, each of which must show new lines.

    The chain reads the log in order from the first line the first view omitted, so it may show
    again the evidence and summary lines that view picked out: "new" is new to the chain.
    """
    picked: set[int] = {n for a, b in first.meta["shown"] for n in range(a, b + 1)}
    chained: set[int] = set()
    r = first
    for _ in range(10_000):
        if r.continuation is None:
            break
        assert r.continuation["tool"] == "read_saved"
        args = r.continuation["args"]
        r = read_saved(**args)
        new = {n for a, b in r.meta["shown"] for n in range(a, b + 1)} - chained
        # A line longer than the budget is shown in pieces: each piece is new material.
        assert new or args.get("start_char") or "partial_line" in r.meta, "a continuation call showed nothing new"
        chained |= new
    assert r.complete
    return picked | chained


LINES = st.sampled_from(
    [
        "compiling unit",
        "E       assert 1 == 2",
        "src/a.c:1:2: error: boom",
        "Traceback (most recent call last):",
        "ValueError: bad",
        "===== 1 failed, 2 passed in 0.1s =====",
        "\x1b[32mok\x1b[0m",
        "x" * 700,
        "",
        "npm ERR! code E1",
        "10%\r100%",
    ]
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(LINES, min_size=1, max_size=900), st.integers(min_value=60, max_value=3000))
def test_budget_cap_determinism_and_a_lossless_chain(lines: list[str], budget: int) -> None:
    data = "\n".join(f"{s} {i}" for i, s in enumerate(lines)) + "\n"
    ref = _save(data)
    first = project_log(ref, budget=budget, explicit_budget=budget)
    assert first.tokens <= budget + NOTICE_TOKENS
    assert len(first.text.encode()) <= HARD_CAP_BYTES
    assert project_log(ref, budget=budget, explicit_budget=budget).text == first.text
    assert first.complete == (first.continuation is None)
    if first.continuation:
        assert first.continuation["args"]["budget"] == budget
        assert first.continuation["args"]["ref"] in first.text
    assert _chain(first, len(lines)) == set(range(1, len(lines) + 1))


def test_hard_cap_holds_for_a_huge_budget() -> None:
    ref = _save("".join(f"src/m{i}.c:1:1: error: {'y' * 300} {i}\n" for i in range(3000)))
    r = project_log(ref, budget=1_000_000, explicit_budget=1_000_000)
    assert len(r.text.encode()) <= HARD_CAP_BYTES
    assert r.continuation is not None


def test_an_error_free_log_is_tail_weighted() -> None:
    ref = _save("".join(f"compiling unit {i}\n" for i in range(1, 5001)) + "BUILD DONE\n")
    r = project_log(ref, budget=1000, explicit_budget=None)
    assert "[error evidence" not in r.text and "\nBUILD DONE\n[head: lines 1-" in r.text
    shown = [n for a, b in r.meta["shown"] for n in range(a, b + 1)]
    assert shown[-1] == 5001
    tail = [n for n in shown if n > 2500]
    head = [n for n in shown if n <= 2500]
    assert len(tail) > 2 * len(head) > 0


def test_a_summary_in_the_middle_is_kept() -> None:
    lines = [f"step {i}" for i in range(4000)]
    lines[1500] = "========== 2 failed, 10 passed in 3.00s =========="
    r = project_log(_save("\n".join(lines) + "\n"), budget=800, explicit_budget=None)
    assert "2 failed, 10 passed" in r.text


def test_duplicates_are_folded_with_their_count() -> None:
    lines = [f"noise {i}" for i in range(3000)]
    for n in (100, 900, 1700, 2500):
        lines[n] = "npm ERR! network timeout"
    r = project_log(_save("\n".join(lines) + "\n"), budget=1000, explicit_budget=None)
    assert r.text.count("npm ERR! network timeout") == 1
    assert "occurs 4× in all; also lines 901, 1,701, 2,501" in r.text


def test_colours_redraws_and_bad_utf8_are_cleaned_in_the_view_only() -> None:
    raw = b"\x1b[31merror: red\x1b[0m\n10%\r50%\r100%\n\xff\xfe bytes\n"
    ref = _save(raw)
    r = project_log(ref, budget=500, explicit_budget=None)
    assert "error: red" in r.text and "\x1b" not in r.text
    assert "\n100%\n" in r.text and "10%" not in r.text
    assert "U+FFFD" in r.text and r.complete
    assert Store().path(ref).read_bytes() == raw


def test_empty_log() -> None:
    r = project_log(_save(b""), budget=500, explicit_budget=None, verdict="[exit 0]")
    assert r.text == "[exit 0]\n[no output]" and r.complete and r.meta["total_lines"] == 0


def test_a_giant_line_is_cut_not_dumped() -> None:
    ref = _save(b"start\n" + b"z" * (3 << 20) + b"\nerror: after the giant\n" + b"tail\n" * 5000)
    r = project_log(ref, budget=1000, explicit_budget=None)
    assert "error: after the giant" in r.text
    assert len(r.text.encode()) <= HARD_CAP_BYTES


def test_recall_on_real_failing_logs(realdata: Path) -> None:
    recall = _load(ROOT / "scripts" / "recall.py", "wuu_recall_script")
    truth = json.loads((realdata / "logs" / "groundtruth.json").read_text())
    hits, tokens = 0, []
    for entry in truth["logs"]:
        raw = (realdata / "logs" / entry["file"]).read_bytes()
        view = project_log(_save(raw), budget=2000, explicit_budget=None)
        ok, _ = recall.recalled(view.text, raw.decode("utf-8", "replace").splitlines(), entry["groups"])
        hits += ok
        tokens.append(view.tokens)
    assert hits / len(truth["logs"]) >= 0.9
    assert statistics.median(tokens) <= 2000


@pytest.mark.parametrize("budget", [200, 300, 600])
def test_a_lone_error_in_a_long_build_is_shown_at_any_budget(budget: int) -> None:
    # The README's build (fixtures/build.sh): 3,000 compile lines, one compiler error, 500 link lines.
    lines = [f"compiling unit {i}" for i in range(1, 3001)]
    lines += ["src/net.c:88:12: error: SOCK_NONBLOCKING undeclared"]
    lines += [f"linking {i}" for i in range(1, 501)]
    r = project_log(_save(("\n".join(lines) + "\n").encode()), budget=budget, explicit_budget=budget)
    assert r.tokens <= budget
    assert "3001\tsrc/net.c:88:12: error: SOCK_NONBLOCKING undeclared" in r.text.splitlines(), r.text
