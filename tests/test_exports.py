"""The public face: __all__ is complete and every public name is documented."""

from __future__ import annotations

import inspect

import wuu_tools


def test_all_names_exist_and_are_documented() -> None:
    for name in wuu_tools.__all__:
        obj = getattr(wuu_tools, name)
        if name.startswith("__"):
            continue
        assert inspect.getdoc(obj), f"{name} has no docstring"


def test_every_public_name_is_exported() -> None:
    public = {n for n in dir(wuu_tools) if not n.startswith("_") and not inspect.ismodule(getattr(wuu_tools, n))}
    public -= {"annotations"}
    assert public <= set(wuu_tools.__all__), public - set(wuu_tools.__all__)


def test_errors_share_one_root() -> None:
    errors = [getattr(wuu_tools, n) for n in wuu_tools.__all__ if n.endswith(("Error", "Denied", "Found", "File"))]
    errors += [wuu_tools.InvalidArgument, wuu_tools.InvalidReference, wuu_tools.UnsupportedFormat]
    for err in errors:
        assert issubclass(err, wuu_tools.WuuError), err
