"""Errors are bounded like views: a huge input is quoted cut, with its size named, within the budget."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from _faults import wuu_argv

from wuu_tools import Toolset, read_file, run_command
from wuu_tools.core.budget import DEFAULT_BUDGET
from wuu_tools.core.errors import MESSAGE_CHARS, InvalidArgument, WuuError, clip, quote
from wuu_tools.core.result import ERROR_FLOOR

HUGE = "a" * 10_000_000


def _cases(ref: str) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "read_file path": ("read_file", {"path": HUGE}),
        "read_file deep path": ("read_file", {"path": "d/" * 3_000_000}),
        "list_dir path": ("list_dir", {"path": HUGE}),
        "read_conversation path": ("read_conversation", {"path": HUGE}),
        "read_saved ref": ("read_saved", {"ref": HUGE}),
        "read_saved pattern": ("read_saved", {"ref": ref, "pattern": "(" + HUGE}),
        "run_command cwd": ("run_command", {"command": "true", "cwd": HUGE}),
        "unknown tool": (HUGE, {}),
        "unknown argument": ("read_file", {"path": "x", HUGE: 1}),
        "budget": ("read_file", {"path": "x", "budget": HUGE}),
        "revision": ("read_file", {"path": "x", "revision": [HUGE] * 1000}),
    }


@pytest.mark.parametrize("budget", [None, 20])
def test_every_error_of_a_huge_input_names_its_size_and_fits_the_budget(tmp_path: Path, budget: int | None) -> None:
    ts = Toolset(root=tmp_path, budget=budget)
    ref = ts.call("run_command", {"command": "echo saved"}).source
    assert ref
    for name, (tool, args) in _cases(ref).items():
        result = ts.call(tool, args)
        assert result.is_error, name
        # cut to the budget (a ceiling), but an error is never cut below ERROR_FLOOR tokens
        assert result.tokens <= max(budget or DEFAULT_BUDGET, ERROR_FLOOR), (name, result.tokens)
        assert len(result.text) <= MESSAGE_CHARS + 100, name
        if budget is None:  # at the default budget nothing but the quoted inputs is cut
            assert "characters)" in result.text or "…" in result.text, (name, result.text)


def test_the_python_api_raises_bounded_errors() -> None:
    with pytest.raises(WuuError) as caught:
        read_file("/tmp/" + HUGE)
    assert len(caught.value.message) < 400 and "(10,000,005 characters)" in caught.value.message
    with pytest.raises(InvalidArgument) as bad:
        run_command([HUGE, 3])  # type: ignore[list-item]
    assert len(bad.value.message) < 400


def test_quote_clip_and_the_message_cap() -> None:
    assert quote("short") == "'short'"
    assert quote("x" * 1000, 10) == "'xxxxxxxxxx…' (1,000 characters)"
    assert quote(b"\xff" * 1000).endswith("…' (1,000 bytes)")
    assert len(quote(list(range(100_000)))) < 100
    assert clip("/a/b.py") == "/a/b.py"
    assert clip("p" * 1000 + "/name.py", 60).endswith("/name.py (1,008 characters)")
    message = WuuError("x" * 50_000 + " the end").message
    assert len(message) <= MESSAGE_CHARS and message.endswith(" the end") and "characters of this error cut" in message


def test_the_cli_prints_one_bounded_line(tmp_path: Path) -> None:
    done = subprocess.run(wuu_argv("read", str(tmp_path / ("n" * 100_000))), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2  # longer than any path can be: a bad argument, refused before it is used
    assert done.stderr.count("\n") == 1 and len(done.stderr) < 400
    assert "(100,0" in done.stderr  # the size of the path is named


def test_a_10_million_character_path_over_mcp_answers_a_short_error(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")
    from _mcp_client import facts, run_client
    from mcp import Client, StdioServerParameters

    argv = wuu_argv("mcp", "serve", "--root", str(tmp_path))

    async def body(client: Client) -> Any:
        return await client.call_tool("read_file", {"path": HUGE})

    result = run_client(StdioServerParameters(command=argv[0], args=argv[1:]), body)
    assert result.is_error
    assert facts(result)["tokens"] <= DEFAULT_BUDGET  # was 1,250,016 tokens
    assert "(10,000,000 characters)" in result.content[0].text
