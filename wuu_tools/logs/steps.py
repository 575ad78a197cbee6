r"""The step structure of a log: which step failed, and which of its lines say why.

Toolchain patterns (:mod:`.evidence`) know the formats they were written for; this module
finds evidence in formats nobody wrote a rule for, from the shape of the log itself:

- **steps**: a CI log is a sequence of steps, each a command line (``$ cmd``, a
  ``travis_fold``/``travis_time`` start, ``##[group]``, ``::group::``, a GitLab
  ``section_start``) followed by its output and, on Travis, ``The command "…" exited with N.``
  The step that exited non-zero is where the cause is, and its last lines matter most. A log
  without step markers (the output of one failing command) is one step that ends at its end.
- **failure words minus passing lines**: a line with a failure word, a failure mark
  (``✖``, ``[-]``, ``1) …``) or a source location (``file.ext:12``) is a candidate;
  a passing, skipped or expected-failure line (``✓ returns an error``, ``ok 3``, ``XFAIL``)
  is not, whatever words it holds.
- **rarity**: each line is reduced to a template (numbers, hex, paths and quoted strings
  masked); a line whose template occurs once in the step says more than one repeated a
  hundred times.

Work is bounded whatever the log's size: step ends come from the scan's candidate lines,
at most :data:`MAX_STEPS` failing steps are read, each at most :data:`STEP_LINES` lines and
:data:`STEP_BYTES` bytes back from its end.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..core.lines import LineFile, decode_line
from .evidence import Evidence, Rule, classify, normalize
from .tone import GREEN, tone

__all__ = ["MAX_STEPS", "STEP_BYTES", "STEP_LINES", "Step", "failing_steps", "step_evidence", "template"]

MAX_STEPS = 3
STEP_LINES = 4000
STEP_BYTES = 1 << 20
STEP_TAIL = 30
"""Lines of the failing step's end shown as one block (fewer when they do not fit)."""
CONSEQUENCES = frozenset({"npm", "make", "rust-abort", "gha-exit", "maven-goal", "ci-step-failed"})
"""Rules of the lines a tool prints after the cause (``npm ERR!`` epilogues, ``make: ***``): skipped at a step's end."""
CONSEQUENCE_LINES = 80  # lines skipped so at most
PASS_RUN = 2  # passing lines in a row that end the failing step's tail block (going up)
MAX_PICKS = 40  # lines of one step kept as evidence candidates
PER_TEMPLATE = 2  # lines of one template kept among them
UNSTRUCTURED_MAX = 39.0  # the highest rank of a step line in a log without step markers (generic filler)

_START = re.compile(
    r"travis_(?:fold|time):start:|^##\[group\]|^::group::|section_start:\d+:|^\[Pipeline\] \{ \(|"
    r"\"\s*exited with \d+\.\s*$"
)
_PROMPT = re.compile(r"^\$ \S")  # a command echoed by the CI, or by a tool inside a step: a start of last resort
_MARKER_ONLY = re.compile(
    r"^(?:travis_(?:fold|time):(?:start|end):\S*\s*)+$|^##\[endgroup\]|^::endgroup::|section_end:"
)

