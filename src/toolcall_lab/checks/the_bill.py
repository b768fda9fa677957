"""Answer keys of lesson 3, "The bill of a loop".

Money is compared to the cent's hundredth; token counts exactly. A total worked out
with an off-by-one in the formula (n² instead of n(n−1)) is a wrong answer, on purpose:
that is the mistake the formula exercise is there to catch.
"""

from __future__ import annotations

from typing import Any

from ..cost import cost_of, loop_bill
from ..loop import Run
from ..models import tool_prompt_tokens
from ..selfcheck import check, number, word
from ..tokens import loop_input_total
from ..usage import Usage

__all__ = ["CACHE_LIFETIME_MINUTES", "SOLUTIONS", "exercise_1", "exercise_2", "loop_total",
           "predict_first_call", "q1", "q2", "q3"]

#: Anthropic's default cache lifetime, refreshed on every hit (prompt-caching page,
#: platform.claude.com/docs/en/build-with-claude/prompt-caching, read 2026-11-30).
CACHE_LIFETIME_MINUTES = 5


def loop_total(answer: Any, n: int, h0: int, t: int) -> None:
    """Your total input tokens for a loop of `n` calls, `h0` to start, `t` per step."""
    check("Your total", answer, number(loop_input_total(n, h0, t)),
                 hint="call i re-sends h0 + (i − 1)·t; add those up for i = 1 … n, or use "
                      "n·h0 + t·n(n−1)/2 (mind the n − 1)")


def predict_first_call(answer: Any, model: str) -> None:
    """With caching on, is call 1 cheaper or dearer than without?"""
    plain, cached = loop_bill(1, 2000, 500, model=model), loop_bill(1, 2000, 500, model=model, caching=True)
    expected = "dearer" if cached.total_dollars > plain.total_dollars else "cheaper"
    check("Prediction", answer, word(expected, choices=("cheaper", "dearer")),
                 hint="on call 1 nothing is in the cache yet: what must the provider do with the prefix?")


def q1(answer: Any, run: Run, calls: int = 20) -> None:
    """Hidden tool-prompt tokens a `calls`-call loop on `run`'s model adds in total."""
    model = run.steps[0].turn.model or ""
    check("Q1", answer, number(calls * tool_prompt_tokens(model)),
                 hint="the hidden prompt is added to every request that offers tools, once per call")


def q2(answer: Any, model: str = "claude-haiku-5-5") -> None:
    """Does a 150,000-token prompt pay the same per input token as a 50,000-token one?"""
    small = cost_of(Usage(input_tokens=50_000, output_tokens=0), model).total / 50_000
    large = cost_of(Usage(input_tokens=150_000, output_tokens=0), model).total / 150_000
    expected = "higher" if large > small * 1.0001 else "same"
    check("Q2", answer, word(expected, choices=("same", "higher")),
                 hint="look at the price table of section 1: does any row have two tiers?")


def q3(answer: Any, minutes: float = 7) -> None:
    """A tool runs `minutes` between two calls: does call 2 read the 5-minute cache?"""
    expected = "yes" if minutes <= CACHE_LIFETIME_MINUTES else "no"
    check("Q3", answer, word(expected, choices=("yes", "no")),
                 hint="a 5-minute cache is refreshed when it is read, but only if it is still alive")


def exercise_1(answer: Any) -> None:
    """Total input tokens of a 20-call loop, 2,000 to start, 500 per step."""
    check("Exercise 1", answer, number(loop_input_total(20, 2000, 500)),
                 hint="n = 20 calls: n·h0 plus t·n(n−1)/2")


def exercise_2(answer: Any, model: str) -> None:
    """The smallest number of calls for which caching makes the whole loop cheaper."""
    expected = next(n for n in range(1, 100)
                    if loop_bill(n, 2000, 500, model=model, caching=True).total_dollars
                    < loop_bill(n, 2000, 500, model=model).total_dollars)
    check("Exercise 2", answer, number(expected),
                 hint="one call never pays: it only writes the cache and reads nothing back")


SOLUTIONS: dict[str, str] = {
    "my_total": "12 * 3000 + 800 * 12 * 11 // 2",
    "predict_first_call": '"dearer"',
    "q1": "20 * tool_prompt_tokens(paris.steps[0].turn.model)",
    "q2": '"higher"',
    "q3": '"no"',
    "exercise_1": "20 * 2000 + 500 * 20 * 19 // 2",
    "exercise_2": ("next(n for n in range(1, 50) if loop_bill(n, 2000, 500, model=MODEL, caching=True)"
                   ".total_dollars < loop_bill(n, 2000, 500, model=MODEL).total_dollars)"),
}
