"""``project_result``: an external tool's result (MCP or any other) as a projection.

The result's readable text — its text blocks, embedded text resources, resource links as
lines, and structured content that the text does not already carry — is passed through
unchanged when it fits the budget. Otherwise it is saved whole and previewed along its
structure (JSON: a bounded outline plus the head; markdown, YAML and accessibility
snapshots: head plus the section lines that follow; plain text: head plus tail; errors:
message first; edit and coordination tools: the lines that state the outcome), and the
continuation reads the saved copy with ``read_saved`` — recovery never calls the producing
tool again. Media stay attachments (see :mod:`wuu_tools.external.media`); structured content that
duplicates the text is saved and replaced by a bounded index. If the store cannot save,
the text is returned unshortened up to the hard cap and says the rest could not be saved.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from ..core.budget import HARD_CAP_BYTES, NOTICE_TOKENS, count_tokens, fit_count, resolve_budget
from ..core.errors import InvalidArgument, StoreError, quote
from ..core.lines import LineFile
from ..core.result import ToolResult, call_text, continuation
from ..core.store import Store, current_store
from ..core.text import human_size, plural, ranges
from ..views.ceiling import fit_ceiling
from ..views.outline import carries, outline_lines, parse_json, render_readable, same_json
from ..views.preview import Preview, preview, split_lines
from .mcpresult import Content, ExternalResult, collect_content, read_result
from .media import media_line

__all__ = ["is_outcome_tool", "project_result"]

_OUTCOME_TOOL = re.compile(
    r"edit|write|patch|replace|insert|create|todo|task|handoff|delegate|assign|message|notify|spawn|agent|plan",
    re.IGNORECASE,
)
LONG_JSON_LINE = 1000
MAX_MEDIA_LINES = 8


def is_outcome_tool(tool: str | None) -> bool:
    """True for edit and coordination tools (``edit``, ``mcp__fs__write_file``, ``todo_write``, ...)."""
    if not tool:
        return False
    name = re.split(r"__|[./:]", tool)[-1] or tool
    return bool(_OUTCOME_TOOL.search(name))


def _join(parts: list[str]) -> str:
    """Parts one after another, each starting on its own line."""
    out = ""
    for p in parts:
        out += p if not out or out.endswith("\n") else "\n" + p
    return out


def project_result(result: Any, tool: str | None = None, budget: int | None = None) -> ToolResult:
    """Project an external tool's result: keep its structure, media and error text; save the rest.

    Args:
        result: An MCP CallToolResult (spec JSON dict or the ``mcp`` SDK model), content blocks,
            plain text, or any JSON value.
        tool: Name of the tool that produced it; edit and coordination tools get an outcome-first preview.
        budget: Token budget of the text; defaults to WUU_BUDGET or 2,000. Media do not count against it.

    Returns:
        The projection; its continuation (if any) is a ``read_saved`` call on the saved copy.
    """
    if tool is not None and (not isinstance(tool, str) or not tool.strip()):
        raise InvalidArgument(f"tool must be a tool name or None, not {quote(tool)}")
    resolved = resolve_budget(budget)
    ext = read_result(result)
    store = current_store()
    content = collect_content(ext, store)
    meta: dict[str, Any] = {"origin": ext.origin, "is_error": ext.is_error}
    if tool:
        meta["tool"] = tool
    for key, value in (
        ("_meta", ext.result_meta),
        ("annotations", content.annotations),
        ("block_meta", content.block_meta),
        ("notes", ext.notes),
    ):
        if value:
            meta[key] = value
    text = _join(content.segments)
    smode = None
    if ext.has_structured:
        if not text.strip():
            smode = "only"
        elif any(same_json(s, ext.structured) for s in content.segments):
            smode = "same"
        else:
            smode = "readable" if carries(text, ext.structured) else "extra"
    if smode:
        meta["structured"] = {"mode": smode}
    job = _Job(ext, content, text, smode, tool, resolved, budget, meta)
    try:
        return fit_ceiling(lambda inner: job.at(inner).project(store), resolved)
    except StoreError as exc:
        return job.fallback(exc)  # nothing could be saved: the input itself, up to the hard cap


class _Job:
    """One projection: the pieces it is built from and the two ways out (projected, or unsaved)."""

    def __init__(
        self,
        ext: ExternalResult,
        content: Content,
        text: str,
        smode: str | None,
        tool: str | None,
        budget: int,
        explicit: int | None,
        meta: dict[str, Any],
    ) -> None:
        self.ext, self.content, self.smode, self.tool = ext, content, smode, tool
        self.budget, self.explicit, self.meta = budget, explicit, meta
        if smode == "only":
            text = _join([text, render_readable(ext.structured)]) if text else render_readable(ext.structured)
        elif smode == "extra":
            text = _join([text, "[structuredContent]", render_readable(ext.structured)])
        self.text = text

    def at(self, budget: int) -> _Job:
        """This projection for a view budget of ``budget`` tokens (the continuation keeps the caller's)."""
        if budget == self.budget:
            return self
        job = copy.copy(self)
        job.budget = budget
        job.meta = dict(self.meta)
        return job

    # -- pieces ----------------------------------------------------------------------------------

    def _media_lines(self, compact: bool = False) -> list[str]:
        """One line per medium; past eight (or when ``compact``), the delivered ones are summed up in one."""
        media = self.content.media
        n = len(media)
        if n <= MAX_MEDIA_LINES and not compact:
            return [media_line(m, i + 1, n) for i, m in enumerate(media)]
        sent = [m for m in media if m.delivered]
        kinds: dict[str, int] = {}
        for m in sent:
            kinds[m.mime_type] = kinds.get(m.mime_type, 0) + 1
        summary = ", ".join(f"{mime} ×{k}" for mime, k in kinds.items())
        out = [f"[{plural(len(sent), 'medium', 'media')} of {n} attached after this text: {summary}]"] if sent else []
        return out + [media_line(m, i + 1, n) for i, m in enumerate(media) if not m.delivered]

    def _index(self, store: Store) -> list[str]:
        """The structured content saved whole and named in a bounded index (duplicates only)."""
        if self.smode not in ("same", "readable"):
            return []
        data = json.dumps(self.ext.structured, ensure_ascii=False, indent=2)
        try:
            ref = store.save(data, "json", {"what": "structuredContent", **({"tool": self.tool} if self.tool else {})})
        except StoreError:
            if self.smode == "same":  # the text is that JSON: nothing is lost
                self.meta["structured"] = {"mode": "same", "saved": False}
                return ["[structuredContent: the same JSON as the text above, not repeated]"]
            # Unsaved, an index would point nowhere: the text carries the data itself.
            self.smode = "extra"
            self.meta["structured"] = {"mode": "extra"}
            self.text = _join([self.text, "[structuredContent]", render_readable(self.ext.structured)])
            return []
        self.meta["structured"] = {"mode": self.smode, "ref": ref, "bytes": len(data.encode())}
        if self.smode == "same":
            return [f"[structuredContent: the same JSON as the text above, not repeated; saved as {ref}]"]
        head = (
            f"[structuredContent: the same data as JSON, not repeated ({human_size(len(data.encode()))}); "
            f"read it with {call_text(continuation('read_saved', ref=ref))}]"
        )
        lines = [f"  {line}" for line in outline_lines(self.ext.structured)]
        share = max(40, self.budget // 8)
        k = fit_count(lines, share)
        return [head, *lines[:k], *(["  …"] if k < len(lines) else [])]

    def _finish(
        self, text: str, complete: bool, cont: dict[str, Any] | None, source: str | None, revision: str | None
    ) -> ToolResult:
        attachments = []
        after: int | None = None
        facts = []
        for kind, idx, block in self.content.order:
            if kind == "text":
                after = block
                continue
            item = self.content.media[idx]
            fact = item.fact()
            fact["after_block"] = after
            line = media_line(item, idx + 1, len(self.content.media))
            pos = text.rfind(line)
            fact["text_offset"] = pos + len(line) if pos >= 0 else len(text)
            if item.delivered and item.attachment is not None:
                fact["attachment"] = len(attachments)
                attachments.append({**item.attachment, "block": item.block})
            facts.append(fact)
        if facts:
            self.meta["media"] = facts
        return ToolResult(
            text=text,
            complete=complete,
            continuation=cont,
            source=source,
            revision=revision,
            attachments=tuple(attachments),
            meta=self.meta,
        )

    # -- the projection ------------------------------------------------------------------------

    def _passthrough(self, index: list[str]) -> str:
        media = self._media_lines()
        if self.smode in ("only", "extra") or len(media) != len(self.content.media):
            parts = [self.text, *media]  # structured text, or media summed up: media lines go last
        else:
            parts = [self.content.segments[i] if kind == "text" else media[i] for kind, i, _ in self.content.order]
        return _join([*parts, *index])

    def project(self, store: Store) -> ToolResult:
        index = self._index(store)
        index_tokens = count_tokens("\n".join(index)) if index else 0
        lines = split_lines(self.text)
        self.meta["text_bytes"] = len(self.text.encode("utf-8", "surrogatepass"))
        self.meta["total_lines"] = len(lines)
        view = self._passthrough(index)
        # Only a text of a view's size is ever tokenized: bigger ones cannot fit the hard cap anyway.
        small = (
            self.meta["text_bytes"] <= HARD_CAP_BYTES and len(view.encode("utf-8", "surrogatepass")) <= HARD_CAP_BYTES
        )
        if (
            small
            and count_tokens(self.text) <= self.budget - index_tokens
            and count_tokens(view) <= self.budget + NOTICE_TOKENS
        ):
            self.meta.update(shown=[[1, len(lines)]] if lines else [], omitted=[], view="whole")
            return self._finish(view, True, None, None, None)
        return self._preview(store, lines, index)

    def _mode(self) -> str:
        if self.ext.is_error:
            return "error"
        if is_outcome_tool(self.tool):
            return "outcome"
        return "sections"

    def _preview(self, store: Store, lines: list[str], index: list[str]) -> ToolResult:
        mode = self._mode()
        outline: list[str] = []
        saved_text = self.text
        if mode == "sections":
            ok, value = parse_json(self.text)
            if ok:
                mode = "json"
                outline = [f"  {line}" for line in outline_lines(value)]
                outline = outline[: fit_count(outline, max(40, self.budget * 35 // 100))]
                if max((len(s) for s in lines), default=0) > LONG_JSON_LINE:
                    exact = store.save(self.text, "result", self._store_meta())
                    self.meta["original"] = exact
                    saved_text = json.dumps(value, ensure_ascii=False, indent=2)
                    lines = split_lines(saved_text)
        data = json.dumps(self.ext.structured, ensure_ascii=False, indent=2) if self.smode == "only" else ""
        if self.smode == "only" and data not in (saved_text, self.text):  # a table: keep the JSON too
            jref = store.save(data, "json", self._store_meta())
            self.meta["structured"] = {"mode": "only", "ref": jref, "bytes": len(data.encode())}
            index = [*index, f"[the same structuredContent as JSON: saved as {jref}]"]
        ref = store.save(saved_text, "result", self._store_meta())
        with LineFile.open(store.path(ref), what=ref) as lf:
            revision = lf.revision
        self.meta.update(total_lines=len(lines), saved_bytes=len(saved_text.encode("utf-8", "surrogatepass")))
        media = self._media_lines()
        fixed = [*outline, *index]
        fixed_tokens = count_tokens("\n".join(fixed)) if fixed else 0
        body = max(1, self.budget - fixed_tokens)
        byte_cap = HARD_CAP_BYTES - len("\n".join([*fixed, *media]).encode()) - 1024
        # Aim at the budget itself (notices included); the notice allowance is only a margin.
        # A budget too small for the notices gets compact ones: no outline, one index line, media summed up.
        compact = False
        for _ in range(10):
            p = preview(lines, "head" if mode == "json" else mode, body, byte_cap)
            text, cont = self._assemble(p, ref, mode, outline, index, media, lines, compact)
            tokens = count_tokens(text)
            fits_cap = len(text.encode("utf-8", "surrogatepass")) <= HARD_CAP_BYTES
            if tokens <= self.budget and fits_cap:
                break
            if body <= 1:
                if compact or tokens <= self.budget + NOTICE_TOKENS:
                    break
                compact, outline, index, media = True, [], index[:1], self._media_lines(compact=True)
                body = self.budget
                continue
            body = max(1, body - max(tokens - self.budget, 1) - 2)
        shown = ranges(p.shown)
        omitted = ranges(sorted(set(range(1, len(lines) + 1)) - set(p.shown)))
        self.meta.update(shown=shown, omitted=omitted, view="json" if mode == "json" else p.mode)
        if p.partial_line is not None:
            self.meta["partial_line"] = p.partial_line
        return self._finish(text, cont is None, cont, ref, revision)

    def _assemble(
        self,
        p: Preview,
        ref: str,
        mode: str,
        outline: list[str],
        index: list[str],
        media: list[str],
        lines: list[str],
        compact: bool = False,
    ) -> tuple[str, dict[str, Any] | None]:
        label = f"result of {self.tool}" if self.tool else "result"
        what = {
            "head": "JSON outline and head",
            "tail": "head and tail",
            "sections": "head and section lines",
            "outcome": "outcome first",
            "error": "error (isError) first",
            "partial": "a line longer than the budget is cut",
        }.get(p.mode, p.mode)
        extra = ", pretty-printed" if "original" in self.meta else ""
        size = human_size(self.meta["text_bytes"])
        header = f"[{label} · {plural(len(lines), 'line')} · {size} · {what}{extra}]"
        if compact:
            header = f"[{label} · {plural(len(lines), 'line')} · {size}]"
        parts = [header]
        if outline:
            parts += ["[JSON outline:]", *outline]
        parts += p.parts
        cont = None
        if p.next_line is not None:
            cont = continuation(
                "read_saved",
                ref=ref,
                start_line=p.next_line,
                end_line=p.end_line,
                start_char=p.next_char or None,
                budget=self.explicit,
            )
            if compact:
                parts.append(f"[next: {call_text(cont)}]")
            elif p.partial_line is not None:
                parts.append(f"[line {p.partial_line:,} continues; next: {call_text(cont)}]")
            else:
                parts.append(f'[to read the omitted lines: {call_text(cont)} — or add pattern="REGEX" to search]')
        return "\n".join([*parts, *index, *media]), cont

    def _store_meta(self) -> dict[str, Any]:
        return {"what": "external result", **({"tool": self.tool} if self.tool else {})}

    # -- failure -----------------------------------------------------------------------------------

    def fallback(self, exc: StoreError) -> ToolResult:
        """The store refused: the text unshortened up to the hard cap, and a word on what was lost."""
        text = self.text
        if self.smode and "ref" in self.meta.get("structured", {}):  # saved before the store gave out
            self.meta["structured"].pop("ref")
            if self.smode == "readable":
                text = _join([text, "[structuredContent]", render_readable(self.ext.structured)])
                self.meta["structured"]["mode"] = "extra"
        media = self._media_lines()
        total = len(text.encode("utf-8", "surrogatepass"))
        head = f"[the full result could not be saved ({exc.message}); shown unshortened up to the 50 KiB cap]"
        room = HARD_CAP_BYTES - len("\n".join([head, *media]).encode()) - 300
        raw = text.encode("utf-8", "surrogatepass")
        lost = 0
        if len(raw) > room:
            cut = raw.rfind(b"\n", 0, room)
            cut = cut if cut > room // 2 else room
            shown = raw[:cut].decode("utf-8", "ignore")
            lost = total - len(shown.encode("utf-8", "surrogatepass"))
            body = [shown, f"[… {human_size(lost)} more could not be shown or saved: that part is lost]"]
        else:
            body = [text]
        self.meta.update(saved=False, store_error=exc.message, text_bytes=total, lost_bytes=lost, view="unsaved")
        return self._finish("\n".join([head, *body, *media]), lost == 0, None, None, None)
