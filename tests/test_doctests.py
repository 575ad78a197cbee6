"""The ``>>>`` examples in the modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import wuu_tools

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(wuu_tools.__path__, "wuu_tools.")
    if not m.name.startswith(("wuu_tools.mcp", "wuu_tools.cli.__main__"))
)


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
