"""Tool specs derived once from a typed function and its Google docstring.

A tool is a plain function: a type hint on every parameter and a Google-style docstring
whose ``Args:`` section documents every parameter. :func:`tool_spec` reads both and
returns a :class:`ToolSpec` -- name, description, one :class:`Param` per argument with its
JSON schema -- so no argument list is ever written twice: the provider schemas, the MCP
listing, argument checking and the framework functions all come from it.

>>> def greet(name: str, times: int = 1) -> str:
...     '''Say hello.
...
...     Args:
...         name: Who to greet.
...         times: How often.
...     '''
...     return "hi " * times + name
>>> spec = tool_spec(greet)
>>> spec.input_schema["required"], spec.input_schema["properties"]["times"]
(['name'], {'type': 'integer', 'description': 'How often.', 'default': 1})
>>> spec.check_args({"name": "Ada", "times": "2"})
Traceback (most recent call last):
...
wuu_tools.core.errors.InvalidArgument: argument 'times' must be an integer, not "2"
"""

from __future__ import annotations

import inspect
import json
import os
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union

from ..core.errors import InvalidArgument, quote
from ..core.text import visible

__all__ = ["DEFAULT_MAX_CHARS", "MAX_CHARS", "Param", "ToolSpec", "json_schema_for", "parse_docstring", "tool_spec"]

MAX_CHARS = {
    "revision": 64,
    "ref": 64,
    "cursor": 8192,
    "pattern": 1000,
    "format": 64,
    "tool": 256,
    "path": 4096,
    "cwd": 4096,
}
"""The longest string each argument takes from a model; every value a result hands out is far shorter."""
DEFAULT_MAX_CHARS = 1 << 20
"""The longest string any other argument takes (a shell command: a line this long is an error, not a command)."""

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Returns?|Yields|Raises|Examples?|Notes?|Attributes|See Also|Warnings?):\s*$"
)
_ARG = re.compile(r"^\*{0,2}(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")

_JSON_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


@dataclass(frozen=True)
class Param:
    """One argument of a tool.

    Attributes:
        name: The keyword name.
        annotation: The evaluated type hint.
        schema: Its JSON schema, with ``description`` (and ``default`` when there is one).
        description: The docstring's text for it.
        required: True when the function gives no default.
        default: The default value (``inspect.Parameter.empty`` when required).
    """

    name: str
    annotation: Any
    schema: dict[str, Any]
    description: str
    required: bool
    default: Any


