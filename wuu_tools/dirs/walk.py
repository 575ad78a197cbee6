"""The ordered walk behind ``list_dir``: which entries a listing holds, in which order, with what facts.

The order is breadth-first: every entry of depth 1 (the listed directory's own entries),
then every entry of depth 2 grouped by parent in the parent's order, and so on down to the
requested depth; among siblings, directories come first, then the rest, each sorted by
case-folded name (then by exact name, so the order is total and stable). A directory with
more than :data:`HUGE_DIR_ENTRIES` entries is shown in place, but its entries come after
everything else (its subtree is then listed the same way), so one huge folder cannot crowd
the rest of the tree out of the first view.

The walk is lazy and scans one level ahead only: a directory is read when its own line is
produced (its line shows its entry count), so a consumer that stops after the first view
has read only the directories it shows. Symbolic links are never followed (so loops cannot
hang a walk), ignored and heavy folders are not descended into (their size is counted up
to :data:`COUNT_CAP` entries), and an unreadable directory becomes an entry with the error.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..core.cancel import check_stop
from ..core.names import shown_path
from ..core.text import human_size
from .ignore import IgnoreRules, Scope

__all__ = ["COUNT_CAP", "HUGE_DIR_ENTRIES", "Entry", "Listing", "Walker", "display_path"]

HUGE_DIR_ENTRIES = 1000
"""A directory with more entries than this has them listed after the rest of the tree."""
COUNT_CAP = 10_000
"""An ignored folder's entries are counted up to this many ("10,000+ entries inside")."""
COUNT_TOTAL_CAP = 100_000
"""All ignored folders of one walk together are counted up to this many entries."""


@dataclass(eq=False, slots=True)
class Entry:
    """One entry of a listing; ``kind`` is ``dir``, ``skip`` (a folder left out), ``file``, ``link``, ``other``."""

    rel: str
    kind: str
    dirent: os.DirEntry[str] | None = field(default=None, repr=False)
    level: int = 0
    count: int | None = None  # dir: its listed entries; skip: everything inside (capped)
    capped: bool = False
    reason: str | None = None  # why it is ignored (a skip, or an ignored entry listed anyway)
    error: str | None = None  # why a directory could not be read
    expanded: bool = False  # its entries are part of this listing
    deferred: bool = False  # expanded, but after the rest of the tree
    mtime: int = 0  # a dir's own st_mtime_ns when recorded
    parent_mtime: int = 0
    index: int = 0  # position among its parent's entries
    siblings: int = 0  # how many entries its parent has

    @property
    def is_dir(self) -> bool:
        """True for directories, whether listed or left out."""
        return self.kind in ("dir", "skip")

    @property
    def parent(self) -> str:
        """The parent's path relative to the listed root (``""`` for the root itself)."""
        return self.rel.rpartition("/")[0]

    def key(self) -> str:
        """What the listing's revision covers: path, kind, a directory's entry count, errors."""
        count = self.count if self.kind == "dir" else None
        return f"{self.kind}\0{self.rel}\0{count}\0{self.error or ''}"


@dataclass(eq=False)
class Listing:
    """A scanned directory: its listed entries in order, and the ignore scope inside it."""

    rel: str
    children: list[Entry]
    scope: Scope
    error: str | None = None
    mtime: int = 0


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENOENT:
        return "vanished while listing"
    return (exc.strerror or str(exc)).lower()


