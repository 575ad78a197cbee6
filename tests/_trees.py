"""Shared by the directory tests: write a small tree from a dict."""

from __future__ import annotations

from pathlib import Path


def make(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: content}``; a path ending in ``/`` makes an empty directory."""
    for rel, content in files.items():
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
    return root
