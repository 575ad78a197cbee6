"""project_result: pass-through, previews by structure, media, structured content, errors, failure."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import _docs
import pytest
from _external_helpers import generator, reconstruct

from wuu_tools import InvalidArgument, project_result, read_saved
from wuu_tools.core.budget import HARD_CAP_BYTES, NOTICE_TOKENS
from wuu_tools.core.store import Store
from wuu_tools.external.project import is_outcome_tool


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The generated MCP fixtures, loaded."""
    paths = generator().generate(tmp_path_factory.mktemp("mcp-fixtures"))
    return {name: json.loads(path.read_text()) for name, path in paths.items()}


def _lines(n: int, width: int = 60) -> str:
    return "\n".join(f"line {i:05d} " + "x" * (i % width) for i in range(1, n + 1))


def _within(result: Any, budget: int = 2000) -> None:
    assert result.tokens <= budget + NOTICE_TOKENS
    assert len(result.text.encode()) <= HARD_CAP_BYTES


# -- pass-through --------------------------------------------------------------------------------


def test_text_under_budget_is_passed_through_unchanged(store_dir: Path) -> None:
    text = "first\n\tsecond line  \nthird\n"
    r = project_result(text)
    assert r.text == text
    assert r.complete and r.continuation is None and r.source is None
    assert r.meta["shown"] == [[1, 3]] and r.meta["omitted"] == []
    assert not (store_dir / "objects").exists() or not any((store_dir / "objects").iterdir())


def test_mcp_text_result_under_budget_is_its_text() -> None:
    r = project_result({"content": [{"type": "text", "text": "ok: 3 rows"}], "isError": False})
    assert r.text == "ok: 3 rows" and r.complete
    assert r.meta["origin"] == "mcp" and r.meta["is_error"] is False


def test_any_json_value_is_rendered_readably() -> None:
    assert project_result(42).text == "42"
    assert project_result({"a": [1, 2]}).text == json.dumps({"a": [1, 2]}, indent=2)
    table = project_result([{"id": 1, "name": "a|b"}, {"id": 2, "name": "c\nd"}]).text
    assert table.split("\n") == ["| id | name |", "|---|---|", "| 1 | a\\|b |", "| 2 | c\\nd |"]


# -- previews and the lossless chain ---------------------------------------------------------------


def test_plain_text_over_budget_is_saved_and_the_chain_recovers_it_exactly() -> None:
    text = _lines(3000) + "\n"
    r = project_result(text, budget=500)
    _within(r, 500)
    assert not r.complete and r.source and r.source.startswith("result-")
    assert r.continuation == {
        "tool": "read_saved",
        "args": {
            "ref": r.source,
            "start_line": r.meta["omitted"][0][0],
            "end_line": r.meta["omitted"][0][1],
            "budget": 500,
        },
    }
    assert "line 00001" in r.text and "line 03000" in r.text  # head and tail
    recovered, views = reconstruct(r)
    assert recovered + "\n" == text
    assert all(v.continuation is None or v.continuation["tool"] == "read_saved" for v in views)


def test_a_continuation_repeats_only_an_explicit_budget() -> None:
    r = project_result(_lines(3000))
    assert "budget" not in r.continuation["args"]


def test_markdown_shows_head_then_the_headings_that_follow() -> None:
    parts = []
    for s in range(1, 41):
        parts.append(f"## Section {s}")
        parts += [f"paragraph {s}.{k} " + "words " * 12 for k in range(30)]
    text = "# Title\n" + "\n".join(parts)
    r = project_result(text, budget=800)
    _within(r, 800)
    assert r.meta["view"] == "sections"
    assert "## Section 40" in r.text and "## Section 25" in r.text
    assert "paragraph 30.4" not in r.text
    recovered, _ = reconstruct(r)
    assert recovered == text


def test_json_text_gets_an_outline_and_its_head() -> None:
    doc = {"kind": "report", "rows": [{"id": i, "label": f"row {i}", "ok": i % 3 != 0} for i in range(1000)]}
    text = json.dumps(doc, indent=2)
    r = project_result({"content": [{"type": "text", "text": text}]}, budget=600)
    _within(r, 600)
    assert r.meta["view"] == "json"
    assert ".rows: array of 1,000 objects; keys: id, label, ok" in r.text
    assert '"kind": "report"' in r.text
    recovered, _ = reconstruct(r)
    assert recovered == text


