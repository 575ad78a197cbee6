"""``wuu gain``: what the projections saved, and what reading back what they left out cost.

``wuu run`` (an agent's hook runs every shell line through it) and the reads of a saved log
(``wuu saved``, ``wuu call read_saved(…)``) leave one record each in the store's ledger
(:mod:`wuu_tools.core.ledger`): :func:`note_run` and :func:`note_read`, called after the view is
printed, never change the output or the exit status (a ledger that cannot be written costs a
one-line note on stderr at most). ``wuu gain`` sums the records of a session, a day or all time by
command kind: commands, raw tokens, printed tokens, recovery reads and their tokens, and the net
saving (raw − printed − recovery). Its JSON shape is in ``docs/gain.md``.

A command's *kind* is the name of the view by tool (:mod:`wuu_tools.logs.tools`) that folded its
output, or that knows its first 64 KiB when none folded it (``pytest``, ``git log``, ``pip install``);
else the program the line runs, as that module reads a line (``seq``, ``grep``, ``make``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

from ..core.result import ToolResult
from .params import Option, command

__all__ = ["command_kind", "gain", "note_read", "note_run", "summarize"]

UNKNOWN = "(no command)"
"""The kind of a read whose log no recorded command made (a log from before the ledger, an external result)."""
_SHELL_STEPS = {"cd", "pushd", "popd", "true", ":"}


KIND_SAMPLE_BYTES = 64 << 10
"""The head of a log the views by tool are shown to name its kind, when none folded the output."""


def command_kind(command: str | list[str] | None, meta: dict[str, Any], log: Any = None) -> str:
    """The kind of a command: the view by tool that folded its output or knows its head, else the program it runs."""
    if meta.get("view_by_tool") and isinstance(meta.get("view"), str):
        return str(meta["view"])
    if isinstance(command, list):
        import shlex

        command = shlex.join(command)
    if not command:
        return "?"
    if log is not None:
        from ..core.text import clean_terminal
        from ..logs.tools import plan_for

        with open(log, "rb") as fh:
            head = fh.read(KIND_SAMPLE_BYTES)
        lines = head.decode("utf-8", "replace").split("\n")
        if len(head) == KIND_SAMPLE_BYTES or lines[-1] == "":
            lines.pop()  # a partial last line, or the empty string after the last newline
        exit_code = meta.get("exit_code") if isinstance(meta.get("exit_code"), int) else None
        plan = plan_for(command, [clean_terminal(line) for line in lines], exit_code)
        if plan is not None:
            return plan.tool
    from ..logs.tools.noise import invocations

    programs = [words[0] for words in invocations(command) if words[0] not in _SHELL_STEPS]
    return programs[0] if programs else "?"


def _store_root() -> Any:
    from ..core.store import current_store

    return current_store().root


def _full_ref(ref: str) -> str:
    from ..core.store import current_store

    try:
        return current_store().resolve(ref)
    except Exception:  # evicted or malformed: recorded as given
        return ref


def _note(problem: str) -> None:
    """The one line on stderr a ledger that could not be written costs (nothing, if stderr is gone)."""
    line = " ".join(problem.split())[:300]
    with contextlib.suppress(Exception):
        print(f"wuu: the gain ledger was not written ({line})", file=sys.stderr, flush=True)


def _append(record: dict[str, Any]) -> None:
    from ..core.ledger import append

    problem = append(_store_root(), record)
    if problem is not None:
        _note(problem)


def note_run(result: ToolResult | None) -> None:
    """Record a ``wuu run`` whose view was printed: its log's raw tokens against the view's."""
    try:
        from ..core.ledger import enabled, raw_tokens, record_base

        if result is None or not enabled() or not result.source or not result.source.startswith("log-"):
            return
        meta = result.meta
        from ..core.store import current_store

        path = current_store().path(result.source)
        dropped = meta.get("dropped_bytes") if isinstance(meta.get("dropped_bytes"), int) else 0
        raw, estimated = raw_tokens(path, dropped)
        cmd = meta.get("command")
        record = record_base("command")
        record.update(
            log=_full_ref(result.source),
            command=cmd if isinstance(cmd, str) else " ".join(map(str, cmd or [])),
            kind=command_kind(cmd, meta, path),
            view=meta.get("view"),
            exit_code=meta.get("exit_code"),
            raw_bytes=path.stat().st_size + dropped,
            raw_tokens=raw,
            raw_estimated=estimated,
            printed_tokens=result.tokens,
        )
    except Exception as exc:  # the ledger never fails the command
        _note(f"{type(exc).__name__}: {exc}")
        return
    _append(record)


def note_read(result: ToolResult | None, tool: str, args: dict[str, Any]) -> None:
    """Record a read of a saved result (a recovery read): the log it read and the tokens it printed."""
    try:
        from ..core.ledger import enabled, record_base

        ref = args.get("ref")
        if result is None or not enabled() or not isinstance(ref, str):
            return
        record = record_base("read")
        kept = {k: v for k, v in args.items() if k != "ref" and v not in (None, False)}
        record.update(log=_full_ref(ref), tool=tool, args=kept, printed_tokens=result.tokens)
    except Exception as exc:
        _note(f"{type(exc).__name__}: {exc}")
        return
    _append(record)


# -- the summary -----------------------------------------------------------------------------


def _row(kind: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {} if kind is None else {"kind": kind}
    row.update(commands=0, raw_tokens=0, printed_tokens=0, recovery_reads=0, recovery_tokens=0, net_saved=0)
    return row


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def summarize(records: list[dict[str, Any]], scope: dict[str, Any]) -> dict[str, Any]:
    """The JSON ``wuu gain --json`` prints (see docs/gain.md) for the records in ``scope``."""

    def within(r: dict[str, Any]) -> bool:
        if scope.get("all"):
            return True
        if scope.get("session") is not None and r.get("session") != scope["session"]:
            return False
        return scope.get("day") is None or r.get("day") == scope["day"]

    made_by = {r.get("log"): r for r in records if r.get("type") == "command"}  # every log's command, any scope
    rows: dict[str, dict[str, Any]] = {}
    commands: list[dict[str, Any]] = []
    by_log: dict[Any, dict[str, Any]] = {}
    other: list[dict[str, Any]] = []
    for r in records:
        if not within(r):
            continue
        if r.get("type") == "command":
            row = rows.setdefault(str(r.get("kind") or "?"), _row(str(r.get("kind") or "?")))
            raw, printed = _int(r.get("raw_tokens")), _int(r.get("printed_tokens"))
            row["commands"] += 1
            row["raw_tokens"] += raw
            row["printed_tokens"] += printed
            row["net_saved"] += raw - printed
            entry = {k: r.get(k) for k in ("ts", "session", "log", "command", "kind", "view", "exit_code")}
            entry.update(raw_tokens=raw, raw_estimated=bool(r.get("raw_estimated")), printed_tokens=printed, reads=[])
            commands.append(entry)
            by_log[r.get("log")] = entry
            continue
        source = made_by.get(r.get("log"))
        kind = str(source.get("kind") or "?") if source is not None else UNKNOWN
        tokens = _int(r.get("printed_tokens"))
        row = rows.setdefault(kind, _row(kind))
        row["recovery_reads"] += 1
        row["recovery_tokens"] += tokens
        row["net_saved"] -= tokens
        read = {k: r.get(k) for k in ("ts", "session", "log", "tool", "args")}
        read["printed_tokens"] = tokens
        target = by_log.get(r.get("log"))
        if target is not None:
            target["reads"].append(read)
        else:
            read["kind"] = kind
            other.append(read)
    kinds = sorted(rows.values(), key=lambda row: (-row["commands"], -row["net_saved"], row["kind"]))
    total = _row()
    for row in kinds:
        for key in total:
            total[key] += row[key]
    return {"scope": scope, "kinds": kinds, "total": total, "commands": commands, "other_reads": other}


def _scope(session: str | None, day: str | None, every: bool) -> dict[str, Any]:
    from .output import fail

    if every and (session is not None or day is not None):
        fail("--all takes no --session or --day", 2)
    if day is not None:
        try:
            time.strptime(day, "%Y-%m-%d")
        except ValueError:
            fail(f"--day takes a date as YYYY-MM-DD, not {day!r}", 2)
    if every:
        return {"session": None, "day": None, "all": True, "chosen_by": "--all"}
    if session is not None or day is not None:
        return {"session": session, "day": day, "all": False, "chosen_by": "options"}
    env = os.environ.get("WUU_SESSION", "").strip()
    if env:
        return {"session": env, "day": None, "all": False, "chosen_by": "WUU_SESSION"}
    return {"session": None, "day": time.strftime("%Y-%m-%d", time.gmtime()), "all": False, "chosen_by": "today"}


def _title(scope: dict[str, Any]) -> str:
    if scope["all"]:
        return "all time"
    parts = []
    if scope["session"] is not None:
        parts.append(f"session {scope['session']}")
    if scope["day"] is not None:
        parts.append(f"{scope['day']} (UTC)")
    why = {"WUU_SESSION": " (from WUU_SESSION)", "today": ", today"}.get(scope["chosen_by"], "")
    return " · ".join(parts) + why


def _printable(text: str) -> str:
    """``text`` with any lone surrogate (a command line's undecodable byte) as its ``\\udcff`` escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _render(summary: dict[str, Any], ledger: str) -> None:
    from rich.console import Console
    from rich.table import Table

    from .output import for_terminal, plain_output

    title = for_terminal(_printable(f"wuu gain · {_title(summary['scope'])}"))
    console = Console(highlight=False, width=None if not plain_output() else 120)
    if not summary["kinds"]:
        console.print(f"{title}: no commands or reads recorded in {ledger}", markup=False)
        return
    table = Table(title=title, title_justify="left", show_footer=True)
    total = summary["total"]
    columns = [
        ("kind", "total", "left"),
        ("commands", "commands", "right"),
        ("raw tokens", "raw_tokens", "right"),
        ("printed tokens", "printed_tokens", "right"),
        ("recovery reads", "recovery_reads", "right"),
        ("recovery tokens", "recovery_tokens", "right"),
        ("net saved", "net_saved", "right"),
    ]
    for header, key, justify in columns:
        footer = "total" if key == "total" else f"{total[key]:,}"
        table.add_column(header, footer=footer, justify=justify)  # type: ignore[arg-type]
    for row in summary["kinds"]:
        table.add_row(for_terminal(_printable(row["kind"])), *(f"{row[key]:,}" for _, key, _ in columns[1:]))
    console.print(table)
    if total["raw_tokens"]:
        share = 100 * total["net_saved"] / total["raw_tokens"]
        console.print(
            f"net saved {total['net_saved']:,} of {total['raw_tokens']:,} raw tokens ({share:.1f}%)", markup=False
        )


@command("gain")
def gain(
    session: str | None = Option(None, "--session", help="The records of this session (an agent's session id)."),
    day: str | None = Option(None, "--day", help="The records of this UTC day, YYYY-MM-DD."),
    every: bool = Option(False, "--all", help="Every record in the ledger."),
    as_json: bool = Option(False, "--json", help="Print the summary as JSON (shape in docs/gain.md)."),
) -> None:
    """Tokens the views saved against the raw output, and what the reads of omitted lines cost, by command kind.

    Default: the session WUU_SESSION names if it is set, else today (UTC).
    """
    import json

    from ..core.ledger import ledger_path, read_records

    scope = _scope(session, day, every)
    root = _store_root()
    summary = summarize(list(read_records(root)), scope)
    summary["ledger"] = str(ledger_path(root))
    if as_json:
        print(_printable(json.dumps(summary, ensure_ascii=False, indent=2)), flush=True)
        return
    _render(summary, summary["ledger"])
