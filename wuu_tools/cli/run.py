"""``wuu run -- CMD ARGS…``: run a command, print its verdict and error evidence, exit with its exit code.

The common calls never reach this typer command: :func:`.runfast.run_fast` parses them first.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .output import run_tool
from .runfast import TIMEOUT_EXIT, exit_status, not_found_hint, run_target, run_watched

__all__ = ["TIMEOUT_EXIT", "exit_status", "register"]


def register(app: typer.Typer) -> None:
    @app.command(
        "run",
        context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
    )
    def run(
        command: Annotated[list[str], typer.Argument(help="The command and its arguments (after --).")],
        timeout: float | None = typer.Option(
            None,
            "--timeout",
            "-t",
            help="Seconds before the process tree is ended (default WUU_TIMEOUT or 120; 0 = no limit).",
        ),
        cwd: str | None = typer.Option(None, "--cwd", "-C", help="Directory to run in."),
        budget: int | None = typer.Option(None, "--budget", "-b", help="Token budget of the view."),
        as_json: bool = typer.Option(False, "--json", help="Print the result envelope as JSON."),
        shell: bool = typer.Option(False, "--shell", help="Run the arguments, joined by spaces, as a shell line."),
    ) -> None:
        """Run a command: verdict and error evidence first, the whole log saved (read it with wuu saved).

        One argument with spaces or shell syntax (wuu run 'make test') runs as a shell line;
        after -- the arguments are the exact argv.
        """
        from ..commands.stop import Stop, on_signals, stopping

        exact = len(sys.argv) > len(command) and sys.argv[-len(command) - 1] == "--"
        target = run_target(list(command), shell, exact, cwd)
        with Stop() as stop, on_signals(stop), stopping(stop):  # a signal ends the tree: exit 128+N
            result = run_tool(lambda: run_watched(target, cwd, timeout, budget), as_json)
        hint = not_found_hint(target, result)
        if hint:
            typer.echo(hint, err=True)
        raise typer.Exit(exit_status(result))
