"""Turning turns into text: full turns at three levels of detail, one-line index entries, the whole turn.

A turn is rendered as a header line (``── turn 12 · assistant · 2025-10-26 10:38:34``),
its text, a line of reasoning, its tool calls (``→ Bash: npm test``) each followed by its
result (``← error · exit 1 · 48 lines, 2.3 KiB`` and a few of the result's lines), and its
media. Long parts are shortened by the level's limits: a 100 KB tool result shows as a
few head and tail lines and its size. When anything was shortened, the whole turn (every
part in full) is saved to the store once and named with ``read_saved(ref=...)``, so
nothing is lost; if saving fails the line points back into the transcript file instead.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.budget import count_tokens
from ..core.errors import StoreError
from ..core.pattern import Pattern
from ..core.result import call_text, continuation
from ..core.store import current_store
from ..core.text import clean_terminal, human_size, plural
from .blocks import key_argument, to_text
from .model import ToolCall, ToolOutput, Turn

if TYPE_CHECKING:
    from .turninfo import TurnInfo

__all__ = [
    "COMPACT",
    "LEVELS",
    "NORMAL",
    "TINY",
    "Level",
    "TurnRenderer",
    "full_turn",
    "index_line",
    "turn_label",
]


@dataclass(frozen=True)
class Level:
    """How much of each part of a turn a rendering keeps."""

    text_chars: int
    thinking_chars: int
    args_chars: int
    result_lines: int
    result_chars: int
    line_chars: int


NORMAL = Level(text_chars=6000, thinking_chars=300, args_chars=600, result_lines=12, result_chars=1500, line_chars=300)
COMPACT = Level(text_chars=1200, thinking_chars=160, args_chars=240, result_lines=4, result_chars=500, line_chars=200)
TINY = Level(text_chars=300, thinking_chars=0, args_chars=120, result_lines=1, result_chars=160, line_chars=160)
LEVELS = (NORMAL, COMPACT, TINY)
INDENT = "    "
KIND = "turn"


def turn_label(turn: Turn | TurnInfo) -> str:
    """``assistant``, ``user (command)``, ``system (compaction)``..."""
    return f"{turn.role} ({turn.kind})" if turn.kind else turn.role


def _header(turn: Turn) -> str:
    parts = [f"── turn {turn.number}", turn_label(turn)]
    if turn.timestamp:
        parts.append(turn.timestamp)
    return " · ".join(parts)


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a plain ellipsis (index lines)."""
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def clip_key(key: str, limit: int) -> str:
    """A key argument cut to ``limit``; a long path keeps its end (the file name), anything else its start."""
    if len(key) > limit and "/" in key and " " not in key:
        return "…" + key[-(limit - 1) :]
    return _clip(key, limit)


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a mark saying how much was dropped."""
    if len(text) <= limit:
        return text
    return text[: max(limit, 1)] + f"…(+{len(text) - limit:,} chars)"


def _args_text(args: Any, limit: int) -> tuple[str, bool]:
    """Arguments as ``key="value", ...`` within about ``limit`` characters; True when shortened."""
    if args is None or args == {}:
        return "", False
    if not isinstance(args, dict):
        text = " ".join(to_text(args).split())
        return _cut(text, limit), len(text) > limit
    parts = []
    cut = False
    share = max(40, limit // max(1, len(args)))
    for key, value in args.items():
        raw = json.dumps(value, ensure_ascii=False)
        if len(raw) > share:
            cut = True
            raw = _cut(raw, share)
        parts.append(f"{key}={raw}")
    text = ", ".join(parts)
    if len(text) > limit:
        return _cut(text, limit), True
    return text, cut


def _call_line(call: ToolCall, level: Level) -> tuple[str, bool]:
    key = key_argument(call.name, call.args)
    if isinstance(call.args, dict) and len(call.args) == 1 and key:
        shown = _cut(key, level.args_chars)
        return f"  → {call.name}: {shown}", len(key) > level.args_chars
    args, cut = _args_text(call.args, level.args_chars)
    return (f"  → {call.name}({args})" if args else f"  → {call.name}"), cut


def _result_lines(output: ToolOutput | None, level: Level) -> tuple[list[str], bool]:
    if output is None:
        return ["  ← (no result recorded)"], False
    lines = [clean_terminal(x) for x in _display(output.text).split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    size = len(output.text.encode("utf-8", "replace"))
    marks = []
    if output.is_error:
        marks.append("error")
    if output.exit_code not in (None, 0) or (output.exit_code == 0 and output.is_error):
        marks.append(f"exit {output.exit_code}")
    media = [f"{a.get('type', 'file')}: {a.get('mime_type', '?')}" for a in output.attachments]
    if len(lines) == 1 and len(lines[0]) <= level.line_chars and not media:
        return [f"  ← {' · '.join([*marks, lines[0]]) if marks else lines[0]}"], False
    summary = [*marks, plural(len(lines), "line") + ", " + human_size(size)] if lines else [*marks, "empty"]
    out = ["  ← " + " · ".join(summary + media)]
    cut = False
    if len(lines) <= level.result_lines and size <= level.result_chars:
        body = lines
    else:
        cut = True
        keep = max(1, level.result_lines)
        if keep == 1:
            body, tail = [lines[0]] if lines else [], []
        else:
            head_n = max(1, keep // 3) if output.is_error else max(1, keep // 2)
            body, tail = lines[:head_n], lines[len(lines) - (keep - head_n) :] if keep - head_n else []
        # keep within the character allowance, too
        total = 0
        kept: list[str] = []
        for x in body + tail:
            total += min(len(x), level.line_chars)
            if total > level.result_chars and kept:
                break
            kept.append(x)
        omitted = len(lines) - len(kept)
        split = min(len(body), len(kept))
        body = kept[:split] + ([f"… {plural(omitted, 'line')} not shown"] if omitted > 0 else []) + kept[split:]
    for x in body:
        if len(x) > level.line_chars:
            cut = True
        out.append(INDENT + _cut(x, level.line_chars))
    return out, cut


_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)
_WRAPPED = re.compile(r"^\s*<returncode>\s*-?\d+\s*</returncode>\s*<output>\n?(.*?)\n?</output>\s*$", re.S)


def _display(text: str) -> str:
    """A result as a reader wants it: injected reminders dropped, ``<returncode>/<output>`` unwrapped."""
    if "<system-reminder>" in text:
        text = _REMINDER.sub("\n", text).strip("\n")
    m = _WRAPPED.match(text) if text.lstrip().startswith("<returncode>") else None
    return m.group(1) if m else text


def _text_lines(text: str, limit: int) -> tuple[list[str], bool]:
    if len(text) <= limit:
        return text.split("\n"), False
    lines = text.split("\n")
    kept: list[str] = []
    used = 0
    for x in lines:
        if used + len(x) > limit:
            if not kept:
                kept.append(x[:limit] + "…")
            break
        kept.append(x)
        used += len(x) + 1
    rest = len(lines) - len(kept)
    note = f"… ({plural(rest, 'more line')}, {len(text) - used:,} more chars)" if rest else "…"
    return [*kept, note], True


def _media_lines(attachments: list[dict[str, Any]]) -> list[str]:
    out = []
    for a in attachments:
        data = a.get("data")
        size = f", {human_size(len(data) * 3 // 4 - data[-2:].count('='))}" if isinstance(data, str) else ""
        where = f" {a['uri']}" if isinstance(a.get("uri"), str) and not a["uri"].startswith("data:") else ""
        out.append(f"  [{a.get('type', 'file')}: {a.get('mime_type', '?')}{size}{where}; kept as an attachment]")
    return out


def _full_args(call: ToolCall) -> str:
    if call.args in (None, {}):
        return ""
    return call.args if isinstance(call.args, str) else json.dumps(call.args, ensure_ascii=False, indent=1)


def _status(output: ToolOutput | None) -> str:
    if output is None:
        return "  ← (no result recorded)"
    marks = ["error"] if output.is_error else []
    if output.exit_code not in (None, 0):
        marks.append(f"exit {output.exit_code}")
    return "  ←" + (" " + " · ".join(marks) if marks else "")


def full_turn(turn: Turn) -> str:
    """The whole turn as text, nothing shortened (what a shortened turn's saved copy holds)."""
    lines = [_header(turn)]
    if turn.text:
        lines.append(turn.text)
    if turn.thinking:
        lines.append("(thinking) " + turn.thinking)
    for call in turn.calls:
        args = _full_args(call)
        lines.append(f"  → {call.name}" + (f"\n{args}" if args else ""))
        lines.append(_status(call.output))
        if call.output is not None:
            lines.append(call.output.text)
    lines.extend(_media_lines(turn.attachments))
    return "\n".join(lines)


def hit_lines(turn: Turn, rx: Pattern, limit: int) -> tuple[list[str], int]:
    """The lines of ``turn`` that match ``rx`` (at most ``limit``), each call's hits under its call line.

    Searched, line by line: the text, the reasoning, each call's name and arguments, its
    result's status (``error · exit 1``) and its result. Returns the lines and the hit count.
    """
    out: list[str] = []
    total = 0

    def take(lines: list[str], indent: str) -> None:
        nonlocal total
        for line in lines:
            if total < limit:
                out.append(indent + _clip(" ".join(line.split()), 240))
            total += 1

    take([x for x in turn.text.split("\n") if rx.search(x)], "  ")
    take([x for x in turn.thinking.split("\n") if rx.search(x)], "  (thinking) ")
    for call in turn.calls:
        parts = [call.name, *_full_args(call).split("\n"), _status(call.output).strip()]
        if call.output is not None:
            parts.extend(clean_terminal(x) for x in call.output.text.split("\n"))
        hits = [x for x in parts if rx.search(x)]
        if hits:
            if total < limit:
                out.append(f"  → {call.name}: {clip_key(key_argument(call.name, call.args), 80)}".rstrip(": "))
            take(hits, "    ")
    return out, total


def index_line(turn: TurnInfo, width: int, short: bool = False) -> str:
    """One line saying what a turn holds: its tool calls (key argument, error mark), or its text.

    ``short`` lines leave out the text beside the calls and keep key arguments shorter.
    """
    head = f"{turn.number:>{width}} {turn_label(turn):<9} "
    room = (90 if short else 118) - len(head)
    if turn.calls:
        parts = []
        for call in turn.calls:
            mark = " ✗" if call.failed else ""
            parts.append(f"{call.name} {call.short_key if short else call.key}".rstrip() + mark)
        summary = "; ".join(parts)
        if len(summary) > room:
            summary = _clip(summary, room)
        elif turn.text and room - len(summary) > 24 and not short:
            summary += ' — "' + _clip(turn.text, room - len(summary) - 5) + '"'
        return head + summary
    text = turn.text if turn.text or turn.blank_text else " ".join(("(thinking) " + turn.thinking).split())
    if turn.attachments and not text:
        text = f"[{plural(turn.attachments, 'attachment')}]"
    return head + _clip(text, room)


def _whole_turn(ref: str) -> str:
    """The words that point to a saved turn: ``whole turn: read_saved(ref="turn-…")`` (or as a shell command)."""
    return f"whole turn: {call_text(continuation('read_saved', ref=ref))}"


class TurnRenderer:
    """Renders turns of one transcript; the turns a view shortened are saved when the view is final.

    A shortened turn names its saved copy by the reference it will have (content-addressed,
    so rendering costs no disk writes); :meth:`resolve` saves the turns the final text
    names, and should saving fail, replaces the reference with a pointer into the transcript.

    Args:
        path: The transcript path, for pointers back into it when saving fails.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._cache: dict[tuple[int, Level], tuple[str, int]] = {}
        self._pending: dict[str, Turn] = {}

    def render(self, turn: Turn, level: Level) -> str:
        """``turn`` at ``level``; a shortened turn ends with the call that shows it whole."""
        return self.rendered(turn, level)[0]

    def rendered(self, turn: Turn, level: Level) -> tuple[str, int]:
        """``(text, tokens)`` of ``turn`` at ``level``, each computed once."""
        cached = self._cache.get((turn.number, level))
        if cached is not None:
            return cached
        lines = [_header(turn)]
        cut = False
        if turn.text.strip():
            text, c = _text_lines(turn.text.strip("\n").rstrip(), level.text_chars)
            lines.extend(text)
            cut = cut or c
        if turn.thinking:
            if level.thinking_chars:
                first = " ".join(turn.thinking.split())
                lines.append("  (thinking) " + _cut(first, level.thinking_chars))
                cut = cut or len(first) > level.thinking_chars
            else:
                cut = True
        for call in turn.calls:
            line, c = _call_line(call, level)
            body, c2 = _result_lines(call.output, level)
            lines.append(line)
            lines.extend(body)
            cut = cut or c or c2
        lines.extend(_media_lines(turn.attachments))
        if cut:
            lines.append(f"  (shortened; {self.whole(turn)})")
        out = "\n".join(lines)
        result = (out, count_tokens(out))
        self._cache[(turn.number, level)] = result
        return result

    def whole(self, turn: Turn) -> str:
        """The call that reads the whole turn (saved by :meth:`resolve` once the view is final)."""
        data = full_turn(turn).encode("utf-8", "surrogateescape")
        ref = f"{KIND}-{hashlib.blake2b(data, digest_size=16).hexdigest()}"
        self._pending[ref] = turn
        return _whole_turn(ref)

    def resolve(self, text: str) -> str:
        """Save every turn ``text`` refers to; a turn that cannot be saved is pointed to in the transcript."""
        for key, turn in self._pending.items():
            phrase = _whole_turn(key)
            if phrase not in text:
                continue
            try:
                ref = current_store().save(
                    full_turn(turn), KIND, meta={"tool": "read_conversation", "path": self.path, "turn": turn.number}
                )
            except StoreError as exc:
                call = call_text(continuation("read_file", path=self.path, start_line=turn.line))
                where = f"line {turn.line} of the transcript: {call}" if turn.line else "the transcript file itself"
                text = text.replace(phrase, f"the whole turn is at {where}; saving a copy failed: {exc.message}")
                continue
            if ref != key:
                text = text.replace(phrase, _whole_turn(ref))
        return text
