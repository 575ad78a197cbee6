"""``list_dir``: a directory as complete paths, ``.gitignore``-aware, paged by cursor.

- :func:`.listing.list_dir`: the tool.
- :mod:`.walk`: the ordered breadth-first walk and the facts of each entry.
- :mod:`.ignore`: git's ignore rules plus heavy folders, and why an entry is left out.
- :mod:`.snapshot`: a whole listing walked once and saved, so a cursor chain costs one walk.
- :mod:`.cursor`: cursors and revisions of listings.
"""
