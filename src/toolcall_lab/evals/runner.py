"""Running an eval: every case, `runs` times, against one provider, each run graded: a pass rate, no verdict.

    >>> from toolcall_lab import ScriptedProvider
    >>> from toolcall_lab.misbehaving import slips_at
    >>> from toolcall_lab.tools import EXAMPLE_TOOLS
    >>> from .cases import CASES
    >>> result = run_eval(CASES, ScriptedProvider(slips_at(0.2, seed=3)), runs=10, tools=EXAMPLE_TOOLS)
    >>> result
    EvalResult(4 cases x 10 runs: 35/40 passed, 87.5% (95%: 73.9% to 94.5%))

Each (case, run) is one trial, graded on its own, and the interval is over all trials:
right when the cases are about equally hard for the model, which `table()` lets you
check case by case. A model that varies must vary from trial to trial: a scripted model
seeded once (`misbehaving.slips_at`) draws afresh for each question, and a real provider
varies by itself. A tape replayed again is the same trial counted twice (`tape.replay`
answers a repeated request with the recorded reply), so an eval's runs from a tape are
only as many as were recorded.

What it costs is the runs' usage priced with the kit's table (`cost`): for a real
provider the tokens billed, for the scripted model an estimate that you price on a model
of your choice.

Left out: running trials in parallel, retrying a provider's transient errors (a run that
raises one stops the eval: the error says which trial), and stopping early once the
interval is narrow enough (which needs corrections of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from ..errors import MaxStepsExceeded, UsageError, UsageTypeError
from ..loop import Run, run_agent
from ..models import price_of
from ..usage import Usage
from ..views.cost import Cost, run_cost
from .cases import Case, Grader, Verdict, behaviour
from .stats import Interval, difference, wilson

if TYPE_CHECKING:
    from ..models import Price
    from ..providers.base import Provider
    from ..tool import Tool

__all__ = ["Comparison", "EvalResult", "Trial", "compare", "run_eval"]


@dataclass(frozen=True)
class Trial:
    """One run of one case: which case, which run (from 1), the verdict and the run itself."""

    case: Case
    number: int
    verdict: Verdict
    run: Run = field(repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.verdict.passed


@dataclass(frozen=True, repr=False)
class EvalResult:
    """Every trial of an eval, in the order they ran (run 1 of every case, then run 2, ...)."""

    trials: tuple[Trial, ...]
    cases: tuple[Case, ...]
    runs: int
    model: str

    @property
    def passed(self) -> int:
        return sum(trial.passed for trial in self.trials)

    @property
    def total(self) -> int:
        return len(self.trials)

    @property
    def rate(self) -> float:
        """The share of trials that passed: what this eval measured, once."""
        return self.passed / self.total

    def interval(self, *, level: float = 0.95) -> Interval:
        """Where the model's true pass rate lies, at `level` confidence (`stats.wilson`)."""
        return wilson(self.passed, self.total, level=level)

    def by_case(self) -> list[tuple[Case, int, int]]:
        """(case, passed, runs) for each case, in the table's order."""
        return [(case, sum(t.passed for t in self.trials if t.case is case), self.runs)
                for case in self.cases]

    @property
    def usage(self) -> Usage:
        """Tokens over every trial (estimated, for the scripted model)."""
        return sum((trial.run.usage for trial in self.trials), Usage())

    def cost(self, *, model: str | Price | None = None) -> Cost:
        """Every trial's usage at list prices (`cost.run_cost`): on the model that ran it, or `model`."""
        if model is None and price_of(self.model) is None:
            raise UsageError(f"the kit's price table has no price for {self.model!r} (the scripted model "
                             "is free); pass model=... to price these tokens on a model, e.g. "
                             "cost(model='claude-haiku-5-5').")
        return sum((run_cost(trial.run, model=model) for trial in self.trials), Cost())

    def table(self) -> str:
        """A row per case and one for all: passed, rate and 95% interval, in columns of fixed width."""
        rows = [(case.question, passed, runs) for case, passed, runs in self.by_case()]
        width = max(len(question) for question, _, _ in rows)
        lines = [f"{'case':<{width}}  passed   rate  95% interval",
                 f"{'-' * width}  ------  -----  -------------"]
        for question, passed, runs in [*rows, ("all", self.passed, self.total)]:
            low, high = wilson(passed, runs)
            lines.append(f"{question:<{width}}  {passed:>3}/{runs:<3} {passed / runs:>5.0%}  "
                         f"{low:>4.0%} to {high:.0%}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        cases, runs = len(self.cases), self.runs
        return (f"EvalResult({cases} case{'s' if cases != 1 else ''} x {runs} run{'s' if runs != 1 else ''}: "
                f"{self.passed}/{self.total} passed, {self.rate:.1%} (95%: {self.interval()}))")


def _checked(cases: object, runs: object) -> tuple[Case, ...]:
    if isinstance(runs, bool) or not isinstance(runs, int):
        raise UsageTypeError(f"runs is how many times each case runs, a whole number; got {runs!r}.")
    if runs < 1:
        raise UsageError(f"runs is how many times each case runs, 1 or more; got {runs}.")
    if isinstance(cases, Case):
        raise UsageTypeError("cases is a list of cases; to run one, pass [case].")
    table = tuple(cases) if isinstance(cases, Sequence) else ()
    if not table or not all(isinstance(case, Case) for case in table):
        raise UsageTypeError(f"cases is a non-empty list of evals.Case, got {cases!r}; see evals.CASES.")
    return table


def _graded(grader: Grader, case: Case, run: Run, where: str) -> Verdict:
    """The grader's judgement as a `Verdict`; a grader that raises or returns another type is named."""
    try:
        judged = grader(case, run)
    except Exception as exc:
        raise UsageError(f"the grader raised {type(exc).__name__} on {where}: {exc}; a grader must judge "
                         "every run, the failures too.") from exc
    if isinstance(judged, Verdict):
        return judged
    if isinstance(judged, bool):
        return Verdict(judged, "passed" if judged else "failed")
    raise UsageTypeError(f"the grader returned {type(judged).__name__} {judged!r} on {where}; a grader "
                         "returns True or False (or a Verdict).")


def run_eval(cases: Sequence[Case], provider: Provider, *, runs: int, tools: Sequence[Tool] = (),
             grader: Grader = behaviour, system: str | None = None, max_steps: int = 4) -> EvalResult:
    """Ask every case `runs` times of `provider`, each a fresh conversation, and grade each run.

    Run 1 of every case goes first, then run 2, and so on, so an eval stopped early has
    covered every case alike. A run that hits `max_steps` is graded as it stands (it
    usually fails). The grader defaults to `behaviour`; yours may return a bool.
    Costs `runs x len(cases)` conversations: with a real provider, keep `runs` small and
    price one run first (`EvalResult.cost`).
    """
    table = _checked(cases, runs)
    trials: list[Trial] = []
    for number in range(1, runs + 1):
        for index, case in enumerate(table, start=1):
            try:
                run = run_agent(provider, case.question, tools=tools, system=system, max_steps=max_steps)
            except MaxStepsExceeded as exc:
                run = cast(Run, exc.run)  # run_agent raises it with its Run (errors.RunSoFar names no loop)
            verdict = _graded(grader, case, run, f"case {index}, run {number}")
            trials.append(Trial(case, number, verdict, run))
    return EvalResult(tuple(trials), table, runs, str(getattr(provider, "model", "") or "unknown"))


@dataclass(frozen=True)
class Comparison:
    """Two evals of the same cases side by side: how far b's pass rate is from a's, and how sure."""

    a: EvalResult
    b: EvalResult
    gap: Interval

    @property
    def told_apart(self) -> bool:
        """True when the interval of the difference leaves out 0: the two rates differ, at 95%."""
        return not self.gap.holds(0.0)

    def __repr__(self) -> str:
        points = (self.b.rate - self.a.rate) * 100
        verdict = "told apart" if self.told_apart else "not told apart"
        return (f"b - a: {points:+.1f} points, 95% interval {self.gap.low * 100:+.1f} to "
                f"{self.gap.high * 100:+.1f}: {verdict}")


def compare(a: EvalResult, b: EvalResult) -> Comparison:
    """How b's pass rate differs from a's, with the 95% interval of the difference (`stats.difference`)."""
    return Comparison(a, b, difference(a.passed, a.total, b.passed, b.total))
