"""The tools as agent frameworks use them: :class:`Toolset`, derived schemas, provider adapters.

- :class:`.toolset.Toolset`: the tools with their settings; ``schemas()`` and ``call()``.
- :mod:`.schema`: tool specs derived once from a typed function and its Google docstring.
- :mod:`.adapters`: a :class:`~wuu_tools.ToolResult` in each provider API's tool-result shape.
"""
