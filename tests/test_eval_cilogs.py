"""The LogChunks corpus in the evaluation scripts: the recall rule, the project split, the peer cuts, the task kind."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from evaluation.agent import run_task  # noqa: E402
from evaluation.corpus_report import corpus_report  # noqa: E402
from evaluation.logchunks import PEER_CUTS, CorpusTask, eval_tasks, is_dev, load, recalled  # noqa: E402
from evaluation.wuu import WuuPolicy  # noqa: E402


def test_recall_rule_ignores_colours_and_blank_runs() -> None:
    task = CorpusTask(Path("x.log"), "C", "a@b", ("make: *** [all] Error 2",))
    assert recalled("12\t\x1b[31mmake: ***   [all]\x1b[0m Error 2 (more)", task)
    assert not recalled("12\tmake: *** [all] Error 1", task)


def test_the_project_split_is_fixed_and_about_sixty_percent() -> None:
    names = [f"owner{i}@project{i}" for i in range(400)]
    share = sum(map(is_dev, names)) / len(names)
    assert 0.5 < share < 0.7
    assert [is_dev(n) for n in names] == [is_dev(n) for n in names]


def test_peer_cuts_keep_what_their_policy_says() -> None:
    text = "".join(f"line {i:05d}\n" for i in range(20_000))
    assert PEER_CUTS["last 100 lines"](text).splitlines()[0] == "line 19900"
    cut = PEER_CUTS["Codex (10 KB head+tail)"](text)
    assert cut.startswith("line 00000") and cut.endswith("line 19999\n") and len(cut) < 10_400


def test_an_absent_corpus_is_skipped_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus_report(tmp_path / "logchunks", 2000)
    assert "is absent" in capsys.readouterr().out


@pytest.mark.realdata
def test_the_corpus_becomes_ci_log_tasks(realdata: Path) -> None:
    root = realdata / "logchunks"
    corpus = load(root)
    assert len(corpus) == 443 and all(t.needles for t in corpus)
    tasks = eval_tasks(root)
    assert len(tasks) == 443 and {t.kind for t in tasks} == {"ci-log"} and {t.origin for t in tasks} == {"logchunks"}
    task = next(t for t in tasks if t.notes["dev"])
    trace = run_task(WuuPolicy(), task)
    assert trace.error is None and trace.calls
    # A CI log is read as the output of a failed command (run_command), not as a file.
    assert trace.calls[0].request == 'run_command(command="travis build")'
    assert trace.calls[0].text.startswith("[exit 1 ")
    (labelled,) = (t for t in corpus if t.name == f"{task.notes['repo']}/{task.path.name}")
    assert trace.first_view_hit == recalled(trace.calls[0].text, labelled)
