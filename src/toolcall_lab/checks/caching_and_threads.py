"""Answer keys of lesson 6, "Caching and threads".

The lesson prices lesson 5's loop with prompt caching (a simulation from the dated price
table), a compaction's next call, and a conversation held on the server through the real
SDKs against the API double. Each key computes its answer from the table or from what the
page measured, so it follows the table when a price changes.

    >>> q1("no")
    Q1: correct.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..selfcheck import check, number, word
from ..views.cost import loop_bill
from ..wire.anthropic.caching import CACHE_TTLS, TTL_SECONDS

__all__ = ["CACHE_LIFETIME_MINUTES", "SOLUTIONS", "exercise_1", "predict_first_call",
           "predict_thread_bill", "q1"]

#: Anthropic's default cache lifetime, refreshed on every hit (prompt-caching page,
#: platform.claude.com/docs/en/build-with-claude/prompt-caching, read 2026-11-30).
CACHE_LIFETIME_MINUTES = int(TTL_SECONDS[CACHE_TTLS[0]] // 60)


def predict_first_call(answer: Any, model: str) -> None:
    """With caching on, is call 1 cheaper or dearer than without?"""
    plain, cached = loop_bill(1, 2000, 500, model=model), loop_bill(1, 2000, 500, model=model, caching=True)
    expected = "dearer" if cached.total_dollars > plain.total_dollars else "cheaper"
    check("Prediction", answer, word(expected, choices=("cheaper", "dearer")),
          hint="on call 1 nothing is in the cache yet: what must the provider do with the prefix?")


def predict_thread_bill(answer: Any, whole: Sequence[int], threaded: Sequence[int]) -> None:
    """With the conversation held on the server, is the last call billed "fewer", "same" or
    "more" input tokens than the same call sending everything? `whole` and `threaded` are
    the input tokens the two ways were billed, call by call, as measured on the page."""
    last, held = whole[-1], threaded[-1]
    expected = "same" if held == last else ("fewer" if held < last else "more")
    check("Prediction", answer, word(expected, choices=("fewer", "same", "more")),
          hint="the server rebuilds the conversation before the model reads it: what does "
               "the model read on the last call, with or without a thread?")


def q1(answer: Any, minutes: float = 7) -> None:
    """A tool runs `minutes` between two calls: does call 2 read the 5-minute cache?"""
    expected = "yes" if minutes <= CACHE_LIFETIME_MINUTES else "no"
    check("Q1", answer, word(expected, choices=("yes", "no")),
          hint="a 5-minute cache is refreshed when it is read, but only if it is still alive")


def exercise_1(answer: Any, model: str) -> None:
    """The smallest number of calls for which caching makes the whole loop cheaper."""
    expected = next(n for n in range(1, 100)
                    if loop_bill(n, 2000, 500, model=model, caching=True).total_dollars
                    < loop_bill(n, 2000, 500, model=model).total_dollars)
    check("Exercise 1", answer, number(expected),
          hint="section 1 priced a 10-call loop with caching on and off: price shorter loops the "
               "same way, from one call up, and compare the totals")


SOLUTIONS: dict[str, str] = {
    "predict_first_call": '"dearer"',
    "predict_thread_bill": '"same"',
    "q1": '"no"',
    "exercise_1": ("next(n for n in range(1, 50) if loop_bill(n, 2000, 500, model=MODEL, caching=True)"
                   ".total_dollars < loop_bill(n, 2000, 500, model=MODEL).total_dollars)"),
}
