"""Lesson 15's wrong answers: predictions, a bill read with the reasoning beside the output, and
a repaired call 2 built from anything but the saved reply."""

from __future__ import annotations

import atexit
import json
from dataclasses import replace

from checkrows import Row
from toolcall_lab import ApiDouble, Message, ReasoningBlock, ToolResult, Transcript, get_provider
from toolcall_lab.checks import reasoning_on_the_wire as key
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import decode_response

DOUBLE = ApiDouble(weather_policy).start()  # plays Claude, as in the lesson; stopped when the tests end
atexit.register(DOUBLE.stop)

CLAUDE = get_provider("anthropic", base_url=DOUBLE.base_url("anthropic"), **key.THINKING)
MODEL = CLAUDE.model
QUESTION = Transcript(messages=[Message.user(PARIS_QUESTION)])
REPLY = CLAUDE.complete(QUESTION, tools=[get_weather])
THOUGHT = REPLY.message.reasoning[0]
CALL = REPLY.tool_calls[0]
RESULT = Message.results([ToolResult(CALL.id, get_weather(**CALL.args))])
HELLO = CLAUDE.complete(Transcript(messages=[Message.user("Hello!")]), tools=[get_weather])


def call_2(*assistant_blocks, result=RESULT):
    """Call 2 of the Paris run with message 2 made of `assistant_blocks` (the reply's, if none)."""
    reply = Message.assistant(*assistant_blocks) if assistant_blocks else REPLY.message
    return Transcript(messages=[QUESTION[0], reply, *([result] if result else [])])


VERSIONS = {"a": call_2(), "b": call_2(*REPLY.tool_calls),
            "c": call_2(replace(THOUGHT, text=THOUGHT.text.replace("Paris", "Rome")), *REPLY.tool_calls)}

# -- exercise 2: a Cairo reply, kept as JSON, and the call 2 a lossy log rebuilt from it ------------
CAIRO = Transcript(messages=[Message.user("What's the weather in Cairo?")])
SAVED = json.dumps(CLAUDE.complete(CAIRO, tools=[get_weather]).response)
LOGGED = key.log_rebuilt(CAIRO, SAVED)
KEPT = decode_response(json.loads(SAVED), api="anthropic").message


def repaired(message=KEPT, *, result=True):
    return Transcript(messages=[LOGGED[0], message, *([LOGGED[2]] if result else [])])


ROWS = [
    Row("15 predict_first", key.predict_first, (REPLY,), lambda: "reasoning",
        (lambda: "tool_call", lambda: "the reasoning", lambda: "thinking", lambda: 0)),
    # "look for it, do not assume it": the greeting at effort low has no thinking
    Row("15 predict_hello", key.predict_hello, (HELLO,), lambda: ["text"],
        (lambda: ["reasoning", "text"], lambda: "text", lambda: ["Text"], lambda: ("text",),
         lambda: ["thinking", "text"], lambda: [])),
    Row("15 predict_refused", key.predict_refused, (VERSIONS, MODEL), lambda: {"b", "c"},
        (lambda: {"b"}, lambda: {"c"}, lambda: {"a", "b", "c"}, lambda: "bc", lambda: ["b", "c"],
         lambda: {"B", "C"}, lambda: set())),
    # Q1: reasoning counted beside the output; the visible part only; the reasoning only; every
    # token of the reply; the right number as text, and with a word around it
    Row("15 q1", key.q1, (), lambda: 900,
        (lambda: 1600, lambda: 200, lambda: 700, lambda: 1200, lambda: "900", lambda: "900 tokens",
         lambda: [900])),
    Row("15 exercise_1", key.exercise_1, (), lambda: {"thinking": 2048, "max_tokens": 4096},
        (lambda: {"thinking": "adaptive", "max_tokens": 4096}, lambda: {"thinking": 2048},
         lambda: {"thinking": 2048, "max_tokens": 2500}, lambda: {"thinking": 1024, "max_tokens": 4096},
         lambda: {"thinking": 2048, "max_tokens": 4096, "effort": "low"}, lambda: {"budget_tokens": 2048},
         lambda: {"thinking": "2048", "max_tokens": 4096}, lambda: "thinking=2048, max_tokens=4096")),
    # built on data the page does not hold: section 4's `versions["a"]`, a variable already on the
    # page, is another conversation; asking Claude again gives a new call id; the log is the log
    Row("15 exercise_2", key.exercise_2, (LOGGED, SAVED, MODEL), lambda: repaired(),
        (lambda: VERSIONS["a"], lambda: LOGGED, lambda: repaired(result=False),
         lambda: repaired(CLAUDE.complete(CAIRO, tools=[get_weather]).message),
         lambda: repaired(Message.assistant(*KEPT.tool_calls)),
         lambda: repaired(Message.assistant(replace(KEPT.reasoning[0], text="Cairo, then."),
                                            *KEPT.tool_calls)),
         lambda: repaired(Message.assistant(ReasoningBlock(KEPT.reasoning[0].text), *KEPT.tool_calls)),
         lambda: list(repaired().messages),
         lambda: Transcript(messages=[*repaired().messages, Message.user("Thanks")]),
         lambda: repaired(Message.assistant(*KEPT.tool_calls, KEPT.reasoning[0])))),
]
