# mypy: disable-error-code="no-untyped-def"
# (the worked grader of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 26, "Measuring a model".

Every key computes its answer from what the lesson passes in (an eval it ran, a comparison,
a recorded eval) or from `evals`' own statistics, so no answer is written here.

**The learner's grader.** The lesson asks for `my_grader(case, run)`, True when the run
passed the case: a call of `case.tool` with exactly `case.args`, a result that answers it
(the same id) and is no error and says `case.says`, and an answer that says it too.
`your_grader` judges it on `staged()`, runs staged here (none is on the page): two done
right, one that recovers after a wrong call, one that goes wrong as section 1's runs do,
and, for each of the four steps, runs that fail that step alone (the wrong tool, the wrong
arguments, an unpaired result, a result that is an error though its text holds the fact,
one that is no error and lacks it, an answer that ignores the result), so a grader that
skips any step says "passed" of one of them; the right verdict for each is what the kit's
`evals.behaviour` says. The worked grader, written out as a learner writes it, passes; a
grader that hands the work to `behaviour`, or to this module's own `my_grader`, is refused
("write it yourself"):

    >>> written = {}
    >>> exec(SOLUTIONS["my_grader"], written)
    >>> your_grader(written["my_grader"])
    my_grader: correct. It agrees with evals.behaviour on all 11 staged runs.
    >>> your_grader(my_grader)
    ✗ my_grader: your function my_grader() is not it: write it yourself: ...
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..evals.cases import CASES, behaviour
from ..evals.runner import Comparison, EvalResult
from ..evals.stats import runs_to_tell_apart, wilson
from ..loop import Run, run_agent
from ..messages import Message
from ..providers.scripted import ScriptedProvider, call
from ..selfcheck import check, word
from ..selfcheck import number as a_number
from ..tools import EXAMPLE_TOOLS
from ..tools.weather import get_weather
from ..transcript import Transcript
from ._runs import raised as _raised
from ._runs import run_watching as _run_watching
from ._runs import template as _template

__all__ = ["EXERCISE_1_MODEL", "EXERCISE_1_RUNS", "Q1_LOW", "Q2_RATES", "Q3_REPLAYS", "SOLUTIONS",
           "exercise_1",
           "my_grader", "predict_apart", "predict_rate", "q1", "q2", "q3", "staged", "your_grader"]


# -- the worked grader -------------------------------------------------------------------------------
def my_grader(case, run):
    """True when the run passed the case: right tool, right arguments,
    and an answer that uses the result."""
    results = {r.call_id: r for r in run.transcript.tool_results()}
    for asked in run.transcript.tool_calls():
        if asked.name != case.tool or dict(asked.args) != dict(case.args):
            continue
        result = results.get(asked.id)
        if result and not result.is_error and case.says in result.content:
            return case.says in run.answer
    return False


# -- the staged runs ---------------------------------------------------------------------------------
def _scripted(case_index: int, replies: list[Any], tools: tuple[Any, ...] = EXAMPLE_TOOLS) -> Run:
    return run_agent(ScriptedProvider(replies), CASES[case_index].question, tools=list(tools))


def _failing(**args: Any) -> str:
    # subtle: the error's text holds the fact, so only is_error tells it from a result
    raise ConnectionError(f"the weather service did not answer; its last reading, {CASES[0].says}, "
                          "is a day old")


def _no_reading(**args: Any) -> str:
    return "The station is offline for maintenance: no reading today."


def _answers_another_id() -> Run:
    """A transcript whose one result answers "TOOLU_01" while the call is "toolu_01" (an edited tape)."""
    paris = CASES[0]
    transcript = Transcript(messages=[
        Message.user(paris.question),
        Message.assistant(ToolCall("toolu_01", "get_weather", {"city": "Paris"})),
        Message.results([ToolResult("TOOLU_01", "18°C, sunny")]),
        Message.assistant("It's 18°C and sunny in Paris."),
    ])
    return Run(transcript)


