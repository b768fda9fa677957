"""Self-checks for the lessons: a cell compares your answer with the truth, in one line.

A learner's cell holds only their answer and a call to the lesson's check:

    q2 = ...                       # your answer replaces the ...
    checks.q2(q2, run)             # the key lives in toolcall_lab.checks, not on the page

The check computes the expected value from the lesson's own data (the `run` above), so it
cannot drift from what the lesson shows, and prints one of three verdicts, each one line:

- unanswered (`...`): says so and moves on;
- right: "correct." and, sometimes, why;
- wrong: "✗", what kind of answer was expected, and a hint that points at where to look.

A check never raises in a notebook, whatever the answer: **Run All** (and Restart Kernel and
Run All) always reaches the end of a lesson, and no later cell depends on an answer being
right. Tests want the opposite, so inside `with strict():` (or with the environment variable
`TOOLCALL_LAB_STRICT_CHECKS=1`) a wrong answer raises `WrongAnswer` with the same line.

How an answer is compared is part of the question, and says so when it matters:

    exact(...)     ids and other strings a program must match byte for byte
    word(...)      a word from a small set, any case, nothing around it
    number(...)    an int or float; "3" for 3 gets a hint about the type
    equal(...)     any other value (a pair, a list), with the same type hint

>>> check("Q1", ..., word("user"), hint="look at message 3's role")
Q1: not answered yet. Replace ... with your answer and run this cell again.
>>> check("Q1", "User", word("user"), hint="look at message 3's role")
Q1: correct.
>>> check("Q2", "TOOLU_01", exact("toolu_01"), hint="look at message 2")
✗ Q2: 'TOOLU_01' is not it: ids are compared exactly, and the case differs. Hint: look at message 2
>>> with strict():
...     check("Q2", "TOOLU_01", exact("toolu_01"), hint="look at message 2")
Traceback (most recent call last):
...
toolcall_lab.selfcheck.WrongAnswer: ✗ Q2: 'TOOLU_01' is not it: ids are compared exactly, and the case...

A function or a class is named, not shown as `<function ... at 0x...>`, and long text is cut
at a word:

>>> def read_calls(text): ...
>>> check("Exercise", read_calls, equal(()), hint="h")
✗ Exercise: your function read_calls() is not it: expected a tuple, got function. Hint: h
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from .errors import ToolcallLabError

__all__ = ["STRICT_VARIABLE", "Compare", "WrongAnswer", "check", "equal", "exact", "number", "strict", "word"]

#: A comparison: `None` when the answer is right, else what is wrong with it (a clause).
Compare = Callable[[Any], "str | None"]


class WrongAnswer(ToolcallLabError, AssertionError):
    """Raised by a check on a wrong answer under `strict()` only (tests); shown as one line."""

    def _render_traceback_(self) -> list[str]:
        # IPython shows these lines instead of a traceback (see IPython's showtraceback).
        return [str(self)]


#: Set to 1 and a wrong answer raises `WrongAnswer` instead of printing its line (for tests).
STRICT_VARIABLE = "TOOLCALL_LAB_STRICT_CHECKS"
_STRICT: ContextVar[bool] = ContextVar("toolcall_lab_strict_checks", default=False)


@contextlib.contextmanager
def strict() -> Iterator[None]:
    """Within this block a wrong answer raises `WrongAnswer`: how tests assert a rejection."""
    token = _STRICT.set(True)
    try:
        yield
    finally:
        _STRICT.reset(token)


def _is_strict() -> bool:
    return _STRICT.get() or os.environ.get(STRICT_VARIABLE, "") not in ("", "0")


def check(label: str, answer: Any, compare: Compare, *, hint: str, why: str = "") -> None:
    """Print whether `answer` is right, in one line; a wrong one gets "✗" and `hint`.

    Returns nothing and never raises in a notebook, so Run All goes on past a wrong answer
    and a check as a cell's last line adds no `True` or `None` to the page. Under `strict()`
    a wrong answer raises `WrongAnswer` with the same line instead.
    """
    if answer is Ellipsis:
        print(f"{label}: not answered yet. Replace ... with your answer and run this cell again.")
        return
    problem = compare(answer)
    if problem is not None:
        line = f"✗ {label}: {_show(answer)} is not it: {problem}. Hint: {hint}"
        if _is_strict():
            raise WrongAnswer(line)
        print(line)
        return
    print(f"{label}: correct." + (f" {why}" if why else ""))


def _show(answer: Any, limit: int = 60) -> str:
    """How a verdict quotes an answer: a definition by name, other values by repr cut at a word.

    _show("It is 18°C and sunny in Paris", limit=20) -> "'It is 18°C and…"
    """
    if isinstance(answer, type):
        return f"your class {answer.__name__}"
    if callable(answer) and isinstance(getattr(answer, "__name__", None), str):
        name = answer.__name__
        return "your function" if name == "<lambda>" else f"your function {name}()"
    text = repr(answer)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    # subtle: cut at the last space, unless that throws away more than half (one long word)
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"


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
