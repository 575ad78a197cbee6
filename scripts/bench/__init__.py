"""The benchmarks behind ``python scripts/bench.py``: each target measured against the standard tool.

- :mod:`.cases`: one function per benchmark (``BENCHMARKS``), reading, listing, transcripts, the MCP proxy.
- :mod:`.run_output`: ``wuu run`` of a huge output against shell redirection and the bare pipe hop.
- :mod:`.mcp_proxy`: the proxy's added latency against a direct upstream call.
- :mod:`.inputs`: the generated inputs (big logs, trees, transcripts).
- :mod:`.support`: timing, peak RSS, rows and the table.
"""
