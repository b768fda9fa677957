"""Lesson 13's wrong answers: values, runs and gates that each get one thing wrong."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab import ScriptedProvider, ToolResult, call, run_agent
from toolcall_lab.checks import steering_and_guarding as key
from toolcall_lab.checks.steering_and_guarding import careful_gate, permission_gate
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.messages import ToolCall
from toolcall_lab.tools import calculator, get_weather


def forced_provider():
    provider = ScriptedProvider(weather_policy)
    run_agent(provider, PARIS_QUESTION, tools=[get_weather, calculator], tool_choice="get_weather")
    return provider


# The lesson's three calls, and their results in the order they finished (Tokyo, Cairo, Paris)
CALLS = [ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
         ToolCall("toolu_02", "get_weather", {"city": "Tokyo"}),
         ToolCall("toolu_03", "get_weather", {"city": "Cairo"})]
FINISHED = [ToolResult("toolu_02", "22°C, cloudy"), ToolResult("toolu_03", "31°C, sunny"),
            ToolResult("toolu_01", "18°C, sunny")]


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


def strips_the_slash(call):
    """Reads /tmp/x as tmp/x: the machine's /tmp passes for the folder's tmp/."""
    if call.name == "delete_files":
        path = call.args["path"]
        inside = path.lstrip("/").startswith("tmp/") and ".." not in path.split("/")
        return True if inside else f"not inside tmp/: {path!r}"
    return careful_gate(call)


def drops_empty_parts(call):
    """Splits on / and drops the empty parts, so a leading / disappears."""
    if call.name == "delete_files":
        path = call.args["path"]
        parts = [p for p in path.split("/") if p]
        return True if parts[:1] == ["tmp"] and ".." not in parts else f"not inside tmp/: {path!r}"
    return careful_gate(call)


def reason_without_path(call):
    said = careful_gate(call)
    return "deleting there is not allowed" if said is not True and call.name == "delete_files" else said


def allows_every_delete(call):
    return True if call.name in ("read_file", "delete_files") else f"{call.name} is not allowed"


QUESTION = "What is 17 * 23 - 100?"
BOTH = [get_weather, calculator]


def calculator_run(*replies, tool_choice="calculator", tools=BOTH):
    return run_agent(ScriptedProvider(list(replies)), QUESTION, tools=list(tools), tool_choice=tool_choice)


RIGHT_CALL = call("calculator", expression="17 * 23 - 100")

ROWS = [
    Row("7 predict_second_choice", key.predict_second_choice, (forced_provider(),), lambda: None,
        (lambda: "get_weather", lambda: "auto", lambda: "None", lambda: "none")),
    Row("7 predict_first_done", key.predict_first_done, (FINISHED, CALLS), lambda: "Tokyo",
        (lambda: "Paris", lambda: "Cairo", lambda: "tokyo", lambda: "Tokyo, Japan", lambda: ["Tokyo"],
         lambda: "toolu_02")),
    Row("7 permission_gate", key.your_gate, (), lambda: permission_gate,
        (lambda: "permission_gate", lambda: (lambda c: True), lambda: forbids_only_delete,
         lambda: refuses_everything, lambda: refuses_without_a_reason, lambda: says_yes_in_words)),
    Row("7 q1", key.q1, (), lambda: 1, (lambda: 2, lambda: "1", lambda: 10, lambda: True)),
    Row("7 q2", key.q2, (), lambda: False, (lambda: True, lambda: "False", lambda: None, lambda: 0)),
    Row("7 exercise_1", key.exercise_1, (), lambda: calculator_run(RIGHT_CALL, "It is 291."),
        (lambda: calculator_run(RIGHT_CALL, "It is 291.", tool_choice=None),
         lambda: calculator_run(RIGHT_CALL, "It is 291.", tools=[calculator]),
         lambda: calculator_run(call("calculator", expression="17 * 23"), "It is 391."),
         lambda: calculator_run(RIGHT_CALL, "It is 2910."),
         lambda: calculator_run(RIGHT_CALL, "It is -291."),
         lambda: "291",
         lambda: ScriptedProvider([RIGHT_CALL, "It is 291."]))),
    Row("7 exercise_2", key.exercise_2, (), lambda: careful_gate,
        (lambda: "careful_gate", lambda: any_tmp_prefix, lambda: forgets_the_climb,
         lambda: strips_the_slash, lambda: drops_empty_parts,
         lambda: reason_without_path, lambda: allows_every_delete, lambda: permission_gate)),
]
