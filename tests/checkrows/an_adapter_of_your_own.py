"""Lesson 10's wrong answers: Parts API adapters that each break one clause, the shortcuts around
writing one, and the plausible slips of the two questions.

The right adapter is the key's worked class defined the way the learner's cell defines it (the
`your-code` cell of the lesson with the worked definition filled in, run outside the kit),
since a class that is or builds on one of the kit's own is refused with "write it yourself".
Each broken variant builds on that learner-made class and breaks one thing.
"""

from __future__ import annotations

import atexit
import json
from dataclasses import replace

from checkrows import Row
from lessons import NOTEBOOKS, written
from toolcall_lab import ScriptedProvider, StopReason
from toolcall_lab.checks import _worked_providers as worked
from toolcall_lab.checks import an_adapter_of_your_own as key
from toolcall_lab.examples import weather_policy
from toolcall_lab.parts_api import PartsServer

LESSON = NOTEBOOKS / "10_an_adapter_of_your_own.ipynb"
SETUP = "from toolcall_lab import Message, ScriptedProvider, StopReason, Turn, Usage\n"

PARTS = written(LESSON, "MyPartsProvider", SETUP)
PARTS_SERVER = PartsServer().start()  # the weather model; stopped when the tests end
atexit.register(PARTS_SERVER.stop)


def _each_part(request, kind):
    """Every `kind` part (functionCall, functionResponse) of a Parts API request, to change it."""
    return [part[kind] for content in request["contents"] for part in content["parts"] if kind in part]


class CallsEndTheTurn(PARTS):
    """Trusts finishReason: STOP for a reply of calls too, so it reads them as an answer."""

    def decode(self, body):
        return replace(super().decode(body), stop_reason=StopReason.END_TURN)


class ArgumentsAsText(PARTS):
    """Sends the call's arguments as a string of JSON, as Chat wants them."""

    def encode(self, transcript, tools):
        body = super().encode(transcript, tools)
        for call_part in _each_part(body, "functionCall"):
            call_part["args"] = json.dumps(call_part["args"])
        return body


class LosesTheErrorFlag(PARTS):
    """Sends a failed tool's text as its output."""

    def encode(self, transcript, tools):
        body = super().encode(transcript, tools)
        for response in _each_part(body, "functionResponse"):
            response["response"] = {"output": next(iter(response["response"].values()))}
        return body


class AssistantRole(PARTS):
    """Calls the model's turns "assistant", as two other APIs do."""

    def encode(self, transcript, tools):
        body = super().encode(transcript, tools)
        for content in body["contents"]:
            content["role"] = "user" if content["role"] == "user" else "assistant"
        return body


class AppendsTheReply(PARTS):
    """Appends its reply to the caller's transcript, which is the loop's job."""

    def complete(self, transcript, *, tools=()):
        turn = super().complete(transcript, tools=tools)
        transcript.append(turn.message)
        return turn


class NeverSends(PARTS):
    """The shortcut around the wire: the kit's scripted model answers, the server hears nothing."""

    def complete(self, transcript, *, tools=()):
        return self._model.complete(transcript, tools=tools)

    def __init__(self, url):
        super().__init__(url)
        self._model = ScriptedProvider(weather_policy)


class WorkedAdapter(worked.MyPartsProvider):
    """The shortcut: the teacher's adapter, imported from inside the kit."""


class DelegatesToTheKit(ScriptedProvider):
    """The shortcut: a kit provider that plays the weather model, dressed as an adapter."""

    def __init__(self, url):
        super().__init__(weather_policy)


ROWS = [
    Row("10 parts_provider", key.parts_provider, (PARTS_SERVER,), lambda: PARTS,
        (lambda: PARTS(PARTS_SERVER.url), lambda: "MyPartsProvider", lambda: CallsEndTheTurn,
         lambda: ArgumentsAsText, lambda: LosesTheErrorFlag, lambda: AssistantRole,
         lambda: AppendsTheReply, lambda: NeverSends, lambda: WorkedAdapter,
         lambda: worked.MyPartsProvider, lambda: DelegatesToTheKit)),
    Row("10 q1", key.q1, (), lambda: (2, 1),
        (lambda: (2, 2),   # a content per result, as Chat sends a tool message per result
         lambda: (1, 1),   # one response for the whole reply
         lambda: [2, 1],   # the right values, not a pair
         lambda: "(2, 1)", lambda: "(2, 1) parts", lambda: 2)),
    Row("10 exercise_1", key.exercise_1, (), lambda: 6,
        (lambda: 1,        # only the clause that sends a result first
         lambda: 3,        # only the three clauses named after results and calls
         lambda: "6", lambda: "6 of 6", lambda: 6.5, lambda: None)),
]
