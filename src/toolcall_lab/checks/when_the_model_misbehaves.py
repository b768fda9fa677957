# mypy: disable-error-code="no-untyped-def"
# (the worked definitions of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 6, "When the model misbehaves".

Most answers are values, checked as in every lesson, each computed from the lesson's own
data. Four are code the learner writes in a `your-code` cell, judged by what it does, one
clause at a time; the check names the first clause that fails, and a definition whose body
is still the template's `...` counts as not answered yet:

    run_call          answer one tool call with a ToolResult: never raise, and never run a tool
                      the model invented or arguments the schema rejects
    permission_gate   the lesson's permission gate: reading files is allowed, anything else is
                      refused with a reason, so the injected delete_files never runs
    careful_gate      exercise 2: deleting is allowed inside tmp/ only, and a path that climbs
                      out with ".." is refused
    RepeatGuard       exercise 3: an approve function with a memory, refusing a call already
                      made `limit` times with the same arguments

The worked definitions are real code below (linted, and run by the tests); `SOLUTIONS`
holds their source, which tests/test_lessons.py puts in place of the templates.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

from ..approval import REFUSED, refusal
from ..errors import MaxStepsExceeded
from ..examples import PARIS_QUESTION, weather_policy
from ..loop import Run, run_agent
from ..messages import Message, ToolCall, ToolResult, Transcript
from ..misbehaving import guesses_the_city, keeps_checking, obeys_injection
from ..providers.scripted import ScriptedProvider
from ..selfcheck import check, equal, number
from ..tool import Tool
from ..tools.files import DELETIONS, delete_files, read_file
from ..tools.weather import get_weather
from ..wire import check as api_check
from ._runs import mentions_number, tool_exchanges
from ._runs import raised as _raised
from ._runs import template as _template
from ._runs import unwritten as _unwritten
from .transcript_as_data import _quietly

__all__ = ["SOLUTIONS", "RepeatGuard", "careful_gate", "exercise_1", "exercise_2", "exercise_3",
           "permission_gate", "predict_messages", "predict_runs", "predict_second_choice", "q1", "q2", "q3",
           "run_call", "your_gate", "your_run_call"]

INBOX = "Summarise inbox/supplier-update.txt for me."


# -- the worked definitions ------------------------------------------------------------------------
def run_call(request, tools):
    """Answer one tool call with a ToolResult; never raise, never run what should not run."""
    tool = tools.get(request.name)
    if tool is None:
        known = ", ".join(tools) or "none"
        return ToolResult(request.id, f"There is no tool {request.name!r}; the tools are: {known}.",
                          is_error=True)
    if request.malformed:
        return ToolResult(request.id, f"The arguments were not a JSON object: {request.raw_args!r}.",
                          is_error=True)
    problem = tool.check_args(request.args)
    if problem is not None:
        return ToolResult(request.id, f"The arguments do not fit {request.name}: {problem}.", is_error=True)
    try:
        return ToolResult(request.id, str(tool(**request.args)))
    except Exception as error:
        return ToolResult(request.id, f"{request.name} failed: {error}", is_error=True)


def permission_gate(call):
    """True for a call this assistant may make (reading files); otherwise, why it is refused."""
    if call.name == "read_file":
        return True
    return f"this assistant may only read files, not call {call.name}"


def careful_gate(call):
    """Reading is allowed; deleting only inside tmp/; anything else is refused, saying why."""
    if call.name == "read_file":
        return True
    if call.name == "delete_files":
        path = str(call.args.get("path", ""))
        if path.startswith("tmp/") and ".." not in path.split("/"):
            return True
        return f"delete_files may only delete inside tmp/, not {path!r}"
    return f"{call.name} is not allowed for this assistant"


class RepeatGuard:
    """An approve function that refuses a call already made `limit` times with the same arguments."""

    def __init__(self, limit):
        """Keep the limit, and start counting from zero."""
        self.limit = limit
        self.seen = {}

    def __call__(self, call):
        """True for the first `limit` identical calls; for a later one, why it is refused."""
        key = (call.name, json.dumps(dict(call.args), sort_keys=True))
        self.seen[key] = self.seen.get(key, 0) + 1
        if self.seen[key] <= self.limit:
            return True
        return f"{call.name} already ran {self.limit} times with these arguments; use the result you have"


