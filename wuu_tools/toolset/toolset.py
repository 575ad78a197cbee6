"""``Toolset``: the tools with their settings, as an agent loop or a framework uses them.

A :class:`Toolset` holds a root directory, a store, a default budget and whether paths
may leave the root. It lists the tool specs in each provider's shape
(:meth:`Toolset.schemas`), dispatches a model's call by name (:meth:`Toolset.call`) and
hands out plain typed functions for agent frameworks (:meth:`Toolset.functions`).
Everything is derived from the tool functions themselves (:mod:`wuu_tools.toolset.schema`), so
their signatures and docstrings are the one place an argument is defined.

How a failure reaches the model is decided here, once: ``call`` and the framework
functions never raise a :class:`~wuu_tools.WuuError`; they return it as a readable
one-line result (``error: read_file: ...``), as the MCP server does.

>>> ts = Toolset(root=".")
>>> [s["function"]["name"] for s in ts.schemas("openai")][0]
'read_file'
>>> ts.call("read_fil", {}).text.split(";")[0]
"error: unknown tool 'read_fil'"
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import linecache
import os
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from ..core.budget import resolve_budget
from ..core.errors import AccessDenied, InvalidArgument, NotAFile, SourceNotFound, WuuError, clip, quote
from ..core.names import check_path, given_path, relative_to
from ..core.result import TOOL_FUNCTIONS, ToolResult
from ..core.session import Session, StoredSession, use_session
from ..core.store import Store, use_store
from .schema import ToolSpec, tool_spec

__all__ = ["MODEL_TOOLS", "PROTOCOL", "SCHEMA_FORMATS", "TOOLS", "Toolset"]

TOOLS: dict[str, str] = TOOL_FUNCTIONS
"""Every tool, by name, with the import path of its function (imported on first use)."""

MODEL_TOOLS = ("read_file", "list_dir", "run_command", "read_conversation", "read_saved")
"""The tools a Toolset offers a model by default. ``project_result`` is for programs that wrap
another tool's output; it is always callable with :meth:`Toolset.call` but not advertised
unless asked for with ``tools=``."""

SCHEMA_FORMATS = ("openai", "openai-responses", "anthropic", "mcp")

PROTOCOL = (
    "Results are partial views that fit a token budget. When something was left out, the text "
    "says what and ends with the exact call that shows the next part (for example "
    'read_saved(ref="log-…", start_line=40)); make that call to read on, nothing is lost. '
    "A result whose first line says the source changed (a new revision) means earlier views "
    "are stale: read again from the start instead of joining the pieces."
)
"""The few lines every tool description ends with: how to read a partial result."""

_PATH_ARGS: dict[str, tuple[str, ...]] = {
    "read_file": ("path",),
    "list_dir": ("path",),
    "read_conversation": ("path",),
    "run_command": ("cwd",),
}
_ALWAYS_CALLABLE = ("read_saved", "project_result")
_IN_THE_ROOT: dict[tuple[str, str], str] = {
    ("read_file", "path"): "The file to read; a relative path starts at the workspace root.",
    ("list_dir", "path"): 'The directory to list; a relative path starts at the workspace root ("." is the root).',
    ("read_conversation", "path"): "The transcript file; a relative path starts at the workspace root.",
    ("run_command", "cwd"): "Directory to run in; a relative path starts at the workspace root; defaults to the root.",
}
"""What a path argument means through a Toolset, which resolves it against its root (the Python
functions' own docstrings speak of the current directory, which is true when they are called directly)."""


@functools.cache
def _spec(name: str) -> ToolSpec:
    """The spec of tool ``name``, derived from its function on first use."""
    module, _, attr = TOOLS[name].partition(":")
    return tool_spec(getattr(importlib.import_module(module), attr), name=name)


@functools.cache
def _rooted_spec(name: str) -> ToolSpec:
    """The spec of tool ``name`` as a Toolset offers it: its path arguments described against the root."""
    spec = _spec(name)
    params = []
    for p in spec.params:
        text = _IN_THE_ROOT.get((name, p.name))
        params.append(
            p if text is None else dataclasses.replace(p, description=text, schema={**p.schema, "description": text})
        )
    return dataclasses.replace(spec, params=tuple(params))


class Toolset:
    """The tools with their settings: a root, a store, a default budget.

    Args:
        root: Directory that relative paths resolve against and that paths must stay in.
        store: Where saved results go: a :class:`~wuu_tools.Store`, a directory, or None for
            the default (``$WUU_STORE`` or the user cache).
        budget: Token budget of a view when a call gives none (None: ``WUU_BUDGET`` or 2,000).
        allow_outside_root: Let paths (after resolving symlinks) leave ``root``.
        tools: Names of the tools to offer (default :data:`MODEL_TOOLS`); ``read_saved`` is
            always included, since continuations of saved results call it.
        session: What the toolset remembers of the views it gave (:mod:`wuu_tools.core.session`):
            True (the default) for a session of its own in memory, so a later view names the lines
            an earlier one showed instead of repeating them (``fresh=True`` shows them again); a
            name for a session kept in the store and shared with other processes (as
            ``WUU_SESSION`` names one for the CLI); a :class:`~wuu_tools.core.session.Session`;
            or False for none (every view depends on the source and arguments alone).

    Raises:
        InvalidArgument: An unknown tool name or a bad budget.
        SourceNotFound: ``root`` does not exist.
        NotAFile: ``root`` is not a directory.
    """

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        store: Store | str | os.PathLike[str] | None = None,
        budget: int | None = None,
        allow_outside_root: bool = False,
        tools: Sequence[str] | None = None,
        session: bool | str | Session = True,
    ) -> None:
        resolved = Path(root).expanduser().resolve()
        if not resolved.exists():
            raise SourceNotFound(f"toolset root {root}: no such directory")
        if not resolved.is_dir():
            raise NotAFile(f"toolset root {root}: not a directory")
        self.root = resolved
        self.store = store if store is None or isinstance(store, Store) else Store(store)
        self.budget = None if budget is None else resolve_budget(budget)
        self.allow_outside_root = bool(allow_outside_root)
        names = list(MODEL_TOOLS if tools is None else tools)
        unknown = [n for n in names if n not in TOOLS]
        if unknown:
            raise InvalidArgument(f"unknown tool {quote(unknown[0])}; valid tools: {', '.join(TOOLS)}")
        if "read_saved" not in names:
            names.append("read_saved")
        self.tools: tuple[str, ...] = tuple(dict.fromkeys(names))
        self.session: Session | None
        if isinstance(session, Session):
            self.session = session
        elif isinstance(session, str) and session:
            live = _LIVE.get(session)
            self.session = live if live is not None else StoredSession((self.store or Store()).root, session)
        elif session is True:
            self.session = Session()
        elif session is False or session is None:
            self.session = None
        else:
            raise InvalidArgument(f"session must be true, false, a name or a Session, not {quote(session)}")
        if self.session is not None and not isinstance(self.session, StoredSession):
            _LIVE[self.session_name] = self.session

    @property
    def session_name(self) -> str | None:
        """The name that finds this toolset's session again (``Toolset(session=name)``), or None without one."""
        if self.session is None:
            return None
        if isinstance(self.session, StoredSession):
            return self.session.name
        return f"live-{os.getpid()}-{id(self.session):x}"

    def __repr__(self) -> str:
        return (
            f"Toolset(root={str(self.root)!r}, budget={self.budget}, "
            f"allow_outside_root={self.allow_outside_root}, tools={list(self.tools)})"
        )

    # -- dispatch ------------------------------------------------------------------------

    def spec(self, name: str) -> ToolSpec:
        """The spec of a tool this toolset can call.

        Raises:
            InvalidArgument: ``name`` is not one of them; the message lists the valid names.
        """
        if name not in self.callable_names:
            raise InvalidArgument(f"unknown tool {quote(name)}; valid tools: {', '.join(self.tools)}")
        return _rooted_spec(name)

    @property
    def callable_names(self) -> tuple[str, ...]:
        """The offered tools plus ``project_result`` (for programs wrapping other tools)."""
        extra = tuple(n for n in _ALWAYS_CALLABLE if n not in self.tools)
        return self.tools + extra

    def call(self, name: str, args: Mapping[str, Any] | None = None) -> ToolResult:
        """Run tool ``name`` with ``args`` (a model's call, or a result's continuation).

        Relative paths resolve against the root; a path outside it (after resolving
        symlinks) is refused unless ``allow_outside_root``. The toolset's budget applies when
        ``args`` gives none, and saved results go to the toolset's store.

        Returns:
            The tool's result, or a one-line error result (``meta["error"]``) naming the
            valid tools or arguments when the call is wrong or the source cannot be read.
        """
        budget = (args or {}).get("budget") if isinstance(args, Mapping) else None
        budget = budget if isinstance(budget, int) and not isinstance(budget, bool) else self.budget
        try:
            spec = self.spec(name)
        except WuuError as exc:
            return ToolResult.from_error(exc, budget=budget)
        try:
            kwargs = self._confine(name, spec.check_args(args))
            if self.budget is not None and "budget" not in kwargs and "budget" in _param_names(spec):
                kwargs["budget"] = self.budget
            with use_store(self.store), relative_to(self.root), use_session(self.session):
                result: ToolResult = spec.fn(**kwargs)
            return result
        except WuuError as exc:
            return ToolResult.from_error(exc, name, budget)
        except Exception as exc:
            failure = WuuError(f"internal error ({type(exc).__name__}): {clip(exc)}; please report it")
            return ToolResult.from_error(failure, name, budget)

    def _confine(self, name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Resolve the path arguments of ``name`` against the root and refuse escapes."""
        for arg in _PATH_ARGS.get(name, ()):
            spec_default = next((p.default for p in _spec(name).params if p.name == arg), None)
            value = kwargs.get(arg, spec_default)
            if value is None:
                kwargs[arg] = str(self.root)
                continue
            if isinstance(value, str):
                check_path(value, arg)  # no file has such a path; resolving it would cost seconds
                value = given_path(value)  # a quoted name copied from a view
            try:
                given = Path(value).expanduser()
                real = (given if given.is_absolute() else self.root / given).resolve()
            except (ValueError, RuntimeError, OSError) as exc:  # NUL byte, unknown ~user, symlink loop
                raise InvalidArgument(f"{arg} {quote(value)} is not a usable path: {clip(exc)}") from exc
            if not self.allow_outside_root and not real.is_relative_to(self.root):
                raise AccessDenied(
                    f"{arg} {quote(value)} is outside the allowed root {self.root} (it resolves to {clip(real)}); "
                    "use a path inside the root"
                )
            kwargs[arg] = str(real)
        return kwargs

    # -- descriptions ----------------------------------------------------------------------

    def description(self, name: str) -> str:
        """The model-facing description of a tool: its docstring text, then :data:`PROTOCOL`."""
        return f"{_spec(name).description}\n\n{PROTOCOL}"

    def schemas(self, fmt: str = "openai") -> list[dict[str, Any]]:
        """The offered tools as tool definitions for a provider API.

        Args:
            fmt: ``"openai"`` (Chat Completions ``{"type": "function", "function": {...}}``),
                ``"openai-responses"`` (Responses ``{"type": "function", "name", ...}``),
                ``"anthropic"`` (``name``/``description``/``input_schema``) or ``"mcp"``
                (``name``/``description``/``inputSchema``, as in ``tools/list``).

        Raises:
            InvalidArgument: An unknown format; the message lists the valid ones.
        """
        if fmt not in SCHEMA_FORMATS:
            raise InvalidArgument(f"unknown schema format {quote(fmt)}; valid formats: {', '.join(SCHEMA_FORMATS)}")
        out = []
        for name in self.tools:
            schema, text = _rooted_spec(name).input_schema, self.description(name)
            if fmt == "openai":
                function = {"name": name, "description": text, "parameters": schema}
                out.append({"type": "function", "function": function})
            elif fmt == "openai-responses":
                out.append(
                    {
                        "type": "function",
                        "name": name,
                        "description": text,
                        "parameters": schema,
                        "strict": False,
                    }
                )
            elif fmt == "anthropic":
                out.append({"name": name, "description": text, "input_schema": schema})
            else:
                out.append({"name": name, "description": text, "inputSchema": schema})
        return out

    # -- framework functions -------------------------------------------------------------------

    def functions(self) -> list[Callable[..., str]]:
        """The offered tools as plain typed functions that return the projection text.

        Each has a type hint on every parameter in the form ``Annotated[T, Field(description=...)]``,
        a ``str`` return, a Google docstring with ``Args:`` for every parameter, and no
        ``*args``/``**kwargs``, so OpenAI Agents ``function_tool``, LangChain
        ``StructuredTool.from_function``, Anthropic ``beta_tool``, pydantic-ai ``Tool``,
        smolagents ``tool`` and ``MCPServer.add_tool`` take them unchanged. Each is self-contained:
        it calls a Toolset with this one's settings (root, store, budget, allow_outside_root), so
        errors come back as text too, and a framework that exports a tool's source (smolagents'
        ``to_dict()``) gets code that runs on its own.

        Raises:
            ImportError: pydantic is not installed (every framework above brings it).
        """
        from pydantic import Field

        return [self._function(_rooted_spec(name), Field) for name in self.tools]

    def _function(self, spec: ToolSpec, field: Callable[..., Any]) -> Callable[..., str]:
        # Generated like dataclasses generate __init__: a real signature, no *args/**kwargs. The
        # body is self-contained (it imports wuu_tools and builds a Toolset with this one's
        # settings), so a framework that exports a tool's source, as smolagents' to_dict() does,
        # gets code that runs on its own; that export renames every mention of the tool's name,
        # so the body spells the name in two parts.
        params = ", ".join(p.name if p.required else f"{p.name}={p.default!r}" for p in spec.params)
        packed = ", ".join(f"{p.name!r}: {p.name}" for p in spec.params)
        half = len(spec.name) // 2
        source = (
            f"def {spec.name}({params}):\n"
            f"    from wuu_tools import {'Store, Toolset' if self.store is not None else 'Toolset'}\n\n"
            f"    tool = {spec.name[:half]!r} {spec.name[half:]!r}\n"
            f"    toolset = Toolset({self._settings_source()}, tools=[tool])\n"
            f"    return toolset.call(tool, {{{packed}}}).text\n"
        )
        filename = f"<wuu_tools.Toolset.functions {spec.name}>"
        namespace: dict[str, Any] = {}
        exec(compile(source, filename, "exec"), namespace)  # built from validated identifiers and literals only
        # Registered like attrs does, so inspect.getsource works for frameworks that read it.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        fn = namespace[spec.name]
        fn.__annotations__ = {
            **{p.name: Annotated[p.annotation, field(description=p.description)] for p in spec.params},
            "return": str,
        }
        args_doc = "\n".join(f"    {p.name}: {p.description}" for p in spec.params)
        fn.__doc__ = (
            f"{self.description(spec.name)}\n\nArgs:\n{args_doc}\n\n"
            "Returns:\n    The projection text: the view, what was left out, and the call that reads on.\n"
        )
        fn.__module__ = __name__
        fn.__qualname__ = spec.name
        return fn

    def _settings_source(self) -> str:
        """This toolset's settings as Python source: the keyword arguments that build an equal Toolset."""
        store = "None" if self.store is None else f"Store({str(self.store.root)!r}, max_bytes={self.store.max_bytes!r})"
        return (
            f"root={str(self.root)!r}, store={store}, budget={self.budget!r}, "
            f"allow_outside_root={self.allow_outside_root!r}, session={self.session_name or False!r}"
        )


_LIVE: weakref.WeakValueDictionary[str, Session] = weakref.WeakValueDictionary()
"""The in-memory sessions of this process's toolsets, by name: a framework function finds its toolset's."""


def _param_names(spec: ToolSpec) -> set[str]:
    return {p.name for p in spec.params}
