"""The transcript generator of ``fixtures/transcripts/generate.py``, loaded once for the tests that use it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

GENERATE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "generate.py"


def transcript_generator() -> ModuleType:
    """The generator module (registered as ``transcript_generator``, as its dataclasses need)."""
    if "transcript_generator" in sys.modules:
        return sys.modules["transcript_generator"]
    spec = importlib.util.spec_from_file_location("transcript_generator", GENERATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["transcript_generator"] = module
    spec.loader.exec_module(module)
    return module
