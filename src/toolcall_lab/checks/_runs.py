"""What the keys share: that a tool really ran (not that some text appeared), and how a learner's
own code is read (still the template? what did it raise?)."""

from __future__ import annotations

import dis
import re
from types import SimpleNamespace
from typing import Any

from ..loop import Run
from ..messages import ToolCall, ToolResult

__all__ = ["mentions_number", "raised", "template", "tool_exchanges", "unwritten"]


def tool_exchanges(run: Any) -> list[tuple[ToolCall, ToolResult]]:
    """Each tool call of `run` paired with the result that answered it (by id)."""
    if not isinstance(run, Run):
        return []
    results = {r.call_id: r for r in run.transcript.tool_results()}
    return [(c, results[c.id]) for c in run.transcript.tool_calls() if c.id in results]


def mentions_number(text: str, value: str) -> bool:
    """True when `value` stands in `text` as a whole number ("291", not "2910" or "29.1"),
    with its sign: a number right after a minus sign or a hyphen is negative ("-291" is not 291).

    >>> mentions_number("17 * 23 - 100 = 291.", "291"), mentions_number("2910", "291")
    (True, False)
    >>> mentions_number("It is -291.", "291"), mentions_number("It is −291.", "291")
    (False, False)
    """
    # subtle: U+2212 is the minus sign of typeset text; "-" doubles as hyphen and minus
    return re.search(rf"(?<![\d.,\-\u2212]){re.escape(value)}(?![\d,]|\.\d)", text) is not None


def unwritten(cls: Any, method: str = "complete") -> bool:
    """True when `cls.method` is still a template: its code only returns None (`...`, `pass`)."""
    function = getattr(cls, method, None)
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    # subtle: `...` and a docstring compile to "load the constant None, return it", nothing else.
    trivial = {"RESUME", "NOP", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST", "CACHE"}
    return all(i.opname in trivial and (i.opname not in ("LOAD_CONST", "RETURN_CONST") or i.argval is None)
               for i in dis.get_instructions(code))


def raised(exc: BaseException) -> str:
    """`TypeName: first line`, for a sentence about what a learner's code raised."""
    lines = str(exc).strip().splitlines()
    first = lines[0] if lines else ""
    return f"{type(exc).__name__}: {first[:120]}" if first else type(exc).__name__


def template(function: Any) -> bool:
    """True when a learner's function is still the template: a docstring and `...`."""
    return callable(function) and unwritten(SimpleNamespace(body=function), "body")
