"""How a ``wuu`` command declares itself: its name, and each parameter once, without loading typer.

A command is a plain function whose defaults say what each parameter is, as typer's own
``typer.Option`` / ``typer.Argument`` do and with the same arguments::

    @command("read")
    def read(
        path: str = Argument(..., help="File to read."),
        budget: int | None = Option(None, "--budget", "-b", help="Token budget of the view."),
    ) -> None: ...

Two things read that one declaration: :mod:`.parse` parses the usual command lines with no
more than it (typer and pydantic take ~0.1 s to load), and :mod:`.app` builds the typer app
from it for ``--help``, usage errors and whatever :mod:`.parse` leaves to it. A command
exits with :class:`SystemExit` (``sys.exit``), never with a typer exception, so its body runs
the same under both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["COMMANDS", "GROUPS", "Argument", "Command", "Group", "Option", "Param", "command", "group"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Param:
    """One parameter of a command: an option (``decls`` like ``("--budget", "-b")``) or a positional argument."""

    default: Any
    decls: tuple[str, ...] = ()
    help: str | None = None
    metavar: str | None = None
    argument: bool = False


def Option(default: Any, *decls: str, help: str | None = None) -> Any:
    """An option, declared as ``typer.Option(default, *decls, help=...)`` is."""
    return Param(default, decls, help)


def Argument(default: Any = ..., *, help: str | None = None, metavar: str | None = None) -> Any:
    """A positional argument, declared as ``typer.Argument(default, help=..., metavar=...)`` is (``...``: required)."""
    return Param(default, (), help, metavar, argument=True)


@dataclass(frozen=True)
class Command:
    """A command: its path (``("read",)``, ``("mcp", "serve")``), its function and click's context settings."""

    path: tuple[str, ...]
    fn: Callable[..., Any]
    context_settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Group:
    """A group of commands under one word (``wuu mcp ...``)."""

    name: str
    help: str


COMMANDS: dict[tuple[str, ...], Command] = {}
"""Every command declared so far (its module imported), by path."""
GROUPS: dict[str, Group] = {}


def command(name: str, *, group: str | None = None, context_settings: dict[str, Any] | None = None) -> Callable[[F], F]:
    """Declare ``fn`` as the command ``wuu [group] name``; its docstring is the help text."""

    def register(fn: F) -> F:
        path = (group, name) if group else (name,)
        COMMANDS[path] = Command(path, fn, dict(context_settings or {}))
        return fn

    return register


def group(name: str, *, help: str) -> Group:
    """Declare the group ``wuu name`` (its commands name it with ``@command(..., group=name)``)."""
    GROUPS[name] = Group(name, help)
    return GROUPS[name]
