"""The package's folders are its architecture: imports point down only, never sideways between tools.

Layers, top to bottom: the faces (``cli``, then ``mcp``), ``toolset`` and ``replay`` (the evaluation on
recorded runs, which ``wuu replay`` and ``scripts/replay.py`` share), the tools (``files``, ``dirs``,
``commands``, ``external``, ``conversations``), the views of command output and logs (``logs``), the
view engine (``views``), and ``core``.
A module may import its own folder and any folder on a lower layer; a tool never imports another
tool's folder (a shared piece moves down instead). The root ``wuu_tools`` package is the public face:
it loads only ``core`` eagerly, so importing it (for ``__version__``) counts as importing ``core``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "wuu_tools"

LAYERS: dict[str, int] = {
    "cli": 7,
    "mcp": 6,
    "toolset": 5,
    "replay": 5,
    "files": 4,
    "dirs": 4,
    "commands": 4,
    "external": 4,
    "conversations": 4,
    "logs": 3,
    "views": 2,
    "core": 1,
}


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, package: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports from inside the package, resolved to a dotted name, with its line."""
    name = _module_name(path, package)
    here = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "wuu_tools" or target.startswith("wuu_tools."):
                # ``from . import x`` names modules too: count each submodule that exists.
                subs = [f"{target}.{a.name}" for a in node.names if _exists(f"{target}.{a.name}", package)]
                found.extend((node.lineno, t) for t in subs or [target])
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names if a.name.startswith("wuu_tools"))
    return found


def _exists(dotted: str, package: Path) -> bool:
    rel = Path(*dotted.split(".")[1:])
    return (package / rel).with_suffix(".py").exists() or (package / rel / "__init__.py").exists()


def _folder(dotted: str) -> str | None:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else None


def _violations(package: Path = PACKAGE) -> list[str]:
    bad = []
    for path in sorted(package.rglob("*.py")):
        source = _folder(_module_name(path, package))
        if source is None:
            continue  # the root face may import anything
        for line, target in _imports(path, package):
            dest = _folder(target) or "core"  # the root package loads only core eagerly
            if dest == source:
                continue
            where = f"{path.relative_to(package.parent)}:{line} imports {target}"
            if LAYERS[dest] > LAYERS[source]:
                bad.append(f"upward: {where}")
            elif LAYERS[dest] == LAYERS[source]:
                bad.append(f"sideways: {where}")
    return bad


def test_every_folder_has_a_layer() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert folders == set(LAYERS)


def test_imports_point_down_only() -> None:
    assert _violations() == []


def test_the_check_catches_an_upward_and_a_sideways_import(tmp_path: Path) -> None:
    fake = tmp_path / "wuu_tools"
    for folder in LAYERS:
        (fake / folder).mkdir(parents=True)
        (fake / folder / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "core" / "budget.py").write_text("from ..toolset import schema\n")
    (fake / "files" / "saved.py").write_text("from ..dirs.listing import list_dir\nfrom ..core import budget\n")
    (fake / "dirs" / "listing.py").write_text("")
    (fake / "toolset" / "schema.py").write_text("")
    assert _violations(fake) == [
        "upward: wuu_tools/core/budget.py:1 imports wuu_tools.toolset.schema",
        "sideways: wuu_tools/files/saved.py:1 imports wuu_tools.dirs.listing",
    ]


def test_modules_inside_folders_carry_no_leading_underscore() -> None:
    private = [
        str(p.relative_to(PACKAGE.parent))
        for p in PACKAGE.rglob("_*.py")
        if p.name not in {"__init__.py", "__main__.py"}
    ]
    assert private == []


def test_each_folder_says_what_it_is() -> None:
    for folder in LAYERS:
        doc = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text()))
        assert doc and len(doc.splitlines()) >= 2, folder