_MASK = re.compile(
    r"\"[^\"]*\"|'[^']*'|`[^`]*`|(?:[\w.~@+-]*/)+[\w.@+-]*|\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{7,}\b|\d+(?:[.:,]\d+)*"
)
_STRONG = re.compile(
    r"(?i)(?<![\w/.-])(?:errors?|err!|fail(?:s|ed|ing|ures?)?|fatal|exception|panic(?:ked)?|abort(?:ed)?|"
    r"traceback|assert(?:ion)?(?:error)?|segmentation fault|timed out|time ?out)(?![\w/-])"
)
_WEAK = re.compile(
    r"(?i)(?<![\w/.-])(?:warning|invalid|cannot|can't|could not|couldn't|unable|not found|no such|denied|refused|"
    r"undefined|unexpected|expected|mismatch|missing|unknown|unused|not allowed|forbidden|violation|"
    r"not (?:being|defined|ok|equal|match)|did not|does not|doesn't|didn't|must|never|but (?:got|was|found))(?![\w-])"
)
_MARK = re.compile(r"^\s*(?:\[-\]|[✖✗✕×✘❌]|\d+\)\s|(?:FAIL|FAILED|ERROR|ERR)\b|not ok\b|E\s{2,}|>>>|!!!)")
_WARN_LEVEL = re.compile(
    r"^\s*(?:\[(?:warn|WARN|warning|WARNING)\]|(?:warning|WARNING|WARN):\s|W/)"
    r"|:\d+(?::\d+)?:\s*(?:warning|WARNING)(?:\s*\[[^\]]*\])?:"  # a compiler's "file:line:col: warning:"
)
_LOCATION = re.compile(r"[\w.-]+\.[A-Za-z]\w{0,7}(?::\s?\d+|\(\d+(?:,\d+)?\)|\[\d+(?:,\d+)?\]|, line \d+)")
_PASSING = re.compile(
    r"(?i)^\s*(?:[✓✔√]|\[\s*(?:ok|pass(?:ed)?|skip(?:ped)?)\s*\]|ok\s+\d+\b|ok\b|pass(?:ed)?\b|skip(?:ped)?\b|"
    r"xfail|xpass|todo\b)|\b(?:PASS(?:ED)?|SKIP(?:PED)?|XFAIL(?:ED)?|XPASS)\b|(?:\.\.\.|…)\s*(?:ok|passed|skipped)\b|"
    r"# (?:SKIP|TODO)\b|\b0 (?:errors?|failures?|failed|failing)\b|\bno (?:errors?|failures?)\b"
    r"|\s(?:OK|ok|PASS(?:ED)?|passed|[✓✔])\s*(?:\([\d.]+\s*m?s\))?\s*$"
)

STEP_RULE = Rule("step-line", re.compile(r"(?!)"), 60)
STEP_END_RULE = Rule("step-end", re.compile(r"(?!)"), 0)


@dataclass
class Step:
    """A failing step: its command line (0: none found), its last output line, its end marker (0: the log's end),
    and the first line it may span (its command line, else the line after the previous failing step);
    ``marked``: its start is a CI step marker (not a bare ``$`` prompt)."""

    start: int
    last: int
    end: int
    first: int = 1
    marked: bool = False


def template(text: str) -> str:
    """A line's template: numbers, hex, paths and quoted strings masked, blanks folded."""
    return " ".join(_MASK.sub("#", text).split())[:160]


def signal(text: str) -> int:
    """How strongly a (normalized) line reads as a failure by its words, marks and location; 0: not at all."""
    if _PASSING.search(text):
        return 0
    score = -25 if _WARN_LEVEL.search(text) else 0
    if _STRONG.search(text):
        score += 40
    if _WEAK.search(text):
        score += 20
    if _MARK.search(text):
        score += 30
    if score and _LOCATION.search(text):
        score += 20
    elif _LOCATION.match(text.strip()):
        score += 15
    return max(0, score)


def _until_passing_run(texts: list[str], tones: list[str], k: int, before: int) -> int:
    """How many of the ``before`` lines above ``texts[k]`` to show: up to a run of passing lines (green, or
    a passing mark) longer than :data:`PASS_RUN`, of which :data:`PASS_RUN` are kept."""
    run = 0
    for j in range(1, before + 1):
        i = k - j
        run = run + 1 if tones[i] == GREEN or _PASSING.search(texts[i]) else 0
        if run > PASS_RUN:
            return j - 1
    return before


def _tones(raws: list[str]) -> list[str]:
    """The colour of each line (:func:`.tone.tone`), a colour left open carried into the next lines."""
    out = []
    fg = ""
    for raw in raws:
        shade, fg = tone(raw, fg)
        out.append(shade)
    return out


def _after_cause(text: str) -> bool:
    """True for a line that ends a failing step after its cause: blank, a step marker, a tool's own epilogue."""
    if not text.strip() or _MARKER_ONLY.search(text):
        return True
    rule = classify(text)
    return rule is not None and rule.name in CONSEQUENCES


