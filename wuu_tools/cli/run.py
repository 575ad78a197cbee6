"""``wuu run -- CMD ARGS…``: run a command, print its verdict and error evidence, exit with its exit code."""

from __future__ import annotations

import signal
from typing import Annotated

import typer

from .._result import ToolResult
from ._output import run_tool

TIMEOUT_EXIT = 124  # as timeout(1)


def exit_status(result: ToolResult) -> int:
    """The shell exit status for a run: the command's own, 124 on timeout, 128+N when killed by signal N."""
    meta = result.meta
    if meta.get("timed_out"):
        return TIMEOUT_EXIT
    name = meta.get("signal")
    if name:
        if name in signal.Signals.__members__:
            return 128 + signal.Signals[name].value
        number = str(name).rsplit(" ", 1)[-1]  # "signal 42" for a signal Python has no name for
        return 128 + int(number) if number.isdigit() else 1
    code = meta.get("exit_code")
    return code if isinstance(code, int) else 1


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
        from .._commands import run_command

        result = run_tool(lambda: run_command(target, cwd=cwd, timeout=timeout, budget=budget), as_json)
        raise typer.Exit(exit_status(result))