@cache
def staged() -> tuple[tuple[str, int, Run], ...]:
    """The runs `your_grader` judges a grader on: (what each is, its case's index in CASES, the run)."""
    paris, weather = "What's the weather in Paris?", "It's 18°C and sunny in Paris."
    failing = replace(get_weather, function=_failing)
    silent = replace(get_weather, function=_no_reading)
    forecast = replace(get_weather, name="get_forecast", description="Tomorrow's weather for one city.")
    return (
        ("the run that did it all right", 0, _scripted(0, [call("get_weather", city="Paris"), weather])),
        ("the run of the sum, done right", 3, _scripted(3, [call("calculator", expression="17 * 23 - 100"),
                                                           "17 * 23 - 100 = 291."])),
        ("the run that searched the handbook instead", 0,
         _scripted(0, [call("search_kb", query=paris), "The handbook has nothing on that."])),
        ("the run that asked the forecast tool instead", 0,
         _scripted(0, [call("get_forecast", city="Paris"), weather], tools=(*EXAMPLE_TOOLS, forecast))),
        ("the run that asked about 'paris', not 'Paris'", 0,
         _scripted(0, [call("get_weather", city="paris"), weather])),
        ("the run that asked about London", 0,
         _scripted(0, [call("get_weather", city="London"), "It's 14°C and light rain in Paris."])),
        ("the run that asked about London, then about Paris", 0,
         _scripted(0, [call("get_weather", city="London"), call("get_weather", city="Paris"), weather])),
        ("the run whose answer ignores the result", 0,
         _scripted(0, [call("get_weather", city="Paris"), "It's 25°C and sunny in Paris."])),
        ("the run whose tool failed and which answered anyway", 0,
         _scripted(0, [call("get_weather", city="Paris"), weather], tools=(failing, *EXAMPLE_TOOLS[1:]))),
        ("the run whose result gave no reading and which answered anyway", 0,
         _scripted(0, [call("get_weather", city="Paris"), weather], tools=(silent, *EXAMPLE_TOOLS[1:]))),
        ("the run whose one result answers 'TOOLU_01', not the call 'toolu_01'", 0, _answers_another_id()),
    )


def _judged(grader: Callable[..., Any], label: str, case_index: int, run: Run) -> tuple[Any, str | None]:
    """What `grader` said of one staged run, or what went wrong calling it."""
    try:
        said, handed_over = _run_watching((behaviour, my_grader), grader, CASES[case_index], run)
    except Exception as exc:
        return None, f"on {label}, your grader raised {_raised(exc)}"
    if handed_over:
        return None, "write it yourself: it hands the run to the kit's own grader"
    if not isinstance(said, bool):
        return None, f"on {label}, it returned {type(said).__name__} {said!r}; return True or False"
    return said, None


def your_grader(answer: Any) -> None:
    """Your my_grader, judged on the staged runs: it must agree with `evals.behaviour` on each."""
    def wrong(grader: Any) -> str | None:
        if not callable(grader):
            return f"expected a function my_grader(case, run), got {type(grader).__name__}"
        for label, case_index, run in staged():
            said, problem = _judged(grader, label, case_index, run)
            if problem is not None:
                return problem
            expected = behaviour(CASES[case_index], run).passed
            if said != expected:
                return f"on {label}, it said {said}, and that run {'passed' if expected else 'failed'}"
        return None

    check("my_grader", ... if _template(answer) else answer, wrong,
          hint="read the four steps above your cell again: a call is paired with its result by id, "
               "the same string, and the fact must be in the result and in the answer",
          why=f"It agrees with evals.behaviour on all {len(staged())} staged runs.")