def test_minified_json_is_previewed_pretty_and_the_exact_text_is_kept(store_dir: Path) -> None:
    value = {"items": [{"n": i, "s": "v" * 20} for i in range(800)]}
    text = json.dumps(value, separators=(",", ":"))
    r = project_result(text, budget=400)
    _within(r, 400)
    assert "pretty-printed" in r.text
    assert Store(store_dir).path(r.meta["original"]).read_text() == text
    recovered, _ = reconstruct(r)
    assert json.loads(recovered) == value


def test_a_single_line_longer_than_the_budget_is_cut_and_continued_by_character() -> None:
    text = "".join(f"word{i} " for i in range(40000))
    r = project_result(text, budget=300)
    _within(r, 300)
    assert r.meta["partial_line"] == 1 and r.continuation["args"]["start_char"] > 0
    recovered, _ = reconstruct(r)
    assert recovered == text


def test_crlf_lines_are_shown_without_their_carriage_return() -> None:
    text = "\r\n".join(f"row {i} " + "y" * 30 for i in range(2000)) + "\r\n"
    r = project_result(text, budget=300)
    assert "\r" not in r.text
    recovered, _ = reconstruct(r)
    assert recovered.split("\n") == text.split("\r\n")[:-1]


def test_projection_is_deterministic() -> None:
    text = _lines(5000)
    a, b = project_result(text, tool="search"), project_result(text, tool="search")
    assert a.text == b.text and a.continuation == b.continuation and a.to_dict() == b.to_dict()


def test_no_continuation_names_the_producing_tool(fixtures: dict[str, Any]) -> None:
    for name, value in fixtures.items():
        view = project_result(value, tool="browser_snapshot", budget=300)
        for _ in range(3):
            if view.continuation is None:
                break
            assert view.continuation["tool"] == "read_saved", name
            assert "browser_snapshot" not in json.dumps(view.continuation)
            view = read_saved(**view.continuation["args"])


# -- errors, edit and coordination tools -------------------------------------------------------------


def test_error_text_comes_first_and_keeps_its_message_and_cause(fixtures: dict[str, Any]) -> None:
    r = project_result(fixtures["error_trace"], budget=2000)
    _within(r)
    assert r.meta["is_error"] and r.meta["view"] == "error"
    body = r.text.split("\n")
    assert "error (isError)" in body[0]
    assert "Error: connection refused while syncing repository" in body[1]
    assert "Caused by: PoolTimeoutError" in r.text
    assert "processTicksAndRejections" in r.text  # the last frame


def test_error_text_is_placed_before_other_content() -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()
    r = project_result(
        {
            "isError": True,
            "content": [
                {"type": "image", "data": png, "mimeType": "image/png"},
                {"type": "text", "text": "Error: page crashed"},
            ],
        }
    )
    assert r.text.startswith("Error: page crashed\n[image 1/1")
    assert r.meta["media"][0]["after_block"] == 1


def test_edit_tool_preview_keeps_the_outcome_lines() -> None:
    body = [f"  {i:4d} | unchanged context line {i}" for i in range(3000)]
    body[2200] = "Next: run the test suite; 1 hunk failed to apply at line 2201"
    text = "Applied 3 of 4 edits to src/app.py (by agent-2)\n" + "\n".join(body)
    r = project_result(text, tool="str_replace_based_edit_tool", budget=500)
    _within(r, 500)
    assert r.meta["view"] == "outcome"
    assert r.text.split("\n")[1].endswith("Applied 3 of 4 edits to src/app.py (by agent-2)")
    assert "Next: run the test suite; 1 hunk failed" in r.text
    recovered, _ = reconstruct(r)
    assert recovered == text


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        ("edit", True),
        ("mcp__fs__write_file", True),
        ("TodoWrite", True),
        ("apply_patch", True),
        ("send_message", True),
        ("browser_snapshot", False),
        ("search", False),
        (None, False),
    ],
)
def test_outcome_tools_are_recognised(tool: str | None, expected: bool) -> None:
    assert is_outcome_tool(tool) is expected


