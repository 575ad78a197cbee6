"""Toolset: dispatch by name, root confinement, budget and store settings, and the functions it hands out."""

from __future__ import annotations

import inspect
import os
import sys
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wuu_tools import AccessDenied, InvalidArgument, NotAFile, SourceNotFound, Store, ToolResult, Toolset
from wuu_tools.toolset.toolset import MODEL_TOOLS, PROTOCOL, TOOLS


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "project"
    (base / "src").mkdir(parents=True)
    (base / "src" / "big.py").write_text("".join(f"line {n} of a long file\n" for n in range(1, 2001)))
    (base / "small.txt").write_text("one\ntwo\n")
    (tmp_path / "secret.txt").write_text("outside the root\n")
    return base


def test_default_tools_are_the_model_facing_ones(root: Path) -> None:
    ts = Toolset(root)
    assert ts.tools == MODEL_TOOLS
    assert "project_result" in ts.callable_names
    assert "project_result" not in [s["name"] for s in ts.schemas("anthropic")]


def test_read_saved_is_always_offered(root: Path) -> None:
    ts = Toolset(root, tools=["run_command"])
    assert ts.tools == ("run_command", "read_saved")


def test_unknown_tool_names_the_valid_ones(root: Path) -> None:
    result = Toolset(root).call("read_fil", {"path": "a"})
    assert result.is_error and result.complete
    assert result.text == (
        "error: unknown tool 'read_fil'; valid tools: read_file, list_dir, run_command, read_conversation, read_saved"
    )
    with pytest.raises(InvalidArgument, match="unknown tool 'nope'; valid tools: read_file"):
        Toolset(root, tools=["nope"])


def test_bad_arguments_name_the_valid_ones(root: Path) -> None:
    ts = Toolset(root)
    result = ts.call("read_file", {"file": "small.txt"})
    assert result.text.startswith("error: read_file: unknown argument 'file'; valid arguments: path (required)")
    assert result.meta["error"]["kind"] == "invalid_argument"
    assert "must be an integer" in ts.call("read_file", {"path": "small.txt", "start_line": "2"}).text
    assert "missing required argument 'path'" in ts.call("read_file", None).text


def test_relative_paths_resolve_against_the_root(root: Path) -> None:
    result = Toolset(root).call("read_file", {"path": "small.txt"})
    assert not result.is_error
    assert "one" in result.text and "two" in result.text
    assert result.complete


def test_paths_outside_the_root_are_refused(root: Path) -> None:
    ts = Toolset(root)
    for path in ("../secret.txt", str(root.parent / "secret.txt"), "src/../../secret.txt"):
        result = ts.call("read_file", {"path": path})
        assert result.meta["error"]["kind"] == AccessDenied.kind, path
        assert "outside the allowed root" in result.text
        assert "outside the root\n" not in result.text


def test_symlinks_are_resolved_before_the_check(root: Path) -> None:
    (root / "link.txt").symlink_to(root.parent / "secret.txt")
    (root / "linkdir").symlink_to(root.parent)
    ts = Toolset(root)
    assert "outside the allowed root" in ts.call("read_file", {"path": "link.txt"}).text
    assert "outside the allowed root" in ts.call("read_file", {"path": "linkdir/secret.txt"}).text
    assert "outside the allowed root" in ts.call("list_dir", {"path": "linkdir"}).text
    (root / "inside.txt").symlink_to(root / "small.txt")
    assert "two" in ts.call("read_file", {"path": "inside.txt"}).text


def test_unusable_paths_are_bad_arguments(root: Path) -> None:
    ts = Toolset(root)
    for path in ("a\x00b", "~no_such_user_wuu/x"):
        result = ts.call("read_file", {"path": path})
        assert result.meta["error"]["kind"] in ("invalid_argument", "access_denied"), result.text
    assert "not a usable path" in ts.call("read_file", {"path": "a\x00b"}).text


def test_allow_outside_root(root: Path) -> None:
    result = Toolset(root, allow_outside_root=True).call("read_file", {"path": "../secret.txt"})
    assert "outside the root" in result.text


def test_paths_under_the_root_are_shown_and_continued_relative_to_it(root: Path, tmp_path: Path) -> None:
    # The tools get absolute paths (resolved against the root); the views name them as the caller
    # wrote them, so the root's own path is not paid for in every header and call.
    ts = Toolset(root, budget=300)
    first = ts.call("read_file", {"path": "src/big.py"})
    assert str(root) not in first.text
    assert first.continuation is not None and first.continuation["args"]["path"] == "src/big.py"
    page = ts.call(first.continuation["tool"], first.continuation["args"])
    assert page.text.startswith("[src/big.py · lines ") and str(root) not in page.text
    listing = ts.call("list_dir", {})
    assert listing.text.startswith("[. · depth 2") and str(root) not in listing.text  # the root, named "."
    (tmp_path / "outside.log").write_text("".join(f"entry {n}\n" for n in range(1, 2001)))
    outside = Toolset(root, allow_outside_root=True).call("read_file", {"path": "../outside.log", "budget": 100})
    assert outside.continuation is not None  # outside the root: named in full
    assert outside.continuation["args"]["path"] == str(tmp_path / "outside.log")


def test_list_dir_defaults_to_the_root(root: Path) -> None:
    result = Toolset(root).call("list_dir", {})
    assert not result.is_error, result.text
    assert "small.txt" in result.text and "src/" in result.text


