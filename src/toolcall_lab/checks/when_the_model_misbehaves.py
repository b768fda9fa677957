# mypy: disable-error-code="no-untyped-def"
# (the worked definition of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 11, "When the model misbehaves".

Most answers are values, checked as in every lesson, each computed from the lesson's own
data or from transcripts staged here the way the lesson stages them. One is code the learner
writes in a `your-code` cell, judged by what it does, one clause at a time; the check names
the first clause that fails, and a body that is still the template's `...` counts as not
answered yet:

    run_call      answer one tool call with a ToolResult: never raise, and never run a tool the
                  model invented or arguments the schema rejects; handing the call to the kit's
                  `execute` is refused ("write it yourself")

The worked definition is real code below (linted, and run by the tests); `SOLUTIONS` holds
its source, which tests/test_lessons.py puts in place of the template. What a loop does with
each stop reason, and `RepeatGuard`, went to lesson 12's key (`reading_the_stop_reason`).

    >>> exercise_1({"anthropic", "responses", "chat"})
    Exercise 1: correct.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..examples import PARIS_QUESTION, weather_policy
from ..loop import run_agent
from ..messages import Message
from ..misbehaving import guesses_the_city
from ..providers.scripted import ScriptedProvider
from ..selfcheck import check, number
from ..tool import Tool, execute
from ..tools.weather import get_weather
from ..transcript import Transcript
from ..wire import APIS
from ..wire import check as api_check
from ._runs import raised as _raised
from ._runs import run_watching, set_of, tool_exchanges
from ._runs import template as _template

__all__ = ["SOLUTIONS", "exercise_1", "predict_runs", "q1", "run_call", "your_run_call"]


# -- the worked definitions ------------------------------------------------------------------------
def run_call(request, tools):
    """Answer one call with a ToolResult; never raise, never run what must not."""
    tool = tools.get(request.name)
    if tool is None:
        known = ", ".join(tools) or "none"
        return ToolResult(request.id, f"There is no tool {request.name!r}; "
                          f"the tools are: {known}.", is_error=True)
    if request.malformed:
        return ToolResult(request.id, "The arguments were not a JSON object: "
                          f"{request.raw_args!r}.", is_error=True)
    problem = tool.check_args(request.args)
    if problem is not None:
        return ToolResult(request.id, f"The arguments do not fit {request.name}: "
                          f"{problem}.", is_error=True)
    try:
        return ToolResult(request.id, str(tool(**request.args)))
    except Exception as error:
        return ToolResult(request.id, f"{request.name} failed: {error}",
                          is_error=True)


# -- what the checks share --------------------------------------------------------------------------
def _counting_weather(ran: list[str]) -> Tool:
    """get_weather, as the model sees it, writing down each city it really runs for."""
    def counted(city: str) -> str:
        ran.append(city)
        return str(get_weather(city=city))

    return Tool("get_weather", get_weather.description, get_weather.input_schema, counted)


# -- section 3: your run_call --------------------------------------------------------------------
_REQUESTS = [
    ("a good call", ToolCall("toolu_01", "get_weather", {"city": "Paris"})),
    ("a tool nobody offered", ToolCall("toolu_02", "get_forecast", {"city": "Paris"})),
    ("arguments the schema rejects", ToolCall("toolu_03", "get_weather", {"town": "Paris"})),
    ("arguments of the wrong type", ToolCall("toolu_04", "get_weather", {"city": 42})),
    ("arguments that are not JSON", ToolCall("toolu_05", "get_weather", {}, raw_args='{"city": "Par')),
    ("a tool that raises", ToolCall("toolu_06", "get_weather", {"city": "Atlantis"})),
]


def _wrong_run_call(function: Any) -> str | None:
    if not callable(function) or isinstance(function, type):
        return f"expected the function itself (run_call, without brackets), got {type(function).__name__}"
    for what, request in _REQUESTS:
        ran: list[str] = []
        try:
            result, leaned = run_watching(execute, function, request, {"get_weather": _counting_weather(ran)})
        except Exception as exc:
            return f"on {what}, run_call raised {_raised(exc)}; it must answer with an error result instead"
        if leaned:
            return "it hands the request to the kit's execute; write it yourself, one question at a time"
        if not isinstance(result, ToolResult):
            return f"on {what}, it returned {type(result).__name__}, not a ToolResult"
        if result.call_id != request.id:
            return f"on {what}, the result answers {result.call_id!r}, not the request's id {request.id!r}"
        if what == "a good call":
            if result.is_error or result.content != "18°C, sunny" or ran != ["Paris"]:
                return f"on {what}, the result should be the tool's own answer, got {result!r}"
        elif not result.is_error:
            return f"on {what}, the result must say is_error=True, or the model reads it as a success"
        elif what.startswith("arguments") and ran:
            return f"on {what}, the tool ran anyway; check the arguments before running anything"
        elif what == "a tool nobody offered" and "get_weather" not in result.content:
            return f"on {what}, the error should name the tools there are, so the model can pick one"
        elif what == "a tool that raises" and "no weather data" not in result.content:
            return f"on {what}, the error should say what the tool raised, so the model can fix its call"
    return None


