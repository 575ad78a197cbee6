"""The error evidence of a log view grouped under its CI step and test (issue 33 item 3)."""

from __future__ import annotations

import re

import pytest

from wuu_tools.core.budget import NOTICE_TOKENS, count_tokens
from wuu_tools.core.store import Store
from wuu_tools.logs import view as view_module
from wuu_tools.logs.groups import header
from wuu_tools.logs.view import project_log

NUMBERED = re.compile(r"^ *(\d+)\t")
SKIPPED = re.compile(r"^  … ([\d,]+) lines?$")
LABEL = re.compile(r"^\[(step|test) ([\d,]+): (.+)\]$")


def _evidence(text: str) -> list[str]:
    """The lines of the error-evidence section of a view."""
    lines = text.split("\n")
    start = next(k for k, line in enumerate(lines) if line.startswith("[error evidence"))
    end = next(
        (k for k in range(start + 1, len(lines)) if lines[k].startswith(("[tail", "[head", "[not shown", "[lines"))),
        len(lines),
    )
    return lines[start + 1 : end]


def _check_counts(section: list[str]) -> None:
    """Every ``… N lines`` stands between numbered lines exactly N + 1 apart; labels name their line's text."""
    for k, line in enumerate(section):
        m = SKIPPED.match(line)
        if m:
            before = next(NUMBERED.match(x) for x in reversed(section[:k]) if NUMBERED.match(x))
            after = next(NUMBERED.match(x) for x in section[k + 1 :] if NUMBERED.match(x))
            assert before and after
            assert int(after.group(1)) - int(before.group(1)) - 1 == int(m.group(1).replace(",", ""))


def _view(log: str, budget: int) -> tuple[str, list[str]]:
    ref = Store().save(log, "log")
    r = project_log(ref, budget=budget, explicit_budget=None)
    assert count_tokens(r.text) <= budget + NOTICE_TOKENS
    again = project_log(ref, budget=budget, explicit_budget=None)
    assert again.text == r.text
    return r.text, log.split("\n")


def _labels(section: list[str], log: list[str]) -> list[tuple[str, int, str]]:
    out = []
    for line in section:
        m = LABEL.match(line)
        if m:
            number = int(m.group(2).replace(",", ""))
            h = header(number, log[number - 1])
            assert h is not None and h.kind == m.group(1) and h.label() == line
            out.append((m.group(1), number, m.group(3)))
    return out


def _grouped(log: str, budget: int) -> tuple[list[str], list[str], list[tuple[str, int, str]]]:
    """The checked evidence section of a log's view, the log's lines, and the section's checked labels."""
    text, lines = _view(log, budget)
    section = _evidence(text)
    _check_counts(section)
    return section, lines, _labels(section, lines)


def _named_at(section: list[str], kind: str, number: int, name: str) -> int:
    """Where the section first names a step or test: by its label or its header line shown numbered (one must)."""
    label = f"[{kind} {number:,}: {name}]"
    k = next(
        (k for k, x in enumerate(section) if x == label or ((m := NUMBERED.match(x)) and int(m.group(1)) == number)),
        None,
    )
    assert k is not None, f"{kind} {number} ({name}) is neither labelled nor shown"
    return k


def _travis() -> str:
    lines = ["Worker information", "travis_fold:start:install\r\x1b[0K$ pip install -r requirements.txt"]
    lines += [f"Collecting package{i}==1.{i}" for i in range(300)]
    lines += ["travis_fold:end:install", "$ python -m pytest tests"]
    lines += [f"tests/test_mod{i}.py::test_case PASSED [ {i % 100}%]" for i in range(400)]
    lines[-150] = "tests/test_mod99.py::test_thing FAILED [ 50%]"
    lines += ["ERROR: could not open config file /etc/app.cfg"]
    lines += [f"tests/test_more{i}.py::test_case PASSED [ 99%]" for i in range(300)]
    lines += ["E   AssertionError: expected 3 but got 2", "========== 1 failed, 699 passed in 9.00s =========="]
    lines += ['The command "python -m pytest tests" exited with 1.', "", "Done. Your build exited with 1."]
    return "\n".join(lines) + "\n"


def test_travis_evidence_of_one_step_is_one_group_with_skipped_counts() -> None:
    section, log, labels = _grouped(_travis(), 500)
    step = next(k for k, line in enumerate(log) if line == "$ python -m pytest tests") + 1
    shown = {int(m.group(1)) for line in section if (m := NUMBERED.match(line))}
    end = log.index('The command "python -m pytest tests" exited with 1.') + 1
    # The step is named once: by its command line, its label, or the line that ends it (which quotes it).
    named = [step in shown, ("step", step, "$ python -m pytest tests") in labels, end in shown]
    assert sum(named) == 1
    inside = [n for n in sorted(shown) if n > step]
    assert len(inside) >= 3  # the FAILED line, the error, the assertion, the summary, the exit
    # Between places of the failing step: how many lines were skipped, never a bare "…".
    k_first = next(k for k, line in enumerate(section) if (m := NUMBERED.match(line)) and int(m.group(1)) > step)
    assert "  …" not in section[k_first:-1] and any(SKIPPED.match(x) for x in section[k_first:])


