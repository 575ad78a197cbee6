"""``wuu saved REF``: read a saved result (a command's log, an external result) by lines or by pattern."""

from __future__ import annotations

import typer

from .output import run_tool


def register(app: typer.Typer) -> None:
    @app.command("saved")
    def saved(
        ref: str = typer.Argument(..., help="Reference of the saved result (from a result's source)."),
        start_line: int = typer.Option(1, "--start-line", "-s", help="First line to show (1-based)."),
        end_line: int | None = typer.Option(None, "--end-line", "-e", help="Last line to show."),
        pattern: str | None = typer.Option(None, "--pattern", "-p", help="Regex: show matching lines."),
        budget: int | None = typer.Option(None, "--budget", "-b", help="Token budget of the view."),
        as_json: bool = typer.Option(False, "--json", help="Print the result envelope as JSON."),
    ) -> None:
        """Read a saved result by lines, or grep it with --pattern."""
        from ..files.saved import read_saved

        run_tool(
            lambda: read_saved(ref, start_line=start_line, end_line=end_line, pattern=pattern, budget=budget),
            as_json,
        )
