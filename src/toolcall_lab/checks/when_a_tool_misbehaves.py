# mypy: disable-error-code="no-untyped-def"
# (the worked definition of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 28, "When a tool misbehaves".

Section 1 stages a tool that never answers (it waits on an `Event` the page sets at the end
of the section); section 2 a tool that answers 400,000 characters. Each check reads what the
page's own cells produced (the timed run, the uncapped run) or the page's own constants (the
call left waiting, the limit, the exercise's times), so the key holds no answer of its own.
One answer is code the learner writes in a `your-code` cell, judged by what it does on hidden
texts of several sizes:

    cap           a text cut to at most `limit` characters: unchanged when it fits, else its
                  head, a marker saying how many characters were removed, and its tail;
                  handing the work to the kit's `cap_result` or `cut_note` is refused

    >>> q1(20_000)
    Q1: correct.
"""

from __future__ import annotations

import inspect
import os
import random
from collections.abc import Mapping
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..result_cap import cap_result, cut_note
from ..selfcheck import check, number
from ..tool import Tool, _timed_out
from ._runs import mentions_number, run_watching
from ._runs import raised as _raised
from ._runs import template as _template

__all__ = ["SOLUTIONS", "cap", "exercise_1", "predict_messages", "predict_tokens", "q1", "timed_out",
           "your_cap"]


# -- the worked definition -------------------------------------------------------------------------
def cap(text, limit):
    """The text if it fits in limit characters; else head, marker, tail."""
    if len(text) <= limit:
        return text
    room = limit - len(f"\n[{len(text)} characters cut: ask for less]\n")
    head, tail = room * 3 // 4, room - room * 3 // 4
    cut = len(text) - head - tail  # never more digits than len(text)
    return f"{text[:head]}\n[{cut} characters cut: ask for less]\n{text[-tail:]}"


# -- section 1: a tool that never answers ---------------------------------------------------------
def timed_out(answer: Any, call: Any, limit: float) -> None:
    """The result the loop sends for `call` once it gave up after `limit` seconds."""
    def wrong(given: Any) -> str | None:
        if not isinstance(given, ToolResult):
            return f"expected a ToolResult, got {type(given).__name__}"
        if not isinstance(call, ToolCall):
            return "run the cell above first: it defines the call left waiting"
        if given.call_id != call.id:
            if given.call_id.lower() == call.id.lower():
                return "ids are compared exactly, and the case differs"
            return f"it answers {given.call_id!r}, not the call left waiting"
        if not given.is_error:
            return "without is_error=True the model reads the text as the forecast itself"
        if not given.content.strip():
            return "an empty result tells the model nothing it can act on"
        if not mentions_number(given.content, f"{limit:g}"):
            return f"say how long the loop waited ({limit:g} s), so the model knows it was a timeout"
        stand_in = Tool(call.name, "", {"type": "object"}, print, timeout=limit)
        if given.content == _timed_out(call.name, stand_in):
            return "that is the kit's own text: write it yourself"
        return None

    check("timed_out", answer, wrong,
          hint="a ToolResult carrying the waiting call's id, is_error=True, and a sentence "
               "naming the limit")


def predict_messages(answer: Any, run: Any) -> None:
    """How many messages the timed-out run's transcript holds at its end."""
    check("Prediction", answer, number(len(run.transcript)),
          hint="the question, the reply with the call, the call's answer (whatever it says), and...?")


# -- section 2: a tool that answers too much -------------------------------------------------------
def predict_tokens(answer: Any, run: Any) -> None:
    """The input tokens of the uncapped run's second model call, within 10 %."""
    sent = run.steps[1].usage.input_tokens
    check("Prediction", answer, number(sent, tolerance=sent / 10),
          hint="call 2 sends everything call 1 did plus the page; the kit counts about four "
               "characters a token")


_BLOCKS = "▁▂▃▄▅▆▇█"  # no marker a learner writes holds these, so head and tail show plainly


def _text(length: int, seed: int) -> str:
    """`length` characters that repeat nowhere (a tail taken from the wrong place shows)."""
    draw = random.Random(seed)
    return "".join(draw.choice(_BLOCKS) for _ in range(length))


#: (text length, limit): two that fit (one exactly), three that must be cut.
_SIZES = ((50, 1000), (1000, 1000), (3000, 1000), (20_000, 2000), (60_000, 5000))


def _common(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b`."""
    return len(os.path.commonprefix((a, b)))


def _wrong_cap(function: Any) -> str | None:
    if not callable(function) or isinstance(function, type):
        return f"expected the function itself (cap, without brackets), got {type(function).__name__}"
    for seed, (length, limit) in enumerate(_SIZES):
        text = _text(length, seed)
        try:
            result, leaned = run_watching((cap_result, cut_note), function, text, limit)
            again = function(text, limit)
        except Exception as exc:
            return f"on a text of {length} characters, cap raised {_raised(exc)}"
        if leaned:
            return "it hands the work to the kit's result cap; write it yourself"
        if not isinstance(result, str):
            return f"it returned {type(result).__name__}; the model reads text, so return a str"
        if result != again:
            return "two calls on the same text gave different results; a cap must be repeatable"
        if length <= limit:
            if result != text:
                return f"a text of {length} characters fits a limit of {limit}: return it unchanged"
            continue
        if len(result) > limit:
            return (f"a text of {length} characters came back {len(result)} long, over the limit "
                    f"of {limit}: does the marker count?")
        head = _common(result, text)
        tail = _common(result[::-1], text[::-1])
        if head == 0 or tail == 0:
            return "keep the start and the end of the text, around the marker"
        middle = result[head:len(result) - tail]
        if not middle.strip():
            return "nothing says the text was cut, so the model reads the part as the whole"
        removed = len(text) - head - tail
        if not (mentions_number(middle, str(removed)) or f"{removed:,}" in middle):
            return (f"the marker should say how many characters were removed ({length} kept "
                    "in part: count what is missing between the head and the tail)")
    return None


def your_cap(answer: Any) -> None:
    """Your cap, on hidden texts that fit and texts that must be cut."""
    check("cap", ... if _template(answer) else answer, _wrong_cap,
          hint="the sentence before the hint names the case that went wrong; room for the head "
               "and tail is the limit minus the marker's own length")


# -- check yourself ----------------------------------------------------------------------------------
Q1_CAP, Q1_LATER_CALLS = 2_000, 10


def q1(answer: Any) -> None:
    """The most tokens one capped result adds over the later calls of a run that re-sends it."""
    check("Q1", answer, number(Q1_CAP * Q1_LATER_CALLS),
          hint="a result in the history is sent again on every later call, and the cap bounds "
               "each copy")


# -- exercises ---------------------------------------------------------------------------------------
def _wrong_timeouts(slowest: Mapping[str, float], budget: float) -> Any:
    def wrong(given: Any) -> str | None:
        if not isinstance(given, dict):
            return f"expected a dict of tool name to seconds, got {type(given).__name__}"
        if set(given) != set(slowest):
            missing = sorted(set(slowest) - set(given))
            return f"name every tool once, as spelled in the table (missing: {missing})"
        for name, seconds in given.items():
            if isinstance(seconds, bool) or not isinstance(seconds, int | float):
                return f"{name}: a number of seconds, got {type(seconds).__name__}"
            if not seconds > slowest[name]:
                return f"{name}: {seconds} s would abandon a healthy call (its slowest is {slowest[name]} s)"
        total = sum(given.values())
        if total > budget:
            return (f"the three add up to {total:g} s; a reply asking for all three would wait "
                    f"longer than {budget:g} s")
        return None
    return wrong


def exercise_1(answer: Any, slowest: Mapping[str, float], budget: float) -> None:
    """A timeout per tool: above its slowest healthy call, the three within the reply's budget."""
    check("Exercise 1", answer, _wrong_timeouts(slowest, budget),
          hint="each timeout above its tool's slowest healthy time, and the calls of one reply "
               "run one after another")


SOLUTIONS: dict[str, str] = {
    "timed_out": 'ToolResult(pending.id, "No answer in 0.5 s.", is_error=True)',
    "predict_messages": "4",
    "predict_tokens": "100_000",
    "cap": inspect.getsource(cap),
    "q1": "20_000",
    "exercise_1": '{"get_forecast": 2, "check_stock": 3, "send_invoice": 5}',
}
