# mypy: disable-error-code="no-untyped-def"
# (the worked definitions of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 11, "When the model misbehaves".

Most answers are values, checked as in every lesson, each computed from the lesson's own
data. Two are code the learner writes in a `your-code` cell, judged by what it does, one
clause at a time; the check names the first clause that fails, and a definition whose body
is still the template's `...` counts as not answered yet:

    run_call      answer one tool call with a ToolResult: never raise, and never run a tool the
                  model invented or arguments the schema rejects; handing the call to the kit's
                  `execute` is refused ("write it yourself")
    RepeatGuard   exercise 1: an approve function with a memory, refusing a call already made
                  `limit` times with the same tool and the same arguments

The worked definitions are real code below (linted, and run by the tests); `SOLUTIONS`
holds their source, which tests/test_lessons.py puts in place of the templates.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..errors import MaxStepsExceeded
from ..examples import PARIS_QUESTION, weather_policy
from ..loop import run_agent
from ..messages import Message
from ..misbehaving import guesses_the_city, keeps_checking
from ..providers.scripted import ScriptedProvider, stage
from ..selfcheck import check, equal, number
from ..tool import Tool, execute
from ..tools.weather import get_weather
from ..transcript import Transcript
from ..wire import check as api_check
from ._runs import raised as _raised
from ._runs import run_watching, tool_exchanges
from ._runs import template as _template
from ._runs import unwritten as _unwritten

__all__ = ["SOLUTIONS", "RepeatGuard", "exercise_1", "predict_last_role", "predict_messages",
           "predict_runs", "q1", "q2", "run_call", "your_run_call"]


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


# -- section 5: a paused turn ----------------------------------------------------------------------
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


# -- section 6: the loop that never ends ---------------------------------------------------------
def predict_messages(answer: Any, transcript: Any) -> None:
    """Messages in the transcript when max_steps=4 stops the model that keeps checking."""
    check("Prediction", answer, number(len(transcript) if isinstance(transcript, Transcript) else -1),
          hint="count the question, then what each of the four model calls adds: its reply, and your "
               "code's results")


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


def _letters(expected: set[str], letters: tuple[str, ...]) -> Any:
    compare = equal(expected)

    def check_letters(given: Any) -> str | None:
        if isinstance(given, set) and not given <= set(letters):
            return f"use the lower-case letters {', '.join(letters[:-1])} and {letters[-1]}"
        return compare(given)
    return check_letters


def q1(answer: Any) -> None:
    """Which of the four mistakes the API itself refuses (Anthropic's rules), as a set of letters."""
    refused = {letter for letter, transcript in _staged_mistakes().items()
               if api_check(transcript, api="anthropic", tools=[get_weather])}
    check("Q1", answer, _letters(refused, LETTERS),
          hint="the API checks the shape of the conversation (which call each result answers), not "
               "whether an argument or a result makes sense")


_Q2_REASONS = {"a": "max_tokens", "b": "pause_turn", "c": "context_window_exceeded"}


def q2(answer: Any) -> None:
    """After which text-only replies run_agent calls the model again by itself."""
    again = set()
    for letter, reason in _Q2_REASONS.items():
        script = ScriptedProvider([stage("The weather in Par", stop_reason=reason), "It's 18°C."])
        if len(run_agent(script, PARIS_QUESTION).steps) > 1:
            again.add(letter)
    check("Q2", answer, _letters(again, tuple(_Q2_REASONS)),
          hint="section 5: which reply is meant to go back as it came, and which ones end the run "
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
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            run = run_agent(ScriptedProvider(keeps_checking), PARIS_QUESTION, tools=[get_weather],
                            approve=cls(2))
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
    "run_call": inspect.getsource(run_call),
    "predict_runs": "1",
    "predict_last_role": '"assistant"',
    "predict_messages": "9",
    "q1": '{"a", "d"}',
    "q2": '{"b"}',
    "RepeatGuard": inspect.getsource(RepeatGuard),
}
