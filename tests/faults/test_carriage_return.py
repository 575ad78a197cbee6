"""A lone carriage return inside a file's line is shown as ``␍``, never raw; line numbers are grep's.

Only ``"\\n"`` ends a line (as for ``grep -n`` and ``sed -n``); the CR of a CRLF ending is dropped as
before. A saved command log is shown as the terminal left it instead (redraws collapsed), and
``read_saved(raw=True)`` marks the carriage returns the way ``read_file`` does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from wuu_tools import read_file, read_saved, run_command

CR_MARK = "\u240d"  # the documented marker (wuu_tools.core.text.CR_MARK)

DATA = b"a\nfirst\rsecond\r\nend\n"


def _grep_n(path: Path, word: str) -> int:
    done = subprocess.run(["grep", "-n", word, str(path)], capture_output=True, check=True)
    return int(done.stdout.split(b":", 1)[0])


def test_lone_carriage_return_is_marked_and_numbers_hold(tmp_path: Path) -> None:
    path = tmp_path / "cr.txt"
    path.write_bytes(DATA)
    view = read_file(str(path))
    assert "\r" not in view.text
    assert view.text.split("\n") == ["1\ta", f"2\tfirst{CR_MARK}second", "3\tend"]
    assert _grep_n(path, "second") == 2 and _grep_n(path, "end") == 3
    assert view.meta["total_lines"] == 3
    line2 = read_file(str(path), start_line=2, end_line=2)
    assert f"2\tfirst{CR_MARK}second" in line2.text and "\r" not in line2.text


def test_crlf_stays_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    view = read_file(str(path))
    assert view.text == "1\tone\n2\ttwo\n3\tthree"


def test_a_long_line_read_by_characters_is_marked_too(tmp_path: Path) -> None:
    path = tmp_path / "bar.txt"
    path.write_bytes(b"".join(b"progress %d%%\r" % n for n in range(3000)) + b"done\n")
    # (300 tokens: the budget holds the header and the next call, which name the long temporary path twice)
    view = read_file(str(path), budget=300)
    assert view.meta.get("partial_line") == 1
    assert "\r" not in view.text and CR_MARK in view.text


def test_saved_log_collapses_and_raw_marks(tmp_path: Path) -> None:
    script = tmp_path / "bar.py"
    script.write_text("import sys\nsys.stdout.write('a\\nfirst\\rsecond\\r\\nend\\n')\n")
    ref = run_command([sys.executable, str(script)]).source
    assert ref is not None
    page = read_saved(ref, start_line=1, end_line=3)
    assert "2\tsecond" in page.text and "\r" not in page.text
    raw = read_saved(ref, start_line=1, end_line=3, raw=True)
    assert f"2\tfirst{CR_MARK}second" in raw.text and "\r" not in raw.text
