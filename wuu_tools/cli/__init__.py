"""The ``wuu`` command line: a thin client of the library, one file per command group."""

from __future__ import annotations

import typer

from .. import __version__
from . import call, conv, ls, project, read, saved
from . import mcp as mcp_commands
from . import run as run_commands

app = typer.Typer(
    name="wuu",
    help="Projections of files, directories, commands, transcripts and tool results for coding agents.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"wuu-tools {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Projections of files, directories, commands, transcripts and tool results for coding agents."""


read.register(app)
saved.register(app)
ls.register(app)
run_commands.register(app)
conv.register(app)
project.register(app)
call.register(app)
mcp_commands.register(app)


def main() -> None:
    """Console-script entry point."""
    app()