@dataclass(frozen=True)
class ToolSpec:
    """A tool's name, description and arguments, derived from its function once.

    Attributes:
        name: The tool name (the function's ``__name__``).
        description: The docstring text before its sections, paragraphs kept.
        params: One :class:`Param` per parameter, in signature order.
        fn: The function itself.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    fn: Callable[..., Any]

    @property
    def summary(self) -> str:
        """The first paragraph of the description."""
        return self.description.split("\n\n", 1)[0]

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON schema (draft 2020-12 compatible) of the arguments object."""
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {p.name: dict(p.schema) for p in self.params},
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }
        return schema

    def check_args(self, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate ``args`` against the spec and return them as keyword arguments.

        Null values of optional parameters mean "use the default" and are dropped.

        Raises:
            InvalidArgument: Unknown or missing arguments, or a value of the wrong type; the
                message names the valid arguments or the expected type (not the tool: the
                faces that report it add that).
        """
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            raise InvalidArgument(f"arguments must be an object of named values, not {_show(args)}")
        known = {p.name: p for p in self.params}
        unknown = [k for k in args if k not in known]
        if unknown:
            names = ", ".join(quote(k) for k in unknown[:5]) + (" …" if len(unknown) > 5 else "")
            raise InvalidArgument(
                f"unknown argument{'s' if len(unknown) > 1 else ''} {names}; valid arguments: {self.signature_text()}"
            )
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name not in args or (args[p.name] is None and not p.required):
                if p.required:
                    raise InvalidArgument(
                        f"missing required argument {p.name!r}; valid arguments: {self.signature_text()}"
                    )
                continue
            value = args[p.name]
            problem = _mismatch(value, p.schema)
            if problem:
                raise InvalidArgument(f"argument {p.name!r} must be {problem}, not {_show(value)}")
            limit = MAX_CHARS.get(p.name, DEFAULT_MAX_CHARS)
            if isinstance(value, str) and len(value) > limit:
                raise InvalidArgument(f"argument {p.name!r} is too long: {_show(value)}; at most {limit:,} characters")
            out[p.name] = value
        return out

    def signature_text(self) -> str:
        """The arguments as a model reads them: ``path (required), start_line=1, budget=None``."""
        parts = []
        for p in self.params:
            parts.append(f"{p.name} (required)" if p.required else f"{p.name}={json.dumps(p.default)}")
        return ", ".join(parts)


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and its ``Args:`` entries.

    Returns:
        ``(description, {name: text})``: the text before the first section (paragraphs
        kept, lines of a paragraph joined), and each argument's text with its continuation
        lines joined by spaces. reST double backquotes become single ones (Markdown), as
        models read them.
    """
    lines = inspect.cleandoc(doc or "").replace("``", "`").splitlines()
    body: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent: int | None = None
    for line in lines:
        stripped = line.strip()
        header = _SECTION.match(stripped) if not line.startswith((" ", "\t")) else None
        if header:
            section, current, arg_indent = header.group(1), None, None
            continue
        if section is None:
            body.append(stripped)
        elif section in ("Args", "Arguments", "Parameters") and stripped:
            indent = len(line) - len(line.lstrip())
            if arg_indent is None:
                arg_indent = indent
            m = _ARG.match(stripped)
            if m and indent == arg_indent:
                current = m.group(1)
                args[current] = m.group(3).strip()
            elif current is not None:
                args[current] = f"{args[current]} {stripped}".strip()
    paragraphs = [" ".join(p.split("\n")).strip() for p in "\n".join(body).strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p), args


def json_schema_for(annotation: Any) -> dict[str, Any]:
    """The JSON schema of a Python type hint (the types tools use in their signatures).

    Raises:
        InvalidArgument: The hint has no JSON equivalent.
    """
    if annotation is Any or annotation is object or annotation is inspect.Parameter.empty:
        return {}
    origin = typing.get_origin(annotation)
    targs = typing.get_args(annotation)
    if origin is typing.Annotated:
        return json_schema_for(targs[0])
    if origin is Union or origin is types.UnionType:
        options = [a for a in targs if a is not type(None)]
        if len(options) == 1:
            return json_schema_for(options[0])
        return {"anyOf": [json_schema_for(a) for a in options]}
    if origin is Literal:
        return {"enum": list(targs)}
    if annotation is str or annotation is os.PathLike or origin is os.PathLike:
        return {"type": "string"}
    if isinstance(annotation, type) and issubclass(annotation, os.PathLike):
        return {"type": "string"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    if annotation in (list, tuple) or origin in (list, tuple, Sequence):
        items = [a for a in targs if a is not Ellipsis]
        return {"type": "array", "items": json_schema_for(items[0])} if items else {"type": "array"}
    if annotation is dict or origin in (dict, Mapping):
        return {"type": "object"}
    raise InvalidArgument(f"type {annotation!r} has no JSON schema equivalent")


def tool_spec(fn: Callable[..., Any], name: str | None = None) -> ToolSpec:
    """Derive the :class:`ToolSpec` of ``fn`` from its signature and Google docstring.

    Args:
        fn: A plain function with a type hint on every parameter and an ``Args:`` entry for each.
        name: The tool name; defaults to ``fn.__name__``.

    Raises:
        InvalidArgument: A parameter is ``*args``/``**kwargs``, lacks a type hint, or is undocumented.
    """
    tool = name or fn.__name__
    hints = typing.get_type_hints(fn, include_extras=True)
    description, docs = parse_docstring(fn.__doc__)
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise InvalidArgument(f"{tool}: *args/**kwargs cannot be described to a model")
        if p.name not in hints:
            raise InvalidArgument(f"{tool}: parameter {p.name!r} has no type hint")
        if not docs.get(p.name):
            raise InvalidArgument(f"{tool}: parameter {p.name!r} is not documented under Args:")
        schema = {**json_schema_for(hints[p.name]), "description": docs[p.name]}
        required = p.default is inspect.Parameter.empty
        if not required and p.default is not None:
            schema["default"] = p.default
        params.append(Param(p.name, hints[p.name], schema, docs[p.name], required, p.default))
    return ToolSpec(name=tool, description=description, params=tuple(params), fn=fn)


def _mismatch(value: Any, schema: Mapping[str, Any]) -> str | None:
    """None when ``value`` fits ``schema``; else what was expected, in words."""
    if "anyOf" in schema:
        problems = [_mismatch(value, s) for s in schema["anyOf"]]
        return None if any(p is None for p in problems) else " or ".join(p for p in problems if p)
    if "enum" in schema:
        choices = ", ".join(json.dumps(v) for v in schema["enum"])
        return None if value in schema["enum"] else f"one of {choices}"
    kind = schema.get("type")
    if kind is None:
        return None
    ok = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, (list, tuple)),
        "object": isinstance(value, Mapping),
        "null": value is None,
    }[kind]
    if not ok:
        return _JSON_TYPE_NAMES[kind] if kind != "array" or "items" not in schema else _array_words(schema)
    if kind == "array" and "items" in schema:
        for item in value:
            if _mismatch(item, schema["items"]):
                return _array_words(schema)
    return None


def _array_words(schema: Mapping[str, Any]) -> str:
    inner = _mismatch(object(), schema["items"]) or "values"
    return f"a list of {inner.removeprefix('a ').removeprefix('an ')}s"


def _show(value: Any) -> str:
    """A model's argument value for an error: JSON when it is a short scalar, else cut, its size named."""
    if isinstance(value, str) and len(value) > 57:
        return f'{visible(json.dumps(value[:57], ensure_ascii=False))[:-1]}…" ({len(value):,} characters)'
    if value is None or isinstance(value, (str, int, float, bool)):
        text = visible(json.dumps(value, ensure_ascii=False))
        return text if len(text) <= 60 else quote(value, 57)
    return quote(value, 57)  # never serialised whole: a list of big strings would cost its whole size
