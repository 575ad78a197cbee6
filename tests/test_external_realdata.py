"""project_result on real MCP output from ../shared/realdata/mcp (skipped, with the reason, when absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _external_helpers import assert_recovers

from wuu_tools import project_result
from wuu_tools.core.budget import NOTICE_TOKENS

pytestmark = pytest.mark.realdata

SNAPSHOT = "mcp/toolu_vrtx_012MJZ91gaNgkUPtRF99kMEN.mcp_content.json"
SESSION = "mcp/session-1758915698308_session.md"


@pytest.mark.parametrize("budget", [300, 1000, 2000])
def test_playwright_snapshot_result(realdata: Path, budget: int) -> None:
    """A real Playwright ``browser_press_key`` content array: page state first, sections, every line back."""
    content = json.loads((realdata / SNAPSHOT).read_text())
    r = project_result(content, tool="browser_press_key", budget=budget)
    assert r.tokens <= budget + NOTICE_TOKENS
    assert not r.complete and r.continuation["tool"] == "read_saved"
    assert r.meta["view"] == "sections"
    if budget >= 1000:
        assert "Page Title: Untitled.ipynb (3) - JupyterLab" in r.text
        assert "menuitem" in r.text.split(" from them:")[1]
    assert_recovers(r, content[0]["text"])


def test_playwright_snapshot_is_stable(realdata: Path) -> None:
    content = json.loads((realdata / SNAPSHOT).read_text())
    assert project_result(content).to_dict() == project_result(content).to_dict()


def test_playwright_session_log_as_markdown(realdata: Path) -> None:
    """A real 63 KB Playwright MCP session log (markdown): head plus the tool-call headings that follow."""
    text = (realdata / SESSION).read_text()
    r = project_result(text, budget=1500)
    assert r.tokens <= 1500 + NOTICE_TOKENS
    assert r.meta["view"] == "sections"
    after = r.text.split(" from them:")[1]
    assert after.count("### Tool call:") >= 10
    assert "browser_close" in after  # the last tool call is named
    assert_recovers(r, text)
