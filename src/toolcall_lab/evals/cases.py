"""What an eval asks, and how a run is judged: a table of cases, and graders that read the transcript.

A `Case` is one question with what a careful model does about it: which tool it calls,
with which arguments, and what the answer must then say (a fact that comes from the
tool's result). A *grader* is any function `grader(case, run)` that returns True when the
run passed; the kit's `behaviour` returns a `Verdict`, which is true or false and also says why.

`behaviour` judges what happened, on the transcript, never the wording of the answer:

    1. some call (not necessarily the first) is to `case.tool` with exactly `case.args`;
    2. a result answers that call: its `call_id` is the call's id, the same string (a
       result for "TOOLU_01" does not answer "toolu_01");
    3. that result is not an error and holds `case.says`: the fact came from the tool;
    4. the final answer holds `case.says` too: the model used the result.

"Holds" means as a whole (`holds`): "291" is not in "2910", nor in "291.5".

    >>> from toolcall_lab import ScriptedProvider, run_agent
    >>> from toolcall_lab.examples import weather_policy
    >>> from toolcall_lab.tools import EXAMPLE_TOOLS
    >>> paris = CASES[0]
    >>> behaviour(paris, run_agent(ScriptedProvider(weather_policy), paris.question, tools=EXAMPLE_TOOLS))
    ✓ the right call, and the answer says '18°C'

Left out: graders that ask another model to judge (they vary as the model does, and need
an eval of their own), partial credit, and answers judged on their wording.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._text import shorten, table
from ..errors import UsageError, UsageTypeError

if TYPE_CHECKING:
    from ..loop import Run

__all__ = ["CASES", "SHIPPED_TAPE_CASES", "Case", "Grader", "Verdict", "behaviour", "cases_table", "holds"]


@dataclass(frozen=True)
class Case:
    """One question of an eval: the tool and arguments a careful model uses, and what its answer says.

    >>> Case("What is 2 + 2?", "calculator", {"expression": "2 + 2"}, says="4")
    Case('What is 2 + 2?', tool='calculator', args={'expression': '2 + 2'}, says='4')
    """

    question: str
    tool: str
    args: Mapping[str, Any] = field(hash=False)
    says: str

    def __post_init__(self) -> None:
        if not isinstance(self.says, str):
            raise UsageTypeError(f"a case's says is the fact its answer must hold, a str such as '18°C'; "
                                 f"got {type(self.says).__name__} {self.says!r}.")
        if not self.says.strip():
            # subtle: "" is in every string, so an empty fact would pass any run
            raise UsageError(f"a case's says is the fact its answer must hold, and {self.says!r} holds "
                             f"none (it would pass any answer); give the fact, e.g. says='18°C'.")

    def __repr__(self) -> str:
        return f"Case({self.question!r}, tool={self.tool!r}, args={dict(self.args)!r}, says={self.says!r})"


@dataclass(frozen=True)
class Verdict:
    """A grader's judgement of one run: `passed`, and `why` in one line. True when it passed."""

    passed: bool
    why: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"{'✓' if self.passed else '✗'} {self.why}"


#: A grader: True (or a true `Verdict`) when the run passed the case.
Grader = Callable[["Case", "Run"], "bool | Verdict"]


def _shown(args: Mapping[str, Any]) -> str:
    return repr(dict(args))


