"""A long listing (``ls -l``) shown by name and size: the columns every row repeats are said once.

A row of ``ls -l`` costs a dozen tokens, of which the name is two or three: the mode, the link
count, the owner, the group and the date are the same on almost every row. The first view of a
command whose output is (mostly) a long listing shows each row as ``name/`` (a directory), ``name
-> target`` (a link) or ``name  size`` (anything else), and says once, on the line under the
verdict, the mode, owner and date most rows share. A row whose mode, owner or date differs from
the common one keeps it (``run.sh  1165  -rwxr-xr-x``); only the link count and a directory's size
are left out on every row. Every other line (``total 176``, ``./django:`` of ``ls -lR``, an error)
is shown as printed, in place. The saved output holds the rows as printed, and the line under the
verdict gives the call that reads them.

>>> rows = ["total 8", "drwxr-xr-x 2 root root 4096 Oct 24  2024 django",
...         "-rw-r--r-- 1 root root 782 Oct 24  2024 setup.py", "-rwxr-xr-x 1 root root 90 Oct 24  2024 run.sh"]
>>> compact_rows(rows)[1]
['total 8', 'django/', 'setup.py  782', 'run.sh  90  -rwxr-xr-x']
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["MIN_ROWS", "compact_rows"]

MIN_ROWS = 3
"""A listing of fewer rows is shown as printed."""
_ROW = re.compile(
    r"^(?P<mode>[-dlcbpsD][rwxsStT-]{9}[.+@]?)\s+\d+\s+(?P<owner>\S+)\s+(?P<group>\S+)\s+"
    r"(?P<size>\d[\d,.]*[KMGTP]?|\d+,\s*\d+)\s+(?P<date>\w{3}\s+\d{1,2}\s+[\d:]{4,5}|\d{4}-\d\d-\d\d(?: [\d:.]+)?)\s"
    r"(?P<name>.+)$"
)


def compact_rows(lines: Sequence[str]) -> tuple[str, list[str]] | None:
    """The line naming the common columns, and ``lines`` with each ``ls -l`` row compacted; None when not a listing.

    At least :data:`MIN_ROWS` lines must be rows, and at most two lines or a fifth of them (blank ones aside) not.
    """
    rows = [_ROW.match(line) for line in lines]
    n_rows = sum(1 for m in rows if m)
    filled = sum(1 for line in lines if line.strip())
    if n_rows < MIN_ROWS or filled - n_rows > max(2, 0.2 * filled):
        return None
    found = [m for m in rows if m]
    modes = {kind: _common(m["mode"] for m in found if (m["mode"][0] == "d") == (kind == "d")) for kind in "d-"}
    owner = _common(f"{m['owner']} {m['group']}" for m in found)
    date = _common(" ".join(m["date"].split()) for m in found)
    out = []
    for line, m in zip(lines, rows, strict=True):
        if m is None:
            out.append(line)
            continue
        mode, name = m["mode"], m["name"]
        is_dir = mode[0] == "d"
        parts = [name + "/" if is_dir and not name.endswith("/") else name]
        if not is_dir and mode[0] != "l":
            parts.append(m["size"])
        if mode != modes["d" if is_dir else "-"] and mode[0] != "l":
            parts.append(mode)
        if f"{m['owner']} {m['group']}" != owner:
            parts.append(f"{m['owner']} {m['group']}")
        if " ".join(m["date"].split()) != date:
            parts.append(" ".join(m["date"].split()))
        out.append("  ".join(parts))
    said = [f"mode {modes['-']}" if modes["-"] else "", f"dirs {modes['d']}" if modes["d"] else ""]
    said += [f"owner {owner}", f"dated {date}"]
    head = "ls -l rows by name and size; " + ", ".join(s for s in said if s) + " unless shown"
    return head, out


def _common(values: Iterable[str]) -> str:
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else ""