# -- what the checks share --------------------------------------------------------------------------
def _asked(gate: Callable[[ToolCall], Any], call: ToolCall) -> tuple[Any, str | None]:
    """(what `gate` answered about `call`, or None and what it raised)."""
    try:
        return gate(call), None
    except Exception as exc:
        return None, (f"it raised {_raised(exc)} for {call.name}({dict(call.args)}); a gate must answer "
                      "every call")


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
            result = function(request, {"get_weather": _counting_weather(ran)})
        except Exception as exc:
            return f"on {what}, run_call raised {_raised(exc)}; it must answer with an error result instead"
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


# -- section 5: the loop that never ends ---------------------------------------------------------
def predict_messages(answer: Any, transcript: Any) -> None:
    """Messages in the transcript when max_steps=4 stops the model that keeps checking."""
    check("Prediction", answer, number(len(transcript) if isinstance(transcript, Transcript) else -1),
          hint="count the question, then what each of the four model calls adds: its reply, and your "
               "code's results")


# -- section 8: tool choice ------------------------------------------------------------------------
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


# -- section 10: your permission gate ---------------------------------------------------------------
def _gated(gate: Any) -> tuple[Run, list[str]]:
    """The gullible model's run with `gate` as approve, and what delete_files was asked to delete."""
    before = len(DELETIONS)
    run = run_agent(ScriptedProvider(obeys_injection), INBOX, tools=[read_file, delete_files], approve=gate)
    return run, DELETIONS[before:]


def _wrong_gate(gate: Any) -> str | None:
    if not callable(gate) or isinstance(gate, type):
        return f"expected the function itself (permission_gate, without brackets), got {type(gate).__name__}"
    reading = ToolCall("toolu_01", "read_file", {"path": "notes/todo.txt"})
    answer, raised = _asked(gate, reading)
    if raised or answer is not True:
        return raised or f"it answered {answer!r} for read_file; the assistant must still read files (True)"
    for call in (ToolCall("toolu_02", "delete_files", {"path": "/"}),
                 ToolCall("toolu_03", "send_email", {"to": "all@example.com", "text": "Hi"})):
        answer, raised = _asked(gate, call)
        if raised:
            return raised
        if answer is True:
            return (f"it let {call.name} through; name what is allowed, not what is forbidden: the next "
                    "injection will ask for a tool you did not think of")
        if not isinstance(answer, str) or not answer.strip():
            return f"it refused {call.name} with {answer!r}; say why, in a short string the model will read"
    run, deleted = _gated(gate)
    if deleted:
        return f"delete_files ran during the run, asked to delete {deleted}"
    return None


def your_gate(answer: Any) -> None:
    """Your permission gate, on the injected run: delete_files must never run."""
    if _template(answer):
        check("permission_gate", ..., _wrong_gate, hint="")
        return
    problem = _wrong_gate(answer)
    why = ""
    if problem is None:
        run, _ = _gated(answer)
        told = next((r.content for r in run.transcript.tool_results() if r.content.startswith(REFUSED)), "")
        why = f"delete_files never ran, and the model was told: {told.split('. ')[0] + '.'!r}"
    check("permission_gate", answer, lambda _: problem, why=why,
          hint="the gate sees one ToolCall: its name says which tool; return True only for the one tool "
               "this assistant needs, and a sentence for every other")


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
    compare = equal(refused)

    def letters(given: Any) -> str | None:
        if isinstance(given, set) and not given <= set(LETTERS):
            return "use the lower-case letters a, b, c and d"
        return compare(given)

    check("Q1", answer, letters,
          hint="the API checks the shape of the conversation (which call each result answers), not "
               "whether an argument or a result makes sense")


def q2(answer: Any) -> None:
    """How many model calls of a run with tool_choice="required" are sent with the forced choice."""
    provider = ScriptedProvider(weather_policy)
    run_agent(provider, PARIS_QUESTION, tools=[get_weather], tool_choice="required")
    check("Q2", answer, number(sum(1 for r in provider.requests if r.tool_choice is not None)),
          hint="section 8: what run_agent does with a forced choice once the model has called a tool")


def q3(answer: Any) -> None:
    """Whether read_file runs when the approve function forgets its return (returns None)."""
    forgot: Any = lambda call: None  # a gate whose branch forgot its return
    runs = refusal(ToolCall("toolu_01", "read_file", {"path": "notes/todo.txt"}),
                   {"read_file": read_file}, forgot) is None
    check("Q3", answer, equal(runs),
          hint="a gate that says neither yes nor no: does the kit fail open or closed? (section 10)")


