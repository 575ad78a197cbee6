"""Oversized and malformed revisions and references, through the Python API, the CLI and MCP.

Each is refused before it is used or quoted, with a short one-line error that fits the budget
(the issue measured a 5,000-character revision echoed into a 3,521-token view at budget 2,000,
and 200,000 characters into 133,523 tokens at budget 100).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _faults import Marked, wuu_argv

from wuu_tools import InvalidArgument, InvalidReference, Toolset, list_dir, read_file, read_saved
from wuu_tools.core.budget import count_tokens

REVISIONS = ["a" * 5_000, "f" * 200_000, "0123456789ab\n", "98a340dd8a2f\x1b[2J", ""]
REFS = ["log-" + "0" * 32 + "\n", "log-" + "0" * 100_000, "../../etc/passwd", "log-" + "0" * 32 + "\x00"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "f.txt").write_text("".join(f"line {n}\n" for n in range(1000)))
    (tmp_path / "d").mkdir()
    return tmp_path


@pytest.mark.parametrize("revision", REVISIONS, ids=["5k", "200k", "newline", "escape", "empty"])
def test_a_bad_revision_is_refused_by_the_python_api(workspace: Path, revision: str, store_dir: Path) -> None:
    for call in (
        lambda: read_file(str(workspace / "f.txt"), revision=revision, budget=100),
        lambda: list_dir(str(workspace), revision=revision, budget=100),
    ):
        with pytest.raises(InvalidArgument) as caught:
            call()  # was: accepted, and echoed whole in the view
        assert len(caught.value.message) < 400 and "\n" not in caught.value.message


@pytest.mark.parametrize("budget", [100, 2000])
@pytest.mark.parametrize("revision", REVISIONS[:3], ids=["5k", "200k", "newline"])
def test_a_bad_revision_through_a_toolset_is_a_short_error_within_the_budget(
    workspace: Path, revision: str, budget: int, store_dir: Path
) -> None:
    tools = Toolset(root=workspace)
    for name, args in (("read_file", {"path": "f.txt"}), ("list_dir", {"path": "d"})):
        result = tools.call(name, {**args, "revision": revision, "budget": budget})
        assert result.meta["error"]["kind"] == "invalid_argument", result.text[:200]
        assert count_tokens(result.text) <= budget and len(result.text) < 400


@pytest.mark.parametrize("ref", REFS, ids=["newline", "100k", "escape-path", "nul"])
def test_a_bad_reference_is_refused_whole(ref: str, store_dir: Path) -> None:
    with pytest.raises(InvalidReference) as caught:
        read_saved(ref, budget=100)  # a trailing newline passed the check before
    assert "\n" not in caught.value.message and len(caught.value.message) < 400


def test_the_cli_refuses_them_with_one_short_line(workspace: Path, tree: Marked) -> None:
    for argv in (
        ["read", "f.txt", "--revision", "f" * 100_000],  # (an argument of a command line: at most 128 KiB)
        ["ls", "d", "--revision", "a" * 5_000],
        ["saved", "log-" + "0" * 32 + "\n"],
        ["saved", "log-" + "0" * 100_000],
    ):
        done = subprocess.run(wuu_argv(*argv), cwd=workspace, env=tree.env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, (argv[:2], done.stderr[:300])
        assert done.stdout == "" and done.stderr.count("\n") == 1 and len(done.stderr) < 400, done.stderr[:300]


def test_mcp_answers_them_with_short_errors(workspace: Path, tree: Marked) -> None:
    pytest.importorskip("mcp", reason="mcp (the [mcp] extra) is not installed")
    from _mcp_client import run_client
    from mcp import Client, StdioServerParameters

    argv = wuu_argv("mcp", "serve", "--root", str(workspace))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=tree.env)
    calls = [
        ("read_file", {"path": "f.txt", "revision": "f" * 200_000, "budget": 100}),
        ("list_dir", {"path": "d", "revision": "a" * 5_000}),
        ("list_dir", {"path": "d", "cursor": "A" * 100_000}),
        ("read_saved", {"ref": "log-" + "0" * 32 + "\n"}),
        ("read_saved", {"ref": "log-" + "0" * 100_000, "budget": 100}),
    ]

    async def body(client: Client) -> list[tuple[bool, str]]:
        return [((r := await client.call_tool(name, args)).is_error, r.content[0].text) for name, args in calls]

    for (name, _), (is_error, text) in zip(calls, run_client(params, body), strict=True):
        assert is_error and text.startswith(f"error: {name}: "), text[:200]
        assert "\n" not in text and count_tokens(text) <= 100, text[:300]
