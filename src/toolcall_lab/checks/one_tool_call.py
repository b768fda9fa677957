"""Answer keys of lesson 1, "One tool call, message by message".

Each function checks one cell of the lesson; see `toolcall_lab.selfcheck` for what a
learner sees. The expected values come from the data passed in, never from the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..blocks import ToolCall, ToolResult
from ..loop import Run
from ..messages import Message
from ..selfcheck import check, exact, number
from ..tool import Tool, execute, tool_map

if TYPE_CHECKING:
    from ..providers.scripted import ScriptedProvider
    from ..providers.sdk import WireProvider

__all__ = ["SOLUTIONS", "exercise_1", "predict_call_2", "q1", "q2", "tool_result"]


def _wrong_result(answer: Any, request: ToolCall, tool: Tool) -> str | None:
    if not isinstance(answer, ToolResult):
        return f"expected a ToolResult(call_id, content), got {type(answer).__name__}"
    problem = exact(request.id)(answer.call_id)
    if problem is not None:
        return f"its call_id {answer.call_id!r} does not answer the request: {problem}"
    if answer.is_error:
        return "the tool worked, so the result is not an error"
    if answer.content != execute(request, tool_map([tool])).content:
        return "its content is not what the tool returned for these arguments"
    return None


def tool_result(answer: Any, request: ToolCall, tool: Tool) -> None:
    """Your ToolResult for `request`: the right call_id and exactly what `tool` returned."""
    check("Your result", answer, lambda a: _wrong_result(a, request, tool),
                 hint="read the request printed above: one of its fields is what the tool takes, "
                      "another is the id the result must answer")


def predict_call_2(answer: Any, provider: ScriptedProvider | WireProvider) -> None:
    """How many messages the second call sent (read from what the provider recorded)."""
    sent = len(provider.requests[-1].messages)
    check("Prediction", answer, number(sent),
                 hint="count every message in the transcript just before call 2: the model keeps "
                      "nothing between calls",
                 why="The model keeps nothing between calls, so call 2 re-sends the question too.")


def q1(answer: Any) -> None:
    """If the loop forgot to append the model's reply, which message of the four goes missing?"""
    check("Q1", answer, number(2),
                 hint="list the four messages and ask which one the loop appends from the reply "
                      "(the result's id would then point at a call the API never sees)")


def q2(answer: Any, run: Run) -> None:
    """The call_id the result for Cairo must carry, in the two-city run."""
    cairo = [c for c in run.transcript.tool_calls() if str(c.args.get("city", "")).casefold() == "cairo"]
    expected = cairo[0].id if cairo else "(the run asked for no Cairo call)"
    check("Q2", answer, exact(expected),
                 hint="find the call whose arguments name Cairo; a result carries its call's id")


def _wrong_results_message(answer: Any, run: Run, tool: Tool) -> str | None:
    if isinstance(answer, list):
        return "all the results of one reply travel together, in one message"
    if not isinstance(answer, Message):
        return f"expected one Message (Message.results([...])), got {type(answer).__name__}"
    if answer.role != "user":
        return f"results travel in a user message, not {answer.role!r}"
    calls = run.transcript[1].tool_calls
    results = answer.tool_results
    if len(results) != len(calls):
        return f"the reply asked for {len(calls)} tools; answer every call, no more"
    by_id = {r.call_id: r for r in results}
    for request in calls:
        if request.id not in by_id:
            return f"no result carries the id {request.id!r} exactly"
        if _wrong_result(by_id[request.id], request, tool) is not None:
            return f"the result for {request.id!r} is not what the tool returned for its arguments"
    return None


def exercise_1(answer: Any, run: Run, tool: Tool) -> None:
    """Your message answering both calls of the two-city run."""
    check("Exercise 1", answer, lambda a: _wrong_results_message(a, run, tool),
                 hint="section 3 answered one call; look at how many messages the results of one "
                      "reply travel in, and which call each result takes its id and its arguments from")


#: A worked answer per question, as the source a learner would type (tests run them
#: through the lesson; a teacher's solutions are generated from these).
SOLUTIONS: dict[str, str] = {
    "my_result": "ToolResult(request.id, get_weather(**request.args))",
    "predict_call_2": "3",
    "q1": "2",
    "q2": 'next(c.id for c in two_cities.transcript[1].tool_calls if c.args["city"] == "Cairo")',
    "exercise_1": ("Message.results([ToolResult(c.id, get_weather(**c.args)) "
                   "for c in two_cities.transcript[1].tool_calls])"),
}
