"""The structural map's speed target: a cut 24,000-line source file's first view, map included."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from .inputs import small_file
from .support import MB, Ctx, Row, fresh_calls, info, med, runs, secs, unavailable, wuu_argv

GENERATE = Path(__file__).resolve().parents[2] / "fixtures" / "structure" / "generate.py"


def _header(ctx: Ctx) -> Path:
    spec = importlib.util.spec_from_file_location("structure_generate", GENERATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = ctx.tmp / "document.hpp"
    path.write_text(module.single_header_cpp())
    return path


def bench_read_map(ctx: Ctx) -> list[Row]:
    path = _header(ctx)
    small = ctx.tmp / "warm.py"
    small_file(small)
    lines = path.read_bytes().count(b"\n")
    measure = f"read_file first view of a {lines:,}-line C++ header, map included (after one small read)"
    try:
        times, rss = fresh_calls(
            ctx, "from wuu_tools import read_file", f"read_file({str(path)!r})", warm_up=f"read_file({str(small)!r})"
        )
    except RuntimeError as exc:
        return [unavailable("read-map", measure, "≤ 0.3 s", str(exc))]
    cli, _, codes = runs(ctx, [*wuu_argv(), "read", str(path)], fresh_store=True)
    t = med(times)
    return [
        Row("read-map", measure, secs(t), "–", secs(t), "≤ 0.3 s", t <= 0.3),
        Row(
            "read-map",
            "peak RSS of that process",
            f"{max(rss) / MB:.0f} MB",
            "–",
            f"{max(rss) / MB:.0f} MB",
            "≤ 150 MB",
            max(rss) <= 150 * MB,
        ),
        info("read-map", "the same through the CLI: wuu read, cold process", med(cli), codes),
    ]
