"""``project_result``: results of MCP and other external tools as projections.

- :func:`.project.project_result`: the tool.
- :mod:`.mcpresult`: reading any result shape into content blocks, structured data, error and ``_meta``.
- :mod:`.media`: images, audio and files kept as attachments, oversized ones saved.
"""
