"""``wuu saved REF``: read a saved result (a command's log, an external result) by lines or by pattern.

With ``--pattern`` it exits as grep does: 0 when a line matches, 1 when none does, 2 on an error
(a bad pattern, an unknown reference). Without it, 2 for bad arguments and 1 for a result that cannot be read.
"""

from __future__ import annotations

import sys

from .output import call_tool
from .params import Argument, Option, command


@command("saved")
def saved(
    ref: str = Argument(..., help="Reference of the saved result (from a result's source)."),
    start_line: int = Option(1, "--start-line", "-s", help="First line to show (1-based)."),
    end_line: int | None = Option(None, "--end-line", "-e", help="Last line to show."),
    pattern: str | None = Option(
        None,
        "--pattern",
        "-p",
        help="Regex: show matching lines (case-insensitive unless it has an upper-case letter). Exit 1 if none.",
    ),
    ignore_case: bool = Option(False, "--ignore-case", "-i", help="Match --pattern regardless of case."),
    raw: bool = Option(False, "--raw", help="The saved bytes as they are, terminal escapes kept."),
    budget: int | None = Option(None, "--budget", "-b", help="Token budget of the view."),
    fresh: bool = Option(False, "--fresh", help="Show every line, even those this WUU_SESSION showed before."),
    as_json: bool = Option(False, "--json", help="Print the result envelope as JSON."),
) -> None:
    """Read a saved result by lines, or grep it with --pattern (exit 1 when nothing matches)."""
    from ..files.saved import read_saved

    if ignore_case and pattern is not None and not pattern.startswith("(?i)"):
        pattern = "(?i)" + pattern
    result, code = call_tool(
        lambda: read_saved(
            ref, start_line=start_line, end_line=end_line, pattern=pattern, budget=budget, raw=raw, fresh=fresh
        ),
        as_json,
    )
    from .gain import note_read

    args = {"ref": ref, "start_line": start_line, "end_line": end_line, "pattern": pattern, "raw": raw}
    note_read(result, "read_saved", args)
    if result is None:  # a search that could not run is an error (2), as for grep
        sys.exit(2 if pattern is not None else code)
    if pattern is not None and not result.meta.get("matches"):
        sys.exit(1)