# -- structured content ------------------------------------------------------------------------------


def test_search_result_1000_items_target(fixtures: dict[str, Any], store_dir: Path) -> None:
    r = project_result(fixtures["search_1000"])
    assert r.tokens <= 2000  # the target: the whole view within 2,000 tokens
    assert r.meta["structured"]["mode"] == "readable"
    assert ".results: array of 1,000 objects; keys: id, title, url, snippet, score" in r.text
    assert '"doc-0001"' in r.text  # ids of the first items
    saved = Store(store_dir).path(r.meta["structured"]["ref"]).read_text()
    assert json.loads(saved) == fixtures["search_1000"]["structuredContent"]
    recovered, _ = reconstruct(r)
    assert recovered == fixtures["search_1000"]["content"][0]["text"]


def test_structured_content_equal_to_the_text_is_not_sent_twice(store_dir: Path) -> None:
    value = {"id": "abc", "items": list(range(5))}
    r = project_result({"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value})
    assert r.text.startswith(json.dumps(value) + "\n[structuredContent: the same JSON as the text above")
    assert r.complete and r.meta["structured"]["mode"] == "same"
    assert json.loads(Store(store_dir).path(r.meta["structured"]["ref"]).read_text()) == value


def test_structured_content_the_text_does_not_carry_is_rendered_after_it() -> None:
    r = project_result(
        {
            "content": [{"type": "text", "text": "Query finished."}],
            "structuredContent": {"rows": [{"city": "Oslo", "temp": 3}, {"city": "Lima", "temp": 19}]},
        }
    )
    assert (
        r.text == "Query finished.\n[structuredContent]\nrows: 2 items\n"
        "| city | temp |\n|---|---|\n| Oslo | 3 |\n| Lima | 19 |"
    )
    assert r.meta["structured"] == {"mode": "extra"}


def test_structured_only_table_over_budget_keeps_the_json(fixtures: dict[str, Any], store_dir: Path) -> None:
    r = project_result(fixtures["structured_table"], budget=700)
    _within(r, 700)
    assert r.meta["structured"]["mode"] == "only"
    assert "| sku | name | stock | price | active |" in r.text
    saved = json.loads(Store(store_dir).path(r.meta["structured"]["ref"]).read_text())
    assert saved == fixtures["structured_table"]["structuredContent"]
    recovered, _ = reconstruct(r)
    assert recovered.count("| SKU-") == 600


def test_structured_only_nested_json_gets_an_outline(fixtures: dict[str, Any]) -> None:
    r = project_result(fixtures["structured_nested"])
    _within(r)
    assert r.meta["view"] == "json"
    assert (
        ".services: object, 120 keys (svc-000 … svc-119), each an object with keys: owner, endpoints, config" in r.text
    )
    recovered, _ = reconstruct(r)
    assert json.loads(recovered) == fixtures["structured_nested"]["structuredContent"]


# -- media -----------------------------------------------------------------------------------------


def test_snapshot_with_screenshot_target(fixtures: dict[str, Any]) -> None:
    result = fixtures["snapshot_540k"]
    r = project_result(result, tool="browser_snapshot")
    assert len(result["content"][0]["text"].encode()) > 500_000
    assert r.tokens <= 2000  # the target
    assert [a["type"] for a in r.attachments] == ["image"]
    assert r.attachments[0]["data"] == result["content"][1]["data"]
    assert r.attachments[0]["mime_type"] == "image/png"
    assert r.text.endswith("[image 1/1: image/png, 174.2 KiB — attached after this text]")
    assert r.meta["media"][0]["after_block"] == 0 and r.meta["media"][0]["text_offset"] == len(r.text)
    assert 'region "' in r.text.split(" from them:")[1]  # section lines after the head
    recovered, views = reconstruct(r)
    assert recovered + "\n" == result["content"][0]["text"]
    assert len(views) < 200


def test_media_stay_attachments_in_order_with_their_places(fixtures: dict[str, Any]) -> None:
    mix = fixtures["media_mix"]
    r = project_result(mix)
    assert [a["type"] for a in r.attachments] == ["audio", "resource", "image"]
    assert r.attachments[1]["uri"] == "file:///exports/report.bin"
    assert [m["after_block"] for m in r.meta["media"]] == [0, 0, 4]
    for fact, att in zip(r.meta["media"], r.attachments, strict=True):
        assert r.text[: fact["text_offset"]].endswith("attached after this text]")
        assert base64.b64decode(att["data"])
    assert "[resource link: full.csv — file:///exports/full.csv (text/csv, 47.1 KiB) — every sample]" in r.text
    assert "# Summary" in r.text
    assert r.meta["_meta"] == {"example.test/trace": "abc123"}
    assert r.meta["annotations"] == [{"block": 5, "annotations": {"audience": ["user"], "priority": 0.4}}]
    assert base64.b64encode(b"x" * 10).decode() not in r.text and mix["content"][5]["data"] not in r.text


def test_oversized_media_are_saved_and_named(
    monkeypatch: pytest.MonkeyPatch, store_dir: Path, fixtures: dict[str, Any]
) -> None:
    monkeypatch.setenv("WUU_MEDIA_MAX_BYTES", "5000")
    r = project_result(fixtures["media_mix"])
    assert [a["type"] for a in r.attachments] == ["resource"]
    assert [m["delivered"] for m in r.meta["media"]] == [False, True, False]
    audio = r.meta["media"][0]
    assert audio["delivered"] is False and audio["ref"].startswith("media-")
    assert (
        f"[audio 1/3: audio/wav, 7.9 KiB — NOT attached (over the 4.9 KiB media limit); "
        f"saved as {audio['ref']}]" in r.text
    )
    saved = Store(store_dir).path(audio["ref"]).read_bytes()
    assert saved == base64.b64decode(fixtures["media_mix"]["content"][1]["data"])


def test_resource_links_are_lines_with_their_uri(fixtures: dict[str, Any]) -> None:
    r = project_result(fixtures["resource_link"])
    assert r.text == (
        "2 files match:\n[resource link: main.py — file:///repo/src/main.py (text/x-python)]\n"
        "[resource link: Read me — file:///repo/README.md]"
    )


def test_many_media_are_summed_up_in_one_line() -> None:
    png = base64.b64encode(b"\x89PNG" + b"\1" * 30).decode()
    blocks = [{"type": "image", "data": png, "mimeType": "image/png"} for _ in range(30)]
    r = project_result({"content": [{"type": "text", "text": "frames"}, *blocks]})
    assert len(r.attachments) == 30
    assert r.text == "frames\n[30 media of 30 attached after this text: image/png ×30]"


# -- inputs ----------------------------------------------------------------------------------------


def test_the_mcp_sdk_model_is_accepted() -> None:
    types = pytest.importorskip("mcp.types")
    png = base64.b64encode(b"\x89PNG" + b"\2" * 40).decode()
    model = types.CallToolResult(
        content=[types.TextContent(text="found it"), types.ImageContent(data=png, mime_type="image/png")],
        structured_content={"found": "it"},
        is_error=False,
        _meta={"k": "v"},
    )
    as_dict = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    a, b = project_result(model), project_result(as_dict)
    assert a.to_dict() == b.to_dict()
    assert a.attachments[0]["data"] == png and a.meta["_meta"] == {"k": "v"}


def test_snake_case_dumps_and_bare_blocks_are_accepted() -> None:
    r = project_result({"content": [{"type": "text", "text": "x"}], "is_error": True})
    assert r.meta["is_error"] is True
    assert project_result([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]).text == "a\nb"
    assert project_result({"type": "text", "text": "solo"}).text == "solo"


def test_invalid_utf8_bytes_are_replaced_and_said() -> None:
    r = project_result(b"ok \xff\xfe bytes")
    assert r.text == "ok \ufffd\ufffd bytes" and r.meta["notes"] == ["invalid UTF-8 replaced with U+FFFD"]


def test_bad_arguments_raise_invalid_argument() -> None:
    with pytest.raises(InvalidArgument, match="tool must be"):
        project_result("x", tool="")
    with pytest.raises(InvalidArgument, match="budget"):
        project_result("x", budget=0)
    with pytest.raises(InvalidArgument, match="JSON value"):
        project_result({1, 2})


# -- failure ---------------------------------------------------------------------------------------


@pytest.fixture
def broken_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store below a regular file: every save fails, even as root."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("WUU_STORE", str(blocker / "store"))


@pytest.mark.usefixtures("broken_store")
def test_unsaved_result_is_returned_unshortened_up_to_the_hard_cap() -> None:
    text = _lines(20000)
    r = project_result(text, budget=200)
    assert len(r.text.encode()) <= HARD_CAP_BYTES
    assert r.text.startswith("[the full result could not be saved (")
    assert r.continuation is None and r.source is None and not r.complete
    body = r.text.split("\n")[1:-1]
    assert "\n".join(body) == text[: len("\n".join(body))]  # unshortened: the head, as it was
    assert len("\n".join(body).encode()) > HARD_CAP_BYTES - 1000
    assert "could not be shown or saved" in r.text.split("\n")[-1]
    assert r.meta["saved"] is False and r.meta["lost_bytes"] > 0


@pytest.mark.usefixtures("broken_store")
def test_unsaved_result_under_the_cap_is_whole_and_complete(fixtures: dict[str, Any]) -> None:
    text = _lines(600)
    r = project_result(text, budget=100)
    assert r.complete and r.continuation is None and r.text.endswith(text)
    r = project_result(fixtures["media_mix"], budget=100)  # media still attached
    assert [a["type"] for a in r.attachments] == ["audio", "resource", "image"]


@pytest.mark.usefixtures("broken_store")
def test_unsaved_duplicate_structured_content_is_rendered_instead(fixtures: dict[str, Any]) -> None:
    value = {"rows": [{"name": f"item-{i}", "v": f"value-{i}"} for i in range(5)]}
    text = "\n".join(f"item-{i}: value-{i}" for i in range(5))
    r = project_result({"content": [{"type": "text", "text": text}], "structuredContent": value})
    assert "| item-4 | value-4 |" in r.text and "read_saved" not in r.text


def test_oversized_media_that_cannot_be_saved_are_sent(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fixtures: dict[str, Any]
) -> None:
    blocker = tmp_path / "f"
    blocker.write_text("x")
    monkeypatch.setenv("WUU_STORE", str(blocker / "store"))
    monkeypatch.setenv("WUU_MEDIA_MAX_BYTES", "100")
    r = project_result(fixtures["media_mix"])
    assert len(r.attachments) == 3
    assert all("could not be saved" in m["reason"] for m in r.meta["media"])


@pytest.mark.usefixtures("broken_store")
def test_unsaved_structured_content_equal_to_the_text_loses_nothing() -> None:
    value = {"ok": True, "path": "src/app.py"}
    r = project_result({"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value})
    assert r.text == json.dumps(value) + "\n[structuredContent: the same JSON as the text above, not repeated]"
    assert r.complete and r.meta["structured"] == {"mode": "same", "saved": False}


def test_the_readme_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    section = _docs.section("project")
    (block,) = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    exec(compile(block, "docs: section project", "exec"), {})
    assert 'read_saved(ref="result-' in capsys.readouterr().out


def test_a_small_budget_shows_whole_first_lines_not_a_cut_line() -> None:
    """At ~140 tokens the head's share of a text preview held no line: the view cut line 1 "as too long"
    although it fits, and filled under 70% of the budget (found by tests/test_budget_ceiling.py)."""
    body = "\n".join(f"item {n}: status=ok latency={n * 3} ms region=eu-west-{n % 3}" for n in range(1, 1501))
    for budget in range(138, 148):
        view = project_result({"content": [{"type": "text", "text": body}]}, budget=budget)
        assert "longer than the budget" not in view.text, (budget, view.text)
        assert 0.7 * budget <= view.tokens <= budget, (budget, view.tokens)