def test_run_command_runs_in_the_root_and_its_cwd_is_confined(root: Path) -> None:
    ts = Toolset(root)
    result = ts.call("run_command", {"command": [sys.executable, "-c", "import os; print(os.getcwd())"]})
    assert not result.is_error, result.text
    assert str(root) in result.text
    assert "outside the allowed root" in ts.call("run_command", {"command": "pwd", "cwd": ".."}).text
    inside = ts.call("run_command", {"command": [sys.executable, "-c", "import os; print(os.getcwd())"], "cwd": "src"})
    assert str(root / "src") in inside.text


def test_the_toolset_budget_applies_when_a_call_gives_none(root: Path) -> None:
    ts = Toolset(root, budget=200)
    first = ts.call("read_file", {"path": "src/big.py"})
    assert first.tokens <= 200
    assert first.continuation is not None
    assert first.continuation["args"]["budget"] == 200
    explicit = ts.call("read_file", {"path": "src/big.py", "budget": 600})
    assert 200 < explicit.tokens <= 600


def test_following_continuations_through_call_reads_every_line(root: Path) -> None:
    ts = Toolset(root, budget=300)
    result = ts.call("read_file", {"path": "src/big.py"})
    seen: set[int] = set()
    for _ in range(200):
        for first, last in result.meta["shown"]:
            seen.update(range(first, last + 1))
        if result.continuation is None:
            break
        result = ts.call(result.continuation["tool"], result.continuation["args"])
        assert not result.is_error, result.text
    assert result.complete
    assert seen == set(range(1, 2001))


def test_saved_results_go_to_the_toolset_store(root: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "own-store")
    ts = Toolset(root, store=store, budget=100)
    result = ts.call("run_command", {"command": [sys.executable, "-c", "print('x\\n' * 3000)"]})
    assert result.source is not None, result.text
    assert store.path(result.source).is_file()
    assert result.continuation is not None and result.continuation["tool"] == "read_saved"
    follow = ts.call("read_saved", result.continuation["args"])
    assert not follow.is_error, follow.text
    # The default store (WUU_STORE of this test) does not have it.
    assert "is not in the store" in Toolset(root).call("read_saved", {"ref": result.source}).text


def test_store_may_be_given_as_a_directory(root: Path, tmp_path: Path) -> None:
    ts = Toolset(root, store=tmp_path / "dir-store")
    assert isinstance(ts.store, Store)
    assert ts.store.root == tmp_path / "dir-store"


def test_bad_settings_are_refused(root: Path) -> None:
    with pytest.raises(SourceNotFound):
        Toolset(root / "missing")
    with pytest.raises(NotAFile):
        Toolset(root / "small.txt")
    with pytest.raises(InvalidArgument, match="budget"):
        Toolset(root, budget=0)


def test_project_result_is_callable_for_programs(root: Path) -> None:
    result = Toolset(root, budget=100).call(
        "project_result", {"result": {"content": [{"type": "text", "text": "row\n" * 5000}]}, "tool": "x"}
    )
    assert not result.is_error, result.text
    assert not result.complete and result.source


def test_descriptions_teach_the_protocol(root: Path) -> None:
    ts = Toolset(root)
    for spec in ts.schemas("mcp"):
        assert spec["description"].endswith(PROTOCOL)
        assert "read_saved(" in spec["description"]


def test_functions_are_plain_typed_documented_functions(root: Path) -> None:
    ts = Toolset(root, tools=list(TOOLS))
    fns = ts.functions()
    assert [f.__name__ for f in fns] == list(ts.tools)
    for fn in fns:
        sig = inspect.signature(fn)
        kinds = {p.kind for p in sig.parameters.values()}
        assert kinds <= {inspect.Parameter.POSITIONAL_OR_KEYWORD}, fn.__name__
        hints = typing.get_type_hints(fn, include_extras=True)
        assert hints["return"] is str
        doc = inspect.getdoc(fn) or ""
        assert f"def {fn.__name__}(" in inspect.getsource(fn)
        assert "Args:" in doc and "Returns:" in doc
        spec = ts.spec(fn.__name__)
        assert list(sig.parameters) == [p.name for p in spec.params]
        for p in spec.params:
            assert typing.get_origin(hints[p.name]) is typing.Annotated
            field = typing.get_args(hints[p.name])[1]
            assert field.description == p.description
            assert f"    {p.name}: {p.description}" in doc
            if not p.required:
                assert sig.parameters[p.name].default == p.default


def test_functions_return_the_projection_text_and_errors_as_text(root: Path) -> None:
    fns = {f.__name__: f for f in Toolset(root, budget=200).functions()}
    text = fns["read_file"]("src/big.py")
    assert isinstance(text, str)
    assert "line 1 of a long file" in text and "read_file(path=" in text
    assert fns["read_file"](path="../secret.txt").startswith("error: read_file: ")
    assert (
        fns["read_file"]("small.txt", start_line=2)
        == Toolset(root).call("read_file", {"path": "small.txt", "start_line": 2}).text
    )


def test_the_process_cwd_does_not_matter(root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert os.getcwd() != str(root)
    assert "two" in Toolset(root).call("read_file", {"path": "small.txt"}).text


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
_arg_names = st.sampled_from(
    [
        "path",
        "start_line",
        "end_line",
        "start_char",
        "revision",
        "budget",
        "ref",
        "pattern",
        "depth",
        "cursor",
        "include_ignored",
        "bogus",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["read_file", "list_dir", "read_saved", "nope"]),
    args=st.dictionaries(_arg_names, _json, max_size=4),
)
def test_call_never_raises_for_any_json_arguments(root: Path, name: str, args: dict[str, object]) -> None:
    result = Toolset(root, budget=100).call(name, args)
    assert isinstance(result, ToolResult)
    assert result.complete == (result.continuation is None)
    if result.is_error:
        assert result.text.startswith("error: ") and "\n" not in result.text
