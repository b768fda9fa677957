# mypy: disable-error-code="no-untyped-def"
# (the worked grader of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 26, "Measuring a model".

Every key computes its answer from what the lesson passes in (an eval it ran) or from `evals`'
own statistics, so no answer is written here. Telling two versions apart, tapes and the cost of
an eval are lesson 27's (`telling_versions_apart`).

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
from ..evals.runner import EvalResult
from ..evals.stats import wilson
from ..loop import Run, run_agent
from ..messages import Message
from ..providers.scripted import ScriptedProvider, call
from ..selfcheck import check
from ..selfcheck import number as a_number
from ..tools import EXAMPLE_TOOLS
from ..tools.weather import get_weather
from ..transcript import Transcript
from ._runs import raised as _raised
from ._runs import run_watching as _run_watching
from ._runs import template as _template

__all__ = ["EXERCISE_1_RATE", "EXERCISE_1_WIDTH", "Q1_LOW", "SOLUTIONS", "exercise_1", "my_grader",
           "predict_rate", "q1", "staged", "your_grader"]


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


# -- check yourself ----------------------------------------------------------------------------------
#: Q1: the low end of the 95% interval that an unbroken run of passes must reach.
Q1_LOW = 0.9


def q1(answer: Any) -> None:
    """How many passes in a row, with no failure, before the interval's low end reaches `Q1_LOW`."""
    needed = next(n for n in range(1, 10_000) if wilson(n, n).low >= Q1_LOW)
    check("Q1", answer, a_number(needed),
          hint="section 3's widths: with every run passing the interval still reaches below the rate; "
               "try growing counts of n passes out of n")


#: Exercise 1: the pass rate of the model, and the widest the 95% interval may be (high minus low).
EXERCISE_1_RATE, EXERCISE_1_WIDTH = 0.9, 0.10


def exercise_1(answer: Any) -> None:
    """The fewest trials, a multiple of 10, for which `EXERCISE_1_RATE` of them passing has a 95%
    Wilson interval at most `EXERCISE_1_WIDTH` wide."""
    def width(n: int) -> float:
        interval = wilson(round(EXERCISE_1_RATE * n), n)
        return interval.high - interval.low

    expected = next(n for n in range(10, 100_000, 10) if width(n) <= EXERCISE_1_WIDTH)
    check("Exercise 1", answer, a_number(expected),
          hint="section 3 printed the interval of growing trials at 80%; do the same at 90%, in steps "
               "of 10, and stop at the first whose whole width (high minus low, not half) is 10 points "
               "or less")


SOLUTIONS: dict[str, str] = {
    "my_grader": inspect.getsource(my_grader),
    "predict_rate": "0.75",
    "q1": "35",
    "exercise_1": ("next(n for n in range(10, 1000, 10)\n"
                   "     if wilson(9 * n // 10, n).high - wilson(9 * n // 10, n).low <= 0.10)"),
}
