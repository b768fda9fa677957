"""Lesson 11's wrong answers: values, and functions and classes that each get one thing wrong."""

from __future__ import annotations

import functools
import json

from checkrows import Row
from toolcall_lab import ApiDouble, MaxStepsExceeded, ScriptedProvider, ToolResult, get_provider, run_agent
from toolcall_lab import tool as tool_module
from toolcall_lab.checks import when_the_model_misbehaves as key
from toolcall_lab.checks.when_the_model_misbehaves import RepeatGuard, run_call
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.misbehaving import keeps_checking, pauses_a_search, sends_bad_arguments
from toolcall_lab.tool import execute
from toolcall_lab.tools import get_weather

BAD = run_agent(ScriptedProvider(sends_bad_arguments), PARIS_QUESTION, tools=[get_weather])


def stuck():
    try:
        run_agent(ScriptedProvider(keeps_checking), PARIS_QUESTION, tools=[get_weather], max_steps=4)
    except MaxStepsExceeded as error:
        return error.run.transcript
    raise AssertionError("the looping model finished")


def paused_double():
    """The double after the lesson's paused run: its requests hold what the loop sent."""
    with ApiDouble(pauses_a_search) as double:
        searcher = get_provider("anthropic", base_url=double.base_url("anthropic"), max_retries=0)
        run_agent(searcher, PARIS_QUESTION)
    return double


PAUSED = paused_double()


# -- run_call, wrong one way each -------------------------------------------------------------------
def trusts_the_arguments(request, tools):
    """Runs whatever arguments arrive; a failure becomes an error result."""
    tool = tools.get(request.name)
    if tool is None:
        known = ", ".join(tools)
        return ToolResult(request.id, f"No tool {request.name}; the tools are: {known}", is_error=True)
    try:
        return ToolResult(request.id, str(tool(**request.args)))
    except Exception as error:
        return ToolResult(request.id, str(error), is_error=True)


def swallows_failures(request, tools):
    """Checks everything, then passes a failure off as an empty success."""
    result = run_call(request, tools)
    return ToolResult(request.id, "") if result.is_error and "failed" in result.content else result


def looks_tools_up_by_key(request, tools):
    """tools[request.name]: an unknown tool raises KeyError."""
    return run_call(request, tools) if request.name in tools else ToolResult(
        request.id, str(tools[request.name]))


def answers_another_id(request, tools):
    result = run_call(request, tools)
    return ToolResult(request.id.upper(), result.content, result.is_error)


def names_no_tools(request, tools):
    if request.name not in tools:
        return ToolResult(request.id, "Unknown tool.", is_error=True)
    return run_call(request, tools)


# The shortcuts: the kit's own execute, under any name
def wraps_execute(request, tools):
    return execute(request, tools)


def wraps_the_module(request, tools):
    return tool_module.execute(request, tools)


renamed = execute


def calls_it_renamed(request, tools):
    return renamed(request, tools)


# -- RepeatGuards, wrong one way each ---------------------------------------------------------------
class SharedCounts(RepeatGuard):
    """Keeps its counts on the class: every guard shares them."""

    counts: dict = {}

    def __call__(self, call):
        name = (call.name, str(sorted(call.args.items())))
        SharedCounts.counts[name] = SharedCounts.counts.get(name, 0) + 1
        return True if SharedCounts.counts[name] <= self.limit else "a repeat"


class CountsByName(RepeatGuard):
    """Counts calls of a tool, whatever their arguments."""

    def __call__(self, call):
        self.seen[call.name] = self.seen.get(call.name, 0) + 1
        return True if self.seen[call.name] <= self.limit else "a repeat"


class IgnoresTheName(RepeatGuard):
    """Counts by the arguments alone: the same arguments to another tool look like a repeat."""

    def __call__(self, call):
        name = json.dumps(dict(call.args), sort_keys=True)
        self.seen[name] = self.seen.get(name, 0) + 1
        return True if self.seen[name] <= self.limit else "a repeat"


class OrderMatters(RepeatGuard):
    """Keys by str(args): the same arguments in another order look new."""

    def __call__(self, call):
        name = (call.name, str(dict(call.args)))
        self.seen[name] = self.seen.get(name, 0) + 1
        return True if self.seen[name] <= self.limit else "a repeat"


class RefusesWithFalse(RepeatGuard):
    def __call__(self, call):
        return super().__call__(call) is True


class OneTooFew(RepeatGuard):
    def __call__(self, call):
        said = super().__call__(call)
        return said if self.seen[(call.name, _json(call))] < self.limit else "a repeat"


def _json(call):
    return json.dumps(dict(call.args), sort_keys=True)


ROWS = [
    Row("6 run_call", key.your_run_call, (), lambda: run_call,
        (lambda: "run_call", lambda: trusts_the_arguments, lambda: swallows_failures,
         lambda: looks_tools_up_by_key, lambda: answers_another_id, lambda: names_no_tools)),
    Row("6 run_call shortcuts", key.your_run_call, (), lambda: run_call,
        (lambda: execute, lambda: wraps_execute, lambda: (lambda r, t: execute(r, t)),
         lambda: wraps_the_module, lambda: calls_it_renamed, lambda: functools.partial(execute))),
    Row("6 predict_runs", key.predict_runs, (BAD,), lambda: 1,
        (lambda: 2, lambda: "1", lambda: 0, lambda: True)),
    Row("6 predict_last_role", key.predict_last_role, (PAUSED,), lambda: "assistant",
        (lambda: "user", lambda: "Assistant", lambda: "the assistant", lambda: ["assistant"],
         lambda: "model")),
    Row("6 predict_messages", key.predict_messages, (stuck(),), lambda: 9,
        (lambda: 8, lambda: "9", lambda: 4, lambda: 9.5)),
    Row("6 q1", key.q1, (), lambda: {"a", "d"},
        (lambda: {"a"}, lambda: {"a", "c", "d"}, lambda: "ad", lambda: {"A", "D"}, lambda: ["a", "d"])),
    Row("6 q2", key.q2, (), lambda: {"b"},
        (lambda: {"a", "b"}, lambda: {"b", "c"}, lambda: "b", lambda: {"B"}, lambda: set(),
         lambda: {"a", "b", "c"})),
    Row("6 exercise_1", key.exercise_1, (), lambda: RepeatGuard,
        (lambda: RepeatGuard(2), lambda: "RepeatGuard", lambda: SharedCounts, lambda: CountsByName,
         lambda: IgnoresTheName, lambda: OrderMatters, lambda: RefusesWithFalse, lambda: OneTooFew)),
]
