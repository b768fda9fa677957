"""Answer keys of lesson 27, "Telling versions apart".

Every key computes its answer from what the lesson passes in (a comparison, a recorded eval)
or from `evals`' own statistics, so no answer is written here. The grader and the pass rate
with its interval are lesson 26's (`measuring_a_model`).

    >>> q1(4)
    Q1: correct.
"""

from __future__ import annotations

from typing import Any

from ..evals.runner import Comparison, EvalResult
from ..evals.stats import runs_to_tell_apart
from ..selfcheck import check, word
from ..selfcheck import number as a_number

__all__ = ["EXERCISE_1_MODEL", "EXERCISE_1_RUNS", "Q1_RATES", "Q2_REPLAYS", "SOLUTIONS", "exercise_1",
           "predict_apart", "q1", "q2"]


def predict_apart(answer: Any, comparison: Comparison) -> None:
    """Whether twenty trials of each version told the two descriptions apart, predicted."""
    check("Prediction", answer, word("yes" if comparison.told_apart else "no", choices=("yes", "no")),
          hint="how wide was lesson 26's interval of twenty trials? The two rates are 10 points apart")


#: Q1: the gap that section 1 closed, and the one half its size.
Q1_RATES = ((0.8, 0.9), (0.8, 0.85))


def q1(answer: Any) -> None:
    """About how many times the runs it takes when the gap between the two rates is halved: 2, 4 or 8."""
    (wide, narrow) = Q1_RATES
    ratio = runs_to_tell_apart(*narrow) / runs_to_tell_apart(*wide)
    nearest = min((2, 4, 8), key=lambda choice: abs(choice - ratio))

    def wrong(times: Any) -> str | None:
        if isinstance(times, bool) or not isinstance(times, int | float):
            return f"expected one of the numbers 2, 4 or 8, got {type(times).__name__}"
        if times not in (2, 4, 8):
            return "answer with one of 2, 4 or 8"
        return None if times == nearest else "that is not the nearest"

    check("Q1", answer, wrong,
          hint="the formula of section 1 divides by the gap squared; what does halving a number do to "
               "its square?")


#: Q2: how many times the class replays the recorded tape.
Q2_REPLAYS = 5


def q2(answer: Any, recorded: EvalResult) -> None:
    """Independent trials under the pooled verdicts of the recorded eval replayed `Q2_REPLAYS` times."""
    check("Q2", answer, a_number(recorded.total),
          hint="section 2 replayed a tape: does a replay draw anything new, or repeat what was recorded?")


#: Exercise 1: the eval to price (runs of the four cases) and the model, at the recorded eval's tokens.
EXERCISE_1_RUNS, EXERCISE_1_MODEL = 25, "claude-opus-5-5"


def exercise_1(answer: Any, recorded: EvalResult) -> None:
    """Dollars of `EXERCISE_1_RUNS` runs of the cases on `EXERCISE_1_MODEL`, at the recorded tokens."""
    per_trial = recorded.cost(model=EXERCISE_1_MODEL).total / recorded.total
    expected = per_trial * EXERCISE_1_RUNS * len(recorded.cases)
    check("Exercise 1", answer, a_number(expected, tolerance=expected * 0.02),
          hint="section 3 priced the recorded eval's tokens; divide by its trials, then count the "
               "trials of 25 runs of four cases, on the model the question names")


SOLUTIONS: dict[str, str] = {
    "predict_apart": '"no"',
    "q1": "4",
    "q2": "40",
    "exercise_1": "recorded.cost(model='claude-opus-5-5').total / recorded.total * 100",
}
