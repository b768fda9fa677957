"""An eval of a tool-using task: the interval worked by hand, the graders, the runner, the seeded model.

The statistics are checked three ways: arithmetic worked in a docstring, the values
Newcombe's two 1998 papers publish for their examples, and simulated evals whose
intervals must hold the true rate about as often as they promise.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from toolcall_lab import ApiDouble, MaxStepsExceeded, ScriptedProvider, call, get_provider, run_agent
from toolcall_lab.errors import UsageError, UsageTypeError
from toolcall_lab.evals import (
    CASES,
    SHIPPED_TAPE_CASES,
    Case,
    Verdict,
    behaviour,
    cases_table,
    compare,
    describe_intervals,
    difference,
    plot_intervals,
    run_eval,
    runs_to_tell_apart,
    simulate,
    wilson,
    z_of,
)
from toolcall_lab.misbehaving import slips_at
from toolcall_lab.tape import load, record, replay
from toolcall_lab.tools import EXAMPLE_TOOLS, get_weather


# -- the interval, by hand -------------------------------------------------------------------------
def test_the_wilson_interval_of_the_lessons_eval_worked_by_hand():
    """Lesson 26's eval: 78 of 100 trials passed. At 95%, z = 1.959964 and z² = 3.841459, so

        p        = 78 / 100                                  = 0.78
        1 + z²/n = 1 + 3.841459 / 100                        = 1.0384146
        centre   = (0.78 + 3.841459 / 200) / 1.0384146
                 = (0.78 + 0.0192073) / 1.0384146
                 = 0.7992073 / 1.0384146                     = 0.769642
        half     = 1.959964 · √(0.78 · 0.22 / 100 + 3.841459 / 40000) / 1.0384146
                 = 1.959964 · √(0.001716 + 0.0000960) / 1.0384146
                 = 1.959964 · √0.0018120 / 1.0384146
                 = 1.959964 · 0.0425676 / 1.0384146    = 0.0834309 / 1.0384146 = 0.080345
        interval = 0.769642 ± 0.080345                   = 0.689297 to 0.849987

    which the lesson prints as "68.9% to 85.0%", by hand and from the kit alike.
    """
    z = 1.959964
    assert z_of(0.95) == pytest.approx(z, abs=1e-6)
    p, n = 0.78, 100
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    assert centre == pytest.approx(0.769642, abs=1e-6)
    assert half == pytest.approx(0.080345, abs=1e-6)
    low, high = wilson(78, 100)
    assert (low, high) == pytest.approx((0.689297, 0.849987), abs=1e-6)
    assert str(wilson(78, 100)) == "68.9% to 85.0%"


def test_the_wilson_interval_of_8_of_10_matches_its_docstring():
    """8 of 10: 1 + z²/n = 1.38415, centre 0.99207 / 1.38415 = 0.71674, half 0.22658: 0.4902 to 0.9433."""
    low, high = wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    assert (low + high) / 2 == pytest.approx(0.71674, abs=1e-5)


@pytest.mark.parametrize(("passed", "runs", "published"), [
    (81, 263, (0.2553, 0.3662)), (15, 148, (0.0624, 0.1605)),
    (0, 20, (0.0, 0.1611)), (1, 29, (0.0061, 0.1718)),
])
def test_the_wilson_interval_matches_newcombes_published_examples(passed, runs, published):
    """R. G. Newcombe, "Two-sided confidence intervals for the single proportion: comparison of seven
    methods", Statistics in Medicine 17 (1998) 857-872, Table II, method 3 (the score interval)."""
    assert tuple(round(end, 4) for end in wilson(passed, runs)) == published


def test_the_interval_never_leaves_zero_to_one_and_one_run_proves_little():
    assert wilson(0, 10).low == 0.0 and wilson(10, 10).high == 1.0
    assert round(wilson(1, 1).low, 4) == 0.2065  # one pass: somewhere from 21% to 100%
    assert wilson(20, 20, level=0.99).low < wilson(20, 20).low  # more confidence, a wider interval


