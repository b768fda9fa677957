# mypy: disable-error-code="no-untyped-def"
# (the worked definition of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 12, "When the loop must stop".

Most answers are values, each computed from the lesson's own data: the requests the API
double received after a paused reply, the transcript the looping model left, what `run_agent`
does after each stop reason. One is code the learner writes in a `your-code` cell, judged by
what it does, one clause at a time; the check names the first clause that fails, and a class
whose `__call__` is still the template's `...` counts as not answered yet:

    RepeatGuard   exercise 1: an approve function with a memory, refusing a call already made
                  `limit` times with the same tool and the same arguments

The worked definition is real code below (linted, and run by the tests); `SOLUTIONS` holds
its source, which tests/test_lessons.py puts in place of the template.

    >>> q1({"b"})
    Q1: correct.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from ..blocks import ToolCall
from ..errors import MaxStepsExceeded
from ..examples import PARIS_QUESTION
from ..loop import run_agent
from ..misbehaving import keeps_checking
from ..providers.scripted import ScriptedProvider, stage
from ..selfcheck import check, number
from ..tools.weather import get_weather
from ..transcript import Transcript
from ._runs import quietly, set_of, tool_exchanges
from ._runs import raised as _raised
from ._runs import unwritten as _unwritten

__all__ = ["SOLUTIONS", "RepeatGuard", "exercise_1", "predict_last_role", "predict_messages", "q1"]


# -- the worked definition -------------------------------------------------------------------------
class RepeatGuard:
    """An approve function: refuses a call made `limit` times already."""

    def __init__(self, limit):
        """Keep the limit, and start counting from zero."""
        self.limit = limit
        self.seen = {}

    def __call__(self, call):
        """True for the first `limit` identical calls; then, why it is refused."""
        key = (call.name, json.dumps(dict(call.args), sort_keys=True))
        self.seen[key] = self.seen.get(key, 0) + 1
        if self.seen[key] <= self.limit:
            return True
        return (f"{call.name} already ran {self.limit} times with these "
                "arguments; use the result you have")


# -- section 2: a paused turn ----------------------------------------------------------------------
def _role(expected: str | None) -> Any:
    def compare(answer: Any) -> str | None:
        if not isinstance(answer, str):
            return f"answer with a role as text, \"user\" or \"assistant\", not a {type(answer).__name__}"
        if answer.strip().casefold() == str(expected).casefold() and answer != expected:
            return "roles are written in lower case, exactly as the wire spells them"
        if answer not in ("user", "assistant"):
            return "a message's role here is \"user\" or \"assistant\""
        return None if answer == expected else "that is not what the second request ended with"
    return compare


def predict_last_role(answer: Any, double: Any) -> None:
    """The role of the last message the loop sent after the paused reply."""
    requests = list(getattr(double, "requests", []))
    messages = requests[1].body.get("messages", []) if len(requests) > 1 else []
    expected = messages[-1].get("role") if messages else None
    check("Prediction", answer, _role(expected),
          hint="the stop-reasons page says to send the paused reply back; what did the loop add, and "
               "what did it not add?")


# -- section 3: the loop that never ends ---------------------------------------------------------
def predict_messages(answer: Any, transcript: Any) -> None:
    """Messages in the transcript when max_steps=4 stops the model that keeps checking."""
    check("Prediction", answer, number(len(transcript) if isinstance(transcript, Transcript) else -1),
          hint="count the question, then what each of the four model calls adds: its reply, and your "
               "code's results")


# -- check yourself ----------------------------------------------------------------------------------
_Q1_REASONS = {"a": "max_tokens", "b": "pause_turn", "c": "context_window_exceeded"}


def q1(answer: Any) -> None:
    """After which text-only replies run_agent calls the model again by itself."""
    again = set()
    for letter, reason in _Q1_REASONS.items():
        script = ScriptedProvider([stage("The weather in Par", stop_reason=reason), "It's 18°C."])
        if len(run_agent(script, PARIS_QUESTION).steps) > 1:
            again.add(letter)
    check("Q1", answer, set_of(again, tuple(_Q1_REASONS)),
          hint="section 2: which reply is meant to go back as it came, and which ones end the run "
               "with the text they have?")


# -- exercises ---------------------------------------------------------------------------------------
def _wrong_guard(cls: Any) -> str | None:
    if not isinstance(cls, type):
        return f"expected the class itself (RepeatGuard, without brackets), got {type(cls).__name__}"
    paris = ToolCall("t1", "get_weather", {"city": "Paris"})
    try:
        guard = cls(2)
        tokyo = ToolCall("t2", "get_weather", {"city": "Tokyo"})
        said = [guard(paris), guard(paris), guard(paris), guard(tokyo)]
        fresh = cls(2)(paris)
        strict = cls(1)
        reordered = [strict(ToolCall("t3", "f", {"a": 1, "b": 2})),
                     strict(ToolCall("t4", "f", {"b": 2, "a": 1}))]
        other = cls(1)
        named = [other(ToolCall("t5", "get_weather", {"city": "Paris"})),
                 other(ToolCall("t6", "get_forecast", {"city": "Paris"}))]
    except Exception as exc:
        return f"RepeatGuard raised {_raised(exc)}"
    if said[:2] != [True, True]:
        return f"with limit 2 it answered {said[:2]!r} to the first two identical calls; both may run (True)"
    if not (isinstance(said[2], str) and said[2].strip()):
        return f"the third identical call got {said[2]!r}; refuse it with a reason, a short string"
    if said[3] is not True:
        return "a call with other arguments (Tokyo) is not a repeat, and should run"
    if fresh is not True:
        return "a new RepeatGuard should start counting from zero (keep the counts on self, not on the class)"
    if reordered[1] is True:
        return "the same arguments in another order are the same call; count them as one"
    if named[1] is not True:
        return ("get_forecast with the arguments get_weather had is another call, and should run; "
                "count by the tool as well as its arguments")
    try:
        run, _ = quietly(lambda: run_agent(ScriptedProvider(keeps_checking), PARIS_QUESTION,
                                           tools=[get_weather], approve=cls(2)))
    except MaxStepsExceeded:
        return "with it as approve=, the model that keeps checking still ran into max_steps"
    except Exception as exc:
        return f"run_agent with it raised {_raised(exc)}"
    ran = [r for _, r in tool_exchanges(run) if not r.is_error]
    if len(ran) != 2:
        return f"in the run, get_weather ran {len(ran)} times; with limit 2 it should run twice"
    return None


def exercise_1(answer: Any) -> None:
    """Your RepeatGuard, alone and as approve= for the model that keeps checking."""
    check("Exercise 1", ... if _unwritten(answer, "__call__") else answer, _wrong_guard,
          hint="the sentence before the hint names the case; the task lists what makes two calls the "
               "same, and each part of that list belongs in what you count by")


SOLUTIONS: dict[str, str] = {
    "predict_last_role": '"assistant"',
    "predict_messages": "9",
    "q1": '{"b"}',
    "RepeatGuard": inspect.getsource(RepeatGuard),
}
