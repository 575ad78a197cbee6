"""Which shell lines an agent's hook sends through ``wuu run``, and the line that does it.

:func:`rewrite` returns the line the agent's shell runs instead, or None to leave the line as
it is. The original line is passed to ``wuu run --shell --`` as one word quoted by
:func:`shlex.quote`, so bash runs exactly what the agent wrote (quotes, ``$vars``, newlines,
heredocs, any Unicode); ``wuu run`` runs it with ``bash -c``. Left as they are:

- a line the shell words of which cannot be read (an unbalanced quote): bash will say why;
- interactive programs (editors, pagers, ``top``, ``ssh``, a REPL with no arguments, ``tail -f``),
  whose screen or stream a projection would only hold back;
- a line that runs something in the background (``&``), whose output comes later;
- a line that changes the agent's shell itself (``cd``, ``export``, ``source``, ...) anywhere but
  in leading ``cd DIR &&`` (or ``cd DIR;``) steps: those stay outside, so the directory still changes
  (``cd web && npm test`` becomes ``cd web && wuu run … 'npm test'``);
- a line already run by rtk, or by ``wuu`` (but a lone ``wuu`` command without the variables
  below, such as a continuation the agent runs, gets them: ``WUU_SESSION=… WUU_CONTINUE_AS=shell
  wuu saved log-… --start-line 87``, so that its view continues in shell commands too and counts
  as a read of the session).

The session id becomes ``WUU_SESSION`` and ``WUU_CONTINUE_AS=shell`` makes the view print its
continuations as ``wuu`` commands (:mod:`.continuations`); the run has no time limit of its own
(``--timeout 0``): the agent's tool keeps its own.
"""

from __future__ import annotations

import re
import shlex

__all__ = ["INTERACTIVE", "STATEFUL", "rewrite", "split_line"]

INTERACTIVE = frozenset(
    {
        "vi",
        "vim",
        "nvim",
        "view",
        "nano",
        "pico",
        "emacs",
        "micro",
        "hx",
        "helix",
        "less",
        "more",
        "most",
        "man",
        "info",
        "top",
        "htop",
        "btop",
        "atop",
        "glances",
        "watch",
        "ssh",
        "mosh",
        "telnet",
        "ftp",
        "sftp",
        "tmux",
        "screen",
        "fzf",
        "tig",
        "ranger",
        "mc",
        "nnn",
        "lazygit",
        "k9s",
        "vimdiff",
    }
)
"""Programs that draw a screen or wait on the keyboard: always left to the agent's shell."""

REPLS = frozenset(
    {
        "python",
        "python3",
        "python2",
        "ipython",
        "bpython",
        "node",
        "deno",
        "bun",
        "irb",
        "pry",
        "ghci",
        "R",
        "julia",
        "lua",
        "luajit",
        "php",
        "psql",
        "mysql",
        "sqlite3",
        "redis-cli",
        "mongo",
        "mongosh",
        "bash",
        "sh",
        "zsh",
        "fish",
        "dash",
        "ksh",
        "erl",
        "iex",
        "scala",
        "clojure",
        "sbcl",
        "gdb",
        "lldb",
        "pdb",
    }
)
"""Programs that start a REPL when given no arguments (``python`` alone, not ``python x.py``)."""

STATEFUL = frozenset(
    {
        "cd",
        "pushd",
        "popd",
        "export",
        "unset",
        "source",
        ".",
        "alias",
        "unalias",
        "set",
        "shopt",
        "ulimit",
        "umask",
        "eval",
        "exec",
        "exit",
        "logout",
        "declare",
        "typeset",
        "readonly",
        "local",
        "hash",
        "trap",
        "wait",
        "fg",
        "bg",
        "jobs",
        "disown",
        "builtin",
        "enable",
    }
)
"""Builtins that change (or act on) the agent's own shell: a line with one is left as it is."""

