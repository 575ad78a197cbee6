"""``wuu run -- CMD ARGS…``: run a command, print its verdict and error evidence, exit with its exit code.

The common calls never reach this typer command: :func:`.runfast.run_fast` parses them first.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .output import run_tool
from .runfast import TIMEOUT_EXIT, exit_status

__all__ = ["TIMEOUT_EXIT", "exit_status", "register"]


def register(app: typer.Typer) -> None:
    @app.command(
        "run",
        context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
    )
    def run(
        command: Annotated[list[str], typer.Argument(help="The command and its arguments (after --).")],
        timeout: float = typer.Option(120, "--timeout", "-t", help="Seconds before the process tree is ended."),
        cwd: str | None = typer.Option(None, "--cwd", "-C", help="Directory to run in."),
        budget: int | None = typer.Option(None, "--budget", "-b", help="Token budget of the view."),
        as_json: bool = typer.Option(False, "--json", help="Print the result envelope as JSON."),
        shell: bool = typer.Option(False, "--shell", help="Run the arguments, joined by spaces, as a shell line."),
    ) -> None:
        """Run a command: verdict and error evidence first, the whole log saved (read it with wuu saved)."""
        target: str | list[str] = " ".join(command) if shell else list(command)
        from ..commands.run import run_command

        result = run_tool(lambda: run_command(target, cwd=cwd, timeout=timeout, budget=budget), as_json)
        raise typer.Exit(exit_status(result))