class Walker:
    """Walks the directory ``root`` to ``depth`` levels in listing order.

    Args:
        root: Absolute path of the listed directory.
        depth: How many levels to list (1 = the directory's own entries).
        include_ignored: List ignored and heavy folders and ignored files too (marked as such).
        record_mtimes: Record each scanned directory's modification time (for change checks).
    """

    def __init__(self, root: str, depth: int, include_ignored: bool, record_mtimes: bool = False) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self.depth = depth
        self.include_ignored = include_ignored
        self.record_mtimes = record_mtimes
        self.rules = IgnoreRules.load(root)
        self._counted = 0

    def scan(self, rel: str, scope: Scope | None, inherited: str | None = None) -> Listing:
        """Read directory ``rel`` (``""`` = the root): its listed entries, sorted, dirs first.

        ``inherited`` is the reason an enclosing folder is ignored (listed only with
        ``include_ignored``): everything inside it is ignored too, as in git.
        """
        path = os.path.join(self.root, rel) if rel else self.root
        mtime = 0
        check_stop()  # a stopped call ends between two directories
        try:
            if self.record_mtimes:
                mtime = os.stat(path).st_mtime_ns
            with os.scandir(path) as it:
                raw = list(it)
        except OSError as exc:
            return Listing(rel, [], scope or self.rules.root_scope(), _os_reason(exc), mtime)
        inner = self.rules.root_scope() if scope is None else scope.enter(rel, {d.name for d in raw})
        keyed: list[tuple[int, str, str, Entry]] = []
        prefix = rel + "/" if rel else ""
        active = inner.files_active
        for d in raw:
            name = d.name
            crel = prefix + name
            try:
                is_dir = d.is_dir(follow_symlinks=False)
                kind = "dir" if is_dir else "link" if d.is_symlink() else "file"
                if kind == "file" and not d.is_file(follow_symlinks=False):
                    kind = "other"
            except OSError:
                is_dir, kind = False, "other"
            verdict = inner.check(crel, name, is_dir) if is_dir or active else None
            if verdict is not None and not self.include_ignored:
                if not is_dir:
                    continue  # ignored files are simply not listed
                kind = "skip"
            reason = verdict.reason if verdict is not None else inherited
            keyed.append((0 if is_dir else 1, name.casefold(), name, Entry(crel, kind, d, reason=reason)))
        keyed.sort()  # names are unique in a directory, so the entries themselves are never compared
        children = [k[3] for k in keyed]
        return Listing(rel, children, inner, None, mtime)

    def count(self, rel: str, scope: Scope) -> tuple[int, str | None, int]:
        """``(entries, error, mtime)`` of a directory that is shown but not expanded: what ``scan`` would list."""
        path = os.path.join(self.root, rel)
        check_stop()
        try:
            mtime = os.stat(path).st_mtime_ns if self.record_mtimes else 0
            with os.scandir(path) as it:
                raw = list(it)
        except OSError as exc:
            return 0, _os_reason(exc), 0
        if self.include_ignored:
            return len(raw), None, mtime
        inner = scope.enter(rel, {d.name for d in raw})
        if not inner.files_active:
            return len(raw), None, mtime
        hidden = 0
        prefix = rel + "/"
        for d in raw:
            try:
                is_dir = d.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if not is_dir and inner.check(prefix + d.name, d.name, False) is not None:
                hidden += 1
        return len(raw) - hidden, None, mtime

    def walk(self, root_listing: Listing) -> Iterator[Entry]:
        """Every entry of the listing in order, given the scanned root."""
        yield from self._breadth_first(root_listing, 0)

    def _breadth_first(self, base: Listing, base_level: int) -> Iterator[Entry]:
        deferred: list[tuple[Listing, int]] = []
        frontier = [base]
        level = base_level + 1
        while frontier:
            following: list[Listing] = []
            for listing in frontier:
                total = len(listing.children)
                for i, child in enumerate(listing.children):
                    child.level, child.index, child.siblings = level, i, total
                    child.parent_mtime = listing.mtime
                    if child.kind == "dir" and level >= self.depth:
                        child.count, child.error, child.mtime = self.count(child.rel, listing.scope)
                    elif child.kind == "dir":
                        sub = self.scan(child.rel, listing.scope, child.reason)
                        child.count, child.error, child.mtime = len(sub.children), sub.error, sub.mtime
                        if sub.error is None and sub.children:
                            child.expanded = True
                            if len(sub.children) > HUGE_DIR_ENTRIES:
                                child.deferred = True
                                deferred.append((sub, level))
                            else:
                                following.append(sub)
                    elif child.kind == "skip":
                        child.count, child.capped = self._count_inside(child.rel)
                    yield child
            frontier = following
            level += 1
        for sub, sub_level in deferred:
            yield from self._breadth_first(sub, sub_level)

    def _count_inside(self, rel: str) -> tuple[int | None, bool]:
        """Entries inside a folder that is not listed: ``(count, capped)``; None once the walk's cap is spent."""
        if self._counted >= COUNT_TOTAL_CAP:
            return None, False
        count = 0
        stack = [os.path.join(self.root, rel)]
        while stack:
            try:
                with os.scandir(stack.pop()) as it:
                    for d in it:
                        count += 1
                        if count >= COUNT_CAP or self._counted + count >= COUNT_TOTAL_CAP:
                            self._counted += count
                            return count, True
                        try:
                            if d.is_dir(follow_symlinks=False):
                                stack.append(d.path)
                        except OSError:
                            pass
            except OSError:
                continue
        self._counted += count
        return count, False

    def line(self, entry: Entry) -> str:
        """The entry as one line of the view: its complete path, then its facts in parentheses."""
        shown = display_path(entry.rel) + ("/" if entry.is_dir else "")
        if entry.kind == "skip":
            inside = "not counted" if entry.count is None else _inside(entry.count, entry.capped)
            return f"{shown}  ({entry.reason}, not listed; {inside})"
        if entry.kind == "dir":
            if entry.error is not None:
                facts = f"unreadable: {entry.error}"
            else:
                facts = _entries(entry.count or 0)
                if entry.deferred:
                    facts += "; large: listed after the rest"
        elif entry.kind == "link":
            link = f"{shown} -> {self._link(entry)}"
            return link if entry.reason is None else f"{link[:-1]}; {entry.reason})"
        elif entry.kind == "file":
            facts = self._size(entry)
        else:
            facts = self._special(entry)
        if entry.reason is not None:
            facts += f"; {entry.reason}"
        return f"{shown}  ({facts})"

    def _size(self, entry: Entry) -> str:
        try:
            assert entry.dirent is not None
            return human_size(entry.dirent.stat(follow_symlinks=False).st_size)
        except (OSError, AssertionError) as exc:
            return "unreadable" if isinstance(exc, AssertionError) else _os_reason(exc)

    def _special(self, entry: Entry) -> str:
        try:
            assert entry.dirent is not None
            mode = entry.dirent.stat(follow_symlinks=False).st_mode
        except (OSError, AssertionError):
            return "special file"
        if stat.S_ISFIFO(mode):
            return "named pipe"
        if stat.S_ISSOCK(mode):
            return "socket"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            return "device"
        return "special file"

    def _link(self, entry: Entry) -> str:
        """``target  (what it is)`` for a symbolic link, never following it out of the root."""
        path = os.path.join(self.root, entry.rel)
        try:
            target = os.readlink(path)
        except OSError as exc:
            return f"?  (link: {_os_reason(exc)})"
        shown = display_path(target)
        real = os.path.realpath(path)
        if real != self.real_root and not real.startswith(self.real_root.rstrip(os.sep) + os.sep):
            return f"{shown}  (link out of the listed directory, not followed)"
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"{shown}  (link loop)"
            if exc.errno == errno.ENOENT:
                return f"{shown}  (broken link)"
            return f"{shown}  (link: {_os_reason(exc)})"
        what = "directory, not followed" if stat.S_ISDIR(mode) else "file"
        return f"{shown}  (link to a {what})"


def _entries(n: int) -> str:
    return "empty" if n == 0 else f"{n:,} {'entry' if n == 1 else 'entries'}"


def _inside(n: int, capped: bool) -> str:
    return f"{n:,}+ entries inside" if capped else f"{n:,} {'entry' if n == 1 else 'entries'} inside"


def display_path(rel: str) -> str:
    """A path as shown (:func:`~wuu_tools.core.names.shown_path`): as is, ``./-name``, or JSON-quoted."""
    return shown_path(rel)