def behaviour(case: Case, run: Run) -> Verdict:
    """Did the run call `case.tool` with `case.args`, get a result that says `case.says`, and use it?

    The four steps of the module docstring, each failing with one line that says which.
    """
    transcript = run.transcript
    calls = transcript.tool_calls()
    named = [c for c in calls if c.name == case.tool]
    if not named:
        called = ", ".join(sorted({c.name for c in calls})) or "no tool at all"
        return Verdict(False, f"no call of {case.tool}: it called {called}")
    right = [c for c in named if dict(c.args) == dict(case.args)]
    if not right:
        return Verdict(False, f"{case.tool} got {_shown(named[-1].args)}, not {_shown(case.args)}")
    # subtle: ids compared exactly, as the APIs pair them; a result for "TOOLU_01" answers nothing here
    results = {r.call_id: r for r in transcript.tool_results()}
    answered = [(c, results[c.id]) for c in right if c.id in results]
    if not answered:
        return Verdict(False, f"no result answers the call {right[-1].id}")
    used = [(c, r) for c, r in answered if not r.is_error and holds(r.content, case.says)]
    if not used:
        call, result = answered[-1]
        said = "was an error" if result.is_error else f"does not say {case.says!r}"
        return Verdict(False, f"the result {said}: {shorten(result.content, 30)!r}")
    if not holds(run.answer, case.says):
        return Verdict(False, f"the answer does not say {case.says!r}: {shorten(run.answer, 40)!r}")
    return Verdict(True, f"the right call, and the answer says {case.says!r}")


def holds(text: str, fact: str) -> bool:
    """Whether `text` states `fact` as a whole: not as part of a longer word or number.

    A fact that starts or ends with a letter or digit must not run on into another one
    ("291" is not in "2910", "rain" not in "raining"), and a number must not run on into
    its decimals or thousands ("291" is not in "291.5" or "1,291"), nor carry a minus sign
    of its own ("-291"). Case matters, as in the fact's own words.

    >>> holds("It is 291.", "291"), holds("It is 2910.", "291"), holds("18°C, sunny", "18°C")
    (True, False, True)
    >>> holds("about 291.5", "291"), holds("It is -291", "291"), holds("light rain", "light rain")
    (False, False, True)
    """
    pattern = re.escape(fact)
    if fact[:1].isalnum() or fact[:1] == "_":
        pattern = r"(?<!\w)" + pattern
    if fact[:1].isdigit():
        pattern = r"(?<!\d[.,])(?<!(?<!\w)-)" + pattern  # not 1,291 nor 1.291 nor -291
    if fact[-1:].isalnum() or fact[-1:] == "_":
        pattern += r"(?!\w)"
    if fact[-1:].isdigit():
        pattern += r"(?![.,]\d)"  # not 291.5 nor 291,000
    return re.search(pattern, text) is not None


#: The lesson's table: three weather questions and a sum, for `tools.EXAMPLE_TOOLS`.
CASES: tuple[Case, ...] = (
    Case("What's the weather in Paris?", "get_weather", {"city": "Paris"}, says="18°C"),
    Case("Is it raining in London?", "get_weather", {"city": "London"}, says="light rain"),
    Case("How hot is it in Cairo?", "get_weather", {"city": "Cairo"}, says="31°C"),
    Case("What is 17 * 23 - 100?", "calculator", {"expression": "17 * 23 - 100"}, says="291"),
)

#: A case for each shipped tape (`tape.shipped()`): what the real model of its recording was asked,
#: the call a careful model makes with the recording's own tool, and the fact its result gave.
SHIPPED_TAPE_CASES: dict[str, Case] = {
    "anthropic_weather": Case("What's the weather in SF in Celsius?", "get_weather",
                              {"location": "SF", "units": "c"}, says="Sunny"),
    "openai_chat_color": Case("What's my favorite color in February?", "get_favorite_color_for_month",
                              {"month_name": "February"}, says="chartreuse"),
    "openai_responses_weather": Case("What should I wear for the weather in San Francisco, CA?",
                                     "get_weather_at_location", {"location": "San Francisco, CA"},
                                     says="windy"),
}


def _call(case: Case) -> str:
    """The right call as Python spells it: get_weather(city="Paris")."""
    args = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in case.args.items())
    return f"{case.tool}({args})"


def cases_table(cases: Sequence[Case]) -> str:
    """The cases as a plain-text table, one row each: the question, the right call, what the answer says.

    >>> print(cases_table(CASES[:2]))
    question                      the right call              says
    ----------------------------  --------------------------  ----------
    What's the weather in Paris?  get_weather(city="Paris")   18°C
    Is it raining in London?      get_weather(city="London")  light rain
    """
    rows = [[case.question, _call(case), case.says] for case in cases]
    return table(["question", "the right call", "says"], rows)
