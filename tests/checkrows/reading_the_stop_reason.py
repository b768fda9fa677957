"""Lesson 12's wrong answers: the predictions' and Q1's plausible slips, and RepeatGuards that
each get one thing wrong."""

from __future__ import annotations

import json

from checkrows import Row
from toolcall_lab import ApiDouble, MaxStepsExceeded, ScriptedProvider, get_provider, run_agent
from toolcall_lab.checks import reading_the_stop_reason as key
from toolcall_lab.checks.reading_the_stop_reason import RepeatGuard
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.misbehaving import keeps_checking, pauses_a_search
from toolcall_lab.tools import get_weather


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
    Row("12 predict_last_role", key.predict_last_role, (PAUSED,), lambda: "assistant",
        (lambda: "user", lambda: "Assistant", lambda: "the assistant", lambda: ["assistant"],
         lambda: "model")),
    Row("12 predict_messages", key.predict_messages, (stuck(),), lambda: 9,
        (lambda: 8, lambda: "9", lambda: 4, lambda: 9.5)),
    Row("12 q1 stop reasons", key.q1, (), lambda: {"b"},
        (lambda: {"a", "b"}, lambda: {"b", "c"}, lambda: "b", lambda: {"B"}, lambda: set(),
         lambda: {"a", "b", "c"})),
    Row("12 exercise_1 RepeatGuard", key.exercise_1, (), lambda: RepeatGuard,
        (lambda: RepeatGuard(2), lambda: "RepeatGuard", lambda: SharedCounts, lambda: CountsByName,
         lambda: IgnoresTheName, lambda: OrderMatters, lambda: RefusesWithFalse, lambda: OneTooFew)),
]