def failing_steps(lf: LineFile, ends: list[int]) -> list[Step]:
    """The failing steps ending at the marker lines ``ends`` (or one step ending at the log's end)."""
    marks = sorted(set(ends))[:MAX_STEPS] or [lf.total_lines + 1]
    out: list[Step] = []
    for end in marks:
        last = end - 1
        if last < 1:
            continue
        raws = lf.read_backward(last, STEP_BYTES, floor=max(1, last - STEP_LINES + 1))
        first = last - len(raws) + 1
        start = prompt = 0
        for k in range(len(raws) - 1, -1, -1):
            raw = decode_line(raws[k][:2048])[0]
            text = normalize(raw)
            if _START.search(text) or (_START.search(raw) if "\r" in raw else False):
                start = first + k
                break
            if not prompt and _PROMPT.search(text):
                prompt = first + k
        marked = bool(start)
        start = start or prompt
        floor = out[-1].end + 1 if out and out[-1].end else 1
        out.append(Step(start, last, end if end <= lf.total_lines else 0, start or floor, marked))
    return out


def step_evidence(lf: LineFile, steps: list[Step], structured: bool) -> list[Evidence]:
    """Evidence items of the failing ``steps``: their rare failure lines, their last lines, their end markers.

    ``structured``: the log has step markers. Without them (the output of one command) the step is the
    log's end, already shown as the view's tail, and its lines rank below the toolchain patterns.
    """
    items: list[Evidence] = []
    for rank, step in enumerate(steps):
        lo = step.start + 1 if step.start else max(1, step.last - STEP_LINES + 1)
        if step.last < lo:
            continue
        raws = lf.read_backward(step.last, STEP_BYTES, floor=lo)
        first = step.last - len(raws) + 1
        decoded = [decode_line(r[:2048])[0] for r in raws]
        texts = [normalize(r) for r in decoded]
        tones = _tones(decoded)
        counts = Counter(template(t) for t in texts)
        span = max(1, len(texts))
        picks: list[tuple[float, int, str]] = []
        for k, text in enumerate(texts):
            if not text.strip() or _MARKER_ONLY.search(text):
                continue
            if tones[k] == GREEN:
                continue
            s = signal(text)
            if not s:
                continue
            n = counts[template(text)]
            s += 20 if n == 1 else 10 if n <= 3 else 0 if n <= 10 else -20
            s += 15 * k / span
            picks.append((s, first + k, text))
        picks.sort(key=lambda p: (-p[0], p[1]))
        bonus = -8 * rank
        per_template: Counter[str] = Counter()
        seen: set[str] = set()
        kept = 0
        for s, number, text in picks:
            key = template(text)
            if per_template[key] >= PER_TEMPLATE or text.strip() in seen or kept >= MAX_PICKS:
                continue
            per_template[key] += 1
            seen.add(text.strip())
            kept += 1
            score = min(95.0, 35 + s) if structured else min(UNSTRUCTURED_MAX, 20 + s / 2)
            rule = Rule(STEP_RULE.name, STEP_RULE.pattern, int(score))
            items.append(Evidence(number, rule, text, number, score=score + bonus))
        if not structured:
            continue
        # The step's last lines (marker-only lines at its very end left out), then its end marker.
        tail_last = step.last
        while (
            tail_last > first and step.last - tail_last < CONSEQUENCE_LINES and _after_cause(texts[tail_last - first])
        ):
            tail_last -= 1
        if texts[tail_last - first].strip():
            before = min(STEP_TAIL - 1, tail_last - (step.start or lo))
            if PASS_RUN:
                before = _until_passing_run(texts, tones, tail_last - first, before)
            tail_rule = Rule("step-tail", STEP_RULE.pattern, 88, before=before)
            items.append(Evidence(tail_last, tail_rule, texts[tail_last - first], tail_last, score=88.0 + bonus))
        if step.end:
            end_rule = Rule("step-end", STEP_RULE.pattern, 90)
            items.append(Evidence(step.end, end_rule, "", step.end, score=90.0 + bonus))
        if step.start:
            cmd_rule = Rule("step-command", STEP_RULE.pattern, 70)
            items.append(Evidence(step.start, cmd_rule, "", step.start, score=70.0 + bonus))
    return items
