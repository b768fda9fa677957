"""Self-check questions for the lessons: a cell compares your answer with the truth.

Write your answer in place of `...` and run the check. Unanswered, a check says so and
moves on; a wrong answer fails loudly (AssertionError) with a hint; a right one says why
it is right. The expected value is always computed from a real run in the notebook, never
typed in, so the check can't drift from what the lesson shows.

>>> check("Q1", ..., expected="user", hint="look at message 3's role")
Q1: not answered yet. Replace ... with your answer and run this cell again.
>>> check("Q1", "User", expected="user", hint="look at message 3's role")
Q1: correct.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check"]


def _same(answer: Any, expected: Any, contains: bool) -> bool:
    if isinstance(answer, str) and isinstance(expected, str):
        answer, expected = answer.strip().casefold(), expected.strip().casefold()
        return expected in answer if contains else answer == expected
    return bool(answer == expected)


def check(label: str, answer: Any, *, expected: Any, hint: str, why: str = "",
          contains: bool = False) -> None:
    """Print whether `answer` is right; raise AssertionError with `hint` when it is wrong.

    Strings compare without regard to case or surrounding spaces; with `contains=True`
    the answer only has to contain `expected`.
    """
    if answer is Ellipsis:
        print(f"{label}: not answered yet. Replace ... with your answer and run this cell again.")
        return
    if not _same(answer, expected, contains):
        raise AssertionError(f"{label}: {answer!r} is not it. Hint: {hint}")
    print(f"{label}: correct." + (f" {why}" if why else ""))