_PREFIXES = frozenset(
    {"sudo", "env", "nice", "nohup", "time", "command", "stdbuf", "ionice", "chrt", "caffeinate", "doas"}
)
_WRAPPERS = frozenset({"wuu", "rtk"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_SEPARATORS = frozenset({"&&", "||", ";", "|", "|&", "&", ";;", "\n"})


def _without_heredoc_bodies(line: str) -> str:
    """``line`` with the bodies of its heredocs left out: they are data, not shell words."""
    out: list[str] = []
    ends: list[str] = []
    for row in line.split("\n"):
        if ends:
            if row.strip() == ends[0]:
                ends.pop(0)
            continue
        out.append(row)
        ends += [m.group(2) for m in _HEREDOC.finditer(row)]
    return "\n".join(out)


def split_line(line: str) -> list[list[str]] | None:
    """The simple commands of ``line`` as words, separators as one-word commands; None if unreadable."""
    lexer = shlex.shlex(_without_heredoc_bodies(line).replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token in _SEPARATORS or (token and set(token) <= set(";&|")):
                commands.append([token])
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:  # an unbalanced quote
        return None
    return [c for c in commands if c]


def _program(words: list[str]) -> tuple[str, list[str]]:
    """The program a simple command runs (after ``VAR=x``, ``sudo``, ``env``, ``time``) and its arguments."""
    i = 0
    while i < len(words):
        word = words[i]
        if _ASSIGNMENT.match(word) or word in _PREFIXES or (i and words[i - 1] in _PREFIXES and word.startswith("-")):
            i += 1
            continue
        break
    if i >= len(words):
        return "", []
    return words[i].rsplit("/", 1)[-1], words[i + 1 :]


def _keeps_to_shell(program: str, args: list[str]) -> bool:
    """Whether this program is left to the agent's shell: interactive, a bare REPL, or following a stream."""
    if program in INTERACTIVE:
        return True
    if program in REPLS and not [a for a in args if not a.startswith("<")] and "-c" not in args:
        return True
    if program in {"tail", "journalctl", "dmesg", "kubectl", "docker"} and {"-f", "-F", "--follow", "-w"} & set(args):
        return True
    return program in {"docker", "podman", "kubectl"} and bool(
        {"-it", "-ti", "-i", "--interactive", "--tty"} & set(args)
    )


def _wrapped(program: str, args: list[str]) -> bool:
    if program in _WRAPPERS:
        return True
    return program.startswith("python") and args[:2] == ["-m", "wuu_tools.cli"]


def rewrite(line: str, program: str, session: str | None = None) -> str | None:
    """The line the agent's shell runs instead of ``line`` (through ``program run``), or None to leave it.

    Args:
        line: The shell line the agent is about to run.
        program: How to start wuu, already a shell word or words (an absolute path, ``python -m wuu_tools.cli``).
        session: The agent's session id; it becomes ``WUU_SESSION``.
    """
    if not line.strip() or "WUU_CONTINUE_AS=" in line:
        return None
    commands = split_line(line)
    if not commands:
        return None
    lead: list[str] = []  # leading "cd DIR &&" (or ";") steps, kept outside so the directory still changes
    rest = list(commands)
    while len(rest) >= 3 and rest[0][0] in {"cd", "pushd"} and rest[1] in (["&&"], [";"]):
        lead.append(rest[1][0])
        rest = rest[2:]
    if any(c == ["&"] for c in rest):
        return None
    if not lead and len(rest) == 1:
        name, args = _program(rest[0])
        if (name == "wuu" and rest[0][0] == name) or rest[0][0].endswith("/wuu"):
            return _with_env(line, session) if args[:1] != ["run"] else None
    for words in rest:
        if len(words) == 1 and words[0] in _SEPARATORS:
            continue
        if words[0] in STATEFUL:
            return None
        name, args = _program(words)
        if _wrapped(name, args) or _keeps_to_shell(name, args):
            return None
    if not [w for w in rest if not (len(w) == 1 and w[0] in _SEPARATORS)]:
        return None  # nothing but cd steps
    cut = _after_lead(line, len(lead)) if lead else 0
    if cut is None or not line[cut:].strip():
        return None
    run = " ".join(
        [*_env(session), program, "run", "--timeout", "0", "--shell", "--", shlex.quote(line[cut:].lstrip())]
    )
    return f"{line[:cut].rstrip()} {run}" if cut else run


def _env(session: str | None) -> list[str]:
    """The variable assignments before the line: the session, and continuations as shell commands."""
    env = ["WUU_CONTINUE_AS=shell"]
    if session:
        env.insert(0, "WUU_SESSION=" + shlex.quote(session))
    return env


def _with_env(line: str, session: str | None) -> str:
    """A lone ``wuu`` command with the session and shell continuations set."""
    return " ".join([*_env(session), line.strip()])


def _after_lead(line: str, steps: int) -> int | None:
    """Where ``line`` goes on after its first ``steps`` ``cd DIR &&`` / ``cd DIR;`` steps; None if not found."""
    at = 0
    for _ in range(steps):
        found = _top_level_separator(line, at)
        if found is None:
            return None
        at = found
    return at


def _top_level_separator(text: str, start: int) -> int | None:
    """Where the text after the first ``&&`` or ``;`` outside quotes from ``start`` begins (None: there is none)."""
    quote = ""
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                i += 1
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            quote = ch
        elif text.startswith("&&", i):
            return i + 2
        elif ch == ";":
            return i + 1
        i += 1
    return None
