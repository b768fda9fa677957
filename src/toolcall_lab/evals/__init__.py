"""Measuring a model: an eval of a tool-using task, run many times, its pass rate with an interval.

One run of a model that varies proves little: ask the same question again and it may
slip. An eval asks every case of a table many times, grades each run by what happened
on the transcript, and reports a pass rate with how sure it is:

    cases.py    `Case` (a question, the right call, what the answer must say), the lesson's
                `CASES`, a `Grader` is any `grader(case, run) -> bool`, and the kit's own,
                `behaviour`, whose `Verdict` also says why
    runner.py   `run_eval(cases, provider, runs=N, tools=...)` -> `EvalResult`: the trials,
                the rate, the Wilson interval, a table by case, usage and cost;
                `compare(a, b)`: the interval of the difference, and whether it leaves out 0
    stats.py    `wilson`, `difference`, `runs_to_tell_apart`, `simulate`: standard library only
    figure.py   `plot_intervals`: many evals' intervals against the true rate, as a PNG

    >>> from toolcall_lab import ScriptedProvider
    >>> from toolcall_lab.misbehaving import slips_at
    >>> from toolcall_lab.tools import EXAMPLE_TOOLS
    >>> model = ScriptedProvider(slips_at(0.2, seed=3))      # slips on 1 question in 5
    >>> run_eval(CASES, model, runs=10, tools=EXAMPLE_TOOLS).interval()
    Interval(73.9% to 94.5%)

Lesson 26 ("Measuring a model") teaches it. Left out: graders that are models, graded
scores, paired and sequential designs, and running trials in parallel.
"""

from .cases import CASES, SHIPPED_TAPE_CASES, Case, Grader, Verdict, behaviour, cases_table
from .figure import describe_intervals, plot_intervals
from .runner import Comparison, EvalResult, Trial, compare, run_eval
from .stats import Interval, difference, runs_to_tell_apart, simulate, wilson, z_of

__all__ = ["CASES", "SHIPPED_TAPE_CASES", "Case", "Comparison", "EvalResult", "Grader", "Interval", "Trial",
           "Verdict", "behaviour", "cases_table", "compare", "describe_intervals", "difference",
           "plot_intervals", "run_eval", "runs_to_tell_apart", "simulate", "wilson", "z_of"]
