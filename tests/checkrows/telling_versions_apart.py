"""Lesson 27's wrong answers: the lesson's own comparison and recorded eval to judge by, a replayed
tape counted as new samples, and an eval priced on the wrong model or for one case."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from checkrows import Row
from toolcall_lab import ApiDouble, ScriptedProvider, get_provider
from toolcall_lab.checks import telling_versions_apart as key
from toolcall_lab.evals import CASES, compare, run_eval
from toolcall_lab.misbehaving import slips_at
from toolcall_lab.tools import EXAMPLE_TOOLS


# -- the lesson's evals, made as the lesson makes them -------------------------------------------------
@cache
def section_1():
    terse = [replace(EXAMPLE_TOOLS[0], description="Weather."), *EXAMPLE_TOOLS[1:]]
    a = run_eval(CASES, ScriptedProvider(slips_at(0.2, seed=10)), runs=5, tools=terse)
    b = run_eval(CASES, ScriptedProvider(slips_at(0.1, seed=20)), runs=5, tools=EXAMPLE_TOOLS)
    return compare(a, b)


@cache
def recorded():
    """Section 2's eval through the anthropic SDK and the double (the tape adds nothing to judge by)."""
    with ApiDouble(slips_at(0.25, seed=2)) as double:
        live = get_provider("anthropic", base_url=double.base_url("anthropic"), api_key="-")
        return run_eval(CASES, live, runs=10, tools=EXAMPLE_TOOLS)


def _exercise_1_right():
    each = recorded().cost(model=key.EXERCISE_1_MODEL).total / recorded().total
    return each * key.EXERCISE_1_RUNS * len(CASES)


ROWS = [
    Row("27 predict_apart", lambda answer: key.predict_apart(answer, section_1()), (), lambda: "no",
        (lambda: "yes", lambda: "no, not at twenty", lambda: False, lambda: 0)),
    Row("27 q1", key.q1, (), lambda: 4, (lambda: 2, lambda: 8, lambda: "4", lambda: 906)),
    Row("27 q2", lambda answer: key.q2(answer, recorded()), (), lambda: 40,
        (lambda: 200,  # five replays counted as five samples
         lambda: 5, lambda: "40",
         lambda: 80)),  # the tape's exchanges, not its trials
    Row("27 exercise_1", lambda answer: key.exercise_1(answer, recorded()), (), _exercise_1_right,
        (lambda: recorded().cost().total / recorded().total * 100,  # on the recorded model
         lambda: recorded().cost(model=key.EXERCISE_1_MODEL).total / recorded().total * 25,  # one case
         lambda: recorded().cost(model=key.EXERCISE_1_MODEL).total,  # the recorded eval itself
         lambda: str(round(_exercise_1_right(), 4)))),
]
