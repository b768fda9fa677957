"""Lesson 28's wrong answers: a timed-out call answered the wrong way, the predictions' slips,
caps that each get one thing wrong (or hand the work to the kit), and timeouts that abandon a
healthy call or overrun the reply's budget."""

from __future__ import annotations

import threading

from checkrows import Row
from toolcall_lab import ScriptedProvider, ToolCall, ToolResult, call, run_agent, tool
from toolcall_lab import result_cap as result_cap_module
from toolcall_lab.checks import when_a_tool_misbehaves as key
from toolcall_lab.checks.when_a_tool_misbehaves import cap
from toolcall_lab.result_cap import cap_result
from toolcall_lab.tool import execute, tool_map

LIMIT = 0.5
PENDING = ToolCall("toolu_07", "get_forecast", {"city": "Tokyo"})
OPEN = threading.Event()
OPEN.set()  # the rows' forecast answers at once: only the kit's wording is staged here


@tool
def get_forecast(city: str) -> str:
    """The five-day forecast for a city."""
    OPEN.wait()
    return f"{city}: sunny all week"


TIMED = run_agent(ScriptedProvider([call("get_forecast", city="Paris"), "Not answering."]),
                  "Forecast for Paris?", tools=[tool(get_forecast.function, timeout=LIMIT)])
PAGE = "".join(f"<tr><td>item {i}</td><td>{i * 7 % 1000} in stock</td></tr>\n"
               for i in range(10_000))[:400_000]


@tool
def read_page(url: str) -> str:
    """The text of a web page."""
    return PAGE


BIG = run_agent(ScriptedProvider([call("read_page", url="https://example.com"), "Done."]),
                "Stock?", tools=[read_page])
CALL_1, CALL_2 = (step.usage.input_tokens for step in BIG.steps)


def kits_timeout_text():
    """What `execute` itself answers for a forecast past its limit (a hung one, staged and released)."""
    OPEN.clear()
    try:
        return execute(PENDING, tool_map([tool(get_forecast.function, timeout=LIMIT)]))
    finally:
        OPEN.set()


# -- cap, wrong one way each -------------------------------------------------------------------------
def head_only(text, limit):
    """Cuts, and says nothing: the model reads the start as the whole page."""
    return text[:limit]


def marker_not_counted(text, limit):
    """Head and tail fill the limit, then the marker goes on top of it."""
    if len(text) <= limit:
        return text
    head, tail = limit * 3 // 4, limit - limit * 3 // 4
    return f"{text[:head]}\n[{len(text) - limit} characters cut: ask for less]\n{text[-tail:]}"


def counts_the_marker_as_removed(text, limit):
    """Says len(text) - limit were removed: the marker's own characters counted among them."""
    if len(text) <= limit:
        return text
    marker = f"\n[{len(text) - limit} characters cut: ask for less]\n"
    room = limit - len(marker)
    head, tail = room * 3 // 4, room - room * 3 // 4
    return text[:head] + marker + text[-tail:]


def marks_every_text(text, limit):
    """Adds a marker even to a text that fits."""
    return cap(text, limit) if len(text) > limit else text + "\n[0 characters cut]"


def no_tail(text, limit):
    """The marker at the end: the end of the text is lost."""
    if len(text) <= limit:
        return text
    marker = f"\n[{len(text)} characters cut: ask for less]"
    head = limit - len(marker)
    return text[:head] + marker.replace(str(len(text)), str(len(text) - head))


def returns_bytes(text, limit):
    return cap(text, limit).encode()


def returns_lines(text, limit):
    return cap(text, limit).splitlines()


# The shortcuts: the kit's own cap, under any name
def through_cap_result(text, limit):
    return cap_result(ToolResult("x", text), max(1, limit // 4)).content


def through_the_module(text, limit):
    return result_cap_module.cap_result(ToolResult("x", text), max(1, limit // 4)).content


def through_cut_note(text, limit):
    if len(text) <= limit:
        return text
    note = result_cap_module.cut_note(len(text), len(text), limit)
    return text[: limit - len(note)] + note


ROWS = [
    Row("28 timed_out", key.timed_out, (PENDING, LIMIT),
        lambda: ToolResult("toolu_07", "No answer in 0.5 s.", is_error=True),
        (lambda: ToolResult("toolu_07", "No answer in 0.5 s."),  # reads as the forecast itself
         lambda: ToolResult("TOOLU_07", "No answer in 0.5 s.", is_error=True),  # the id's case
         lambda: ToolResult("toolu_01", "No answer in 0.5 s.", is_error=True),  # another call's id
         lambda: "toolu_07: no answer in 0.5 s",  # text that holds the id, not a result
         lambda: ToolResult("toolu_07", "", is_error=True),  # nothing to act on
         lambda: ToolResult("toolu_07", "The forecast failed.", is_error=True),  # no limit named
         lambda: ToolResult("toolu_07", "No answer in 5 s.", is_error=True),  # the wrong limit
         kits_timeout_text)),  # the kit's own execute, one call
    Row("28 predict_messages", key.predict_messages, (TIMED,), lambda: 4,
        (lambda: 3,  # the call taken to leave no result
         lambda: 2, lambda: 5, lambda: "4")),
    Row("28 predict_tokens", key.predict_tokens, (BIG,), lambda: 100_000,
        (lambda: 400_000,  # characters, not tokens
         lambda: CALL_1,  # call 1's tokens: the page not yet in the history
         lambda: 0, lambda: str(CALL_2), lambda: 2 * CALL_2)),
    Row("28 cap", key.your_cap, (), lambda: cap,
        (lambda: "cap", lambda: head_only, lambda: marker_not_counted,
         lambda: counts_the_marker_as_removed, lambda: marks_every_text, lambda: no_tail,
         lambda: returns_bytes, lambda: returns_lines)),
    Row("28 cap shortcuts", key.your_cap, (), lambda: cap,
        (lambda: through_cap_result, lambda: through_the_module, lambda: through_cut_note)),
    Row("28 q1", key.q1, (), lambda: 20_000,
        (lambda: 2_000,  # counted once, as if it were not sent again
         lambda: 22_000,  # the call that read it counted too: its result comes after it
         lambda: "20000", lambda: 100_000)),
    Row("28 exercise_1", key.exercise_1,
        ({"get_forecast": 0.8, "check_stock": 1.5, "send_invoice": 4.0}, 10),
        lambda: {"get_forecast": 2, "check_stock": 3, "send_invoice": 5},
        (lambda: {"get_forecast": 0.8, "check_stock": 1.5, "send_invoice": 4.0},  # a healthy call abandoned
         lambda: {"get_forecast": 5, "check_stock": 5, "send_invoice": 5},  # over the reply's budget
         lambda: {"get_forecast": 2, "check_stock": 3},  # one tool without a limit
         lambda: {"Get_forecast": 2, "check_stock": 3, "send_invoice": 5},  # a name misspelled
         lambda: {"get_forecast": "2", "check_stock": "3", "send_invoice": "5"},  # text, not seconds
         lambda: [("get_forecast", 2), ("check_stock", 3), ("send_invoice", 5)],  # pairs, not a dict
         lambda: 10)),
]
