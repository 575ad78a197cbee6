"""The command line of a declared command (:mod:`.params`), parsed without typer: the usual calls only.

:func:`parse` takes what a person or a script usually types — options by their exact names,
``--name=value``, flags, positional arguments, ``-`` and ``--`` — with values it converts
exactly as typer does: whole numbers and decimals in plain digits, choices by their exact
value, text that is valid Unicode. Anything else (``--help``, an unknown or abbreviated option,
``-s5``, a value starting with ``-``, a missing or surplus argument, ``1e3``) returns None, and
the typer app built from the same declaration parses it, so help, usage errors and every
unusual spelling are typer's own. ``tests/test_cli_parse.py`` checks that for every command
line it accepts the function gets the same arguments as through typer.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from collections.abc import Callable
from typing import Any

from .params import Command, Param

__all__ = ["parse"]

_WHOLE = re.compile(r"[0-9]{1,18}")
_DECIMAL = re.compile(r"[0-9]{1,9}(\.[0-9]{1,9})?")
_NO = object()  # a value this parser leaves to typer

Convert = Callable[[str], Any]


def _text(raw: str) -> Any:
    try:
        raw.encode("utf-8")  # a lone surrogate (an argv byte that is not UTF-8): typer's to judge
    except UnicodeEncodeError:
        return _NO
    return raw


def _whole(raw: str) -> Any:
    return int(raw) if _WHOLE.fullmatch(raw) else _NO


def _decimal(raw: str) -> Any:
    return float(raw) if _DECIMAL.fullmatch(raw) else _NO


def _converter(annotation: Any) -> tuple[Convert | None, bool]:
    """How to convert one value of a parameter (None for a flag), and whether it takes every remaining value."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kinds = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = kinds[0] if len(kinds) == 1 else object
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation)
        convert, _ = _converter(item)
        return convert, True
    if annotation is bool:
        return None, False
    if annotation is int:
        return _whole, False
    if annotation is float:
        return _decimal, False
    if annotation is str:
        return _text, False
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        choices = {str(m.value): m for m in annotation}
        return (lambda raw: choices.get(raw, _NO)), False
    return (lambda raw: _NO), False  # a type this parser does not know: typer parses the line


class _Spec:
    """A command's parameters as the parser needs them (built once per process)."""

    def __init__(self, cmd: Command) -> None:
        import inspect

        hints = typing.get_type_hints(cmd.fn)
        self.options: dict[str, tuple[str, Convert | None]] = {}
        self.arguments: list[tuple[str, Param, Convert | None, bool]] = []
        self.defaults: dict[str, Any] = {}
        for name, p in inspect.signature(cmd.fn).parameters.items():
            param = p.default
            if not isinstance(param, Param):
                raise TypeError(f"{cmd.fn.__qualname__}: parameter {name!r} is not declared with Option or Argument")
            convert, rest = _converter(hints[name])
            if param.argument:
                self.arguments.append((name, param, convert, rest))
            else:
                for decl in param.decls:
                    self.options[decl] = (name, convert)
            if param.default is not ...:
                self.defaults[name] = param.default
        self.interspersed = bool(cmd.context_settings.get("allow_interspersed_args", True))


_specs: dict[tuple[str, ...], _Spec] = {}


def parse(cmd: Command, args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments of ``cmd`` for ``args``, or None when typer must parse them."""
    spec = _specs.get(cmd.path)
    if spec is None:
        spec = _specs[cmd.path] = _Spec(cmd)
    values: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            positional += args[i + 1 :]
            break
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            i += 1
            if not spec.interspersed:  # the command's own words from here on (wuu run make -j4)
                positional += args[i:]
                break
            continue
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        option = spec.options.get(name)
        if option is None:
            return None  # --help, an unknown option, -s5, -ai: typer's
        key, convert = option
        if convert is None:  # a flag
            if eq:
                return None
            values[key] = True
            i += 1
            continue
        if eq:
            raw, i = inline, i + 1
        elif i + 1 < len(args) and not args[i + 1].startswith("-"):
            raw, i = args[i + 1], i + 2
        else:
            return None
        value = convert(raw)
        if value is _NO:
            return None
        values[key] = value
    for key, param, convert, rest in spec.arguments:
        taken = positional[:] if rest else positional[:1]
        del positional[: len(taken)]
        if not taken:
            if param.default is ...:
                return None  # missing: typer says so
            continue
        assert convert is not None
        converted = [convert(raw) for raw in taken]
        if _NO in converted:
            return None
        values[key] = converted if rest else converted[0]
    if positional:
        return None  # a surplus argument: typer says so
    return {**spec.defaults, **values}