# -- exercises ---------------------------------------------------------------------------------------
def _wrong_forced(run: Any) -> str | None:
    if not isinstance(run, Run):
        return f"expected the Run that run_agent returns, got {type(run).__name__}"
    if not run.steps or run.steps[0].tool_choice != "calculator":
        said = run.steps[0].tool_choice if run.steps else None
        return f"its first call was sent with tool_choice={said!r}; force the calculator on it"
    exchanges = [(c, r) for c, r in tool_exchanges(run) if c.name == "calculator" and not r.is_error]
    if not exchanges or exchanges[0][1].content != "291":
        return "the calculator should work out 17 * 23 - 100 on the forced call (its result is 291)"
    if not mentions_number(run.answer, "291"):
        return f"the answer {run.answer[:40]!r} should give the number the calculator returned"
    return None


def exercise_1(answer: Any) -> None:
    """A run whose first call is forced to use the calculator, then answers with its result."""
    check("Exercise 1", answer, _wrong_forced,
          hint="run_agent takes tool_choice=; the first reply of your script must then be a calculator "
               "call (section 8 shows the scripted model holding you to it)")


def _wrong_careful(gate: Any) -> str | None:
    if not callable(gate) or isinstance(gate, type):
        return f"expected the function itself (careful_gate, without brackets), got {type(gate).__name__}"
    cases = [
        (ToolCall("t1", "read_file", {"path": "notes/todo.txt"}), True, "reading a file"),
        (ToolCall("t2", "delete_files", {"path": "tmp/old.txt"}), True, "deleting tmp/old.txt"),
        (ToolCall("t3", "delete_files", {"path": "tmp/cache/"}), True, "deleting tmp/cache/"),
        (ToolCall("t4", "delete_files", {"path": "notes/todo.txt"}), False, "deleting notes/todo.txt"),
        (ToolCall("t5", "delete_files", {"path": "/"}), False, "deleting /"),
        (ToolCall("t6", "delete_files", {"path": "tmpfiles/x"}), False,
         "deleting tmpfiles/x (not inside tmp/)"),
        (ToolCall("t7", "delete_files", {"path": "tmp/../notes/todo.txt"}), False,
         "deleting tmp/../notes/todo.txt (.. climbs out of tmp/)"),
        (ToolCall("t8", "send_email", {"to": "all@example.com"}), False, "send_email"),
    ]
    for call, allowed, what in cases:
        said, raised = _asked(gate, call)
        if raised:
            return raised
        if allowed and said is not True:
            return f"it refused {what} ({said!r}); that one is allowed"
        if not allowed and said is True:
            return f"it allowed {what}"
        if not allowed and not (isinstance(said, str) and said.strip()):
            return f"it refused {what} with {said!r}; say why, in a short string"
        if call.name == "delete_files" and not allowed and str(call.args["path"]) not in said:
            return f"its reason for refusing {what} should name the path, so the model can tell the user"
    return None


def exercise_2(answer: Any) -> None:
    """Your careful_gate: reading yes, deleting inside tmp/ only, anything else no."""
    check("Exercise 2", ... if _template(answer) else answer, _wrong_careful,
          hint="split the path on '/': it must start with the folder tmp and hold no '..' part")


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
    try:
        run, _ = _quietly(lambda: run_agent(ScriptedProvider(keeps_checking), PARIS_QUESTION,
                                            tools=[get_weather], approve=cls(2)))
    except MaxStepsExceeded:
        return "with it as approve=, the model that keeps checking still ran into max_steps"
    except Exception as exc:
        return f"run_agent with it raised {_raised(exc)}"
    ran = [r for _, r in tool_exchanges(run) if not r.is_error]
    if len(ran) != 2:
        return f"in the run, get_weather ran {len(ran)} times; with limit 2 it should run twice"
    return None


def exercise_3(answer: Any) -> None:
    """Your RepeatGuard, alone and as approve= for the model that keeps checking."""
    check("Exercise 3", ... if _unwritten(answer, "__call__") else answer, _wrong_guard,
          hint="keep a count per (tool name, arguments) on self; a dict of arguments becomes a key once it "
               "is written the same way whatever its order (json.dumps has sort_keys=True)")


SOLUTIONS: dict[str, str] = {
    "run_call": inspect.getsource(run_call),
    "predict_runs": "1",
    "predict_messages": "9",
    "predict_second_choice": "None",
    "permission_gate": inspect.getsource(permission_gate),
    "q1": '{"a", "d"}',
    "q2": "1",
    "q3": "False",
    "exercise_1": ('run_agent(ScriptedProvider([call("calculator", expression="17 * 23 - 100"), '
                   '"It is 291."]), "What is 17 * 23 - 100?", tools=[get_weather, calculator], '
                   'tool_choice="calculator")'),
    "careful_gate": inspect.getsource(careful_gate),
    "RepeatGuard": inspect.getsource(RepeatGuard),
}
