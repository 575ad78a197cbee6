"""The first view of a command's output takes the output's shape: outputs made by the real tools.

``grep -rn`` / ``grep -c`` on a generated tree, ``git log -p`` / ``git diff`` / ``git show`` on a
temporary repository, ``python -m json.tool``, ``ls -l``, CSV from Python's csv module, ``gcc``
warnings, a test runner's failure summary: each run through ``run_command``, checked for the view
chosen, the counts in its header, the budget, and a continuation chain that reads every line.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wuu_tools import ToolResult, read_saved, run_command
from wuu_tools.core.store import Store
from wuu_tools.logs.output import choose, project_output

NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
PY = sys.executable


def _chain(first: ToolResult, limit: int = 2000) -> list[ToolResult]:
    views = [first]
    while views[-1].continuation is not None:
        assert len(views) < limit, "continuation chain does not end"
        cont = views[-1].continuation
        assert cont["tool"] == "read_saved"
        views.append(read_saved(**cont["args"]))
    return views


def _numbers(view: ToolResult) -> list[int]:
    return [int(m.group(1)) for ln in view.text.split("\n") if (m := NUMBERED.match(ln))]


def _first_seen(first: ToolResult, saved: list[str]) -> set[int]:
    """The lines the first view shows (``meta["shown"]``), each checked to be in its text.

    A first view under a verdict shows lines as printed; evidence lines and read_saved pages are
    numbered; a search view leaves the repeated path out of a hit (``12:text``).
    """
    bodies = {m.group(2) if (m := NUMBERED.match(ln)) else ln for ln in first.text.split("\n")}
    seen = {n for a, b in first.meta["shown"] for n in range(a, b + 1)}
    for n in seen:
        line = saved[n - 1].rstrip("\r")
        assert line in bodies or any(v and line.endswith(v) for v in bodies), (n, line)
    return seen


def _check_chain(first: ToolResult, budget: int = 2000) -> list[ToolResult]:
    """Budget held, every line of the saved output seen, the read_saved part of the chain exactly once."""
    views = _chain(first)
    total = first.meta["total_lines"]
    saved = Path(Store().path(first.source)).read_text(errors="replace").split("\n")  # type: ignore[arg-type]
    seen = _first_seen(first, saved)
    later: list[int] = []
    for v in views:
        assert v.tokens <= budget, (v.tokens, v.text[:200])  # the budget is a ceiling
        assert len(v.text.encode()) <= 51200
    for v in views[1:]:
        later.extend(_numbers(v))
    assert len(later) == len(set(later)), "a continuation page repeats a line"
    seen.update(later)
    assert seen == set(range(1, total + 1))
    # The lines read on are the saved output's own lines.
    for v in views[1:]:
        for ln in v.text.split("\n"):
            m = NUMBERED.match(ln)
            if m and not v.meta.get("partial_line"):
                assert saved[int(m.group(1)) - 1].rstrip("\r") == m.group(2)
    return views


# -- search results --------------------------------------------------------------------------------


def _tree(root: Path, files: int, per_file: int) -> None:
    for i in range(files):
        d = root / "pkg" / f"area{i % 9}" / ("deep" if i % 4 == 0 else "")
        d.mkdir(parents=True, exist_ok=True)
        body = []
        for j in range(per_file * 3):
            body.append(f"def handler_{j}(x):  # raises error {j}" if j % 3 == 0 else f"    return x + {j}")
        (d / f"mod_{i:03d}.py").write_text("\n".join(body) + "\n")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    _tree(root, 200, 6)
    return root


def test_grep_rn_names_every_file_with_its_count(tree: Path) -> None:
    r = run_command(["grep", "-rn", "--", "error", "pkg"], cwd=str(tree))
    assert r.meta["exit_code"] == 0 and r.meta["view"] == "search results"
    lines = r.text.split("\n")
    assert lines[1].startswith("[view: search results · 1,200 matches in 200 files")
    assert "[error evidence" not in r.text
    assert r.meta["matches"] == 1200 and r.meta["files"] == 200 and r.meta["files_named"] == 200
    for path in (tree / "pkg").rglob("*.py"):
        assert path.name in r.text, path  # every file named in the first view
    _check_chain(r)


def test_grep_rn_few_files_shows_first_matches_of_each(tmp_path: Path) -> None:
    _tree(tmp_path, 6, 60)
    r = run_command(["grep", "-rn", "error", "pkg"], cwd=str(tmp_path))
    assert r.meta["view"] == "search results" and r.meta["files_shown"] == 6
    for heading in [ln for ln in r.text.split("\n") if ln.startswith("== ")]:
        assert "· 60 matches ·" in heading
    assert len([ln for ln in r.text.split("\n") if ln.startswith("== ")]) == 6
    _check_chain(r)


def test_grep_c_and_context_lines(tree: Path) -> None:
    r = run_command(["grep", "-rc", "error", "pkg"], cwd=str(tree), budget=600)
    assert choose(r.source, 0).kind == "search results"  # type: ignore[arg-type]
    assert r.meta["view"] == "search results" and r.meta["matches"] == 1200
    _check_chain(r, 600)
    r = run_command(["grep", "-rn", "-C", "1", "error", "pkg"], cwd=str(tree))
    assert r.meta["view"] == "search results" and r.meta["matches"] == 1200 and r.meta["files"] == 200
    _check_chain(r)


def test_search_results_read_saved_first_view_is_exactly_once(tree: Path) -> None:
    r = run_command(["grep", "-rn", "error", "pkg"], cwd=str(tree))
    first = read_saved(r.source)  # type: ignore[arg-type]
    assert first.meta["view"] == "search results" and "[files (matches):]" in first.text
    views = _check_chain(first)
    shown = [n for v in views for n in _numbers(v)]
    assert sorted(shown) == list(range(1, first.meta["total_lines"] + 1))


# -- diffs -----------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00", "HOME": str(repo)}
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@e", *args],
        cwd=repo,
        env={**env, "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("repo")
    _git(root, "init", "-q")
    for i in range(12):
        (root / f"src{i % 3}").mkdir(exist_ok=True)
        (root / f"src{i % 3}" / f"f{i}.py").write_text("".join(f"line {k}: ok\n" for k in range(80)))
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "start")
    for c in range(3):
        for i in range(c, 12, 3):
            p = root / f"src{i % 3}" / f"f{i}.py"
            text = p.read_text().replace(f"line {c * 7}: ok", f"line {c * 7}: failed to open (error)")
            p.write_text(text + f"added in commit {c}\n")
        _git(root, "commit", "-qam", f"commit number {c}: the build failed")
    return root


def _numstat(repo: Path, *args: str) -> tuple[int, int, int]:
    rows = [ln.split("\t") for ln in _git(repo, *args).splitlines() if "\t" in ln]
    return len(rows), sum(int(a) for a, _, _ in rows), sum(int(b) for _, b, _ in rows)


def test_git_log_p_lists_commits_newest_first_with_their_files(repo: Path) -> None:
    r = run_command(["git", "log", "-p", "-n", "3"], cwd=str(repo), budget=700)
    assert r.meta["exit_code"] == 0 and r.meta["view"] == "git log" and not r.complete, r.text
    assert "[error evidence" not in r.text
    subjects = [ln.strip() for ln in r.text.split("\n") if ln.startswith("    commit number")]
    assert subjects == [f"commit number {c}: the build failed" for c in (2, 1, 0)]
    patches = re.findall(r"^\[… \d+ lines: the patch of (\S+) \(\+(\d+) -(\d+)\)", r.text, re.M)
    files, added, removed = _numstat(repo, "log", "--numstat", "--format=", "-n", "3")
    assert len(patches) == files  # each file's patch in one counted line, under its commit
    assert (sum(int(a) for _, a, _ in patches), sum(int(b) for *_, b in patches)) == (added, removed)
    _check_chain(r, 700)
    # a patch read alone is the diff view's: files with their +N -M, then the hunks
    show = run_command(["git", "show", "HEAD"], cwd=str(repo), budget=500)
    assert show.meta["view"] == "diff" and show.meta["commits"] == 1


def test_git_diff_and_show(repo: Path) -> None:
    r = run_command(["git", "diff", "HEAD~3"], cwd=str(repo), budget=800)
    files, added, removed = _numstat(repo, "diff", "--numstat", "HEAD~3")
    assert r.meta["view"] == "diff" and r.meta["files_changed"] == files == 12
    assert (r.meta["added"], r.meta["removed"]) == (added, removed)
    for line in _git(repo, "diff", "--numstat", "HEAD~3").splitlines():
        a, b, path = line.split("\t")
        assert f"{path} +{a} -{b}" in r.text
    _check_chain(r, 800)
    r = run_command(["git", "show", "HEAD"], cwd=str(repo), budget=500)
    assert r.meta["view"] == "diff" and r.meta["commits"] == 1
    _check_chain(r, 500)


def test_diff_u_exit_1_is_a_diff_not_a_failure(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("".join(f"row {i}\n" for i in range(400)))
    (tmp_path / "b").write_text("".join(f"row {i}\n" if i % 9 else f"row {i} error\n" for i in range(400)))
    r = run_command(["diff", "-u", "a", "b"], cwd=str(tmp_path), budget=500)
    assert r.meta["exit_code"] == 1 and r.meta["view"] == "diff"
    assert "a +45 -45" not in r.text and "b +45 -45" in r.text
    _check_chain(r, 500)


# -- structured data ---------------------------------------------------------------------------------


def test_json_tool_output_is_outlined(tmp_path: Path) -> None:
    items = [{"id": i, "name": f"item-{i}", "status": "error" if i % 7 == 0 else "ok"} for i in range(500)]
    (tmp_path / "data.json").write_text(json.dumps(items))
    r = run_command([PY, "-m", "json.tool", "data.json"], cwd=str(tmp_path))
    assert r.meta["view"] == "JSON" and "[error evidence" not in r.text
    assert "array: array of 500 objects; keys: id, name, status" in r.text
    assert "[view: JSON · array of 500 objects]" in r.text
    assert "\n[\n" in r.text  # then the head, as printed
    _check_chain(r)
    saved = read_saved(r.source)  # type: ignore[arg-type]
    assert saved.meta["view"] == "JSON"
    _check_chain(saved)


def test_json_lines_and_yaml(tmp_path: Path) -> None:
    script = "import json\nfor i in range(3000): print(json.dumps({'ts': i, 'level': 'error' if i % 5 else 'info'}))"
    r = run_command([PY, "-c", script])
    assert r.meta["view"] == "JSON lines" and "3,000 lines, one JSON value each; keys: ts, level" in r.text
    _check_chain(r)
    yaml = "".join(f"service{i}:\n  image: app:{i}\n  ports:\n    - {8000 + i}\n" for i in range(400))
    (tmp_path / "c.yaml").write_text("---\n" + yaml)
    r = run_command(["cat", "c.yaml"], cwd=str(tmp_path))
    assert r.meta["view"] == "YAML" and "service0 (2)" in r.text
    _check_chain(r)


def test_a_numbered_listing_is_not_yaml(tmp_path: Path) -> None:
    """A script printing source lines as ``1137:     def f():`` looks like YAML keys; it is shown as an output."""
    src = "".join(f"    def method_{i}(self, value):\n        return value + {i}\n\n" for i in range(300))
    (tmp_path / "m.py").write_text(src)
    script = (
        "print('Current methods:')\nprint('  in m.py:')\n"
        "for n, line in enumerate(open('m.py'), 1): print(f'{n}: {line}', end='')"
    )
    r = run_command([PY, "-c", script], cwd=str(tmp_path))
    assert r.meta["view"] == "output" and "[outline:]" not in r.text
    assert "1:     def method_0(self, value):" in r.text
    _check_chain(r)


def test_not_json_after_all_falls_back_to_head_and_tail() -> None:
    r = run_command([PY, "-c", "print('[start]'); [print('x' * 40, i) for i in range(2000)]; print('[end]')"])
    assert r.meta["view"] == "output" and "does not parse" in r.meta["view_reason"]
    _check_chain(r)


# -- tables and listings -----------------------------------------------------------------------------


def test_ls_l_and_csv_are_tables(tmp_path: Path) -> None:
    for i in range(600):
        (tmp_path / f"file_{i:04d}.txt").write_text("x" * i)
    r = run_command(["ls", "-l"], cwd=str(tmp_path))
    assert r.meta["view"] == "table" and r.meta["rows"] == 600 and "[view: table" not in r.text
    assert "[the 600 entries by name:]\n  file_0000.txt  file_0001.txt" in r.text  # every name, then the rows
    assert re.search(r"\ntotal \d+\n", r.text)
    _check_chain(r)
    script = (
        "import csv, sys\nw = csv.writer(sys.stdout)\nw.writerow(['name', 'version', 'status'])\n"
        "for i in range(900): w.writerow([f'pkg{i}', f'1.{i}', 'error' if i % 3 else 'ok'])"
    )
    r = run_command([PY, "-c", script])
    assert r.meta["view"] == "table" and "\nname,version,status\n" in r.text
    assert "[error evidence" not in r.text
    _check_chain(r)


def test_ps_and_pip_list_are_tables() -> None:
    r = run_command(["ps", "-e", "-o", "pid,ppid,user,comm"])
    assert choose(r.source, 0).kind == "table"  # type: ignore[arg-type]
    r = run_command([PY, "-m", "pip", "list", "--disable-pip-version-check"])
    assert choose(r.source, 0).kind == "table"  # type: ignore[arg-type]


# -- anything else, warnings, failures -----------------------------------------------------------------


def test_plain_output_is_head_then_tail_without_error_evidence() -> None:
    script = "for i in range(3000): print(f'step {i}: retried after error, failed once, ok')"
    r = run_command([PY, "-c", script])
    assert r.meta["view"] == "output" and "[error evidence" not in r.text
    text = r.text
    assert text.index("step 0:") < text.index("step 2999:")
    _check_chain(r)


def test_compiler_warnings_are_counted_not_errors(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    body = "".join(f"int f{i}(void) {{ int unused{i}; return 0; }}\n" for i in range(150))
    (tmp_path / "w.c").write_text(body)
    r = run_command(["gcc", "-Wall", "-c", "w.c", "-o", "w.o"], cwd=str(tmp_path))
    assert r.meta["exit_code"] == 0 and r.meta["view"] == "output"
    assert "[error evidence" not in r.text and "[warnings: 150, at lines " in r.text
    _check_chain(r)


def test_exit_0_with_a_test_runners_failure_summary_is_a_failing_log(tmp_path: Path) -> None:
    tests = "".join(f"def test_{i}():\n    assert {i} % 5 != 3\n" for i in range(300))
    (tmp_path / "test_x.py").write_text(tests)
    r = run_command(f"{PY} -m pytest -q -p no:cacheprovider test_x.py -rf; true", cwd=str(tmp_path))
    assert r.meta["exit_code"] == 0 and r.meta["view"] == "failing log"
    assert r.text.split("\n")[1].startswith("[error evidence: ")


def test_non_zero_exit_is_the_failing_log(tree: Path) -> None:
    r = run_command("grep -rn error pkg; exit 3", cwd=str(tree))
    assert r.meta["view"] == "failing log" and r.text.split("\n")[1].startswith("[error evidence")
    assert read_saved(r.source).meta.get("view") is None  # type: ignore[arg-type]  # paging, as before


def test_small_output_is_shown_whole_without_a_view_line() -> None:
    r = run_command(["printf", "a.py:1:x = error\\nb.py:2:y = error\\n"])
    assert r.complete and "[view:" not in r.text and r.meta["view"] == "search results"


def test_project_output_is_deterministic(repo: Path) -> None:
    r = run_command(["git", "log", "-p"], cwd=str(repo), budget=700)
    again = project_output(r.source, budget=700, explicit_budget=700, exit_code=0)  # type: ignore[arg-type]
    assert (
        again is not None
        and again.text
        == project_output(
            r.source,  # type: ignore[arg-type]
            budget=700,
            explicit_budget=700,
            exit_code=0,
        ).text
    )  # type: ignore[union-attr]


def test_ci_runner_timestamps_are_not_search_hits() -> None:
    from wuu_tools.logs.shape import classify

    lines = [f"2026-01-02T03:04:{i % 60:02d}.{i:07d}Z step {i}: compiled" for i in range(300)]
    assert classify(lines, lines[-50:], exit_code=0).kind == "output"
    failed = [*lines, "2026-01-02T03:09:00.0000000Z ##[error]Process completed with exit code 2."]
    assert classify(failed[:100], failed[-50:], exit_code=None).kind == "failing log"


def test_wuu_project_auto_chooses_and_kind_log_forces_the_log_view(tree: Path) -> None:
    wuu = Path(sys.executable).with_name("wuu")
    if not wuu.exists():
        pytest.skip(f"{wuu} is not installed (pip install -e .)")
    grep = subprocess.run(["grep", "-rn", "error", "pkg"], cwd=tree, capture_output=True, check=True).stdout
    auto = subprocess.run([str(wuu), "project"], input=grep, capture_output=True, check=True).stdout.decode()
    assert auto.split("\n")[1].startswith("[view: search results · 1,200 matches in 200 files")
    forced = subprocess.run([str(wuu), "project", "--kind", "log"], input=grep, capture_output=True, check=True)
    assert "[view:" not in forced.stdout.decode() and forced.stdout.startswith(b"[saved log-")


def test_a_diff_quoting_failure_lines_stays_a_diff(repo: Path) -> None:
    from wuu_tools.logs.shape import classify

    quoted = ["diff --git a/t.py b/t.py", "--- a/t.py", "+++ b/t.py", "@@ -1,2 +1,2 @@"]
    quoted += ['+    lines = ["##[error]Process completed with exit code 2.", "FAILED x"]', " context"]
    assert classify(quoted, quoted, exit_code=0).kind == "diff"
