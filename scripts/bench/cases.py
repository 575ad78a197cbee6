"""The benchmarks, one function each, and ``BENCHMARKS`` naming them (run by ``scripts/bench.py``)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from .cold import bench_cold_start
from .conv_stream import bench_conv_stream
from .inputs import big_text, claude_jsonl, tree
from .read_map import bench_read_map
from .run_output import bench_run_output
from .saved_search import bench_saved_search
from .support import (
    MB,
    Ctx,
    Row,
    child,
    child_runs,
    fresh_calls,
    info,
    med,
    ratio_info,
    runs,
    secs,
    unavailable,
    wuu_argv,
)
from .tools_vs_rtk import bench_tools_vs_rtk

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / ".ci/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def _big(ctx: Ctx) -> tuple[Path, int]:
    if "big" not in ctx.made:
        path = ctx.tmp / "big.log"
        lines = big_text(path, (100 if ctx.quick else 1000) * MB)
        subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
        ctx.made["big"] = (path, lines)
    return ctx.made["big"]  # type: ignore[return-value]


def bench_read_first_view(ctx: Ctx) -> list[Row]:
    path, _ = _big(ctx)
    size = f"{path.stat().st_size / MB:,.0f} MB"
    ref, _, _ = runs(ctx, ["wc", "-l", str(path)])
    try:
        times, rss = fresh_calls(ctx, "from wuu_tools import read_file", f"read_file({str(path)!r})")
    except RuntimeError as exc:
        return [unavailable("read-first-view", f"read_file first view, {size}", "≤ 1.5×", str(exc))]
    cli, _, codes = runs(ctx, [*wuu_argv(), "read", str(path)], fresh_store=True)
    ratio = med(times) / med(ref)
    return [
        Row(
            "read-first-view",
            f"read_file first view of a {size} file, fresh process (vs wc -l)",
            secs(med(times)),
            secs(med(ref)),
            f"{ratio:.2f}×",
            "≤ 1.5×",
            ratio <= 1.5,
        ),
        Row(
            "read-first-view",
            "peak RSS of that process",
            f"{max(rss) / MB:.0f} MB",
            "–",
            f"{max(rss) / MB:.0f} MB",
            "≤ 100 MB",
            max(rss) <= 100 * MB,
        ),
        info("read-first-view", "the same through the CLI: wuu read, cold process", med(cli), codes),
    ]


def bench_read_continuation(ctx: Ctx) -> list[Row]:
    path, lines = _big(ctx)
    line = 10_000_000 if lines > 10_000_100 else lines * 4 // 5
    env = ctx.store()
    code = (
        "import json, time\nfrom wuu_tools import read_file\n"
        f"p = {str(path)!r}\nfirst = read_file(p)\nts = []\n"
        f"for k in range({ctx.runs}):\n"
        f"    t = time.perf_counter(); r = read_file(p, start_line={line} + 1000 * k, revision=first.revision)\n"
        "    ts.append(time.perf_counter() - t)\n"
        "    assert r.text and 'error' not in r.meta, r.text[:200]\n"
        "print(json.dumps({'times': ts}))"
    )
    try:
        times = child(code, env)["times"]
    except RuntimeError as exc:
        return [unavailable("read-continuation", f"read_file at line {line:,}", "≤ 50 ms", str(exc))]
    finally:
        shutil.rmtree(env["WUU_STORE"], ignore_errors=True)
    ref, _, _ = runs(ctx, ["sh", "-c", f"tail -n +{line} {path} | head -n 100 > /dev/null"])
    t = med(times)
    return [
        Row(
            "read-continuation",
            f"read_file(start_line={line:,}) after the first view (vs tail -n +N | head)",
            secs(t),
            secs(med(ref)),
            secs(t),
            "≤ 50 ms",
            t <= 0.05,
        )
    ]


def _tree(ctx: Ctx) -> Path:
    if "tree" not in ctx.made:
        root = ctx.tmp / "tree"
        scale = 10 if ctx.quick else 1
        tree(root, 50_000 // scale, 150_000 // scale)
        subprocess.run(["find", str(root)], stdout=subprocess.DEVNULL, check=True)  # warm the dentry cache
        ctx.made["tree"] = root
    return ctx.made["tree"]  # type: ignore[return-value]


def bench_ls_first_view(ctx: Ctx) -> list[Row]:
    root = _tree(ctx)
    count = sum(1 for _ in root.rglob("*"))
    ref, _, _ = runs(ctx, ["sh", "-c", "find . | wc -l"], cwd=root)
    imports = "from wuu_tools.dirs.listing import list_dir"
    try:
        other = ctx.tmp / "other-tree"
        tree(other, 300, 100)  # a small project, listed first: the process has answered a call
        times, _ = fresh_calls(ctx, imports, f"list_dir({str(root)!r})", warm_up=f"list_dir({str(other)!r}, depth=3)")
        cold, _ = fresh_calls(ctx, imports, f"list_dir({str(root)!r})")
    except RuntimeError as exc:
        return [unavailable("ls-first-view", "list_dir first view", "≤ 0.5×", str(exc))]
    cli, _, codes = runs(ctx, [*wuu_argv(), "ls", str(root)], fresh_store=True)
    ratio = med(times) / med(ref)
    return [
        Row(
            "ls-first-view",
            f"list_dir first view, {count:,} entries, 3/4 in ignored node_modules, first call on the tree "
            "in a process that has answered a list_dir call before (vs find . | wc -l)",
            secs(med(times)),
            secs(med(ref)),
            f"{ratio:.2f}×",
            "≤ 0.5×",
            ratio <= 0.5,
        ),
        ratio_info(
            "ls-first-view",
            "the same call as a fresh interpreter's first: the tokenizer's start "
            "(its mapped table, or loading tiktoken) falls in it",
            med(cold),
            med(ref),
        ),
        info("ls-first-view", "the same through the CLI: wuu ls, cold process", med(cli), codes),
    ]


def _chain(ctx: Ctx, src: Path, budget: int | None) -> tuple[list[float], int]:
    code = (
        "import json, time\nfrom wuu_tools.dirs.listing import list_dir\n"
        f"t = time.perf_counter(); r = list_dir({str(src)!r}, budget={budget!r}); calls = 1\n"
        "while r.continuation is not None:\n"
        "    r = list_dir(**r.continuation['args']); calls += 1\n"
        "print(json.dumps({'time': time.perf_counter() - t, 'calls': calls}))"
    )
    got = child_runs(ctx, code)
    return [g["time"] for g in got], int(got[-1]["calls"])


def bench_ls_chain(ctx: Ctx) -> list[Row]:
    src = _tree(ctx) / "src"
    try:
        times, calls = _chain(ctx, src, None)
        big, big_calls = _chain(ctx, src, 1_000_000)
    except RuntimeError as exc:
        return [unavailable("ls-chain", "list_dir cursor chain", "≤ 1.5×", str(exc))]
    ref, _, _ = runs(ctx, ["sh", "-c", "find . | sort > /dev/null"], cwd=src)
    sized, _, _ = runs(ctx, ["sh", "-c", "find . -printf '%p %s\\n' | sort > /dev/null"], cwd=src)
    ratio = med(times) / med(ref)
    files = sum(1 for _ in src.rglob("*"))
    return [
        Row(
            "ls-chain",
            f"full list_dir cursor chain, {files:,} entries, default budget: {calls} calls (vs find . | sort)",
            secs(med(times)),
            secs(med(ref)),
            f"{ratio:.2f}×",
            "≤ 1.5×",
            ratio <= 1.5,
        ),
        ratio_info(
            "ls-chain",
            f"the same chain at the largest budget (views at the 50 KiB cap, no token counting): {big_calls} calls",
            med(big),
            med(ref),
        ),
        ratio_info(
            "ls-chain",
            "find with a size per file (a stat each, as list_dir shows): find . -printf '%p %s' | sort",
            med(sized),
            med(ref),
        ),
    ]


def bench_conv_first_view(ctx: Ctx) -> list[Row]:
    path = ctx.tmp / "session.jsonl"
    claude_jsonl(path, 3 * MB)
    code = (
        "import json, time\nfrom wuu_tools.conversations import read_conversation\n"
        f"t = time.perf_counter(); r = read_conversation({str(path)!r})\n"
        "print(json.dumps({'time': time.perf_counter() - t}))"
    )
    try:
        times = [g["time"] for g in child_runs(ctx, code)]
    except RuntimeError as exc:
        return [unavailable("conv-first-view", "read_conversation, 3 MB", "≤ 0.5 s", str(exc))]
    ref, _, _ = runs(ctx, ["tail", "-n", "50", str(path)])
    t = med(times)
    size = path.stat().st_size / MB
    return [
        Row(
            "conv-first-view",
            f"read_conversation first view, {size:.1f} MB JSONL, fresh process (vs tail)",
            secs(t),
            secs(med(ref)),
            secs(t),
            "≤ 0.5 s",
            t <= 0.5,
        )
    ]


def bench_mcp_proxy(ctx: Ctx) -> list[Row]:
    from .mcp_proxy import measure

    calls = 50 if ctx.quick else 200
    try:
        label, direct, proxied = measure(calls, EVERYTHING, ctx.tmp)
    except Exception as exc:  # report any failure of the setup as an unmet target
        return [unavailable("mcp-proxy", "proxy overhead per call", "≤ 10 ms", f"{type(exc).__name__}: {exc}")]
    over = med(proxied) - med(direct)
    return [
        Row(
            "mcp-proxy",
            f"tool call via wuu mcp proxy vs direct, median of {calls} ({label})",
            secs(med(proxied)),
            secs(med(direct)),
            f"+{over * 1000:.1f} ms",
            "≤ 10 ms",
            over <= 0.010,
        )
    ]


BENCHMARKS: dict[str, Callable[[Ctx], list[Row]]] = {
    "read-first-view": bench_read_first_view,
    "read-continuation": bench_read_continuation,
    "cold-start": bench_cold_start,
    "read-map": bench_read_map,
    "run-output": bench_run_output,
    "ls-first-view": bench_ls_first_view,
    "ls-chain": bench_ls_chain,
    "conv-first-view": bench_conv_first_view,
    "conv-stream": bench_conv_stream,
    "mcp-proxy": bench_mcp_proxy,
    "saved-search": bench_saved_search,
    "tools-vs-rtk": bench_tools_vs_rtk,
}