# -- predictions -------------------------------------------------------------------------------------
def predict_rate(answer: Any, result: EvalResult) -> None:
    """A pass rate predicted before the eval: right when the eval's 95% interval holds it."""
    interval = result.interval()

    def wrong(rate: Any) -> str | None:
        if isinstance(rate, bool) or not isinstance(rate, int | float):
            return f"expected a rate, a number from 0 to 1, got {type(rate).__name__}"
        if rate > 1:
            return "a rate goes from 0 to 1: write 75% as 0.75"
        if interval.holds(rate):
            return None
        return f"the eval's 95% interval, {interval}, does not hold it"

    check("Prediction", answer, wrong,
          hint="the model slips on one question in four, and every slip fails its case: what share passes?",
          why=f"The eval measured {result.rate:.0%}, and its interval, {interval}, holds your prediction: a "
              "prediction about a model is a claim about a distribution.")


def predict_apart(answer: Any, comparison: Comparison) -> None:
    """Whether twenty trials of each version told the two descriptions apart, predicted."""
    check("Prediction", answer, word("yes" if comparison.told_apart else "no", choices=("yes", "no")),
          hint="section 3's interval of twenty trials was how wide? The two rates are 10 points apart")


# -- check yourself ----------------------------------------------------------------------------------
#: Q1: the low end of the 95% interval that an unbroken run of passes must reach.
Q1_LOW = 0.9


def q1(answer: Any) -> None:
    """How many passes in a row, with no failure, before the interval's low end reaches `Q1_LOW`."""
    needed = next(n for n in range(1, 10_000) if wilson(n, n).low >= Q1_LOW)
    check("Q1", answer, a_number(needed),
          hint="section 3's widths: with every run passing the interval still reaches below the rate; "
               "try growing counts of n passes out of n")


#: Q2: the gap that section 4 closed, and the one half its size.
Q2_RATES = ((0.8, 0.9), (0.8, 0.85))


def q2(answer: Any) -> None:
    """About how many times the runs it takes when the gap between the two rates is halved: 2, 4 or 8."""
    (wide, narrow) = Q2_RATES
    ratio = runs_to_tell_apart(*narrow) / runs_to_tell_apart(*wide)
    nearest = min((2, 4, 8), key=lambda choice: abs(choice - ratio))

    def wrong(times: Any) -> str | None:
        if isinstance(times, bool) or not isinstance(times, int | float):
            return f"expected one of the numbers 2, 4 or 8, got {type(times).__name__}"
        if times not in (2, 4, 8):
            return "answer with one of 2, 4 or 8"
        return None if times == nearest else "that is not the nearest"

    check("Q2", answer, wrong,
          hint="the formula of section 4 divides by the gap squared; what does halving a number do to "
               "its square?")


#: Q3: how many times the class replays the recorded tape.
Q3_REPLAYS = 5


def q3(answer: Any, recorded: EvalResult) -> None:
    """Independent trials under the pooled verdicts of the recorded eval replayed `Q3_REPLAYS` times."""
    check("Q3", answer, a_number(recorded.total),
          hint="section 5 replayed a tape: does a replay draw anything new, or repeat what was recorded?")


#: Exercise 1: the eval to price (runs of the four cases) and the model, at the recorded eval's tokens.
EXERCISE_1_RUNS, EXERCISE_1_MODEL = 25, "claude-opus-5-5"


def exercise_1(answer: Any, recorded: EvalResult) -> None:
    """Dollars of `EXERCISE_1_RUNS` runs of the cases on `EXERCISE_1_MODEL`, at the recorded tokens."""
    per_trial = recorded.cost(model=EXERCISE_1_MODEL).total / recorded.total
    expected = per_trial * EXERCISE_1_RUNS * len(recorded.cases)
    check("Exercise 1", answer, a_number(expected, tolerance=expected * 0.02),
          hint="section 6 priced the recorded eval's tokens; divide by its trials, then count the "
               "trials of 25 runs of four cases, on the model the question names")


SOLUTIONS: dict[str, str] = {
    "my_grader": inspect.getsource(my_grader),
    "predict_rate": "0.75",
    "predict_apart": '"no"',
    "q1": "35",
    "q2": "4",
    "q3": "40",
    "exercise_1": "recorded.cost(model='claude-opus-5-5').total / recorded.total * 100",
}
