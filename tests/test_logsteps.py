"""The step structure of a CI log (``logs/steps.py``): the failing step's output is the evidence, boilerplate is not."""

from __future__ import annotations

from wuu_tools.core.lines import LineFile
from wuu_tools.core.store import Store
from wuu_tools.logs.scan import scan_log
from wuu_tools.logs.steps import failing_steps, signal, template
from wuu_tools.logs.view import project_log

ESC = "\x1b"


def _travis(steps: list[tuple[str, list[str], int]], preamble: int = 300, epilogue: int = 200) -> str:
    """A Travis-shaped log: worker preamble, each step's command, output and exit line, then cache upload."""
    out = [f"{ESC}[33;1mWorker information{ESC}[0m"] + [f"kernel parameter {i}: value {i * 7}" for i in range(preamble)]
    for k, (cmd, lines, code) in enumerate(steps):
        out.append(f"travis_time:start:{k:08x}\r{ESC}[0K$ {cmd}")
        out += lines
        out.append(f"travis_time:end:{k:08x}:start=1,finish=2,duration=1\r{ESC}[0K")
        colour = "31" if code else "32"
        out.append(f'{ESC}[{colour};1mThe command "{cmd}" exited with {code}.{ESC}[0m')
    out += [f"uploading cache archive part {i} of {epilogue}" for i in range(epilogue)]
    out.append("Done. Your build exited with 1.")
    return "\n".join(out) + "\n"


def _view(text: str, budget: int = 2000) -> str:
    return project_log(Store().save(text, "log"), budget=budget, explicit_budget=None).text


def test_a_failing_step_without_any_failure_word_is_shown() -> None:
    # A linter that reports in its own words, no "error" anywhere: only the step structure finds it.
    lint = ["checking 212 files", "Variable $unused-colour is declared in theme.scss but never read", "1 problem"]
    log = _travis(
        [
            ("install deps", [f"fetched package-{i} 1.{i}.0" for i in range(400)], 0),
            ("run linter", lint, 1),
            ("run tests", [f"test case {i} ... ok" for i in range(300)], 0),
        ]
    )
    text = _view(log)
    assert "Variable $unused-colour is declared in theme.scss but never read" in text
    assert 'The command "run linter" exited with 1.' in text
    # The worker preamble and the cache upload are boilerplate: a few lines of them at most.
    assert sum("kernel parameter" in line for line in text.splitlines()) <= 5
    assert sum("uploading cache archive" in line for line in text.splitlines()) <= 5


def test_passing_lines_with_failure_words_are_not_evidence() -> None:
    passing = [f"  ✓ returns an error when input {i} is empty" for i in range(60)]
    failing = ["  1) parser rejects a trailing comma:", "     AssertionError: expected 3 to equal 4"]
    log = _travis([("npm test", [*passing, "  60 passing", "  1 failing", "", *failing], 1)])
    with LineFile.open(Store().path(Store().save(log, "log"))) as lf:
        scan = scan_log(lf)
        steps = failing_steps(lf, scan.collector.step_ends)
    assert len(steps) == 1 and steps[0].end > steps[0].last >= steps[0].start > 0
    assert signal("✓ returns an error when input 3 is empty") == 0
    assert signal("XFAIL test_known_bug - error expected") == 0
    assert signal("1) parser rejects a trailing comma:") > 0
    text = _view(log, budget=600)
    assert "AssertionError: expected 3 to equal 4" in text
    assert "1) parser rejects a trailing comma:" in text


def test_the_first_failing_step_outranks_a_later_one_and_errors_in_passing_steps() -> None:
    setup = [f"warning: apt cache {i} stale, error ignored" for i in range(30)]
    log = _travis(
        [
            ("apt-get install", setup, 0),
            ("make", ["cc -c main.c", "main.c:12:5: error: 'widget' undeclared", "make: *** [all] Error 1"], 2),
            ("after_failure dump", ["dumping logs", "error: nothing to dump"], 1),
        ]
    )
    text = _view(log, budget=400)
    assert "main.c:12:5: error: 'widget' undeclared" in text
    assert text.index('The command "make" exited with 2.') < text.index("after_failure")


def test_templates_mask_numbers_paths_and_quoted_strings() -> None:
    a = template("src/net/io_12.c:40:2: warning: unused variable 'tmp12' [-Wunused]")
    b = template("lib/core_9.c:7:1: warning: unused variable 'x' [-Wunused]")
    assert a == b
    assert template("fetched 0x1f3a in 12.5 s") == template("fetched 0xdeadbeef in 3 s")


