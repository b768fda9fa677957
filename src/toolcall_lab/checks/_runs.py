"""What the keys share: that a tool really ran (not that some text appeared), how a learner's
own code is read (still the template? what did it raise? what did it print? did it hand the work
to the kit, or is it the kit's own?), and how a set of letters or names is compared."""

from __future__ import annotations

import contextlib
import dis
import inspect
import io
import re
import sys
from collections.abc import Callable, Collection
from types import FrameType, SimpleNamespace
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..loop import Run
from ..selfcheck import equal

__all__ = ["kit_made", "mentions_number", "quietly", "raised", "run_watching", "set_of", "template",
           "tool_exchanges", "unwritten", "unwritten_class", "yourself"]


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


def set_of(expected: Collection[str], choices: tuple[str, ...], *,
           named: str = "letters") -> Callable[[Any], str | None]:
    """Compare a set of letters (or names) from `choices`: one not among them, a capital "A" say,
    is named as such before the sets are compared.

    >>> same = set_of({"a", "d"}, ("a", "b", "c", "d"))
    >>> same({"a", "d"}), same({"A", "D"}), same(["a", "d"])
    (None, 'use the lower-case letters a, b, c and d', 'expected a set, got list')
    """
    compare = equal(set(expected))
    spelled = f"{', '.join(choices[:-1])} and {choices[-1]}"

    def check_set(given: Any) -> str | None:
        if isinstance(given, set) and not given <= set(choices):
            return f"use the lower-case {named} {spelled}"
        return compare(given)
    return check_set


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


def run_watching(kit: Callable[..., Any] | tuple[Callable[..., Any], ...], function: Callable[..., Any],
                 *args: Any) -> tuple[Any, bool]:
    """(what `function(*args)` returned, whether it called the kit's `kit` (or one of a tuple) on the way).

    How a key refuses an answer that only wraps the kit's own version ("write it yourself"):
    the call is watched, not the source read, so an alias, an import inside the function or
    a helper in between is caught all the same.

    >>> from toolcall_lab.template import parse_tool_calls
    >>> run_watching(parse_tool_calls, lambda text: parse_tool_calls(text).calls, "Hi")
    ((), True)
    >>> run_watching(parse_tool_calls, str.upper, "Hi")
    ('HI', False)
    """
    kits = kit if isinstance(kit, tuple) else (kit,)
    targets = {getattr(each, "__code__", None) for each in kits} - {None}
    called = False

    def watch(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal called
        if event == "call" and frame.f_code in targets:
            called = True

    # subtle: a profile hook sees every Python call in this thread, however the learner named
    # the function; the one that was there before (a profiler's) is put back, whatever happens.
    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        result = function(*args)
    finally:
        sys.setprofile(previous)
    return result, called


def quietly(action: Callable[[], Any]) -> tuple[Any, str]:
    """Run `action` with its printing captured: (what it returned, what it printed)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        value = action()
    return value, printed.getvalue()


def yourself(cls: Any, what: str) -> str | None:
    """"write it yourself" when `cls` is, or builds on, one of the kit's classes, else None;
    `what` ends the sentence (what the learner's class should do instead)."""
    base = kit_made(cls)
    if base is None:
        return None
    short = base.rsplit(".", 1)[1]
    said = "is" if cls.__module__ == base.rsplit(".", 1)[0] and cls.__qualname__ == short else "builds on"
    return f"write it yourself: it {said} the kit's {short}{what}"


def unwritten_class(answer: Any) -> bool:
    """True when `answer` is a learner's class whose `complete` is still the template's."""
    return isinstance(answer, type) and kit_made(answer) is None and unwritten(answer)


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
