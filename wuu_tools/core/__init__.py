"""The ground every tool stands on: the result envelope, errors, budgets, the store, text helpers.

- :mod:`.result`: :class:`ToolResult`, the envelope every tool returns, and continuation calls in words.
- :mod:`.errors`: the one exception tree (:class:`WuuError` and below) and OS-error mapping.
- :mod:`.budget`: cl100k token counting (loaded lazily) and fitting text to a budget.
- :mod:`.store`: saved results on disk (private, atomic, capped, references validated).
- :mod:`.text`: terminal clean-up, numbers and sizes in words, numbered lines, ranges.
- :mod:`.env`: settings read from the environment.
- :mod:`.sniff`: text or binary, by a file's first bytes.
- :mod:`.lineindex` and :mod:`.lines`: a file's cached line index, and reading it by line number.

Nothing here imports any other folder of the package.
"""
