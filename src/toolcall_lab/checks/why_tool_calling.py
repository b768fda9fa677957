"""Answer keys of lesson 2, "Why tool calling".

The lesson runs lesson 1's Paris loop again to count what each call re-sends, stages a model
that misspells a tool, sets five ways of getting an action out of a model side by side, and
sends three results that are not text (a date, a dataclass, a plain object) through `execute`.
Each check reads what the page's own cells produced (the run, its transcript), so the key
holds no answer of its own; see `toolcall_lab.selfcheck` for what a learner sees.

    >>> from toolcall_lab import ScriptedProvider, run_agent
    >>> from toolcall_lab.tools import get_weather
    >>> said = ScriptedProvider(["I checked: it's 18°C and sunny in Paris."])
    >>> predict_tool_runs(0, run_agent(said, "Weather in Paris?", tools=[get_weather]))
    Prediction: correct. Words that say a tool ran are not a tool call: only your code runs tools.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Mapping
from typing import Any

from ..blocks import ToolResult
from ..loop import Run
from ..selfcheck import check, number
from ._runs import mentions_number, tool_exchanges

__all__ = ["SOLUTIONS", "exercise_1", "my_booking_result", "predict_doubling", "predict_readable",
           "predict_tool_runs", "q1"]


def predict_doubling(answer: Any, short: int, long: int) -> None:
    """How many times the billed input grows when a loop runs twice as many calls: `long / short`,
    the two loops' totals as the page computed them (half a unit either way is close enough)."""
    check("Prediction", answer, number(long / short, tolerance=0.5),
          hint="the bill has two parts: the first request, which every call re-sends, doubles with "
               "the calls; what the steps add grows with their square. The factor lies between",
          why="Twice the calls, each re-sending a longer conversation: the bill grows faster than "
              "the calls.")


def predict_tool_runs(answer: Any, run: Run) -> None:
    """How many times a tool ran in `run`, whose model only wrote that it had looked."""
    ran = len(tool_exchanges(run))
    check("Prediction", answer, number(ran),
          hint="a tool runs only when a reply carries a tool call and your code answers it: is "
               "there a call in this reply, or only words about one?",
          why="Words that say a tool ran are not a tool call: only your code runs tools.")


def _wrong_tool_set(answer: Any, expected: set[str], names: set[str]) -> str | None:
    if isinstance(answer, str):
        return 'expected a set of tool names, like {"next_slot"} (or set() for none), not one string'
    if not isinstance(answer, (set, frozenset, list, tuple)):
        return f"expected a set of tool names, got {type(answer).__name__}"
    given = {str(a).strip() for a in answer}
    unknown = given - names
    if unknown:
        return f"{', '.join(sorted(unknown))} is not one of {', '.join(sorted(names))}"
    return None if given == expected else "that is not the set of tools whose content arrived"


def predict_readable(answer: Any, results: Mapping[str, ToolResult]) -> None:
    """Which tools' results reached the model as their content (not an error): `results` holds
    what `execute` answered for each tool, by name, as the page printed it."""
    expected = {name for name, result in results.items() if not result.is_error}
    check("Prediction", answer, lambda a: _wrong_tool_set(a, expected, set(results)),
          hint="JSON has a text for a date, and default=str gives every value its str(); what is "
               "the str() of an object whose class defines none?",
          why="A value without a text of its own has only its address, and the kit refuses to "
              "send that.")


def _when_matches(value: Any, when: datetime.date) -> bool:
    return value == when or value in (str(when), when.isoformat())


def _wrong_booking_result(answer: Any, booking: Any) -> str | None:
    fields = dataclasses.asdict(booking)
    if dataclasses.is_dataclass(answer) and not isinstance(answer, type):
        return ("that is the dataclass itself: the kit sends it as str() of it, Python source "
                "inside one JSON string, not its fields")
    if isinstance(answer, str):
        if answer == str(booking) or answer == repr(booking):
            return "that is the dataclass's repr: Python source, which JSON cannot read as fields"
        try:
            answer = json.loads(answer)
        except ValueError:
            return "that text is not JSON: the model should get the fields as a JSON object"
        if isinstance(answer, str):
            return "that is JSON, but one string: the fields should be an object's keys and values"
    if isinstance(answer, bytes):
        return "expected text or a dict, got bytes: a result travels as text"
    if not isinstance(answer, Mapping):
        return (f"expected a dict of the booking's fields (or that dict as JSON text), "
                f"got {type(answer).__name__}")
    keys = {str(k) for k in answer}
    if keys != set(fields):
        got = ", ".join(sorted(keys)) or "none"
        return f"the keys should be the dataclass's field names ({', '.join(fields)}), got {got}"
    for name, value in fields.items():
        same = _when_matches if isinstance(value, datetime.date) else (lambda a, b: a == b)
        if not same(answer[name], value):
            return f"the value of {name!r} is not the booking's"
    return None


def my_booking_result(answer: Any, booking: Any) -> None:
    """What a tool should return for the dataclass `booking`: its fields as a dict, or that dict
    as JSON text (the date as its text)."""
    check("Your turn", answer, lambda a: _wrong_booking_result(a, booking),
          hint="the dataclasses module turns a dataclass into a dict of its fields; a value JSON "
               "has no type for (the date) goes the way section 4's first paragraph says",
          why="Fields as JSON keys and the date as text: data the model reads, the same every run.")


def q1(answer: Any, run: Run) -> None:
    """Messages call 3 would send if the model asked for another tool after the weather."""
    expected = run.steps[1].messages_sent + 2  # call 2's messages + its reply + the new result
    check("Q1", answer, number(expected),
          hint="call 3 re-sends everything call 2 sent, plus what came after it")


def _wrong_calculator_run(answer: Any, expression: str, value: str) -> str | None:
    if not isinstance(answer, Run):
        return f"expected the Run that run_agent returned, got {type(answer).__name__}"
    used = [(c, r) for c, r in tool_exchanges(answer) if c.name == "calculator"]
    if not used:
        return "the run never called the calculator tool"
    if not any(r.content == value and not r.is_error for _, r in used):
        return f"no calculator call returned {value}: did it compute {expression!r}?"
    if not mentions_number(answer.answer, value):
        return "the final answer does not state the number the calculator returned"
    return None


def exercise_1(answer: Any, *, expression: str = "17 * 23 - 100") -> None:
    """Your run: the calculator tool works out `expression`, and the answer states the result."""
    from ..tools import calculator

    value = calculator(expression)
    check("Exercise 1", answer, lambda a: _wrong_calculator_run(a, expression, value),
          hint="section 2 scripts a model that calls a tool and then answers; read message 3 "
               "of your run's trace before you write the model's sentence")


#: A worked answer per question, as the source a learner would type (tests run them
#: through the lesson; a teacher's solutions are generated from these).
SOLUTIONS: dict[str, str] = {
    "predict_doubling": "3",
    "predict_tool_runs": "0",
    "predict_readable": '{"next_slot", "book"}',
    "my_booking_result": "dataclasses.asdict(booking)",
    "q1": "5",
    "exercise_1": ('run_agent(ScriptedProvider([call("calculator", expression="17 * 23 - 100"), '
                   '"17 * 23 - 100 = 291."]), "What is 17 * 23 - 100?", tools=[calculator])'),
}
