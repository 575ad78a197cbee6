"""The budget is a ceiling: every view of every tool, header and notices included, fits its budget.

Counted as the package counts tokens (``count_tokens``, cl100k). Where the budget cannot hold
the mandatory header and one line (entry, turn), the view says so (``TOO_SMALL``) and shows
that much. Views that are not the last of their chain still fill at least 70% of the budget, and
no view passes the 50 KiB hard cap.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuu_tools import list_dir, project_result, read_conversation, read_file, read_saved, run_command
from wuu_tools.core.budget import HARD_CAP_BYTES, count_tokens
from wuu_tools.core.result import ToolResult
from wuu_tools.views.ceiling import TOO_SMALL

ROOT = Path(__file__).resolve().parents[1]
WUU = Path(sys.executable).with_name("wuu")
TOOLS = ("read_file", "list_dir", "run_command", "read_conversation", "read_saved", "read_saved_pattern", "project")
_SOURCES: dict[str, dict[str, Any]] = {}


def _python_file(path: Path, lines: int = 424) -> None:
    out = []
    for n in range(1, lines + 1):
        if n % 37 == 0:
            out.append("")
        elif n % 11 == 0:
            out.append(f"def helper_{n}(value: int, *, scale: float = 1.5) -> float:")
        else:
            out.append(f"    result_{n} = compute(value + {n}, scale) * {n % 7}  # step {n} of the pipeline")
    path.write_text("\n".join(out) + "\n")


def _tree(root: Path) -> None:
    for d in range(6):
        sub = root / f"package_{d}" / "module"
        sub.mkdir(parents=True)
        for f in range(25):
            (sub / f"file_{f:02}.py").write_text("x = 1\n" * (f + 1))
        (root / f"package_{d}" / "README.md").write_text("# readme\n")
    for f in range(40):
        (root / f"top_level_{f:02}.txt").write_text("t\n")


def _log_script(path: Path) -> None:
    path.write_text(
        "import sys\n"
        "for i in range(1, 2501):\n"
        "    print(f'tests/test_mod.py::test_case_{i} \\x1b[32mPASSED\\x1b[0m [ {i // 25}%]')\n"
        "    if i % 700 == 0:\n"
        "        print(f'tests/test_mod.py:{i}: AssertionError')\n"
        "        print('E       assert 1 == 2')\n"
        "print('\\x1b[31mFAILED\\x1b[0m tests/test_mod.py::test_case_700 - AssertionError: boom')\n"
        "print('=== 3 failed, 2497 passed in 12.00s ===')\n"
        "sys.exit(1)\n"
    )


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "transcript_generator", ROOT / "fixtures" / "transcripts" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["transcript_generator"] = module
    spec.loader.exec_module(module)
    return module


def _sources() -> dict[str, Any]:
    """The sources, made once per store (the test's private store holds the saved ones)."""
    store = os.environ["WUU_STORE"]
    if store not in _SOURCES:
        base = Path(tempfile.mkdtemp(prefix="ceiling-"))
        _python_file(base / "module.py")
        (base / "tree").mkdir()
        _tree(base / "tree")
        _log_script(base / "log.py")
        log = run_command([sys.executable, str(base / "log.py")], budget=500).source
        gen = _generator()
        conv = gen.write_claude(gen.session(seed=5, steps=50), base / "session.jsonl")
        body = "\n".join(f"item {n}: status=ok latency={n * 3} ms region=eu-west-{n % 3}" for n in range(1, 1501))
        _SOURCES[store] = {
            "base": base,
            "log": log,
            "conv": str(conv),
            "result": {"content": [{"type": "text", "text": body}]},
        }
    return _SOURCES[store]


def _first(tool: str, budget: int) -> tuple[ToolResult, Callable[..., ToolResult]]:
    src = _sources()
    base = src["base"]
    if tool == "read_file":
        return read_file(str(base / "module.py"), budget=budget), read_file
    if tool == "list_dir":
        return list_dir(str(base / "tree"), depth=3, budget=budget), list_dir
    if tool == "run_command":
        return run_command([sys.executable, str(base / "log.py")], budget=budget), read_saved
    if tool == "read_conversation":
        return read_conversation(src["conv"], budget=budget), read_conversation
    if tool == "read_saved":
        return read_saved(src["log"], budget=budget), read_saved
    if tool == "read_saved_pattern":
        return read_saved(src["log"], pattern="passed", budget=budget), read_saved
    return project_result(src["result"], budget=budget), read_saved


def _check(view: ToolResult, budget: int) -> None:
    assert len(view.text.encode()) <= HARD_CAP_BYTES
    if view.tokens > budget:
        assert TOO_SMALL in view.text and view.meta["budget_too_small"]["budget"] == budget, (
            f"{view.tokens} tokens for a budget of {budget}:\n{view.text[:600]}"
        )


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from(TOOLS), budget=st.integers(100, 8000))
def test_every_view_fits_its_budget(tool: str, budget: int) -> None:
    view, follow = _first(tool, budget)
    chain = [view]
    while chain[-1].continuation is not None and len(chain) < 3:
        chain.append(follow(**chain[-1].continuation["args"]))
    for v in chain:
        _check(v, budget)
    # Efficient: a view that is not the last of its chain fills at least 70% of its budget. (A
    # conversation's unit is a whole turn, which can be a large part of a budget: its views stop
    # where the next turn does not fit, checked in test_conversations_view.)
    for v in chain if tool != "read_conversation" else []:
        if v.continuation is not None and not {"budget_too_small", "partial_line"} & set(v.meta):
            assert v.tokens >= 0.7 * budget, (tool, budget, v.tokens)


@pytest.mark.parametrize("budget", [100, 120, 150])
@pytest.mark.parametrize("tool", TOOLS)
def test_small_budgets_fit_or_say_so(tool: str, budget: int) -> None:
    view, _ = _first(tool, budget)
    _check(view, budget)
    assert view.tokens <= budget or view.text.count("\n") >= 1  # the header and at least one line


def _printed_tokens(*args: str) -> int:
    if not WUU.exists():
        pytest.skip(f"{WUU} is not installed (pip install -e .)")
    done = subprocess.run([str(WUU), *args], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("\n")
    return count_tokens(done.stdout[:-1])  # the view; the final newline ends the printed line


@pytest.mark.parametrize("budget", [200, 400, 800])
def test_the_cli_prints_within_the_budget(budget: int, tmp_path: Path) -> None:
    _python_file(tmp_path / "module.py")
    assert _printed_tokens("read", str(tmp_path / "module.py"), "--budget", str(budget)) <= budget
    assert _printed_tokens("ls", ".", "--budget", str(budget)) <= budget
