"""Which directory entries a listing leaves out, and why: git's ignore rules plus heavy folders.

Rules, lowest precedence first (later rules win, as in git):

- ``.git/info/exclude`` of the repository that holds the listed directory;
- at every directory level from the repository top down, that directory's ``.gitignore``
  followed by its ``.wuuignore`` (same syntax; wuu-only additions); a nested file applies
  to its own subtree only, and ``!negations`` re-include what an outer rule excluded.

On top of those, version-control metadata (``.git/``, ``.hg/``, ``.svn/``) is always left out,
and well-known heavy folders (``node_modules/``, ``.venv/``, ``target/``, caches) are left out
unless a negation rule names them. A directory that rules from above it ignore still shows
its contents when it is the one listed: the caller asked for it by name, so those outer
rules are left out. Matching is done by :mod:`pathspec` (``GitIgnoreSpec``),
with one combined regular expression per ignore file as a fast "can anything match?" test.

>>> rules = IgnoreRules.load("/nonexistent-dir-for-doctest")
>>> rules.root_scope().check("node_modules", "node_modules", True).reason
'dependency folder'
>>> rules.root_scope().check("README.md", "README.md", False) is None
True
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.names import shown_path

if TYPE_CHECKING:  # imported on first use: most listings never compile a rule file
    import pathspec

__all__ = ["HEAVY_DIRS", "IGNORE_FILES", "VCS_DIRS", "IgnoreRules", "Scope", "Verdict"]

IGNORE_FILES = (".gitignore", ".wuuignore")
"""Per-directory rule files, read in this order (the later one wins on conflicts)."""

VCS_DIRS = {".git": "git metadata", ".hg": "mercurial metadata", ".svn": "subversion metadata"}
"""Always left out (``include_ignored=True`` lists them)."""

HEAVY_DIRS = {
    "node_modules": "dependency folder",
    "bower_components": "dependency folder",
    ".venv": "virtual environment",
    "venv": "virtual environment",
    "target": "build output",
    "__pycache__": "bytecode cache",
    ".mypy_cache": "tool cache",
    ".pytest_cache": "tool cache",
    ".ruff_cache": "tool cache",
    ".tox": "tool environments",
    ".nox": "tool environments",
    ".gradle": "build cache",
    ".terraform": "dependency folder",
}
"""Left out unless a ``!negation`` rule re-includes them (``include_ignored=True`` lists them)."""

_MAX_RULE_FILE_BYTES = 1 << 20
_NAME_CACHE = 1 << 16
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


@dataclass(frozen=True)
class Verdict:
    """Why an entry is left out: ``reason`` is e.g. ``".gitignore:3"`` or ``"dependency folder"``."""

    reason: str


@dataclass(frozen=True)
class _RuleFile:
    """The rules of one directory level: a compiled spec, where each pattern came from, a prefilter."""

    prefix: str  # added in front of a path relative to the listed root's sub-path (outer levels)
    strip: int  # characters cut from the front of a path relative to the listed root (inner levels)
    spec: pathspec.GitIgnoreSpec
    origins: tuple[tuple[str, int], ...]  # pattern index -> (rule file label, 1-based line)
    quick: re.Pattern[str] | None  # matches whenever any pattern could match
    by_name: dict[str, tuple[bool, str] | None] | None  # verdicts by name, when no pattern holds a "/"
    files: bool  # some pattern can match a file (not every pattern ends with "/")

    def check(self, rel: str) -> tuple[bool, str] | None:
        """``(ignored, origin)`` for the last matching rule, or None when no rule matches."""
        if self.by_name is None:
            return self._match(self.prefix + rel[self.strip :])
        # Every pattern matches a name at any depth, so the verdict depends on the name alone.
        name = rel[rel.rfind("/", 0, len(rel) - 1) + 1 :]
        try:
            return self.by_name[name]
        except KeyError:
            verdict = self._match(name)
            if len(self.by_name) < _NAME_CACHE:
                self.by_name[name] = verdict
            return verdict

    def _match(self, path: str) -> tuple[bool, str] | None:
        """The last rule that matches ``path`` itself (a directory ends with ``/``).

        A pattern's regex also matches everything below a directory it names (``keep.log``
        matches ``keep.log/x.log/``); git applies that only by not entering the directory,
        which the walk does itself. So a match must end at the path's end: otherwise a
        negation such as ``!keep.log`` would re-include ``keep.log/x.log`` that ``*.log`` ignores.
        """
        if self.quick is not None and self.quick.match(path) is None:
            return None
        end = len(path)
        for index in range(len(self.spec.patterns) - 1, -1, -1):
            pattern = self.spec.patterns[index]
            if pattern.include is None or pattern.regex is None:
                continue
            m = pattern.regex.match(path)
            if m is not None and m.end() == end:
                label, line = self.origins[index]
                return pattern.include, f"{label}:{line}"
        return None


def _read_rules(path: str) -> list[str]:
    """The lines of a rule file, or nothing when it is missing, unreadable or not text."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_RULE_FILE_BYTES)
    except OSError:
        return []
    return data.decode("utf-8", "replace").splitlines()


