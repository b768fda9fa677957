"""What the keys share: that a tool really ran (not that some text appeared), and how a learner's
own code is read (still the template? what did it raise? what did it print? is it the kit's own?)."""

from __future__ import annotations

import contextlib
import dis
import inspect
import io
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from ..loop import Run
from ..messages import ToolCall, ToolResult

__all__ = ["kit_made", "mentions_number", "quietly", "raised", "template", "tool_exchanges", "unwritten"]


def tool_exchanges(run: Any) -> list[tuple[ToolCall, ToolResult]]:
    """Each tool call of `run` paired with the result that answered it (by id)."""
    if not isinstance(run, Run):
        return []
    results = {r.call_id: r for r in run.transcript.tool_results()}
    return [(c, results[c.id]) for c in run.transcript.tool_calls() if c.id in results]


def mentions_number(text: str, value: str) -> bool:
    """True when `value` stands in `text` as a whole number ("291", not "2910" or "29.1").

    >>> mentions_number("17 * 23 - 100 = 291.", "291"), mentions_number("2910", "291")
    (True, False)
    """
    return re.search(rf"(?<![\d.,]){re.escape(value)}(?![\d,]|\.\d)", text) is not None


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


def quietly(action: Callable[[], Any]) -> tuple[Any, str]:
    """Run `action` with its printing captured: (what it returned, what it printed)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        value = action()
    return value, printed.getvalue()


def kit_made(cls: Any) -> str | None:
    """The kit's class that `cls` is or builds on (its qualified name), or None when it is the
    learner's own: what "write it yourself" refuses.

    >>> from toolcall_lab import ScriptedProvider
    >>> kit_made(ScriptedProvider), kit_made(type("Mine", (), {"__module__": "__main__"}))
    ('toolcall_lab.providers.scripted.ScriptedProvider', None)
    """
    for base in inspect.getmro(cls) if isinstance(cls, type) else ():
        module = getattr(base, "__module__", "") or ""
        if module == "toolcall_lab" or module.startswith("toolcall_lab."):
            return f"{module}.{base.__qualname__}"
    return None
