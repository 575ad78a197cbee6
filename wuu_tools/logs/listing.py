r"""Commands that printed one file or a range of it, and the structure of what they printed.

:func:`listing_of` reads a command (a shell line, or an argv list) and says whether it printed
one source file, or a range of its lines, as the file has them: ``cat FILE``, ``cat -n FILE``,
``nl FILE``, ``head [-n N] FILE``, ``tail -n +K FILE``, ``sed -n 'A,Bp' FILE``, each possibly after
``cd DIR &&`` and before one ``| head -n N`` or ``| tail -n N``. The parse is conservative: the
line is split with :mod:`shlex`, and anything else in it (another pipe, a redirection, a second
command, a second file, an option it does not know) means it is not a listing. The file's
language must be known from its name.

:func:`listing_outline` builds the structure of the printed text itself (the saved output, never
the file: it may have changed since, and recovery never re-runs): ``cat -n`` and ``nl`` numbers
are taken off each line first. The outline's line numbers are the output's; where the command says
which lines of the file it printed (``sed -n 'A,Bp'``, ``tail -n +K``), :attr:`Listing.offset`
turns them into the file's.

>>> listing_of("cd /repo && sed -n '120,180p' src/app.py")
Listing(path='src/app.py', numbers='', offset=119, last=180)
>>> listing_of(["cat", "-n", "main.go"])
Listing(path='main.go', numbers='cat -n', offset=0, last=None)
>>> listing_of("cat -n app.py | head -250")
Listing(path='app.py', numbers='cat -n', offset=0, last=250)
>>> listing_of("cat app.py | grep def") is None
True
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.lines import LineFile
from ..views.structure import MAP_MAX_BYTES, Outline, outline_of

__all__ = ["Listing", "listing_of", "listing_outline"]

_SHELL_SYNTAX = re.compile(r"[|<>`;&()*?\[\n]|\$(?!p')[({A-Za-z_]")
"""Shell syntax that makes a command more than one program printing one file."""
_CD = re.compile(r"^\s*cd\s+(?:[^\s;&|<>`$()]+|'[^']*'|\"[^\"$`]*\")\s*(?:&&|;)\s*")
_SED_RANGE = re.compile(r"^(\d+)(?:,(\d+|\$))?p$")
_COUNT = re.compile(r"^\d+$")
_LAST_STAGE = re.compile(r"\s*\|\s*(head|tail)(?:\s+(?:-n\s*|--lines=|-)(\d+))?\s*$")
"""A last ``| head -n N`` or ``| tail -n N`` (``-N``, ``--lines=N``; 10 when not given) after a listing."""
_NUMBERED = re.compile(rb"^ *\d+\t")
_UNNUMBERED_MAX = 0.05
"""A ``cat -n`` / ``nl`` output with more unnumbered lines than this share (nl's blank lines aside) is not one."""


@dataclass(frozen=True)
class Listing:
    """A command's output that is one file's text, or a range of its lines.

    Attributes:
        path: The file as the command named it.
        numbers: ``""`` (lines as the file has them), ``"cat -n"`` (each line after its number and a
            tab) or ``"nl"`` (likewise, blank lines unnumbered).
        offset: The file's line number of output line ``n`` is ``n + offset``; None when the command
            does not say which lines it printed (``tail -n N``).
        last: The last line of the file the command asked for (``sed``'s ``B``, ``head``'s ``N``), or None.
    """

    path: str
    numbers: str
    offset: int | None
    last: int | None


def listing_of(command: str | Sequence[str] | None) -> Listing | None:
    """The listing ``command`` printed (see the module docstring), or None when it is not one."""
    if isinstance(command, str):
        line = command
        while (m := _CD.match(line)) is not None:
            line = line[m.end() :]
        stage = _LAST_STAGE.search(line)
        if stage is not None:
            line = line[: stage.start()]
        if _SHELL_SYNTAX.search(line):
            return None
        try:
            argv = shlex.split(line)
        except ValueError:
            return None
    elif isinstance(command, Sequence) and all(isinstance(a, str) for a in command):
        argv, stage = list(command), None
    else:
        return None
    if not argv:
        return None
    listing = _parse(argv[0].rsplit("/", 1)[-1], argv[1:])
    if listing is None or listing.path.startswith("-") or not listing.path:
        return None
    if stage is not None:
        listing = _then(listing, stage.group(1), int(stage.group(2) or 10))
    from ..views.structure.languages import language_of

    return listing if language_of(listing.path) is not None else None


def _then(listing: Listing, prog: str, count: int) -> Listing:
    """``listing`` cut by a last ``| head -n count`` (its first lines) or ``| tail -n count`` (its last:
    which lines of the file those are, the output does not say)."""
    if prog == "tail":
        return Listing(listing.path, listing.numbers, None, None)
    if listing.offset is None:
        return listing
    last = listing.offset + count
    end = last if listing.last is None else min(last, listing.last)
    return Listing(listing.path, listing.numbers, listing.offset, end)


def _parse(prog: str, args: list[str]) -> Listing | None:
    if prog == "cat":
        flags = [a for a in args if a.startswith("-")]
        files = [a for a in args if not a.startswith("-")]
        if len(files) != 1 or flags not in ([], ["-n"]):
            return None
        return Listing(files[0], "cat -n" if flags else "", 0, None)
    if prog == "nl":
        if len(args) == 1:
            return Listing(args[0], "nl", 0, None)
        if len(args) == 2 and args[0] in ("-ba", "-bt"):
            return Listing(args[1], "nl", 0, None)
        return None
    if prog in ("head", "tail"):
        return _head_tail(prog, args)
    if prog == "sed":
        if args[:1] != ["-n"]:
            return None
        rest = args[1:]
        if rest[:1] == ["-e"]:
            rest = rest[1:]
        if len(rest) != 2:
            return None
        m = _SED_RANGE.match(rest[0].replace(" ", ""))
        if m is None:
            return None
        first = int(m.group(1))
        last = first if m.group(2) is None else None if m.group(2) == "$" else int(m.group(2))
        if first < 1 or (last is not None and last < first):
            return None
        return Listing(rest[1], "", first - 1, last)
    return None


def _head_tail(prog: str, args: list[str]) -> Listing | None:
    """``head -n N FILE``, ``head -N FILE``, ``head FILE``; ``tail -n +K FILE``, ``tail -n N FILE``."""
    count: str | None = None
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-n", "--lines") and i + 1 < len(args):
            count, i = args[i + 1], i + 2
            continue
        if a.startswith("--lines="):
            count = a.split("=", 1)[1]
        elif a.startswith("-n") and len(a) > 2:
            count = a[2:]
        elif a.startswith("-") and _COUNT.match(a[1:]):
            count = a[1:]
        elif a.startswith("-"):
            return None
        else:
            files.append(a)
        i += 1
    if len(files) != 1:
        return None
    if prog == "head":
        if count is not None and not _COUNT.match(count):
            return None
        return Listing(files[0], "", 0, int(count) if count is not None else 10)
    if count is not None and count.startswith("+") and _COUNT.match(count[1:]):
        return Listing(files[0], "", max(int(count[1:]), 1) - 1, None)
    if count is None or _COUNT.match(count):
        return Listing(files[0], "", None, None)
    return None


def listing_outline(lf: LineFile, listing: Listing, key: str) -> Outline | None:
    """The outline of the output ``lf`` read as the text of ``listing.path``, in the output's line numbers.

    ``key`` names the output for the outline cache (its saved reference). None when the output is
    too large to map, is not the listing it claims to be (a ``cat -n`` line without its number), or
    defines nothing.
    """
    if lf.size == 0 or lf.size > MAP_MAX_BYTES:
        return None
    return outline_of(listing.path, f"output {key}", lf.size, lambda: _source_text(lf, listing))


def _source_text(lf: LineFile, listing: Listing) -> bytes:
    """The output with ``cat -n`` / ``nl`` numbers taken off, line for line (b"" when it is not such a listing)."""
    data = lf.pread(0, lf.size)
    if not listing.numbers:
        return data
    lines = data.split(b"\n")
    out = []
    odd = 0
    for raw in lines:
        m = _NUMBERED.match(raw)
        if m is not None:
            out.append(raw[m.end() :])
        elif not raw.strip():  # nl's blank line (spaces), or the end of the output
            out.append(b"")
        else:
            odd += 1
            out.append(raw)
    if odd > _UNNUMBERED_MAX * len(lines):
        return b""
    return b"\n".join(out)