def your_run_call(answer: Any) -> None:
    """Your run_call, on a good call and five that go wrong."""
    check("run_call", ... if _template(answer) else answer, _wrong_run_call,
          hint="read the sentence before the hint: it names the request that went wrong; the list above "
               "the cell says what each one should get back")


def _ran_for_real(run: Any) -> int:
    """How many get_weather calls of `run` got past the argument check and ran."""
    return sum(1 for call, _ in tool_exchanges(run) if call.name == "get_weather"
               and not call.malformed and get_weather.check_args(call.args) is None)


def predict_runs(answer: Any, run: Any) -> None:
    """How many times get_weather's function ran in the bad-arguments run."""
    check("Prediction", answer, number(_ran_for_real(run)),
          hint="the schema is checked before the function runs; which of the two calls fits it?")


# -- check yourself ----------------------------------------------------------------------------------
LETTERS = ("a", "b", "c", "d")


def _staged_mistakes() -> dict[str, Transcript]:
    """The four transcripts of Q1: (a) reply dropped, (b) a guessed city, (c) a failure passed off
    as an empty success, (d) two calls answered with the first one's id."""
    paris = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather]).transcript
    pair = run_agent(ScriptedProvider(weather_policy), "Weather in Paris and Tokyo?", tools=[get_weather])
    first = pair.transcript[1].tool_calls[0].id
    atlantis = run_agent(ScriptedProvider([[ToolCall("", "get_weather", {"city": "Atlantis"})], "Sunny."]),
                         "Weather in Atlantis?", tools=[get_weather]).transcript
    return {
        "a": Transcript(messages=[paris[0], paris[2]]),
        "b": run_agent(ScriptedProvider(guesses_the_city), "What's the weather?",
                       tools=[get_weather]).transcript,
        "c": Transcript(messages=[atlantis[0], atlantis[1],
                                  Message.results([ToolResult(atlantis[1].tool_calls[0].id, "")])]),
        "d": Transcript(messages=[pair.transcript[0], pair.transcript[1], Message.results(
            [ToolResult(first, "18°C, sunny"), ToolResult(first, "22°C, cloudy")])]),
    }


def q1(answer: Any) -> None:
    """Which of the four mistakes the API itself refuses (Anthropic's rules), as a set of letters."""
    refused = {letter for letter, transcript in _staged_mistakes().items()
               if api_check(transcript, api="anthropic", tools=[get_weather])}
    check("Q1", answer, set_of(refused, LETTERS),
          hint="the API checks the shape of the conversation (which call each result answers), not "
               "whether an argument or a result makes sense")


# -- exercises ---------------------------------------------------------------------------------------
EXERCISE_1_QUESTION = "Weather in Paris and Atlantis?"


def _one_of_two_skipped() -> Transcript:
    """What the section 1 loop leaves after a reply of two calls whose second raises: the reply,
    then one result (the failure skipped), then the answer."""
    paris = ToolCall("toolu_01", "get_weather", {"city": "Paris"})
    atlantis = ToolCall("toolu_02", "get_weather", {"city": "Atlantis"})
    return Transcript(messages=[Message.user(EXERCISE_1_QUESTION), Message.assistant(paris, atlantis),
                                Message.results([ToolResult(paris.id, str(get_weather(city="Paris")))]),
                                Message.assistant("It's 18°C and sunny in Paris.")])


def exercise_1(answer: Any) -> None:
    """The APIs that refuse what the loop sends after one of two calls failed and was skipped."""
    refused = {api for api in APIS if api_check(_one_of_two_skipped(), api=api, tools=[get_weather])}
    check("Exercise 1", answer, set_of(refused, APIS, named="API names"),
          hint="which of the two calls has a result in the next message? Section 2 asked the APIs "
               "about a call left like that")


SOLUTIONS: dict[str, str] = {
    "run_call": inspect.getsource(run_call),
    "predict_runs": "1",
    "q1": '{"a", "d"}',
    "exercise_1": '{"anthropic", "responses", "chat"}',
}
