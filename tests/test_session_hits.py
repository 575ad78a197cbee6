"""Sessions (issue 32): search hits whose text a view showed are named with their locations; naming only pays.

A Toolset session, real files, real ``grep`` and ``bash`` processes through ``run_command``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from wuu_tools import Toolset
from wuu_tools.core.result import call_text
from wuu_tools.core.session import content_key, content_keys, line_key, location
from wuu_tools.views.seen import MIN_SAVING

pytestmark = pytest.mark.skipif(shutil.which("grep") is None, reason="grep is not installed")


def _module(n: int) -> str:
    return "".join(f"def function_number_{i}(value):  # the body of a module line {i}\n" for i in range(1, n + 1))


def test_a_hit_has_the_key_of_the_line_a_file_view_showed() -> None:
    text = "def function_number_7(value):  # the body"
    assert location(f"pkg/m.py:7:{text}") == ("pkg/m.py", 7, text)
    assert location(f"7-{text}") == ("", 7, text)
    assert location(text) is None and content_key(text) is None
    assert content_key(f"./m.py-7-{text}") == content_key(f"7:{text}") == line_key(f"     7\t{text}")
    assert line_key(f"7:{text}") != line_key(text)  # the whole line's key keeps its location


def test_grep_after_a_read_names_the_hits_with_their_locations(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(_module(60))
    ts = Toolset(root=tmp_path)
    ts.call("read_file", {"path": "m.py"})
    hits = ts.call("run_command", {"command": "grep -n -A3 'function_number_30(' m.py"})
    assert hits.text.splitlines()[0] == "[lines 1-4 as shown in call 1, here at 30-33]"
    assert "the body of a module line 31" not in hits.text
    assert hits.meta["session"]["named_calls"] == [1]
    assert hits.text.splitlines()[-1] == f"[all again: {call_text(hits.continuation)}]"
    again = ts.call(hits.continuation["tool"], hits.continuation["args"])  # read_saved(fresh=True)
    printed = [f"30:{_module(30).splitlines()[-1]}"] + [f"{i}-{_module(i).splitlines()[-1]}" for i in (31, 32, 33)]
    assert [line.split("\t", 1)[-1] for line in again.text.splitlines()] == printed  # (read_saved's gutter)
    many = ts.call("run_command", {"command": "grep -rn -e 'function_number_1[0-2](' -e 'function_number_40(' ."})
    assert "[lines 1-4 as shown in call 1, here at ./m.py:10-12,40]" in many.text.splitlines()


def test_a_scripts_own_numbering_of_lines_a_read_showed_is_named(tmp_path: Path) -> None:
    """``print(f"{n}: {line}")`` and ``f"{n:4d}: "``: the space after the number is the script's, not the line's."""
    body = "".join(f"    def method_number_{i}(self):  # the body of a method line {i}\n" for i in range(1, 41))
    (tmp_path / "m.py").write_text(body)
    ts = Toolset(root=tmp_path)
    ts.call("read_file", {"path": "m.py"})
    for fmt in ("{n}: {line}", "{n:4d}: {line}"):
        script = f"for n, line in enumerate(open('m.py'), 1):\n    if 10 <= n <= 20: print(f'{fmt}', end='')\n"
        (tmp_path / "show.py").write_text(script)
        shown = ts.call("run_command", {"command": f"{sys.executable} show.py"})
        assert shown.meta["session"]["named_lines"] == 11, (fmt, shown.text)
        assert "the body of a method line 15" not in shown.text
    assert content_keys("741:     x = compute_the_value()") == (
        content_key("741:     x = compute_the_value()"),
        line_key("    x = compute_the_value()"),
    )
    assert location("  206:     def f(self):") == ("", 206, "     def f(self):")


def test_hits_the_session_never_showed_are_shown(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(_module(60))
    ts = Toolset(root=tmp_path)
    ts.call("read_file", {"path": "m.py", "start_line": 1, "end_line": 10})
    hits = ts.call("run_command", {"command": "grep -n -A3 'function_number_30(' m.py"})
    assert "the body of a module line 31" in hits.text and hits.meta["session"]["named_lines"] == 0


def test_one_long_line_shown_before_is_named_and_a_short_one_is_not(tmp_path: Path) -> None:
    long = "the configuration value " + " ".join(f"alpha_{i}" for i in range(30))
    short = "the value is 12345"
    script = tmp_path / "out.sh"
    script.write_text(f"echo '{long}'\necho '{short}'\n")
    ts = Toolset(root=tmp_path)
    ts.call("run_command", {"command": "bash out.sh"})
    script.write_text(f"echo 'new line one here'\necho '{long}'\necho 'new line two here'\necho '{short}'\n")
    view = ts.call("run_command", {"command": "bash out.sh && true"})  # (another command line: not a re-run)
    lines = view.text.splitlines()
    assert "[line 2 as shown in call 1]" in lines and long not in lines
    assert short in lines  # naming it would save fewer than MIN_SAVING tokens
    assert MIN_SAVING > 4


def test_a_stretch_whose_naming_costs_more_than_it_saves_is_shown(tmp_path: Path) -> None:
    old = ["value_one=1 value_two=2", "value_three=3 value_four", "value_five=5 value_six=6"]
    script = tmp_path / "out.sh"
    script.write_text("".join(f"echo '{line}'\n" for line in old))
    ts = Toolset(root=tmp_path)
    ts.call("run_command", {"command": "bash out.sh"})
    script.write_text("echo 'a new first line'\n" + "".join(f"echo '{line}'\n" for line in old))
    view = ts.call("run_command", {"command": "bash out.sh && true"})
    alone = Toolset(root=tmp_path, session=False).call("run_command", {"command": "bash out.sh && true"})
    assert view.meta["session"]["named_lines"] == 0
    assert view.text == alone.text  # the stretch's notice and the footer would cost more than its lines
