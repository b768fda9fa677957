"""Lesson 2's wrong answers: the bill of a loop twice as long, a model that only says it looked,
the third call's messages, a scripted calculator run that is not what the tool did, which of
three results that are not text reach the model, and what a tool should return for a dataclass."""

from __future__ import annotations

import dataclasses
import datetime
import json

from checkrows import Row
from toolcall_lab import ScriptedProvider, Tool, ToolCall, call, loop_input_total, run_agent
from toolcall_lab.checks import why_tool_calling as key
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tool import execute, tool_map
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


# -- section 4: a result that is not text ------------------------------------------------------
@dataclasses.dataclass
class Booking:
    guest: str
    when: datetime.date


class Room:
    def __init__(self, number):
        self.number = number


BOOKING = Booking("Ada", datetime.date(2026, 12, 7))


def _results():
    made = {}
    for name, value in (("next_slot", BOOKING.when), ("book", BOOKING), ("find_room", Room(12))):
        made[name] = Tool(name, "Return a value.", {"type": "object", "properties": {}},
                          lambda value=value: value)
    return {name: execute(ToolCall("toolu_01", name, {}), tool_map([t])) for name, t in made.items()}


RESULTS = _results()
FIELDS = dataclasses.asdict(BOOKING)
WRONG_BOOKING = (
    lambda: str(BOOKING),  # the dataclass's text: Python source, not fields
    lambda: repr(BOOKING),
    lambda: BOOKING,  # the object itself: the kit sends its repr
    lambda: json.dumps(str(BOOKING)),  # JSON, but one string
    lambda: dataclasses.astuple(BOOKING),  # the values without their names
    lambda: json.dumps(FIELDS, default=str).encode(),  # the right text as bytes
    lambda: "Booking: " + json.dumps(FIELDS, default=str),  # contains the right text
    lambda: {"guest": "Ada"},  # a field left out
    lambda: {"Guest": "Ada", "When": str(BOOKING.when)},  # keys in another case
    lambda: {"guest": "Ada", "when": "2026-12-08"},  # another day
    lambda: {"guest": "ada", "when": BOOKING.when},
)

ROWS += [
    Row("2 predict_readable", key.predict_readable, (RESULTS,), lambda: {"next_slot", "book"},
        (lambda: {"next_slot"},  # the dataclass's repr taken for no content
         lambda: {"next_slot", "book", "find_room"},  # every value has a str(), so all arrive
         lambda: "next_slot, book",  # one string, not a set
         lambda: {"Next_Slot", "book"},  # tool names are compared exactly
         lambda: {"next_slot", "book", "booking"},
         lambda: set())),
    Row("2 my_booking_result", key.my_booking_result, (BOOKING,), lambda: dataclasses.asdict(BOOKING),
        WRONG_BOOKING),
    Row("2 my_booking_result as text", key.my_booking_result, (BOOKING,),
        lambda: json.dumps(dataclasses.asdict(BOOKING), default=str), WRONG_BOOKING),
    Row("2 my_booking_result iso", key.my_booking_result, (BOOKING,),
        lambda: {"guest": "Ada", "when": BOOKING.when.isoformat()}, WRONG_BOOKING),
]
