"""The shared view engine: turning a text into a first view within a token budget.

- :mod:`.paging`: whole numbered lines of a file or saved result within a budget (``read_file``, ``read_saved``).
- :mod:`.linefit`: fitting a stream of lines to a budget, one line at a time.
- :mod:`.preview`: first views of a text held in memory, cut along what the text is.
- :mod:`.outline`: bounded outlines and readable renderings of structured data (JSON).

Views import only :mod:`wuu_tools.core`.
"""
