"""``wuu call``, ``wuu schema`` and the ``wuu mcp`` group: thin clients of the Toolset and the MCP faces."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wuu_tools.cli import app

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "big.txt").write_text("".join(f"entry {n}\n" for n in range(1, 2001)))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_call_prints_the_text_and_a_continuation_can_be_pasted(project: Path) -> None:
    first = runner.invoke(app, ["call", "read_file", '{"path": "big.txt", "budget": 200}', "--json"])
    assert first.exit_code == 0, first.output
    envelope = json.loads(first.output)
    assert envelope["complete"] is False
    cont = envelope["continuation"]
    second = runner.invoke(app, ["call", cont["tool"], json.dumps(cont["args"])])
    assert second.exit_code == 0, second.output
    assert f"entry {cont['args']['start_line']}\n" in second.output
    # The whole continuation object is accepted too.
    third = runner.invoke(app, ["call", cont["tool"], json.dumps(cont)])
    assert third.output == second.output


def test_call_budget_option_and_root(project: Path, tmp_path: Path) -> None:
    done = runner.invoke(app, ["call", "read_file", '{"path": "big.txt"}', "--budget", "100", "--root", str(project)])
    assert done.exit_code == 0
    assert "budget=100" in done.output


def test_call_errors_exit_with_one_line(project: Path) -> None:
    bad_json = runner.invoke(app, ["call", "read_file", "{path"])
    assert bad_json.exit_code == 2 and "ARGS_JSON is not valid JSON" in bad_json.output
    not_object = runner.invoke(app, ["call", "read_file", "[1]"])
    assert not_object.exit_code == 2 and "must be a JSON object" in not_object.output
    unknown = runner.invoke(app, ["call", "read_fil", "{}"])
    assert unknown.exit_code == 2
    assert unknown.output.strip() == (
        "wuu: unknown tool 'read_fil'; valid tools: read_file, list_dir, run_command, "
        "read_conversation, read_saved, project_result"
    )
    missing = runner.invoke(app, ["call", "read_file", '{"path": "nope.txt"}'])
    assert missing.exit_code == 1 and "no such file" in missing.output
    as_json = runner.invoke(app, ["call", "read_file", '{"path": "nope.txt"}', "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.output)["meta"]["error"]["kind"] == "not_found"


@pytest.mark.parametrize("fmt", ["openai", "openai-responses", "anthropic", "mcp"])
def test_schema_prints_every_tool(fmt: str) -> None:
    done = runner.invoke(app, ["schema", "--format", fmt])
    assert done.exit_code == 0
    specs = json.loads(done.output)
    names = [s["function"]["name"] if "function" in s else s["name"] for s in specs]
    assert names == ["read_file", "list_dir", "run_command", "read_conversation", "read_saved"]


def test_schema_unknown_format() -> None:
    done = runner.invoke(app, ["schema", "--format", "gemini"])
    assert done.exit_code == 2 and "valid formats: openai, openai-responses, anthropic, mcp" in done.output


def test_mcp_commands_name_the_extra_when_mcp_is_missing() -> None:
    script = (
        "import sys; sys.modules['mcp'] = None; from wuu_tools.cli import main; "
        "sys.argv = ['wuu', 'mcp', 'serve']; main()"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "pip install 'wuu-tools[mcp]'" in done.stderr


def test_mcp_proxy_checks_its_options() -> None:
    done = runner.invoke(app, ["mcp", "proxy", "--timeout", "0", "--", "true"])
    assert done.exit_code == 2 and "--timeout must be more than 0" in done.output
    done = runner.invoke(app, ["mcp", "proxy", "--budget", "5", "--", "true"])
    assert done.exit_code == 2 and "budget must be between" in done.output
    done = runner.invoke(app, ["mcp", "serve", "--root", "/nonexistent/dir"])
    assert done.exit_code == 1 and "no such directory" in done.output
