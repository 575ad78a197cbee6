"""Filter pipes keep the producer's output (issue 32, item 4): real pipelines run by bash.

A line ending in ``| tail``, ``| head``, ``| grep`` … prints exactly what it printed before, with
the same exit status (``pipefail`` included), and the producer's output is saved and named.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from wuu_tools import read_saved, run_command
from wuu_tools.commands.pipes import plan, plan_split
from wuu_tools.core.budget import count_tokens
from wuu_tools.core.store import current_store


def _log(ref: str) -> bytes:
    return current_store().path(ref).read_bytes()


def test_tail_shows_what_the_pipeline_printed_and_the_whole_output_is_read_back() -> None:
    r = run_command("seq 1 100000 | tail -3")
    assert r.meta["exit_code"] == 0
    assert _log(r.source) == b"99998\n99999\n100000\n"
    assert "100000" in r.text
    facts = r.meta["producer"]
    assert facts["lines"] == 100_000 and not facts["closed_early"] and facts["stage"] == "seq 1 100000"
    assert f'read_saved(ref="{facts["ref"]}")' in r.text.splitlines()[-1]
    middle = read_saved(facts["ref"], start_line=50_000, end_line=50_000)
    assert "50000	50000" in middle.text.splitlines()
    found = read_saved(facts["ref"], pattern="^50000$")
    assert found.meta["matches"] == 1


def test_head_ends_at_once_and_says_the_output_was_saved_up_to_where_the_pipe_closed() -> None:
    r = run_command("yes | head -1", timeout=10)
    assert not r.meta["timed_out"] and r.meta["exit_code"] == 0  # (a hang would time out)
    assert _log(r.source) == b"y\n"
    facts = r.meta["producer"]
    assert facts["closed_early"] and facts["lines"] >= 1
    assert "closed the pipe" in r.text
    assert "1\ty" in read_saved(facts["ref"], start_line=1, end_line=1).text.splitlines()


PIPELINES = [
    "seq 1 20 | head -3",
    "seq 1 20 | tail -n 2",
    "seq 1 200000 | head -1",
    "set -o pipefail; seq 1 200000 | head -1",
    "set -o pipefail; false | head -1",
    "set -o pipefail; (echo a; exit 3) | tail -1",
    "(echo a; exit 3) | tail -1",
    "printf 'b\\na\\nb\\n' | sort | uniq -c",
    "printf 'x|y\\nz|w\\n' | cut -d'|' -f2 | sort -r",
    "echo 'no match here' | grep zzz",
    "set -o pipefail; echo 'no match here' | grep zzz",
    "seq 1 1000 | grep -c 7",
    "seq 1 1000 | wc -l",
    "seq 1 50 | sed -n '10,12p'",
    "cd / && ls | head -1",
    "true; seq 3 | tail -1",
    "false || seq 5 | tail -2",
    "X=1 seq 1 10 | grep -E '^(1|10)$'",
    "seq 1 5 | tail -2 | head -1",
    'echo "a | b" | grep -o "a | b"',
    "yes | head -c 5",
    "set -o pipefail; echo start; yes | head -1",
]


@pytest.mark.parametrize("line", PIPELINES)
def test_a_pipeline_prints_and_ends_as_bash_runs_it(line: str) -> None:
    assert plan_split(line) is not None, "every line here gets a tee"
    plain = subprocess.run(["bash", "-c", line], capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    r = run_command(line, timeout=30)
    assert r.meta["exit_code"] == plain.returncode
    assert _log(r.source) == plain.stdout + plain.stderr


@pytest.mark.parametrize(
    "line",
    [
        "seq 1 10",
        "grep -n error build.log",
        "seq 10 | tail -1 &",
        "seq 10 |& tail -1",
        "cat <<EOF | tail -1\na\nEOF",
        "{ seq 10; } | tail -1",
        "seq 10 | tail -1 # a comment",
        "echo $(seq 10 | tail -1)",
        "seq 10 | tr 1 2",
        "echo 'unclosed | tail",
        "seq 10 | `echo tail`",
    ],
)
def test_lines_not_read_with_certainty_are_run_as_given(line: str) -> None:
    assert plan_split(line) is None


def test_the_tee_goes_before_the_first_trailing_filter_of_the_last_pipeline(tmp_path: Path) -> None:
    p = plan("cd src && make 2>&1 | grep -v noise | tail -20", tmp_path, 1000)
    assert p is not None
    assert p.stage == "make 2>&1" and p.filters == "grep -v noise | tail -20"
    assert p.line.startswith("cd src && make 2>&1 | ") and p.line.endswith(" | grep -v noise | tail -20")


def test_a_timed_out_producer_keeps_what_it_printed() -> None:
    r = run_command("(seq 1 50; sleep 30) | tail -2", timeout=2)
    assert r.meta["timed_out"]
    facts = r.meta["producer"]
    assert facts["lines"] == 50
    assert _log(facts["ref"]) == b"".join(f"{i}\n".encode() for i in range(1, 51))


def test_the_note_fits_the_budget_and_nothing_is_left_in_the_store_tmp() -> None:
    r = run_command("seq 1 100000 | grep 7", budget=150)
    assert r.tokens <= 150
    assert r.text.splitlines()[-1].startswith("[before `grep 7`:")
    assert not r.complete and r.continuation is not None  # the pipeline's own output is cut as before
    assert not list((current_store().root / "tmp").glob("producer-*"))


def test_a_capped_producer_says_how_much_of_it_was_saved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WUU_LOG_MAX_BYTES", "10000")
    r = run_command("seq 1 100000 | tail -1")
    facts = r.meta["producer"]
    assert facts["kept_bytes"] == 10_000 and facts["bytes"] == 588_895
    assert "its first" in r.text and count_tokens(r.text) < 200
