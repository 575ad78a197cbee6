"""The views of a command's output, used by ``run_command``, saved outputs and ``wuu project``.

- :func:`.output.project_output`: the first view in the output's shape (:mod:`.shape` guesses it):
  failing log, search results (:mod:`.searchview`), diff (:mod:`.diffview`), JSON/YAML
  (:mod:`.dataview`), table or head and tail (:mod:`.headtail`); a source file's listing mapped
  by its structure (:mod:`.listing`).
- :func:`.view.project_log`: the error-first view of a failing log: verdict, evidence, tail, head.
- :mod:`.scan`: finding evidence lines of a saved log fast, in bounded memory.
- :mod:`.evidence`: the error-pattern library and the ranking of evidence.
"""
