"""Lesson 13's wrong answers: values and runs that each get one thing wrong (its gates went to
lesson 14 with the split, tests/checkrows/an_instruction_in_a_result.py)."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab import ScriptedProvider, ToolResult, call, run_agent
from toolcall_lab.checks import steering_and_guarding as key
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


QUESTION = "What is 17 * 23 - 100?"
BOTH = [get_weather, calculator]


def calculator_run(*replies, tool_choice="calculator", tools=BOTH):
    return run_agent(ScriptedProvider(list(replies)), QUESTION, tools=list(tools), tool_choice=tool_choice)


RIGHT_CALL = call("calculator", expression="17 * 23 - 100")

ROWS = [
    Row("13 predict_second_choice", key.predict_second_choice, (forced_provider(),), lambda: None,
        (lambda: "get_weather", lambda: "auto", lambda: "None", lambda: "none")),
    Row("13 predict_first_done", key.predict_first_done, (FINISHED, CALLS), lambda: "Tokyo",
        (lambda: "Paris", lambda: "Cairo", lambda: "tokyo", lambda: "Tokyo, Japan", lambda: ["Tokyo"],
         lambda: "toolu_02")),
    Row("13 q1", key.q1, (), lambda: 1, (lambda: 2, lambda: "1", lambda: 10, lambda: True)),
    Row("13 exercise_1", key.exercise_1, (), lambda: calculator_run(RIGHT_CALL, "It is 291."),
        (lambda: calculator_run(RIGHT_CALL, "It is 291.", tool_choice=None),
         lambda: calculator_run(RIGHT_CALL, "It is 291.", tools=[calculator]),
         lambda: calculator_run(call("calculator", expression="17 * 23"), "It is 391."),
         lambda: calculator_run(RIGHT_CALL, "It is 2910."),
         lambda: calculator_run(RIGHT_CALL, "It is -291."),
         lambda: "291",
         lambda: ScriptedProvider([RIGHT_CALL, "It is 291."]))),
]
