"""The CLI's own parser (wuu_tools/cli/parse.py) agrees with typer on every command line it accepts.

Each command is declared once; ``wuu`` parses the usual lines itself and leaves the rest to the
typer app built from the same declarations. For any line :func:`parse` accepts, the command must
get exactly the arguments typer would give it (same values, same types); a line it declines is
typer's to parse (help, errors), so declining is always safe, but the common lines must be accepted
or ``wuu`` would load typer for them.
"""

from __future__ import annotations

import enum
import subprocess
import sys
import typing
from typing import Any

import pytest
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st

from wuu_tools.cli import MODULES
from wuu_tools.cli.app import build_app
from wuu_tools.cli.params import COMMANDS, Command, Param
from wuu_tools.cli.parse import parse

_seen: dict[tuple[str, ...], dict[str, Any]] = {}


def _recorder(cmd: Command) -> Any:
    def record(**kwargs: Any) -> None:
        _seen[cmd.path] = kwargs

    return record


CLICK = typer.main.get_command(build_app(dict.fromkeys(MODULES.values()), call=_recorder))


def _through_typer(path: tuple[str, ...], args: list[str]) -> dict[str, Any] | None:
    """The arguments typer hands the command for ``wuu PATH ARGS``, or None when it rejects the line."""
    _seen.clear()
    try:
        CLICK.main([*path, *args], prog_name="wuu", standalone_mode=False)
    except Exception:  # a usage error: typer rejects the line
        return None
    return _seen.get(path)


_ODD = st.one_of(
    st.sampled_from(["007", "0", "-1", "+5", " 5", "5_0", "1e3", "1.5", ".5", "5.", "", "=", "-", "--", "AUTO"]),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6),
    st.sampled_from(["a.py", "dir/with space", "x=y", "-x", "--json", "--help", "\udcff", "--budget"]),
)


def _value(annotation: Any) -> st.SearchStrategy[str]:
    """Values of the parameter's own type (mostly), or of any shape."""
    kinds = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    kind = kinds[0]
    if typing.get_origin(kind) is list:
        kind = typing.get_args(kind)[0]
    own: st.SearchStrategy[str]
    if kind is int:
        own = st.from_regex(r"[0-9]{1,5}", fullmatch=True)
    elif kind is float:
        own = st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3})?", fullmatch=True)
    elif isinstance(kind, type) and issubclass(kind, enum.Enum):
        own = st.sampled_from([str(m.value) for m in kind])
    else:
        own = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=8)
    return st.one_of(own, own, _ODD)


@st.composite
def _words(draw: st.DrawFn, cmd: Command) -> list[str]:
    """A command line for ``cmd``: its options with values and its arguments in any order, at times with odd words."""
    import inspect

    hints = typing.get_type_hints(cmd.fn)
    options, arguments = [], []
    for name, p in inspect.signature(cmd.fn).parameters.items():
        value = _value(hints[name])
        if p.default.argument:
            many = typing.get_origin(hints[name]) is list
            arguments.append(st.lists(value, min_size=0, max_size=3 if many else 1))
        elif hints[name] is bool:
            options += [st.tuples(st.sampled_from(p.default.decls)), st.tuples(st.just(f"{p.default.decls[0]}=1"))]
        else:
            options.append(st.tuples(st.sampled_from(p.default.decls), value))
            options.append(st.builds(lambda d, v: (f"{d}={v}",), st.just(p.default.decls[0]), value))
    parts = draw(st.lists(st.one_of(*options), max_size=4)) if options else []
    words = [w for part in parts for w in part]
    for argument in arguments:
        for word in draw(argument):
            words.insert(draw(st.integers(0, len(words))), word)
    if draw(st.integers(0, 3)) == 0:
        words.insert(draw(st.integers(0, len(words))), draw(st.one_of(_ODD, st.just("--"))))
    return words


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=lambda p: " ".join(p))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_accepted_lines_get_typers_arguments(path: tuple[str, ...], data: st.DataObject) -> None:
    cmd = COMMANDS[path]
    args = data.draw(_words(cmd))
    ours = parse(cmd, args)
    if ours is None:
        return  # typer's line: nothing to compare
    theirs = _through_typer(path, args)
    assert theirs is not None, f"wuu {' '.join(path)} {args!r}: accepted here, rejected by typer"
    assert {k: (type(v), v) for k, v in ours.items()} == {k: (type(v), v) for k, v in theirs.items()}


USUAL = [
    ["read", "a.py"],
    ["read", "app.log", "--budget", "200"],
    ["read", "a.py", "-s", "40", "-e", "90", "--revision", "98a340dd8a2f", "--json"],
    ["read", "--budget=300", "a.py"],
    ["saved", "log-5aaec56083bca04f49d6fdc8c4af0a43", "--pattern", "error:", "-i"],
    ["ls"],
    ["ls", "demo", "--depth", "3", "--all", "--cursor", "Ag8N"],
    ["run", "--", "true"],
    ["run", "--budget", "400", "--", "sh", "fixtures/build.sh"],
    ["run", "--timeout", "0.5", "sleep 30"],
    ["run", "make", "-j4", "--json"],  # after the command's first word, everything is the command's
    ["conv", "session.jsonl", "--before-turn", "40"],
    ["project", "--kind", "log", "--budget", "300"],
    ["call", "-"],
    ["call", "read_file", '{"path": "a.py"}', "--json"],
    ["schema", "--format", "mcp"],
    ["mcp", "serve", "--root", "."],
    ["mcp", "proxy", "--budget", "300", "--", "node", "server.js", "--port", "5"],
]


@pytest.mark.parametrize("line", USUAL, ids=" ".join)
def test_usual_lines_are_parsed_without_typer(line: list[str]) -> None:
    depth = 2 if line[0] == "mcp" else 1
    path = tuple(line[:depth])
    ours = parse(COMMANDS[path], line[depth:])
    assert ours is not None
    assert ours == _through_typer(path, line[depth:])


def test_declarations_are_params() -> None:
    import inspect

    for cmd in COMMANDS.values():
        assert all(isinstance(p.default, Param) for p in inspect.signature(cmd.fn).parameters.values())
        assert cmd.fn.__doc__, f"{cmd.path}: the docstring is the command's help"


def test_a_usual_command_does_not_load_typer(tmp_path: Any) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    code = (
        "import sys; sys.argv = ['wuu', 'read', sys.argv[1]]\n"
        "from wuu_tools.cli import main\n"
        "try:\n    main()\nfinally:\n"
        "    print(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'pydantic', 'click')))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.txt")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "1\tone" in out.stdout and out.stdout.rstrip().endswith("[]"), out.stdout
