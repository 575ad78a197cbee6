"""``wuu read PATH``: a file's first view, or any range of it."""

from __future__ import annotations

import typer

from .output import run_tool


def register(app: typer.Typer) -> None:
    @app.command("read")
    def read(
        path: str = typer.Argument(..., help="File to read."),
        start_line: int = typer.Option(1, "--start-line", "-s", help="First line to show (1-based)."),
        end_line: int | None = typer.Option(None, "--end-line", "-e", help="Last line to show."),
        start_char: int = typer.Option(0, "--start-char", help="Character offset within the first line."),
        revision: str | None = typer.Option(None, "--revision", help="Revision the caller last saw."),
        budget: int | None = typer.Option(None, "--budget", "-b", help="Token budget of the view."),
        symbol: str | None = typer.Option(
            None, "--symbol", help='A definition to read by name (rank, Evidence.rank); "*" lists the map.'
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result envelope as JSON."),
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
            ),
            as_json,
        )