def _actions() -> str:
    stamp = "2024-05-01T10:00:00.0000000Z "
    lines = [stamp + "##[group]Run actions/checkout@v4"] + [stamp + f"checkout {i}" for i in range(40)]
    lines += [stamp + "##[endgroup]", stamp + "##[group]Run npm ci"] + [stamp + f"added pkg{i}" for i in range(400)]
    lines += [stamp + "##[endgroup]", stamp + "##[group]Run npm test"]
    lines += [stamp + f"  ✓ renders item {i} (3 ms)" for i in range(300)]
    lines += [stamp + "##[endgroup]"]
    lines += [stamp + f"build note {i}" for i in range(30)]
    lines += [stamp + "src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'."]
    lines += [stamp + "##[error]Process completed with exit code 2."]
    lines += [stamp + f"Post job cleanup {i}" for i in range(20)]
    return "\n".join(lines) + "\n"


def test_github_actions_group_holds_the_output_after_its_endgroup() -> None:
    section, log, labels = _grouped(_actions(), 400)
    step = next(k for k, line in enumerate(log) if line.endswith("##[group]Run npm test")) + 1
    assert len({n for _, n, _ in labels}) == len(labels)  # each group named once
    rest = section[_named_at(section, "step", step, "Run npm test") + 1 :]
    cause = next(j for j, x in enumerate(rest) if "error TS2322" in x)
    # The type error sits in the step (its output follows the group's ##[endgroup]): no bare "…" before it.
    assert "  …" not in rest[:cause] and not any(LABEL.match(x) for x in rest[:cause])


def _pytest() -> str:
    lines = ["============================= test session starts =============================="]
    lines += [f"tests/test_m{i}.py {'.' * 40} [ {i % 100}%]" for i in range(200)]
    lines += ["=================================== FAILURES ==================================="]
    for name, value in (("test_alpha", 2), ("test_beta", 5), ("test_gamma", 7)):
        lines += [f"{'_' * 30} {name} {'_' * 30}", "", f"    def {name}():"]
        lines += [f"        step_{k} = prepare({k})" for k in range(60)]
        lines += [
            ">       assert compute() == 3",
            f"E       assert {value} == 3",
            f"E        +  where {value} = compute()",
        ]
        lines += ["", f"tests/test_x.py:{value * 10}: AssertionError"]
    lines += ["=========================== short test summary info ============================"]
    lines += [f"FAILED tests/test_x.py::{n} - assert" for n in ("test_alpha", "test_beta", "test_gamma")]
    lines += ["========================= 3 failed, 8000 passed in 30.00s ========================="]
    return "\n".join(lines) + "\n"


def test_pytest_evidence_of_several_tests_is_grouped_under_each_test() -> None:
    section, log, _ = _grouped(_pytest(), 600)
    for name, value in (("test_alpha", 2), ("test_beta", 5), ("test_gamma", 7)):
        head = next(k for k, line in enumerate(log) if line.startswith("_") and f" {name} " in line) + 1
        # The test is named (labelled or its header shown); its assertion follows, before the next test's.
        rest = section[_named_at(section, "test", head, name) + 1 :]
        stop = next((j for j, x in enumerate(rest) if x.startswith("[test ") or "____ test_" in x), len(rest))
        assert any(f"E       assert {value} == 3" in x for x in rest[:stop]), name


def test_a_log_without_steps_or_tests_keeps_its_shape() -> None:
    lines = [f"compiling unit {i}" for i in range(3000)]
    for n in (200, 1100, 2100):
        lines[n] = f"src/unit{n}.c:{n}:5: error: use of undeclared identifier 'x{n}'"
    text, _ = _view("\n".join(lines) + "\n", 500)
    section = _evidence(text)
    assert not any(LABEL.match(x) or SKIPPED.match(x) for x in section)
    numbered = [int(m.group(1)) for x in section if (m := NUMBERED.match(x))]
    assert {201, 1101, 2101} <= set(numbered)
    # Places apart are separated by a bare "…", as before.
    assert section.count("  …") >= 2


def test_a_test_whose_header_is_not_shown_is_named_by_a_label() -> None:
    section, log, labels = _grouped(_pytest(), 250)
    assert labels and all(kind == "test" for kind, _, _ in labels)
    for _, number, name in labels:
        k = section.index(f"[test {number:,}: {name}]")
        after = next(int(m.group(1)) for x in section[k + 1 :] if (m := NUMBERED.match(x)))
        # The label's test holds the next line shown: no other test header between them.
        assert all(header(n, log[n - 1]) is None for n in range(number + 1, after))


