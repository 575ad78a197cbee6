"""Views of the fixture transcripts pinned by digest, so a change to how transcripts are read shows up.

The digests in ``tests/data/conversation_view_digests.json`` were recorded on the code before
issue 35 (streaming transcripts); regenerate them with ``python tests/test_conversations_digests.py``
only when a view is meant to change, and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from wuu_tools.conversations import read_conversation

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "transcripts"
DIGESTS = Path(__file__).resolve().parent / "data" / "conversation_view_digests.json"
FILES = sorted(
    p.name for p in FIXTURES.iterdir() if p.suffix in (".jsonl", ".json", ".md") and p.name != "realdata_targets.json"
)
CALLS: dict[str, dict[str, Any]] = {
    "first": {},
    "first-300": {"budget": 300},
    "before-3": {"before_turn": 3, "budget": 400},
    "pattern": {"pattern": "e", "budget": 500},
}


def _view(name: str, call: str) -> str:
    """The view's text and continuation, digested.

    The transcript is named relative to its folder, read from there: an absolute path would change
    with the checkout, and with it the tokens the view's header and continuation take, and so the cut.
    """
    here = os.getcwd()
    os.chdir(FIXTURES)
    try:
        res = read_conversation(name, **CALLS[call])
        body = res.text + "\n" + json.dumps(res.continuation, sort_keys=True, default=str)
    except Exception as exc:  # an error's message is part of the behaviour too
        body = f"{type(exc).__name__}: {exc}"
    finally:
        os.chdir(here)
    return hashlib.sha256(body.encode()).hexdigest()


@pytest.mark.parametrize("name", FILES)
def test_views_match_pinned_digests(name: str) -> None:
    pinned = json.loads(DIGESTS.read_text())
    assert name in pinned, f"{name} has no pinned digests; record them on the code before the change"
    for call in CALLS:
        assert _view(name, call) == pinned[name][call], f"{name} {call} view changed"


if __name__ == "__main__":
    DIGESTS.write_text(json.dumps({n: {c: _view(n, c) for c in CALLS} for n in FILES}, indent=1) + "\n")
    sys.exit(0)
