"""The deterministic scripted agent, and the arithmetic of re-sending the history.

A policy turns a task into a lazy sequence of reading calls: the natural first call, then
the recoveries that policy allows (a grep, reading around a match, continuation or paging).
The agent takes calls until the task's evidence is visible or it has made
:data:`MAX_CALLS` reading calls, then performs :data:`FOLLOW_UPS` further requests (the rest
of the task). Every request re-sends the whole history, so the input of a task is

    sum over requests r of  (question + every call and result before r)

counted with exact cl100k tokens. Images cost ``ceil(width * height / 750)`` tokens each,
the same for every policy.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from wuu_tools.core.budget import count_tokens

from .tasks import Task, normalize

__all__ = ["FOLLOW_UPS", "FOLLOW_UP_TOKENS", "MAX_CALLS", "Call", "Policy", "Trace", "image_tokens", "run_task"]

MAX_CALLS = 30
"""Reading calls an agent makes on one question before it gives up."""
FOLLOW_UPS = 10
"""Further requests after the reading phase (edits, tests, the answer), each re-sending the history."""
FOLLOW_UP_TOKENS = 150
"""What each further request adds to the history (its message and a short tool result)."""
DEFAULT_IMAGE_TOKENS = 1600

_token_cache: dict[str, int] = {}


def tokens(text: str) -> int:
    """Exact cl100k tokens, memoised by content (peers re-read the same pages across tasks)."""
    if len(text) < 64:
        return count_tokens(text)
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    if key not in _token_cache:
        _token_cache[key] = count_tokens(text)
    return _token_cache[key]


def image_tokens(data: str | None) -> int:
    """Tokens of one image: ``ceil(w * h / 750)`` from a base64 PNG header, else a flat 1,600."""
    try:
        raw = base64.b64decode((data or "")[:64])
        if raw[:8] == b"\x89PNG\r\n\x1a\n":
            w, h = struct.unpack(">II", raw[16:24])
            return math.ceil(w * h / 750)
    except (binascii.Error, struct.error, ValueError):
        pass
    return DEFAULT_IMAGE_TOKENS


@dataclass
class Call:
    """One reading call: what the model wrote, what it was shown, and what it cost."""

    request: str
    text: str
    images: list[str] = field(default_factory=list)  # base64 data of images that reached the model
    advancing: bool = True  # showed material not seen before in this task
    reexecuted: bool = False  # re-ran the command (or re-called the tool) to read more of its output
    search: bool = False  # a grep/find the agent chose; it may rightly find nothing new
    tokens_request: int = 0
    tokens_result: int = 0


class Policy(Protocol):
    """A way of reading: its name and, per task, the lazy sequence of calls it makes."""

    name: str

    def calls(self, task: Task) -> Iterator[Call]: ...


@dataclass
class Trace:
    """One task under one policy: the calls, whether the evidence was found, and the input it cost."""

    task: str
    kind: str
    origin: str
    policy: str
    calls: list[Call]
    found: bool
    first_view_hit: bool
    question_tokens: int
    error: str | None = None

    @property
    def reading_calls(self) -> int:
        return len(self.calls)

    @property
    def tokens_read(self) -> int:
        return sum(c.tokens_result for c in self.calls)

    @property
    def non_advancing(self) -> int:
        """Recovery calls (continuation, paging, reading around a match) that showed nothing new."""
        return sum(1 for c in self.calls[1:] if not c.advancing and not c.search)

    @property
    def fruitless_searches(self) -> int:
        """Searches whose result showed nothing new (the pattern matched only what was already seen)."""
        return sum(1 for c in self.calls if c.search and not c.advancing)

    @property
    def reexecutions(self) -> int:
        return sum(1 for c in self.calls if c.reexecuted)

    def history(self) -> list[int]:
        """Input tokens of every request of the task, in order."""
        sent = []
        h = self.question_tokens
        for c in self.calls:
            sent.append(h)
            h += c.tokens_request + c.tokens_result
        for _ in range(FOLLOW_UPS):
            sent.append(h)
            h += FOLLOW_UP_TOKENS
        return sent

    @property
    def total_input(self) -> int:
        return sum(self.history())

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "kind": self.kind,
            "origin": self.origin,
            "policy": self.policy,
            "found": self.found,
            "first_view_hit": self.first_view_hit,
            "reading_calls": self.reading_calls,
            "tokens_read": self.tokens_read,
            "total_input": self.total_input,
            "non_advancing": self.non_advancing,
            "fruitless_searches": self.fruitless_searches,
            "reexecutions": self.reexecutions,
            "error": self.error,
            "calls": [
                {
                    "request": c.request,
                    "tokens": c.tokens_result,
                    "images": len(c.images),
                    "advancing": c.advancing,
                    "search": c.search,
                    "reexecuted": c.reexecuted,
                }
                for c in self.calls
            ],
        }


def run_task(policy: Policy, task: Task) -> Trace:
    """Run ``task`` under ``policy`` until its evidence is visible or the call cap is reached."""
    calls: list[Call] = []
    seen: list[str] = []
    images = 0
    found = first_hit = False
    error = None
    try:
        for call in policy.calls(task):
            call.tokens_request = tokens(call.request)
            call.tokens_result = tokens(call.text) + sum(image_tokens(d) for d in call.images)
            calls.append(call)
            seen.append(normalize(call.text))
            images += len(call.images)
            found = task.evidence.found("\n".join(seen), images)
            if len(calls) == 1:
                first_hit = found
            if found or len(calls) >= MAX_CALLS:
                break
    except Exception as exc:  # a tool that crashes is a result to report, not a reason to stop the suite
        error = f"{type(exc).__name__}: {exc}"
    return Trace(task.id, task.kind, task.origin, policy.name, calls, found, first_hit, tokens(task.question), error)