@pytest.mark.parametrize(("a", "b", "published"), [
    ((48, 80), (56, 70), (0.0524, 0.3339)), ((3, 10), (9, 10), (0.1705, 0.8090)),
])
def test_the_difference_matches_newcombes_method_10(a, b, published):
    """R. G. Newcombe, "Interval estimation for the difference between independent proportions:
    comparison of eleven methods", Statistics in Medicine 17 (1998) 873-890, method 10: 56/70 - 48/80 and
    9/10 - 3/10 (the same two examples the R package propint tests against)."""
    low, high = difference(*a, *b)
    assert (low, high) == pytest.approx(published, abs=1e-4)


def test_runs_to_tell_apart_worked_and_the_power_it_promises():
    """0.8 against 0.9: (1.96 · 0.50498 + 0.8416 · 0.5)² / 0.01 = 198.96, so 199 each. Simulated, 199
    trials each tell the two apart about 80% of the time, the power asked for."""
    assert runs_to_tell_apart(0.8, 0.9) == runs_to_tell_apart(0.9, 0.8) == 199
    assert runs_to_tell_apart(0.8, 0.85) == 906
    assert runs_to_tell_apart(0.8, 0.9, power=0.9) > 199
    pairs = zip(simulate(0.8, 199, evals=2000, seed=5), simulate(0.9, 199, evals=2000, seed=6), strict=True)
    told = sum(not difference(ka, 199, kb, 199).holds(0) for ka, kb in pairs) / 2000
    assert 0.75 < told < 0.85


def test_about_95_in_100_intervals_hold_the_true_rate():
    for runs in (20, 100):
        held = sum(wilson(count, runs).holds(0.8) for count in simulate(0.8, runs, evals=4000, seed=3)) / 4000
        assert 0.92 < held < 0.98


def test_simulated_evals_are_the_same_for_the_same_seed_and_spread_around_the_rate():
    assert simulate(0.7, 30, evals=5, seed=9) == simulate(0.7, 30, evals=5, seed=9)
    assert simulate(0.7, 30, evals=5, seed=9) != simulate(0.7, 30, evals=5, seed=10)
    counts = simulate(0.7, 30, evals=500, seed=1)
    assert min(counts) < 21 < max(counts) and sum(counts) / (30 * 500) == pytest.approx(0.7, abs=0.02)


