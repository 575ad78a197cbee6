"""The rules' shared pieces: which programs a shell line runs, and runs of noise lines made into folds."""

from __future__ import annotations

from wuu_tools.logs.tools import Fold
from wuu_tools.logs.tools.noise import LONG_LINE, fold_noise, invocations, runs_program, runs_tests


def test_invocations_drop_wrappers_assignments_and_paths() -> None:
    line = "cd /repo && FOO=1 sudo python3 -m pip install -q 'rich>=13' | tail -5; .venv/bin/ruff check ."
    assert invocations(line) == [
        ["cd", "/repo"],
        ["pip", "install", "-q", "rich>=13"],
        ["tail", "-5"],
        ["ruff", "check", "."],
    ]
    assert invocations("timeout 60 npx tsc --noEmit") == [["tsc", "--noEmit"]]
    assert invocations("uv run pytest -x") == [["pytest", "-x"]]
    assert invocations(None) == [] and invocations("") == []


def test_runs_program_skips_options_before_the_subcommand() -> None:
    assert runs_program("git -C repo --no-pager log -n 3", "git", ("log",)) == ["log", "-n", "3"]
    assert runs_program("git stash && git status", "git", ("status", "log")) == ["status"]
    assert runs_program("echo git log", "git", ("log",)) is None


def test_runs_tests() -> None:
    assert runs_tests("pip install -q x && python -m pytest -q")
    assert runs_tests("go vet ./... && go test ./...")
    assert runs_tests("python manage.py test app")
    assert not runs_tests("pip install x && python repro.py")


def test_fold_noise_joins_blank_lines_inside_a_run_only() -> None:
    lines = ["keep", "", "n1", "", "n2", "", "keep too"]
    folds = fold_noise(lines, lambda _, line: "noise line" if line.startswith("n") else None)
    assert folds == [Fold(3, 5, "3 lines: 2 noise")]


def test_a_lone_short_noise_line_stays_and_a_long_one_folds() -> None:
    short, long = "n short", "n " + "x" * LONG_LINE
    kind = lambda _, line: "noise line" if line.startswith("n ") else None  # noqa: E731
    assert fold_noise(["a", short, "b"], kind) == []
    assert fold_noise(["a", long, "b"], kind) == [Fold(2, 2, "1 noise line")]
    assert fold_noise(["a", short, "b"], kind, min_run=1) == [Fold(2, 2, "1 noise line")]


def test_labels_count_each_kind_in_order_seen() -> None:
    lines = ["Collecting a", "  Downloading a.whl", "Collecting b", "done"]
    kinds = {"C": "Collecting line", " ": "download line"}
    folds = fold_noise(lines, lambda _, line: kinds.get(line[0]))
    assert folds == [Fold(1, 3, "3 lines: 2 Collecting, 1 download")]
