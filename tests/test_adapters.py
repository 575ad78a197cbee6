"""Provider adapters: a ToolResult in the request shapes of the Anthropic and OpenAI SDKs."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from wuu_tools import Store, ToolResult, to_anthropic, to_openai_chat, to_openai_responses
from wuu_tools.toolset.adapters import ANTHROPIC_IMAGE_MAX_BYTES

pydantic = pytest.importorskip("pydantic")


def tiny_png() -> bytes:
    """A real 1x1 PNG."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0\xff\0\0"))
        + chunk(b"IEND", b"")
    )


PNG = base64.b64encode(tiny_png()).decode()
WAV = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\0" * 100).decode()


def result(*attachments: dict[str, Any], error: bool = False) -> ToolResult:
    meta = {"error": {"kind": "source_error", "message": "x"}} if error else {}
    return ToolResult(
        text="the view\n[to read on: read_saved(ref=...)]", complete=True, attachments=attachments, meta=meta
    )


def anthropic_validate(block: dict[str, Any]) -> None:
    types = pytest.importorskip("anthropic.types", reason="anthropic (a test dependency) is not installed")
    pydantic.TypeAdapter(types.ToolResultBlockParam).validate_python(block)
    # The block goes in a user message of a Messages request.
    pydantic.TypeAdapter(types.MessageParam).validate_python({"role": "user", "content": [block]})


def openai_chat_validate(messages: list[dict[str, Any]]) -> None:
    chat = pytest.importorskip("openai.types.chat", reason="openai (a test dependency) is not installed")
    pydantic.TypeAdapter(list[chat.ChatCompletionMessageParam]).validate_python(messages)
    assert messages[0]["role"] == "tool"
    pydantic.TypeAdapter(chat.ChatCompletionToolMessageParam).validate_python(messages[0])
    for m in messages[1:]:
        pydantic.TypeAdapter(chat.ChatCompletionUserMessageParam).validate_python(m)


def openai_responses_validate(items: list[dict[str, Any]]) -> None:
    responses = pytest.importorskip("openai.types.responses", reason="openai (a test dependency) is not installed")
    pydantic.TypeAdapter(responses.ResponseInputParam).validate_python(items)


def test_text_only_result_in_every_shape() -> None:
    r = result()
    block = to_anthropic(r, "toolu_01")
    assert block == {
        "type": "tool_result",
        "tool_use_id": "toolu_01",
        "content": [{"type": "text", "text": r.text}],
    }
    anthropic_validate(block)
    chat = to_openai_chat(r, "call_1")
    assert chat == [{"role": "tool", "tool_call_id": "call_1", "content": r.text}]
    openai_chat_validate(chat)
    items = to_openai_responses(r, "call_1")
    assert items == [{"type": "function_call_output", "call_id": "call_1", "output": r.text}]
    openai_responses_validate(items)


def test_images_follow_the_text_they_belong_to() -> None:
    r = result({"type": "image", "mime_type": "image/png", "data": PNG})
    block = to_anthropic(r, "toolu_01")
    anthropic_validate(block)
    assert [c["type"] for c in block["content"]] == ["text", "image"]
    assert block["content"][1]["source"] == {"type": "base64", "media_type": "image/png", "data": PNG}

    chat = to_openai_chat(r, "call_7")
    openai_chat_validate(chat)
    assert chat[0] == {"role": "tool", "tool_call_id": "call_7", "content": r.text}
    assert chat[1]["role"] == "user"
    assert chat[1]["content"][0] == {"type": "text", "text": "The image returned by tool call call_7:"}
    assert chat[1]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{PNG}"},
    }

    items = to_openai_responses(r, "call_7")
    openai_responses_validate(items)
    output = items[0]["output"]
    assert output[0] == {"type": "input_text", "text": r.text}
    assert output[1] == {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"}


def test_media_a_provider_cannot_take_are_saved_and_named(store_dir: Path) -> None:
    r = result(
        {"type": "image", "mime_type": "image/png", "data": PNG},
        {"type": "audio", "mime_type": "audio/wav", "data": WAV},
    )
    block = to_anthropic(r, "toolu_01")
    anthropic_validate(block)
    assert [c["type"] for c in block["content"]] == ["text", "image"]
    text = block["content"][0]["text"]
    assert text.startswith(r.text)
    note = text.splitlines()[-1]
    assert note.startswith(
        "[attachment 2 (audio, audio/wav, 116 B) not attached (Anthropic tool results take images only)"
    )
    ref = note.split("saved as ")[1].split(" ")[0]
    saved = Store(store_dir).path(ref)
    assert saved.read_bytes() == base64.b64decode(WAV)
    assert str(saved) in note

    for shape in (to_openai_chat(r, "c")[0]["content"], to_openai_responses(r, "c")[0]["output"][0]["text"]):
        assert "attachment 2 (audio, audio/wav, 116 B) not attached (OpenAI tool results take images only)" in shape


def test_oversized_and_unsupported_images_are_not_attached(tmp_path: Path) -> None:
    big = base64.b64encode(b"\0" * (ANTHROPIC_IMAGE_MAX_BYTES + 1)).decode()
    r = result(
        {"type": "image", "mime_type": "image/png", "data": big},
        {"type": "image", "mime_type": "image/tiff", "data": PNG},
    )
    store = Store(tmp_path / "media-store")
    block = to_anthropic(r, "toolu_01", store=store)
    anthropic_validate(block)
    assert [c["type"] for c in block["content"]] == ["text"]
    text = block["content"][0]["text"]
    assert "attachment 1 (image, image/png, 5.0 MiB) not attached (over Anthropic's 5.0 MiB image limit)" in text
    assert "attachment 2 (image, image/tiff, 69 B) not attached (Anthropic takes image/gif, image/jpeg" in text
    assert text.count(str(store.root)) == 2
    # OpenAI takes the 5 MiB image.
    chat = to_openai_chat(r, "c", store=store)
    openai_chat_validate(chat)
    assert len(chat[1]["content"]) == 2


def test_a_link_or_broken_data_is_named_not_attached() -> None:
    r = result(
        {"type": "resource", "mime_type": "application/pdf", "uri": "file:///tmp/report.pdf"},
        {"type": "image", "mime_type": "image/png", "data": "not base64!"},
    )
    text = to_anthropic(r, "t")["content"][0]["text"]
    assert (
        "[attachment 1 (resource, application/pdf) not attached: it has no inline data; it is at file:///tmp/report.pdf]"
        in text
    )
    assert "[attachment 2 (image, image/png) not attached: its data is not valid base64]" in text


def test_unsavable_media_are_still_named(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the store directory should be")
    r = result({"type": "audio", "mime_type": "audio/wav", "data": WAV})
    text = to_anthropic(r, "t", store=Store(blocked))["content"][0]["text"]
    assert "not attached (Anthropic tool results take images only): it could not be saved either" in text


def test_errors_stay_errors() -> None:
    r = ToolResult.from_error(__import__("wuu_tools").SourceNotFound("a.py: no such file"), "read_file")
    block = to_anthropic(r, "toolu_01")
    anthropic_validate(block)
    assert block["is_error"] is True
    assert block["content"][0]["text"] == "error: read_file: a.py: no such file"
    assert to_openai_chat(r, "c")[0]["content"] == "error: read_file: a.py: no such file"


def test_empty_text_is_never_sent_empty() -> None:
    r = ToolResult(text="", complete=True)
    assert to_anthropic(r, "t")["content"][0]["text"] == "(no output)"