def _compile(sources: list[tuple[str, list[str]]], prefix: str, strip: int) -> _RuleFile | None:
    """One :class:`_RuleFile` from ``(label, lines)`` pairs, or None when they hold no pattern."""
    lines: list[str] = []
    origins: list[tuple[str, int]] = []
    for label, body in sources:
        for number, line in enumerate(body, 1):
            # pathspec drops empty lines; a comment keeps pattern indexes aligned with lines.
            lines.append(line if line.strip() else "#")
            origins.append((label, number))
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    live = [p for p in spec.patterns if p.include is not None and p.regex is not None]
    if not live:
        return None
    alternatives = "|".join(f"(?:{_NAMED_GROUP.sub('(?:', p.regex.pattern)})" for p in live)  # type: ignore[union-attr]
    try:
        quick: re.Pattern[str] | None = re.compile(alternatives)
    except re.error:
        quick = None
    by_name = {} if all(_name_only(line) for line in lines) else None
    files = any(
        not _dir_only(line) for line, p in zip(lines, spec.patterns, strict=True) if p.include is not None and p.regex
    )
    return _RuleFile(prefix, strip, spec, tuple(origins), quick, by_name, files)


def _dir_only(line: str) -> bool:
    """True for a pattern that ends with ``/``: it matches directories only.

    In git such a pattern never ignores a file on its own; a file is ignored by it only
    through an ignored parent, and the walk never enters an ignored folder.
    """
    body = line.strip().lstrip("!")
    return len(body) > 1 and body.endswith("/")


def _name_only(line: str) -> bool:
    """True for a comment, or a pattern without an inner ``/`` (it matches a name at any depth)."""
    body = line.strip()
    if not body or body.startswith("#"):
        return True
    return "/" not in body.lstrip("!").rstrip("/")


class Scope:
    """The rules in force inside one directory of the listing (its own rule files included)."""

    __slots__ = ("_files", "_root")

    def __init__(self, root: IgnoreRules, files: tuple[_RuleFile, ...]) -> None:
        self._root = root
        self._files = files

    @property
    def active(self) -> bool:
        """True when some rule file applies here (heavy and VCS folders are left out regardless)."""
        return bool(self._files)

    @property
    def files_active(self) -> bool:
        """True when some rule in force here can ignore a file (not only directories)."""
        return any(f.files for f in self._files)

    def enter(self, rel: str, names: set[str] | frozenset[str]) -> Scope:
        """The scope of subdirectory ``rel`` (relative to the listed root), given its entry names."""
        present = [n for n in IGNORE_FILES if n in names]
        if not present:
            return self
        base = os.path.join(self._root.path, rel)
        label = shown_path(rel)
        sources = [(f"{label}/{n}", _read_rules(os.path.join(base, n))) for n in present]
        compiled = _compile(sources, "", len(rel) + 1)
        return self if compiled is None else Scope(self._root, (*self._files, compiled))

    def check(self, rel: str, name: str, is_dir: bool) -> Verdict | None:
        """Why ``rel`` (relative to the listed root) is left out, or None when it is listed."""
        if is_dir and name in VCS_DIRS:
            return Verdict(VCS_DIRS[name])
        probe = rel + "/" if is_dir else rel
        for rules in reversed(self._files):
            hit = rules.check(probe)
            if hit is not None:
                ignored, origin = hit
                if ignored:
                    return Verdict(f"ignored by {origin}")
                return None  # a negation re-includes it, heavy folder or not
        if is_dir and name in HEAVY_DIRS:
            return Verdict(HEAVY_DIRS[name])
        return None


