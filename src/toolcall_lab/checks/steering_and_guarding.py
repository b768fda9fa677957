"""Answer keys and worked solutions of lesson 13, "Steering the model".

Every answer is a value, checked as in every lesson, each computed from the lesson's own
data: what the forced run's second call sent, which of three calls run at once finished
first, how many calls of a run with a required choice are forced, and a run whose first call
is forced to the calculator. The permission gate, which section 5 of this lesson held before
the split (issue 29 §4), is lesson 14's (`an_instruction_in_a_result`).

    >>> q1(1)
    Q1: correct.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..examples import PARIS_QUESTION, weather_policy
from ..loop import Run, run_agent
from ..providers.scripted import ScriptedProvider
from ..selfcheck import check, number
from ..tools.weather import get_weather
from ._runs import mentions_number, tool_exchanges

__all__ = ["SOLUTIONS", "exercise_1", "predict_first_done", "predict_second_choice", "q1"]


# -- section 1: tool choice ------------------------------------------------------------------------
def _choice(expected: str | None) -> Callable[[Any], str | None]:
    def compare(answer: Any) -> str | None:
        if answer == expected and type(answer) is type(expected):
            return None
        if answer == "None":
            return "that is the word None in quotes; the value None is written without them"
        if answer not in ("get_weather", "auto", None):
            return "answer with one of 'get_weather', 'auto' or None"
        return "that is not what the second call sent"
    return compare


def predict_second_choice(answer: Any, provider: Any) -> None:
    """What the forced run's second call sent as its tool_choice."""
    requests = getattr(provider, "requests", [])
    expected = requests[-1].tool_choice if requests else None
    check("Prediction", answer, _choice(expected),
          hint="after the first call the model has used a tool; what would forcing it again do to the run?")


# -- section 2: calls at once --------------------------------------------------------------------
def _first_city(finished: Sequence[Any], calls: Sequence[Any]) -> str | None:
    """The city of the call whose result finished first, matched by id."""
    cities = {c.id: str(c.args.get("city")) for c in calls if isinstance(c, ToolCall)}
    first = finished[0] if finished else None
    return cities.get(first.call_id) if isinstance(first, ToolResult) else None


def predict_first_done(answer: Any, finished: Any, calls: Any) -> None:
    """The city whose result came back first when the calls ran at once."""
    expected = _first_city(list(finished or []), list(calls or []))

    def compare(given: Any) -> str | None:
        if not isinstance(given, str):
            return f"answer with a city's name as text, not a {type(given).__name__}"
        if given.strip().casefold() == str(expected).casefold():
            return None if given.strip() == expected else "spell the city as the table does"
        if given.strip() in {str(c.args.get("city")) for c in calls or [] if isinstance(c, ToolCall)}:
            return "that one was asked for, but it was not the first to finish"
        return "name one of the three cities asked for"

    check("Prediction", answer, compare,
          hint="at once, each call takes as long as its own delay; which delay in the table is the shortest?")


# -- check yourself ----------------------------------------------------------------------------------
def q1(answer: Any) -> None:
    """How many model calls of a run with tool_choice="required" are sent with the forced choice."""
    provider = ScriptedProvider(weather_policy)
    run_agent(provider, PARIS_QUESTION, tools=[get_weather], tool_choice="required")
    check("Q1", answer, number(sum(1 for r in provider.requests if r.tool_choice is not None)),
          hint="section 1: what run_agent does with a forced choice once the model has called a tool")


# -- exercises ---------------------------------------------------------------------------------------
BOTH = ("get_weather", "calculator")


def _wrong_forced(run: Any) -> str | None:
    if not isinstance(run, Run):
        return f"expected the Run that run_agent returns, got {type(run).__name__}"
    if not run.steps or run.steps[0].tool_choice != "calculator":
        said = run.steps[0].tool_choice if run.steps else None
        return f"its first call was sent with tool_choice={said!r}; force the calculator on it"
    offered = run.steps[0].tools
    if sorted(offered) != sorted(BOTH):
        return (f"its first call offered {', '.join(offered) or 'no tools'}; the task offers both "
                "get_weather and calculator, so that forcing one of them means something")
    exchanges = [(c, r) for c, r in tool_exchanges(run) if c.name == "calculator" and not r.is_error]
    if not exchanges or exchanges[0][1].content != "291":
        return "the calculator should work out 17 * 23 - 100 on the forced call (its result is 291)"
    if not mentions_number(run.answer, "291"):
        return f"the answer {run.answer[:40]!r} should give the number the calculator returned"
    return None


def exercise_1(answer: Any) -> None:
    """A run offering both tools whose first call is forced to the calculator, then answers."""
    check("Exercise 1", answer, _wrong_forced,
          hint="run_agent takes the tools and the tool_choice; the first reply of your script must "
               "then be the call the choice forces (section 1 shows a scripted model held to it)")


SOLUTIONS: dict[str, str] = {
    "predict_second_choice": "None",
    "predict_first_done": '"Tokyo"',
    "q1": "1",
    "exercise_1": ('run_agent(ScriptedProvider([call("calculator", expression="17 * 23 - 100"), '
                   '"It is 291."]), "What is 17 * 23 - 100?", tools=[get_weather, calculator], '
                   'tool_choice="calculator")'),
}
