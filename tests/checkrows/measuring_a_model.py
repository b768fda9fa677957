"""Lesson 26's wrong answers: graders that each miss one step, the lesson's own eval to judge by, and
the trials for a narrower interval worked at the wrong rate or width."""

from __future__ import annotations

from functools import cache

from checkrows import Row
from toolcall_lab import ScriptedProvider
from toolcall_lab import evals as evals_module
from toolcall_lab.checks import measuring_a_model as key
from toolcall_lab.evals import CASES, behaviour, run_eval
from toolcall_lab.misbehaving import slips_at
from toolcall_lab.tools import EXAMPLE_TOOLS


# -- the lesson's eval, made as the lesson makes it -------------------------------------------------
@cache
def section_3():
    return run_eval(CASES, ScriptedProvider(slips_at(0.25, seed=3)), runs=25, tools=EXAMPLE_TOOLS)


# -- a grader as a learner writes it, and graders wrong one way each -------------------------------------
def written(case, run):
    """The worked grader, written out by a learner (the key's own object is refused as the kit's)."""
    results = {r.call_id: r for r in run.transcript.tool_results()}
    for asked in run.transcript.tool_calls():
        if asked.name == case.tool and dict(asked.args) == dict(case.args):
            result = results.get(asked.id)
            if result is not None and not result.is_error and case.says in result.content:
                return case.says in run.answer
    return False


# -- graders, wrong one way each -----------------------------------------------------------------------
def names_the_tool_only(case, run):
    """Any call of the right tool passes, whatever its arguments."""
    return any(c.name == case.tool for c in run.transcript.tool_calls())


def reads_the_first_call_only(case, run):
    """Judges the first call alone: a model that corrects itself fails."""
    calls, results = run.transcript.tool_calls(), run.transcript.tool_results()
    if not calls or calls[0].name != case.tool or dict(calls[0].args) != dict(case.args):
        return False
    return any(r.call_id == calls[0].id and case.says in r.content for r in results) \
        and case.says in run.answer


def pairs_by_any_case(case, run):
    """Pairs a result with its call ignoring case: "TOOLU_01" taken to answer "toolu_01"."""
    results = {r.call_id.lower(): r for r in run.transcript.tool_results()}
    for asked in run.transcript.tool_calls():
        result = results.get(asked.id.lower())
        if asked.name == case.tool and dict(asked.args) == dict(case.args) and result \
                and not result.is_error and case.says in result.content:
            return case.says in run.answer
    return False


def trusts_the_answer(case, run):
    """The right call, and the answer says the fact: never looks at the result (nor its error)."""
    right = any(c.name == case.tool and dict(c.args) == dict(case.args) for c in run.transcript.tool_calls())
    return right and case.says in run.answer


def forgets_the_answer(case, run):
    """The right call and a result that says the fact: passes a model that then ignored it."""
    results = {r.call_id: r for r in run.transcript.tool_results()}
    return any(c.name == case.tool and dict(c.args) == dict(case.args) and c.id in results
               and not results[c.id].is_error and case.says in results[c.id].content
               for c in run.transcript.tool_calls())


def skips_the_arguments(case, run):
    """Step 1 without its arguments: any call of the right tool whose result says the fact."""
    results = {r.call_id: r for r in run.transcript.tool_results()}
    return any(c.name == case.tool and c.id in results and not results[c.id].is_error
               and case.says in results[c.id].content for c in run.transcript.tool_calls()) \
        and case.says in run.answer


def skips_the_tool_name(case, run):
    """Step 1 without the tool's name: the right arguments to any tool."""
    results = {r.call_id: r for r in run.transcript.tool_results()}
    return any(dict(c.args) == dict(case.args) and c.id in results and not results[c.id].is_error
               and case.says in results[c.id].content for c in run.transcript.tool_calls()) \
        and case.says in run.answer


def skips_the_content(case, run):
    """Step 3 without the result's content: a result that is no error is taken to say the fact."""
    results = {r.call_id: r for r in run.transcript.tool_results()}
    return any(c.name == case.tool and dict(c.args) == dict(case.args) and c.id in results
               and not results[c.id].is_error for c in run.transcript.tool_calls()) \
        and case.says in run.answer


def skips_is_error(case, run):
    """Step 3 without is_error: an error whose text holds the fact is taken for a result."""
    results = {r.call_id: r for r in run.transcript.tool_results()}
    return any(c.name == case.tool and dict(c.args) == dict(case.args) and c.id in results
               and case.says in results[c.id].content for c in run.transcript.tool_calls()) \
        and case.says in run.answer


def returns_a_word(case, run):
    return "pass" if written(case, run) else "fail"


# The shortcuts: the kit's own graders, under any name
def wraps_behaviour(case, run):
    return behaviour(case, run).passed


def wraps_the_module(case, run):
    return bool(evals_module.behaviour(case, run))


def wraps_the_worked_grader(case, run):
    return key.my_grader(case, run)


SHORTCUTS = (behaviour, wraps_behaviour, wraps_the_module, key.my_grader, wraps_the_worked_grader)


ROWS = [
    Row("26 my_grader", key.your_grader, (), lambda: written,
        (lambda: names_the_tool_only, lambda: reads_the_first_call_only, lambda: pairs_by_any_case,
         lambda: trusts_the_answer, lambda: forgets_the_answer, lambda: returns_a_word,
         lambda: "my_grader", *[(lambda s=s: s) for s in SHORTCUTS[:3]],
         lambda: skips_the_arguments, lambda: skips_the_tool_name, lambda: skips_the_content,
         lambda: skips_is_error)),
    Row("26 predict_rate", lambda answer: key.predict_rate(answer, section_3()), (), lambda: 0.75,
        (lambda: 0.25,  # the slip rate, not the pass rate
         lambda: 75,  # a percentage
         lambda: "0.75",
         lambda: 0.5,  # a slip taken for a coin toss: right half the time
         lambda: True)),
    Row("26 q1", key.q1, (), lambda: 35,
        (lambda: 34,  # one short: 34/37.84 is just under 90%
         lambda: 10,  # ten in a row feels like proof
         lambda: "35", lambda: 9, lambda: 35.5)),
    Row("26 exercise_1", key.exercise_1, (), lambda: 150,
        (lambda: 250,  # at 80%, the rate section 3 printed, not 90%
         lambda: 40,  # half the width (plus or minus 10 points) taken for the width
         lambda: 140,  # the normal approximation's 138 trials, not Wilson's
         lambda: 230,  # section 3's 160 trials at 12 points scaled by 1/sqrt(n), at 80%
         lambda: "150", lambda: 150.5)),
]