class IgnoreRules:
    """Ignore rules for listing the directory ``path``; build with :meth:`load`."""

    def __init__(self, path: str, outer: tuple[_RuleFile, ...]) -> None:
        self.path = path
        self._outer = outer

    @classmethod
    def load(cls, path: str) -> IgnoreRules:
        """Find the repository holding ``path`` and read the rules that apply from above it."""
        path = os.path.abspath(path)
        top = _repository_top(path)
        outer: list[_RuleFile] = []
        if top is not None:
            exclude = _git_dir_exclude(top)
            inside = os.path.relpath(path, top).replace(os.sep, "/")
            levels = [] if inside == "." else inside.split("/")
            prefix = "" if inside == "." else inside + "/"
            if exclude is not None:
                compiled = _compile([(".git/info/exclude", _read_rules(exclude))], prefix, 0)
                if compiled is not None:
                    outer.append(compiled)
            # Rule files of the repository top and of each level between it and ``path``.
            for depth in range(len(levels)):
                here = os.path.join(top, *levels[:depth])
                label_dir = os.path.relpath(here, path).replace(os.sep, "/")
                below = "/".join(levels[depth:]) + "/"
                sources = [
                    (f"{label_dir}/{n}", _read_rules(os.path.join(here, n)))
                    for n in IGNORE_FILES
                    if os.path.isfile(os.path.join(here, n))
                ]
                if sources:
                    compiled = _compile(sources, below, 0)
                    if compiled is not None:
                        outer.append(compiled)
        # A directory listed on purpose shows its contents even when an outer rule ignores it.
        for rules in reversed(outer):
            hit = rules._match(rules.prefix)
            if hit is not None:
                if hit[0]:
                    outer = []
                break
        return cls(path, tuple(outer))

    def root_scope(self) -> Scope:
        """The scope of the listed directory itself, its own rule files included."""
        try:
            names = frozenset(n for n in IGNORE_FILES if os.path.isfile(os.path.join(self.path, n)))
        except OSError:
            names = frozenset()
        scope = Scope(self, self._outer)
        if not names:
            return scope
        sources = [(n, _read_rules(os.path.join(self.path, n))) for n in IGNORE_FILES if n in names]
        compiled = _compile(sources, "", 0)
        return scope if compiled is None else Scope(self, (*self._outer, compiled))


def _repository_top(path: str) -> str | None:
    """The nearest directory at or above ``path`` that holds ``.git`` (a directory or a file)."""
    here = path
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _git_dir_exclude(top: str) -> str | None:
    """``info/exclude`` of the repository at ``top`` (``.git`` may be a ``gitdir:`` file)."""
    dot_git = os.path.join(top, ".git")
    git_dir = dot_git
    if os.path.isfile(dot_git):
        lines = _read_rules(dot_git)
        if not lines or not lines[0].startswith("gitdir:"):
            return None
        git_dir = os.path.join(top, lines[0][len("gitdir:") :].strip())
    exclude = os.path.join(git_dir, "info", "exclude")
    return exclude if os.path.isfile(exclude) else None
