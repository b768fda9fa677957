"""Self-checks for the lessons: a cell compares your answer with the truth, in one line.

A learner's cell holds only their answer and a call to the lesson's check:

    q2 = ...                       # your answer replaces the ...
    checks.q2(q2, run)             # the key lives in toolcall_lab.checks, not on the page

The check computes the expected value from the lesson's own data (the `run` above), so it
cannot drift from what the lesson shows, and prints one of three things:

- unanswered (`...`): says so and moves on, so **Run All** still reaches the end;
- right: "correct." and, sometimes, why;
- wrong: raises `WrongAnswer`, which a notebook shows as **one line** (what kind of
  answer was expected and a hint), never a traceback through the kit's files.

How an answer is compared is part of the question, and says so when it matters:

    exact(...)     ids and other strings a program must match byte for byte
    word(...)      a word from a small set, any case, nothing around it
    number(...)    an int or float; "3" for 3 gets a hint about the type
    equal(...)     any other value (a pair, a list), with the same type hint

>>> check("Q1", ..., word("user"), hint="look at message 3's role")
Q1: not answered yet. Replace ... with your answer and run this cell again.
>>> check("Q1", "User", word("user"), hint="look at message 3's role")
Q1: correct.
>>> check("Q2", "TOOLU_01", exact("toolu_01"), hint="copy it from message 2")
Traceback (most recent call last):
...
toolcall_lab.selfcheck.WrongAnswer: ✗ Q2: 'TOOLU_01' is not it: ids are compared exactly, and the case...
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from .errors import ToolcallLabError

__all__ = ["Compare", "WrongAnswer", "check", "equal", "exact", "number", "word"]

#: A comparison: `None` when the answer is right, else what is wrong with it (a clause).
Compare = Callable[[Any], "str | None"]


class WrongAnswer(ToolcallLabError, AssertionError):
    """Raised by a check when an answer is wrong; a notebook shows it as one line."""

    def _render_traceback_(self) -> list[str]:
        # IPython shows these lines instead of a traceback (see IPython's showtraceback).
        return [str(self)]


def check(label: str, answer: Any, compare: Compare, *, hint: str, why: str = "") -> None:
    """Print whether `answer` is right; raise `WrongAnswer` (one line, with `hint`) when not.

    Returns nothing, so a check as a cell's last line adds no `True` or `None` to the page.
    """
    if answer is Ellipsis:
        print(f"{label}: not answered yet. Replace ... with your answer and run this cell again.")
        return
    problem = compare(answer)
    if problem is not None:
        raise WrongAnswer(f"✗ {label}: {_show(answer)} is not it: {problem}. Hint: {hint}")
    print(f"{label}: correct." + (f" {why}" if why else ""))


def _show(answer: Any, limit: int = 60) -> str:
    text = repr(answer)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _type_hint(answer: Any, expected: Any) -> str | None:
    """A clause for a right value of the wrong type ("3" for 3), else None."""
    if isinstance(expected, bool) or isinstance(answer, bool):
        return None
    if isinstance(expected, (int, float)) and isinstance(answer, str):
        try:
            as_number = float(answer.replace(",", "").replace("_", ""))
        except ValueError:
            return f"expected a number, not text ({type(answer).__name__})"
        if as_number == expected:
            return "that is the right number written as text: drop the quotes"
        return f"expected a number, not text ({type(answer).__name__})"
    if isinstance(expected, str) and isinstance(answer, (int, float)) and str(answer) == expected:
        return "that is the right value as a number: this answer is text, so put it in quotes"
    if isinstance(expected, tuple) and isinstance(answer, list) and tuple(answer) == expected:
        return "right values, but write them as a pair in round brackets"
    return None


@dataclass(frozen=True)
class exact:
    """The answer must equal `expected` exactly: same type, same case, nothing around it."""

    expected: str

    def __call__(self, answer: Any) -> str | None:
        if not isinstance(answer, str):
            return (_type_hint(answer, self.expected)
                    or f"expected text (a str), got {type(answer).__name__}")
        if answer == self.expected:
            return None
        if answer.strip() == self.expected:
            return "it has spaces around it; programs compare ids character by character"
        if answer.casefold() == self.expected.casefold():
            return "ids are compared exactly, and the case differs"
        if self.expected in answer:
            return "the answer is only the value itself, with nothing around it"
        return "that string does not match"


@dataclass(frozen=True)
class word:
    """The answer is one word (any case, spaces around ignored), optionally from `choices`."""

    expected: str
    choices: Collection[str] = ()

    def __call__(self, answer: Any) -> str | None:
        if not isinstance(answer, str):
            return (_type_hint(answer, self.expected)
                    or f"expected a word in quotes, got {type(answer).__name__}")
        said = answer.strip().casefold()
        if said == self.expected.casefold():
            return None
        if self.choices and said not in {c.casefold() for c in self.choices}:
            return "answer with one of " + ", ".join(repr(c) for c in self.choices)
        if self.expected.casefold() in said:
            return "answer with the word alone"
        return "that is not the right one"


@dataclass(frozen=True)
class number:
    """The answer is a number equal to `expected` (within `tolerance`, for money and ratios)."""

    expected: float
    tolerance: float = 0

    def __call__(self, answer: Any) -> str | None:
        if isinstance(answer, bool) or not isinstance(answer, (int, float)):
            return _type_hint(answer, self.expected) or f"expected a number, got {type(answer).__name__}"
        if abs(answer - self.expected) <= self.tolerance:
            return None
        return "that number is not it"


@dataclass(frozen=True)
class equal:
    """The answer equals `expected` (a pair, a list, ...), type included."""

    expected: Any

    def __call__(self, answer: Any) -> str | None:
        if type(answer) is type(self.expected) and answer == self.expected:
            return None
        hint = _type_hint(answer, self.expected)
        if hint:
            return hint
        if type(answer) is not type(self.expected):
            return f"expected a {type(self.expected).__name__}, got {type(answer).__name__}"
        return "that is not it"