@pytest.mark.parametrize(("call_it", "error", "words"), [
    (lambda: wilson(11, 10), UsageError, "11 passed of 10 runs is not a count"),
    (lambda: wilson("8", 10), UsageTypeError, "whole numbers"),
    (lambda: wilson(8, 10, level=95), UsageError, "not 95"),
    (lambda: runs_to_tell_apart(0.8, 0.8), UsageError, "no number of runs"),
    (lambda: runs_to_tell_apart(80, 90), UsageError, "write 80% as 0.8"),
    (lambda: simulate(0.8, 20, evals=0), UsageError, "1 or more"),
    (lambda: slips_at(20), UsageError, "write 20% as 0.2"),
    (lambda: slips_at("0.2"), UsageTypeError, "slips_at(0.2)"),
])
def test_a_wrong_argument_says_what_would_work(call_it, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        call_it()


# -- the grader ------------------------------------------------------------------------------------
def _run(case, replies, tools=EXAMPLE_TOOLS):
    return run_agent(ScriptedProvider(replies), case.question, tools=list(tools))


PARIS, SUM = CASES[0], CASES[3]
WEATHER = "It's 18°C and sunny in Paris."


def test_behaviour_passes_the_right_call_whose_result_the_answer_uses():
    verdict = behaviour(PARIS, _run(PARIS, [call("get_weather", city="Paris"), WEATHER]))
    assert verdict and verdict == Verdict(True, "the right call, and the answer says '18°C'")
    assert behaviour(SUM, _run(SUM, [call("calculator", expression="17 * 23 - 100"), "It is 291."]))
    # a wrong call first, then the right one: the run passes
    assert behaviour(PARIS, _run(PARIS, [call("get_weather", city="London"),
                                         call("get_weather", city="Paris"), WEATHER]))


def _failing(**args):
    raise ConnectionError("down")


@pytest.mark.parametrize(("replies", "tools", "why"), [
    ([call("search_kb", query="weather"), "Nothing."], EXAMPLE_TOOLS,
     "no call of get_weather: it called search_kb"),
    (["It's 18°C and sunny in Paris."], EXAMPLE_TOOLS, "no call of get_weather: it called no tool at all"),
    ([call("get_weather", city="London"), WEATHER], EXAMPLE_TOOLS,
     "get_weather got {'city': 'London'}, not {'city': 'Paris'}"),
    ([call("get_weather", city="Paris"), "It's 25°C."], EXAMPLE_TOOLS, "the answer does not say '18°C'"),
    ([call("get_weather", city="Paris"), WEATHER], (replace(get_weather, function=_failing),),
     "the result was an error"),
])
def test_behaviour_fails_each_wrong_run_and_says_which_step(replies, tools, why):
    verdict = behaviour(PARIS, _run(PARIS, replies, tools))
    assert not verdict and verdict.why.startswith(why)
    assert repr(verdict).startswith("✗ ")


@pytest.mark.parametrize(("answer", "passes"), [
    ("It is 291.", True), ("291", True), ("The answer: 291, exactly.", True), ("(291)", True),
    ("It is 2910.", False), ("It is 1291.", False), ("It is 291.5.", False), ("It is 1,291.", False),
    ("It is -291.", False), ("It is 291st.", False),
])
def test_behaviour_matches_a_fact_as_a_whole_number_not_a_substring(answer, passes):
    run = _run(SUM, [call("calculator", expression="17 * 23 - 100"), answer])
    assert bool(behaviour(SUM, run)) is passes


def test_a_case_whose_fact_is_empty_is_refused_in_one_sentence():
    for empty in ("", "   "):
        with pytest.raises(UsageError, match="holds none \\(it would pass any answer\\)"):
            Case("What is 17 * 23 - 100?", "calculator", {"expression": "17 * 23 - 100"}, says=empty)
    with pytest.raises(UsageTypeError, match="a str such as"):
        Case("What is 17 * 23 - 100?", "calculator", {"expression": "17 * 23 - 100"}, says=291)  # type: ignore[arg-type]


def test_behaviour_pairs_a_result_with_its_call_by_the_exact_id():
    from toolcall_lab.checks.measuring_a_model import staged

    label, index, run = staged()[-1]
    assert "TOOLU_01" in label and run.transcript.tool_results()[0].call_id == "TOOLU_01"
    assert behaviour(CASES[index], run).why == "no result answers the call toolu_01"


def test_the_case_table_fits_a_projector_and_spells_each_call_as_python():
    table = cases_table(CASES)
    assert max(map(len, table.splitlines())) <= 80
    assert 'calculator(expression="17 * 23 - 100")' in table
    assert repr(PARIS) == ("Case(\"What's the weather in Paris?\", tool='get_weather', "
                           "args={'city': 'Paris'}, says='18°C')")


# -- the seeded model ------------------------------------------------------------------------------
def test_a_model_that_slips_at_a_rate_fails_about_that_share_and_makes_both_mistakes():
    model = ScriptedProvider(slips_at(0.3, seed=4))
    result = run_eval(CASES, model, runs=100, tools=EXAMPLE_TOOLS)
    assert 0.62 < result.rate < 0.78
    reasons = {trial.verdict.why.split(":")[0].split(" got ")[0]
               for trial in result.trials if not trial.passed}
    assert reasons == {"no call of get_weather", "no call of calculator", "get_weather", "calculator"}
    assert run_eval(CASES, ScriptedProvider(slips_at(0, seed=1)), runs=5, tools=EXAMPLE_TOOLS).rate == 1
    assert run_eval(CASES, ScriptedProvider(slips_at(1, seed=1)), runs=5, tools=EXAMPLE_TOOLS).rate == 0


def test_the_same_seed_gives_the_same_eval_and_another_seed_another():
    def verdicts(seed):
        result = run_eval(CASES, ScriptedProvider(slips_at(0.3, seed=seed)), runs=10, tools=EXAMPLE_TOOLS)
        return [trial.passed for trial in result.trials]

    assert verdicts(1) == verdicts(1) != verdicts(2)


def test_the_seeded_model_answers_the_same_through_a_real_sdk_and_the_double():
    scripted = run_eval(CASES, ScriptedProvider(slips_at(0.3, seed=7)), runs=5, tools=EXAMPLE_TOOLS)
    with ApiDouble(slips_at(0.3, seed=7)) as double:
        wired = run_eval(CASES, get_provider("anthropic", base_url=double.base_url("anthropic"), api_key="-"),
                         runs=5, tools=EXAMPLE_TOOLS)
    assert [t.passed for t in wired.trials] == [t.passed for t in scripted.trials]
    assert [t.run.answer for t in wired.trials] == [t.run.answer for t in scripted.trials]


# -- the runner ------------------------------------------------------------------------------------
def test_run_eval_runs_every_case_once_per_round_and_counts_each_trial():
    result = run_eval(CASES, ScriptedProvider(slips_at(0.2, seed=3)), runs=3, tools=EXAMPLE_TOOLS)
    assert [(t.case.question, t.number) for t in result.trials[:5]] == [
        (CASES[0].question, 1), (CASES[1].question, 1), (CASES[2].question, 1), (CASES[3].question, 1),
        (CASES[0].question, 2)]
    assert result.total == 12 and result.passed == sum(t.passed for t in result.trials)
    assert result.interval() == wilson(result.passed, 12)
    assert [runs for _, _, runs in result.by_case()] == [3] * 4
    assert max(map(len, result.table().splitlines())) <= 80
    assert repr(result).startswith("EvalResult(4 cases x 3 runs: ")


def test_a_grader_of_your_own_may_return_a_bool_and_a_bad_one_is_named():
    model = ScriptedProvider(slips_at(0, seed=1))
    assert run_eval(CASES[:1], model, runs=2, tools=EXAMPLE_TOOLS, grader=lambda case, run: False).passed == 0
    with pytest.raises(UsageTypeError, match="returned str 'pass' on case 1, run 1"):
        run_eval(CASES[:1], model, runs=1, tools=EXAMPLE_TOOLS, grader=lambda case, run: "pass")
    with pytest.raises(UsageError, match="the grader raised AttributeError on case 1, run 1"):
        run_eval(CASES[:1], model, runs=1, tools=EXAMPLE_TOOLS, grader=lambda case, run: run.tool_calls())
    with pytest.raises(UsageTypeError, match=r"pass \[case\]"):
        run_eval(CASES[0], model, runs=1)
    with pytest.raises(UsageError, match="1 or more"):
        run_eval(CASES, model, runs=0)


def test_a_run_that_hits_max_steps_is_graded_as_it_stands():
    looping = ScriptedProvider(lambda transcript, tools: call("get_weather", city="London"))
    result = run_eval(CASES[:1], looping, runs=1, tools=EXAMPLE_TOOLS, max_steps=2)
    assert not result.trials[0].passed and len(result.trials[0].run.steps) == 2
    with pytest.raises(MaxStepsExceeded):  # what the loop itself does with it
        run_agent(looping, "Paris?", tools=EXAMPLE_TOOLS, max_steps=2)


def test_the_cost_of_an_eval_is_its_runs_usage_at_list_prices():
    scripted = run_eval(CASES[:1], ScriptedProvider(slips_at(0, seed=1)), runs=2, tools=EXAMPLE_TOOLS)
    with pytest.raises(UsageError, match="no price for 'scripted-1'.*model="):
        scripted.cost()
    from toolcall_lab.views.cost import run_cost

    assert scripted.cost(model="claude-opus-5").total == pytest.approx(
        sum(run_cost(t.run, model="claude-opus-5").total for t in scripted.trials))
    with ApiDouble(slips_at(0, seed=1)) as double:
        anthropic = get_provider("anthropic", base_url=double.base_url("anthropic"), api_key="-")
        billed = run_eval(CASES[:1], anthropic, runs=2, tools=EXAMPLE_TOOLS)
    assert billed.model == "claude-haiku-5-5" and billed.cost().total > 0


def test_compare_says_whether_the_interval_of_the_difference_leaves_out_zero():
    def eval_of(rate, runs, seed):
        return run_eval(CASES, ScriptedProvider(slips_at(rate, seed=seed)), runs=runs, tools=EXAMPLE_TOOLS)

    small = compare(eval_of(0.2, 5, 10), eval_of(0.1, 5, 20))
    assert not small.told_apart and small.gap.holds(0) and repr(small).endswith(": not told apart")
    assert compare(eval_of(0.5, 25, 1), eval_of(0.0, 25, 2)).told_apart


# -- tapes -----------------------------------------------------------------------------------------
def test_each_shipped_tape_passes_its_case_and_a_replay_repeats_one_draw():
    for name, case in SHIPPED_TAPE_CASES.items():
        tape = load(name)
        assert case.question == tape.question
        assert behaviour(case, run_agent(replay(tape), tape.question, tools=tape.tools(), system=tape.system))
    tape = load("anthropic_weather")
    again = run_eval([SHIPPED_TAPE_CASES["anthropic_weather"]], replay(tape), runs=3, tools=tape.tools())
    assert again.passed == 3 and len({t.run.answer for t in again.trials}) == 1


def test_a_recorded_eval_replays_to_the_same_verdicts():
    with ApiDouble(slips_at(0.4, seed=2)) as double:
        live = get_provider("anthropic", base_url=double.base_url("anthropic"), api_key="-")
        with record(live) as recorder:
            recorded = run_eval(CASES, live, runs=3, tools=EXAMPLE_TOOLS)
    replayed = run_eval(CASES, replay(recorder.tape), runs=3, tools=EXAMPLE_TOOLS)
    assert 0 < recorded.passed < recorded.total
    assert [t.verdict for t in replayed.trials] == [t.verdict for t in recorded.trials]


# -- the figure ------------------------------------------------------------------------------------
def test_the_interval_figure_is_a_picture_with_its_words():
    counts = simulate(0.8, 20, evals=40, seed=1)
    figure = plot_intervals(counts, 20, 0.8)
    assert figure._repr_png_()[:4] == b"\x89PNG"
    described = describe_intervals(counts, 20, 0.8)
    held = sum(wilson(k, 20).holds(0.8) for k in counts)
    assert f"{held} of the 40 intervals hold the true rate" in described
    assert "dashed lines, crosses" in described  # shape and line, not colour alone
    assert repr(figure) == described.split(". ")[0] + "."
    with pytest.raises(UsageError):
        plot_intervals([], 20, 0.8)


@pytest.mark.parametrize("rate", [1.5, -0.1, math.nan, "80%"])
def test_the_intervals_figure_refuses_a_true_rate_outside_0_to_1(rate):
    for draw in (describe_intervals, plot_intervals):
        with pytest.raises(UsageError, match="rate is a pass rate between 0 and 1"):
            draw([16, 18], 20, rate)


def test_a_case_is_a_frozen_record():
    case = Case("Q?", "t", {"a": 1}, says="x")
    with pytest.raises(AttributeError):
        case.tool = "u"


def test_a_grader_that_hands_the_work_to_the_kit_is_refused_with_write_it_yourself():
    from checkrows.measuring_a_model import SHORTCUTS, written
    from toolcall_lab.checks.measuring_a_model import your_grader
    from toolcall_lab.selfcheck import WrongAnswer

    your_grader(written)  # the same steps, written out, pass
    for shortcut in SHORTCUTS:
        with pytest.raises(WrongAnswer, match="write it yourself"):
            your_grader(shortcut)