def test_step_structure_is_bounded_on_a_long_step() -> None:
    # A failing step of 200,000 lines: only its last lines are read, the failure near its end is found.
    body = [f"progress {i} of 200000" for i in range(200_000)] + ["Segmentation fault (core dumped) in worker 3"]
    text = _view(_travis([("stress", body, 139)], preamble=5, epilogue=5), budget=800)
    assert "Segmentation fault (core dumped) in worker 3" in text


def test_lines_printed_in_green_are_not_evidence_whatever_their_words() -> None:
    # A runner of no known format marks passes in green and failures in red: the colour is its verdict.
    green = [f"{ESC}[32m    (+) raises an error when field {i} is missing{ESC}[0m 12ms" for i in range(120)]
    red = [
        f"{ESC}[31m    (x) saves a draft when the title is long{ESC}[0m",
        f"{ESC}[31m      draft store could not save the record: title exceeds column width{ESC}[0m",
    ]
    log = _travis([("run specs", [*green[:60], *red, *green[60:], "120 passed, 1 failed"], 1)])
    text = _view(log, budget=700)
    assert "draft store could not save the record: title exceeds column width" in text
    assert sum("raises an error when field" in line for line in text.splitlines()) <= 2


def test_tone_reads_the_colour_of_the_visible_text() -> None:
    from wuu_tools.logs.tone import tone

    assert tone(f"{ESC}[1;31mERROR{ESC}[0m in module")[0] == "red"
    assert tone(f"{ESC}[38;5;196mboom{ESC}[0m")[0] == "red"
    assert tone(f"{ESC}[?1h{ESC}={ESC}[32m  ok{ESC}[39m{ESC}[30m 12ms{ESC}[0m")[0] == "green"
    # A colour left open carries into the next line; a reset ends it.
    shade, open_fg = tone(f"{ESC}[31mFailure:")
    assert (shade, open_fg) == ("red", "red")
    assert tone("  expected 3, got 4", open_fg)[0] == "red"
    assert tone(f"{ESC}[0m  plain", open_fg)[0] == ""
    assert tone("no colour at all")[0] == ""


def test_a_log_cut_before_its_failing_step_ended_shows_that_step() -> None:
    # A CI log cut by a time or size limit: step markers, but no 'exited with' line for the last step.
    cause = "worker 7 could not renew its lease on shard 12 after 3 retries"
    work = [f"shard {i % 40} processed batch {i}" for i in range(1500)]
    log = _travis([("install", [f"fetched package-{i}" for i in range(200)], 0)], epilogue=0)
    log = log.replace("Done. Your build exited with 1.\n", "")
    log += f"travis_time:start:0000beef\r{ESC}[0K$ ./run-suite\n" + "\n".join(
        [*work[:700], "Starting shard failover", cause, "retrying failed batches", *work[700:]]
    )
    text = _view(log, budget=1200)
    assert cause in text
    assert sum("kernel parameter" in line for line in text.splitlines()) <= 5


def test_the_lines_before_a_commands_exit_status_are_shown_with_it() -> None:
    # A sub-command that names what is wrong in its own words, then its runner reports the exit status.
    checks = [f"check {i}: {i * 3} items, done" for i in range(300)]
    sub = ["listing files whose layout differs:", "  generated/schema_v2.json", "sub-runner exited with code 3"]
    log = _travis([("run all checks", [*checks[:150], *sub, *checks[150:], "checks finished"], 1)])
    text = _view(log, budget=800)
    assert "generated/schema_v2.json" in text


def test_compiler_warnings_rank_below_the_error_that_failed_the_build() -> None:
    # Hundreds of distinct "file:line:col: warning:" lines (each rare) before the one error, whose
    # message is on the lines below its location (as some compilers print it).
    names = [a + b + c for a in "bdfk" for b in "aeiou" for c in "lmnrst"]  # 120 distinct package names
    warns = [f"{n:<12} > /tmp/build/{n}/src/Mod.hs:{i + 3}:5: warning: [-Wunused-binds]" for i, n in enumerate(names)]
    notes = [f"    Defined but not used: helper{i}" for i in range(len(names))]
    body = [x for pair in zip(warns, notes, strict=True) for x in pair]
    err = ["src/Core/Parse.hs:88:14: error:", "    Variable not in scope: tokenStream"]
    after = [f"[{i} of 90] Compiling Core.Mod{i}" for i in range(42, 90)]  # the step goes on past the error
    log = _travis([("stack build", [*body, "[41 of 90] Compiling Core.Parse", "", *err, "", *after], 1)])
    text = _view(log, budget=1000)
    assert "src/Core/Parse.hs:88:14: error:" in text
