"""The error-first view of a log, used by ``run_command``, saved logs and ``wuu project --kind log``.

- :func:`.view.project_log`: verdict, evidence, tail, head, and the continuation.
- :mod:`.scan`: finding evidence lines of a saved log fast, in bounded memory.
- :mod:`.evidence`: the error-pattern library and the ranking of evidence.
"""
