"""How sure a pass rate is: the Wilson interval, the gap between two rates, and how many runs it takes.

An eval that passed `k` of `n` runs measured `k / n` once; run it again and it measures
something else. These functions say how far the true rate can be from what was measured,
with nothing but the standard library (`statistics.NormalDist` gives the normal quantiles):

    wilson(k, n)                    the interval that holds the true rate, at 95% by default
    difference(ka, na, kb, nb)      the interval of rate b minus rate a (Newcombe's method)
    runs_to_tell_apart(pa, pb)      runs of each version for that difference to show, 4 times in 5
    simulate(rate, runs, evals=...) pass counts of many evals of a model that passes at `rate`

Every run is a trial that passes or fails on its own (a Bernoulli trial): the runs of an
eval must not share their outcome (a tape replayed twice is one run counted twice).

Left out: intervals for graded scores (not pass / fail), paired designs (the same cases
graded under two versions, which need fewer runs), corrections for comparing many
versions at once, and Bayesian intervals.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist
from typing import NamedTuple

from ..errors import UsageError, UsageTypeError

__all__ = ["Interval", "difference", "runs_to_tell_apart", "simulate", "wilson", "z_of"]


class Interval(NamedTuple):
    """Where a rate (or a difference of rates) lies, at the confidence it was built with.

    >>> Interval(0.49016, 0.94332)
    Interval(49.0% to 94.3%)
    >>> Interval(0.49016, 0.94332).holds(0.9), round(Interval(0.49016, 0.94332).width, 3)
    (True, 0.453)
    """

    low: float
    high: float

    @property
    def width(self) -> float:
        return self.high - self.low

    def holds(self, rate: float) -> bool:
        """True when `rate` lies inside the interval, ends included."""
        return self.low <= rate <= self.high

    def __repr__(self) -> str:
        return f"Interval({self.low:.1%} to {self.high:.1%})"

    def __str__(self) -> str:
        return f"{self.low:.1%} to {self.high:.1%}"


def _level(level: object) -> float:
    if isinstance(level, bool) or not isinstance(level, int | float):
        raise UsageTypeError(f"level is a confidence between 0 and 1, a number; got {level!r}. "
                             "Pass, for example, level=0.95.")
    if not 0 < level < 1:
        raise UsageError(f"level is a confidence between 0 and 1, got {level!r}; pass, for example, "
                         "level=0.95 (not 95).")
    return float(level)


def z_of(level: float = 0.95) -> float:
    """How many standard deviations each side of the mean hold `level` of a normal distribution.

    >>> round(z_of(0.95), 4), round(z_of(0.99), 4)
    (1.96, 2.5758)
    """
    # the two tails share what is left: 95% inside leaves 2.5% above z
    return NormalDist().inv_cdf(1 - (1 - _level(level)) / 2)


def _counts(passed: object, runs: object) -> tuple[int, int]:
    if isinstance(passed, bool) or isinstance(runs, bool) or not isinstance(passed, int) \
            or not isinstance(runs, int):
        raise UsageTypeError(f"passed and runs are whole numbers of runs, got {passed!r} and {runs!r}.")
    if runs < 1 or not 0 <= passed <= runs:
        raise UsageError(f"{passed} passed of {runs} runs is not a count: runs must be 1 or more and "
                         "passed between 0 and runs.")
    return passed, runs


def wilson(passed: int, runs: int, *, level: float = 0.95) -> Interval:
    """The Wilson score interval of a pass rate: where the true rate lies, at `level` confidence.

    With p = passed / runs, n = runs and z = `z_of(level)`:

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z · √(p(1 − p)/n + z²/4n²) / (1 + z²/n)

    Worked: 8 of 10 at 95%, so p = 0.8, n = 10, z = 1.96 and z² = 3.8415:

        1 + z²/n = 1.38415
        centre   = (0.8 + 0.19207) / 1.38415 = 0.71674
        half     = 1.96 · √(0.016 + 0.0096037) / 1.38415 = 1.96 · 0.16001 / 1.38415 = 0.22658
        interval = 0.71674 ± 0.22658 = 0.4902 to 0.9433

    >>> wilson(8, 10)
    Interval(49.0% to 94.3%)

    Unlike p ± z·√(p(1−p)/n), it never leaves 0..1 and does not shrink to nothing at 10 of
    10: one run that passed says only that the rate is somewhere from 21% to 100%.

    >>> wilson(1, 1), wilson(10, 10)
    (Interval(20.7% to 100.0%), Interval(72.2% to 100.0%))
    """
    passed, runs = _counts(passed, runs)
    z = z_of(level)
    p, n = passed / runs, runs
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    # subtle: at 0 (or all) passes the low (or high) end is exactly 0 (or 1), but the float
    # arithmetic lands a hair off it (2.8e-17 for 0 of 10); say it exactly
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == runs else min(1.0, centre + half)
    return Interval(low, high)


def difference(passed_a: int, runs_a: int, passed_b: int, runs_b: int, *, level: float = 0.95) -> Interval:
    """The interval of rate b minus rate a, built from their two Wilson intervals (Newcombe's method 10).

    With d = pb − pa and each rate's Wilson interval [l, u]:

        low  = d − √((pb − lb)² + (ua − pa)²)
        high = d + √((ub − pb)² + (pa − la)²)

    Worked: a passed 16 of 20 (0.8, Wilson 0.5840 to 0.9193), b 18 of 20 (0.9, Wilson
    0.6990 to 0.9721), so d = 0.1 and

        low  = 0.1 − √(0.2010² + 0.1193²) = 0.1 − 0.2338 = −0.1338
        high = 0.1 + √(0.0721² + 0.2160²) = 0.1 + 0.2277 = 0.3277

    >>> difference(16, 20, 18, 20)
    Interval(-13.4% to 32.8%)

    The interval holds 0, so these twenty runs each cannot tell a from b. (Two intervals
    that overlap can still differ: judge by this interval, not by the overlap.)
    R. G. Newcombe, "Interval estimation for the difference between independent
    proportions", Statistics in Medicine 17 (1998), 873-890.
    """
    low_a, high_a = wilson(passed_a, runs_a, level=level)
    low_b, high_b = wilson(passed_b, runs_b, level=level)
    rate_a, rate_b = passed_a / runs_a, passed_b / runs_b
    gap = rate_b - rate_a
    return Interval(gap - math.hypot(rate_b - low_b, high_a - rate_a),
                    gap + math.hypot(high_b - rate_b, rate_a - low_a))


def _rate(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageTypeError(f"{name} is a pass rate between 0 and 1, a number; got {value!r}.")
    if not 0 <= value <= 1:
        raise UsageError(f"{name} is a pass rate between 0 and 1, got {value!r}; write 80% as 0.8.")
    return float(value)


def runs_to_tell_apart(rate_a: float, rate_b: float, *, level: float = 0.95, power: float = 0.8) -> int:
    """How many runs of each version an eval needs to tell pass rates `rate_a` and `rate_b` apart.

    "Apart" means a two-sided test at `level` (the interval of the difference leaves out 0),
    and `power` is how often that happens when the rates really are these two: with the
    default 0.8, four comparisons in five of this size tell them apart, and one does not.
    With p̄ the mean of the two rates, zα = `z_of(level)` and zβ the one-sided quantile of
    `power`:

        n = (zα·√(2·p̄(1 − p̄)) + zβ·√(pa(1 − pa) + pb(1 − pb)))² / (pa − pb)²

    Worked: 0.8 against 0.9, so p̄ = 0.85, zα = 1.96, zβ = 0.8416:

        √(2 · 0.85 · 0.15) = 0.50498      √(0.16 + 0.09) = 0.5
        n = (1.96 · 0.50498 + 0.8416 · 0.5)² / 0.1² = 1.41054² / 0.01 = 198.96, so 199

    >>> runs_to_tell_apart(0.8, 0.9), runs_to_tell_apart(0.8, 0.85)
    (199, 906)

    Halving the gap takes four to five times the runs: n grows as 1 / gap².
    """
    rate_a, rate_b = _rate("rate_a", rate_a), _rate("rate_b", rate_b)
    if rate_a == rate_b:
        raise UsageError(f"rate_a and rate_b are both {rate_a}; no number of runs tells a rate from itself.")
    if isinstance(power, bool) or not isinstance(power, int | float) or not 0 < power < 1:
        raise UsageError(f"power is how often the test should tell the rates apart, between 0 and 1; "
                         f"got {power!r}. Pass, for example, power=0.8.")
    z_alpha, z_beta = z_of(level), NormalDist().inv_cdf(power)
    mean = (rate_a + rate_b) / 2
    spread = z_alpha * math.sqrt(2 * mean * (1 - mean)) + z_beta * math.sqrt(
        rate_a * (1 - rate_a) + rate_b * (1 - rate_b))
    return math.ceil(spread ** 2 / (rate_a - rate_b) ** 2)


def simulate(rate: float, runs: int, *, evals: int = 1, seed: int = 0) -> list[int]:
    """The pass counts of `evals` evals of `runs` runs each, of a model that passes at `rate`.

    Each run is a coin that lands "pass" with probability `rate`, drawn from
    `random.Random(seed)`, so the same arguments give the same counts on every machine.
    It is what a seeded model that slips now and then does, without running the loop:
    thousands of evals take milliseconds.

    >>> counts = simulate(0.8, 20, evals=1000, seed=1)
    >>> round(sum(counts) / (20 * 1000), 2)   # the mean comes out near the rate
    0.8
    >>> min(counts) < 16 < max(counts)        # and single evals spread around it
    True
    """
    rate = _rate("rate", rate)
    _counts(0, runs)
    if isinstance(evals, bool) or not isinstance(evals, int) or evals < 1:
        raise UsageError(f"evals is how many evals to simulate, a whole number of 1 or more; got {evals!r}.")
    coin = random.Random(seed)
    return [sum(coin.random() < rate for _ in range(runs)) for _ in range(evals)]
