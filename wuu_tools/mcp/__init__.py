"""MCP faces of wuu-tools (optional extra ``wuu-tools[mcp]``, on the official ``mcp`` 2.x SDK).

- :mod:`wuu_tools.mcp.server`: ``wuu mcp serve``, the tools over stdio.
- :mod:`wuu_tools.mcp.proxy`: ``wuu mcp proxy -- SERVER_CMD``, any MCP server behind
  ``project_result``, with ``read_saved`` added.

Importing this package does not import ``mcp``; the submodules do.
"""

from __future__ import annotations

META_PREFIX = "io.wuu-tools/"
"""Prefix of every ``_meta`` key wuu-tools writes into an MCP result."""

__all__ = ["META_PREFIX"]
