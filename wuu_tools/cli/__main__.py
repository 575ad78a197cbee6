"""``python -m wuu_tools.cli``: the same as the ``wuu`` command."""

from . import main

main()
