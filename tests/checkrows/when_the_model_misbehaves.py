"""Lesson 11's wrong answers: values, and run_call functions that each get one thing wrong."""

from __future__ import annotations

import functools

from checkrows import Row
from toolcall_lab import ScriptedProvider, ToolResult, run_agent
from toolcall_lab import tool as tool_module
from toolcall_lab.checks import when_the_model_misbehaves as key
from toolcall_lab.checks.when_the_model_misbehaves import run_call
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.misbehaving import sends_bad_arguments
from toolcall_lab.tool import execute
from toolcall_lab.tools import get_weather

BAD = run_agent(ScriptedProvider(sends_bad_arguments), PARIS_QUESTION, tools=[get_weather])


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


ROWS = [
    Row("11 run_call", key.your_run_call, (), lambda: run_call,
        (lambda: "run_call", lambda: trusts_the_arguments, lambda: swallows_failures,
         lambda: looks_tools_up_by_key, lambda: answers_another_id, lambda: names_no_tools)),
    Row("11 run_call shortcuts", key.your_run_call, (), lambda: run_call,
        (lambda: execute, lambda: wraps_execute, lambda: (lambda r, t: execute(r, t)),
         lambda: wraps_the_module, lambda: calls_it_renamed, lambda: functools.partial(execute))),
    Row("11 predict_runs", key.predict_runs, (BAD,), lambda: 1,
        (lambda: 2, lambda: "1", lambda: 0, lambda: True)),
    Row("11 q1", key.q1, (), lambda: {"a", "d"},
        (lambda: {"a"}, lambda: {"a", "c", "d"}, lambda: "ad", lambda: {"A", "D"}, lambda: ["a", "d"])),
    Row("11 exercise_1", key.exercise_1, (), lambda: {"anthropic", "responses", "chat"},
        (lambda: {"anthropic"},  # the one API that refused section 3's empty message
         lambda: set(),  # the results message is not empty this time, so all would take it
         lambda: {"anthropic", "responses", "chat", "ollama"},
         lambda: {"Anthropic", "Responses", "Chat"},  # the vendors' spelling, not wire.APIS'
         lambda: "anthropic, responses, chat",  # text that merely holds the names
         lambda: ["anthropic", "responses", "chat"],  # the right names, not a set
         lambda: ("anthropic", "responses", "chat"))),
]
