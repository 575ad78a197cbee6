"""The fault tests' fixture: a mark for the processes of one test, and their clean-up (helpers in ``_faults``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _faults import Marked


@pytest.fixture
def tree(store_dir: Path) -> Iterator[Marked]:
    """A fresh mark for the processes of one test; whatever it leaves is killed afterwards."""
    marked_tree = Marked(store_dir)
    try:
        yield marked_tree
    finally:
        marked_tree.cleanup()
