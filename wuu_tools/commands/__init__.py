"""``run_command``: run a command with nothing waiting for a person, save its log, show the verdict first.

- :func:`.run.run_command`: the tool (its first view is :func:`wuu_tools.logs.output.project_output`).
- :mod:`.pump`: starting the command and reading its pipes until they close (timeout, stop).
- :mod:`.pipes` (with :mod:`.tee`): saving the producer's output of a line ending in filters (``| tail``).
- :mod:`.procs`: finding and ending a command's whole process tree.
- :mod:`.sink`: streaming output into a capped saved log, counting lines and stderr ranges.
"""
