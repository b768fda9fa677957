"""Lesson 2's wrong answers: the bill of a loop twice as long, a model that only says it looked,
the third call's messages, and a scripted calculator run that is not what the tool did."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab import ScriptedProvider, call, loop_input_total, run_agent
from toolcall_lab.checks import why_tool_calling as key
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import calculator, get_weather


def calculator_run(*replies, tools=(calculator,)):
    return run_agent(ScriptedProvider(list(replies)), "What is 17 * 23 - 100?", tools=list(tools))


PARIS = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather],
                  system="You are a helpful assistant.")
#: A model that only writes text: it says it looked, and no tool ran (section 3).
TEXT_ONLY = run_agent(ScriptedProvider(["I checked: it's 18°C and sunny in Paris."]), PARIS_QUESTION,
                      tools=[get_weather])
SHORT, LONG = loop_input_total(10, 2000, 500), loop_input_total(20, 2000, 500)  # x3.18

ROWS = [
    Row("2 predict_doubling", key.predict_doubling, (SHORT, LONG), lambda: 3,
        (lambda: 2,  # twice the calls taken for twice the bill
         lambda: 4,  # the square of 2, as if the first request grew with the steps too
         lambda: "3", lambda: 2.5, lambda: True)),
    Row("2 predict_tool_runs", key.predict_tool_runs, (TEXT_ONLY,), lambda: 0,
        (lambda: 1, lambda: "0", lambda: False, lambda: 2)),
    Row("2 q1", key.q1, (PARIS,), lambda: 5, (lambda: 3, lambda: "5", lambda: 4, lambda: 6)),
    Row("2 exercise_1", key.exercise_1, (),
        lambda: calculator_run(call("calculator", expression="17 * 23 - 100"), "17 * 23 - 100 = 291."),
        (lambda: "291",
         lambda: calculator_run(call("calculator", expression="17 * 23 - 100"), "It is 2910."),
         lambda: calculator_run(call("calculator", expression="17 * 23"), "It is 291."),
         lambda: calculator_run("17 * 23 - 100 = 291."),
         lambda: calculator_run(call("get_weather", city="Paris"), "It is 291.",
                                tools=(calculator, get_weather)),
         lambda: calculator_run(call("calculator", expression="17 * 23 - 100"), "It is -291."),
         lambda: calculator_run(call("calculator", expression="17 * 23 - 100"), "It is −291."))),
]
