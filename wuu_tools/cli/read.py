"""``wuu read PATH``: a file's first view, or any range of it."""

from __future__ import annotations

from .output import run_tool
from .params import Argument, Option, command


@command("read")
def read(
    path: str = Argument(..., help="File to read."),
    start_line: int = Option(1, "--start-line", "-s", help="First line to show (1-based)."),
    end_line: int | None = Option(None, "--end-line", "-e", help="Last line to show."),
    start_char: int = Option(0, "--start-char", help="Character offset within the first line."),
    revision: str | None = Option(None, "--revision", help="Revision the caller last saw."),
    budget: int | None = Option(None, "--budget", "-b", help="Token budget of the view."),
    symbol: str | None = Option(
        None, "--symbol", help='A definition to read by name (rank, Evidence.rank); "*" lists the map.'
    ),
    fresh: bool = Option(False, "--fresh", help="Show every line, even those this WUU_SESSION showed before."),
    as_json: bool = Option(False, "--json", help="Print the result envelope as JSON."),
) -> None:
    """Show a file as whole numbered lines: head and tail first, the middle on request."""
    from ..files.file import read_file

    run_tool(
        lambda: read_file(
            path,
            start_line=start_line,
            end_line=end_line,
            start_char=start_char,
            revision=revision,
            budget=budget,
            symbol=symbol,
            fresh=fresh,
        ),
        as_json,
    )
