"""``wuu`` run as a user runs it: a real process of this interpreter's ``python -m wuu_tools.cli``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def wuu(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``wuu ARGS…`` in ``cwd`` with the environment plus ``env``; its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "wuu_tools.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
