"""Lesson 6's wrong answers: values, and functions and classes that each get one thing wrong."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab import MaxStepsExceeded, ScriptedProvider, ToolResult, call, run_agent
from toolcall_lab.checks import when_the_model_misbehaves as key
from toolcall_lab.checks.when_the_model_misbehaves import RepeatGuard, careful_gate, permission_gate, run_call
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.misbehaving import keeps_checking, sends_bad_arguments
from toolcall_lab.tools import calculator, get_weather

BAD = run_agent(ScriptedProvider(sends_bad_arguments), PARIS_QUESTION, tools=[get_weather])


def stuck():
    try:
        run_agent(ScriptedProvider(keeps_checking), PARIS_QUESTION, tools=[get_weather], max_steps=4)
    except MaxStepsExceeded as error:
        return error.run.transcript
    raise AssertionError("the looping model finished")


def forced_provider():
    provider = ScriptedProvider(weather_policy)
    run_agent(provider, PARIS_QUESTION, tools=[get_weather, calculator], tool_choice="get_weather")
    return provider


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


# -- gates, wrong one way each ----------------------------------------------------------------------
def forbids_only_delete(call):
    return "deleting is not allowed" if call.name == "delete_files" else True


def refuses_everything(call):
    return "nothing is allowed"


def refuses_without_a_reason(call):
    return call.name == "read_file"


def says_yes_in_words(call):
    return "yes" if call.name == "read_file" else f"{call.name} is not allowed"


def any_tmp_prefix(call):
    if call.name == "delete_files":
        path = call.args["path"]
        return True if path.startswith("tmp") else f"not inside tmp/: {path!r}"
    return careful_gate(call)


def forgets_the_climb(call):
    if call.name == "delete_files":
        path = call.args["path"]
        return True if path.startswith("tmp/") else f"not inside tmp/: {path!r}"
    return careful_gate(call)


def reason_without_path(call):
    said = careful_gate(call)
    return "deleting there is not allowed" if said is not True and call.name == "delete_files" else said


def allows_every_delete(call):
    return True if call.name in ("read_file", "delete_files") else f"{call.name} is not allowed"


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
    import json

    return json.dumps(dict(call.args), sort_keys=True)


QUESTION = "What is 17 * 23 - 100?"
BOTH = [get_weather, calculator]


def calculator_run(*replies, tool_choice="calculator"):
    return run_agent(ScriptedProvider(list(replies)), QUESTION, tools=BOTH, tool_choice=tool_choice)


RIGHT_CALL = call("calculator", expression="17 * 23 - 100")

ROWS = [
    Row("5 run_call", key.your_run_call, (), lambda: run_call,
        (lambda: "run_call", lambda: trusts_the_arguments, lambda: swallows_failures,
         lambda: looks_tools_up_by_key, lambda: answers_another_id, lambda: names_no_tools)),
    Row("5 predict_runs", key.predict_runs, (BAD,), lambda: 1,
        (lambda: 2, lambda: "1", lambda: 0, lambda: True)),
    Row("5 predict_messages", key.predict_messages, (stuck(),), lambda: 9,
        (lambda: 8, lambda: "9", lambda: 4, lambda: 9.5)),
    Row("5 predict_second_choice", key.predict_second_choice, (forced_provider(),), lambda: None,
        (lambda: "get_weather", lambda: "auto", lambda: "None", lambda: "none")),
    Row("5 permission_gate", key.your_gate, (), lambda: permission_gate,
        (lambda: "permission_gate", lambda: (lambda c: True), lambda: forbids_only_delete,
         lambda: refuses_everything, lambda: refuses_without_a_reason, lambda: says_yes_in_words)),
    Row("5 q1", key.q1, (), lambda: {"a", "d"},
        (lambda: {"a"}, lambda: {"a", "c", "d"}, lambda: "ad", lambda: {"A", "D"}, lambda: ["a", "d"])),
    Row("5 q2", key.q2, (), lambda: 1, (lambda: 2, lambda: "1", lambda: 10, lambda: True)),
    Row("5 q3", key.q3, (), lambda: False, (lambda: True, lambda: "False", lambda: None, lambda: 0)),
    Row("5 exercise_1", key.exercise_1, (), lambda: calculator_run(RIGHT_CALL, "It is 291."),
        (lambda: calculator_run(RIGHT_CALL, "It is 291.", tool_choice=None),
         lambda: calculator_run(call("calculator", expression="17 * 23"), "It is 391."),
         lambda: calculator_run(RIGHT_CALL, "It is 2910."),
         lambda: "291",
         lambda: ScriptedProvider([RIGHT_CALL, "It is 291."]))),
    Row("5 exercise_2", key.exercise_2, (), lambda: careful_gate,
        (lambda: "careful_gate", lambda: any_tmp_prefix, lambda: forgets_the_climb,
         lambda: reason_without_path, lambda: allows_every_delete, lambda: permission_gate)),
    Row("5 exercise_3", key.exercise_3, (), lambda: RepeatGuard,
        (lambda: RepeatGuard(2), lambda: "RepeatGuard", lambda: SharedCounts, lambda: CountsByName,
         lambda: OrderMatters, lambda: RefusesWithFalse, lambda: OneTooFew)),
]
