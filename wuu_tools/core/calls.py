r"""Reading back a call written in words: ``read_saved(ref="log-1", start_line=4)`` -> a continuation.

Views print their continuation as a call (:func:`~.result.call_text`); this is its inverse, so a
person or a model can paste the printed line into ``wuu call``. The line is parsed with
:mod:`ast` and only literals are accepted (strings, numbers, lists, dicts, and ``true``/``false``/
``null`` as well as ``True``/``False``/``None``): nothing is ever evaluated. A call found inside
a longer line (``[to read the omitted lines: read_file(path="a.py", start_line=9)]``) is read too;
the first one wins.

>>> parse_call('read_saved(ref="log-1", start_line=4, end_line=null)')
{'tool': 'read_saved', 'args': {'ref': 'log-1', 'start_line': 4, 'end_line': None}}
>>> parse_call('[next: read_file(path="a.py", start_line=9) · search: …]')
{'tool': 'read_file', 'args': {'path': 'a.py', 'start_line': 9}}
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .errors import InvalidArgument

__all__ = ["parse_call"]

_NAMED = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
_START = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
MAX_CALL_CHARS = 200_000


def _literal(node: ast.expr) -> Any:
    """The value of a literal node; anything else is refused."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, (bytes, complex, type(Ellipsis))):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMED:
        return _NAMED[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _literal(node.operand)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                break
            key = _literal(k)
            if isinstance(key, str):
                out[key] = _literal(v)
                continue
            break
        else:
            return out
    raise InvalidArgument(f"only literal values can be passed, not {ast.unparse(node)[:80]!r}")


def _call_at(text: str, start: int) -> ast.Call | None:
    """The call expression that starts at ``text[start]``, trying each closing parenthesis in turn."""
    end = text.find(")", start)
    while end >= 0:
        try:
            tree = ast.parse(text[start : end + 1].strip(), mode="eval")
        except (SyntaxError, ValueError):
            end = text.find(")", end + 1)
            continue
        return tree.body if isinstance(tree.body, ast.Call) else None
    return None


def parse_call(text: str, tools: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The ``{"tool", "args"}`` of the call written in ``text`` (the first one, when it is part of a line).

    Args:
        text: A call as views print it: ``name(key=value, ...)``, alone or inside a longer line.
        tools: When given, only calls of these names are looked for inside a longer line.

    Raises:
        InvalidArgument: when no call is found, or it has positional or non-literal arguments.
    """
    if len(text) > MAX_CALL_CHARS:
        raise InvalidArgument(f"the call is {len(text):,} characters long; at most {MAX_CALL_CHARS:,} are read")
    stripped = text.strip()
    node: ast.Call | None = None
    for m in _START.finditer(stripped):
        if tools is not None and m.group(1) not in tools and m.start() > 0:
            continue
        node = _call_at(stripped, m.start())
        if node is not None:
            break
    if node is None or not isinstance(node.func, ast.Name):
        raise InvalidArgument(f'no call like read_file(path="a.py") found in {stripped[:80]!r}')
    if node.args:
        raise InvalidArgument(f"{node.func.id}(...) takes named arguments only (key=value), as views print them")
    args: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise InvalidArgument("**arguments are not accepted; write each one as key=value")
        args[kw.arg] = _literal(kw.value)
    return {"tool": node.func.id, "args": args}