@pytest.mark.parametrize(
    ("line", "kind", "name"),
    [
        ("FAIL: test_parse (app.tests.ParserTests)", "test", "test_parse (app.tests.ParserTests)"),
        ("ERROR: test_load (pkg.test_io.IOTests.test_load)", "test", "test_load (pkg.test_io.IOTests.test_load)"),
        ("    --- FAIL: TestParse/empty (0.00s)", "test", "TestParse/empty"),
        ("  ● Parser › rejects an empty input", "test", "Parser › rejects an empty input"),
        ("____________ test_split[a,b-2] ____________", "test", "test_split[a,b-2]"),
        ("$ cargo test --all", "step", "$ cargo test --all"),
        ("##[group]Run npm test", "step", "Run npm test"),
        ("::group::Build", "step", "Build"),
        ('The command "make check" exited with 2.', "end", ""),
    ],
)
def test_headers_of_steps_and_tests(line: str, kind: str, name: str) -> None:
    h = header(7, line)
    assert h is not None and (h.kind, h.name, h.line) == (kind, name, 7)


@pytest.mark.parametrize(
    "line", ["ERROR: could not open config file", "E   assert 2 == 3", "make: *** [all] Error 2", ""]
)
def test_other_lines_are_not_headers(line: str) -> None:
    assert header(7, line) is None


def test_a_view_whose_labels_push_it_over_the_budget_gives_back_the_room_it_does_not_need() -> None:
    """The budget loop halves its way back from the doubling: a grouped view still fills its budget."""
    log = ["============================= test session starts =============================="]
    for n in range(160):
        log += [f"____________________ TestCase{n % 7}.test_case_{n} ____________________", ""]
        log += [f"    def test_case_{n}(self):", f"        value = compute({n})"]
        log += [f">       assert value == {n + 1}", f"E       AssertionError: assert {n} == {n + 1}", ""]
        log += [f"tests/test_cases.py:{10 * n + 4}: AssertionError"]
    log += [f"FAILED tests/test_cases.py::TestCase{n % 7}::test_case_{n} - AssertionError" for n in range(160)]
    log += ["======================== 160 failed in 1.23s ========================="]
    for budget in (800, 2000):
        text, _ = _view("\n".join(log) + "\n", budget)
        assert 0.9 * budget <= count_tokens(text) <= budget


_NAMES = [
    *("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"),
    *("mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey"),
    *("xray", "yankee", "zulu"),
]


def _many_failures() -> str:
    """A Travis step whose 26 failing tests each print their name, an error, three frames and the test's source."""
    lines = ["Worker information", "$ git clone --depth=50 https://example.invalid/widgets.git"]
    lines += [f"Receiving objects: {i}% ({i}/100)" for i in range(100)]
    lines += ["$ npm test", f"failed {len(_NAMES)} and passed 900 tests in 9.00 seconds"]
    for name in _NAMES:
        lines += [f"  {name} widget renders its label", f"  ReferenceError: render{name.title()} is not defined"]
        lines += [f"    at Object.<anonymous> (/build/spec/{name}.js:1:1)"] * 3
        lines += [f"      option_{k}: {k}," for k in range(12)]
    lines += ['The command "npm test" exited with 1.', "", "Done. Your build exited with 1."]
    return "\n".join(lines) + "\n"


def test_skip_counts_give_way_before_a_failure_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Grouping costs no place: a view whose evidence gives way to the budget shows as many failures as the
    same view with a bare ``…`` between a group's places instead of ``… N lines`` (the line numbers still tell
    the gap); a view with room keeps the counts.

    The tail and head give way first (:mod:`wuu_tools.logs.fit`), so where the counts push a view over its
    budget they are paid from the tail and head's room while it lasts; where the evidence's own room is
    squeezed, the view is built bare too and the one with more places shown.
    """
    raw = _many_failures()
    log = raw.split("\n")
    failures = {k + 1 for k, line in enumerate(log) if "ReferenceError" in line}

    def shown(text: str) -> set[int]:
        return failures & {int(m.group(1)) for x in _evidence(text) if (m := NUMBERED.match(x))}

    text, _ = _view(raw, 1300)
    section = _evidence(text)
    _check_counts(section)
    assert shown(text) == failures
    assert any(SKIPPED.match(x) for x in section)
    views = {budget: _view(raw, budget)[0] for budget in (300, 500, 600, 900)}
    render = view_module._render
    monkeypatch.setattr(view_module, "_render", lambda *a: render(*a[:-1], False))  # the same view, bare
    for budget, text in views.items():
        _check_counts(_evidence(text))
        assert shown(text) < failures, budget  # the budget is tight: some failures are not shown
        bare = _view(raw, budget)[0]
        assert not any(SKIPPED.match(x) for x in _evidence(bare))
        assert len(shown(text)) >= len(shown(bare)), (budget, len(shown(text)), len(shown(bare)))
