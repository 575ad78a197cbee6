"""The project's documentation as the tests read it: the README and the pages of ``docs/``.

Examples live where a reader looks for them (the README is a landing page; the per-tool
reference, the integrations and the evaluation are pages of ``docs/``), so a test finds a
section by its ``<!-- section:NAME -->`` marker in whichever page holds it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def pages() -> list[Path]:
    """The README, then every Markdown page of ``docs/`` in name order."""
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def all_text() -> str:
    """Every page's text, the README first."""
    return "\n".join(p.read_text(encoding="utf-8") for p in pages())


def section(name: str) -> str:
    """The text between ``<!-- section:NAME -->`` and its closing marker, in the one page that holds it."""
    marker = re.compile(rf"<!-- section:{re.escape(name)} -->(.*?)<!-- /section:{re.escape(name)} -->", re.S)
    found = [m.group(1) for p in pages() for m in marker.finditer(p.read_text(encoding="utf-8"))]
    assert len(found) == 1, f"exactly one page of the docs has the section {name!r}, not {len(found)}"
    return found[0]
