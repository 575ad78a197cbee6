"""``--model``: the same tasks driven by a real model through an OpenAI-compatible endpoint (not run in CI).

Settings come from the environment: ``WUU_EVAL_MODEL`` (required), ``WUU_EVAL_BASE_URL`` (else
``OPENAI_BASE_URL``, else ``https://api.openai.com/v1``) and ``WUU_EVAL_API_KEY`` (else
``OPENAI_API_KEY``). The harness makes the task's natural first call with wuu-tools, as the
scripted agent does, and shows the model its result; the model then calls the tools a
:class:`~wuu_tools.Toolset` offers (Chat Completions function tools) until it answers or has
made :data:`~evaluation.agent.MAX_CALLS` reading calls. Calls are counted with the same
arithmetic as the scripted agent, and the evidence is looked for in what the model was shown.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from wuu_tools.core.result import ToolResult
from wuu_tools.toolset.toolset import PROTOCOL, Toolset

from .agent import Call
from .tasks import Task
from .wuu import WuuPolicy

__all__ = ["ModelPolicy", "from_env"]

SYSTEM = (
    "You are a coding agent. Answer the user's question about the source named in it, reading more with "
    "the tools when what you were shown is not enough. When you know the answer, reply with it in one "
    "sentence and call no tool. " + PROTOCOL
)


def from_env(budget: int | None = None) -> ModelPolicy:
    """A :class:`ModelPolicy` configured from the environment; raises ``SystemExit`` naming what is missing."""
    model = os.environ.get("WUU_EVAL_MODEL")
    if not model:
        raise SystemExit("--model needs WUU_EVAL_MODEL (and WUU_EVAL_BASE_URL / WUU_EVAL_API_KEY or the OPENAI_ ones)")
    base = os.environ.get("WUU_EVAL_BASE_URL") or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    key = os.environ.get("WUU_EVAL_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
    return ModelPolicy(base, key, model, budget)


class ModelPolicy:
    """A real model reading with wuu-tools."""

    def __init__(
        self, base_url: str, api_key: str, model: str, budget: int | None = None, timeout: float = 300
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key = api_key
        self.model = model
        self.budget = budget
        self.timeout = timeout
        self.name = f"model:{model}"

    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        body = json.dumps({"model": self.model, "messages": messages, "tools": tools}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                reply = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"{self.url}: HTTP {exc.code}: {exc.read()[:300]!r}") from exc
        except urllib.error.URLError as exc:
            raise RuntimeError(f"{self.url}: {exc.reason}") from exc
        message: dict[str, Any] = reply["choices"][0]["message"]
        return message

    def calls(self, task: Task) -> Iterator[Call]:
        first, progress = WuuPolicy(self.budget).first_call(task)
        yield first
        toolset = Toolset(root="/", allow_outside_root=True, budget=self.budget)
        tools = toolset.schemas("openai")
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": f"{task.question}\n\nSource: {task.path}\n\n"
                f"You called {first.request}; it returned:\n{first.text}",
            },
        ]
        while True:
            message = self._complete(messages, tools)
            tool_calls = message.get("tool_calls") or []
            if not tool_calls:
                return
            messages.append({"role": "assistant", "content": message.get("content"), "tool_calls": tool_calls})
            for tc in tool_calls:
                name = tc["function"]["name"]
                raw = tc["function"].get("arguments") or "{}"
                try:
                    args = json.loads(raw)
                except ValueError:
                    args = None
                if isinstance(args, dict):
                    result = toolset.call(name, args)
                else:
                    result = ToolResult(f"error: {name}: arguments are not a JSON object: {raw[:200]}", True)
                images = [a.get("data", "") for a in result.attachments if a.get("type") == "image"]
                messages.append({"role": "tool", "tool_call_id": tc["id"], "content": result.text})
                yield Call(f"{name}({raw})", result.text, images, advancing=progress.advances(result))
