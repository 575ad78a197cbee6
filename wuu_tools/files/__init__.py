"""``read_file`` and ``read_saved``: files on disk and saved results, read as whole numbered lines.

- :func:`.file.read_file`: head and tail first, the omitted middle named, continued by line range.
- :func:`.saved.read_saved`: a saved result (a command's log, an external result) by lines or by pattern.
"""
