"""Answer keys of lesson 10, "An adapter of your own": a provider for the made-up Parts API,
written from its documentation and held to the provider contract on the API's own server.

The adapter is a class the learner writes in a `your-code` cell; its check runs the contract
on it against the `PartsServer` the lesson started, prints the report and names the first
clause that fails. A class whose `complete` is still the template's `...` counts as not
answered yet, so **Run All** reaches the end; one that is, or builds on, a class of the kit
(the scripted provider, or the worked answer) is refused with "write it yourself", and the
adapter must really talk to the server it was given.

The questions are computed from the worked adapter (`_worked_providers.MyPartsProvider`):
how the results of two calls travel (Q1), and how many clauses an adapter that leaves out
the name the API repeats breaks (exercise 1), played against a fresh `PartsServer`.

    >>> q1((2, 2))
    ✗ Q1: (2, 2) is not it: that is not it. Hint: the documentation's Request section says where \
every functionCall is answered, and how many functionResponse parts that takes

Left out: lesson 9's pretend model, broken translator and tracer (`your_own_provider`).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..contract import check_provider
from ..examples import PARIS_QUESTION
from ..loop import Run, run_agent
from ..messages import Message
from ..parts_api.server import PartsServer
from ..providers.base import Provider
from ..selfcheck import check, equal, number
from ..tool import Tool
from ..tools.weather import get_weather
from ..transcript import Transcript
from . import _worked_providers as _worked
from ._runs import raised
from ._runs import unwritten_class as _unwritten
from ._runs import yourself as _yourself

__all__ = ["SOLUTIONS", "exercise_1", "paris_run", "parts_provider", "q1"]

#: The worked adapter, written as a learner writes it (unannotated), so typed code calls it as Any.
_Adapter: Any = _worked.MyPartsProvider


# -- section 3: your Parts API adapter -------------------------------------------------------------
def _last(server: Any) -> Any:
    requests = getattr(server, "requests", None)
    return requests[-1] if requests else None


def _contract_of(cls: Any, server: Any) -> tuple[Any, str | None]:
    """(the contract's report on `cls(server.url)` or None, what is wrong or None)."""
    from ..contract import report

    if not isinstance(cls, type):
        return None, ("expected the class itself (MyPartsProvider, without brackets), "
                      f"got {type(cls).__name__}")
    shortcut = _yourself(cls, "; translate the Parts API's bodies with your own encode and decode")
    if shortcut:
        return None, shortcut
    try:
        provider = cls(server.url)
    except Exception as exc:
        return None, f"MyPartsProvider(server.url) raised {raised(exc)}"
    before = _last(server)
    found = report(provider)
    if found.failures:
        held = len(found.results) - len(found.failures)
        return found, (f"{held} of {len(found.results)} clauses hold; the first that fails, "
                       f"{str(found.failures[0]).rstrip('.')}")
    if _last(server) is before:
        return found, ("the contract holds, but the Parts server at server.url never heard from it: an "
                       "adapter sends every call to the API")
    return found, None


def parts_provider(answer: Any, server: Any) -> None:
    """Your Parts API adapter, built on `server.url`, held to the provider contract."""
    if _unwritten(answer):
        answer, problem = ..., None
    else:
        found, problem = _contract_of(answer, server)
        if found is not None:
            _show(found)
    check("MyPartsProvider", answer, lambda _: problem,
          hint="read the first failing clause, then the documentation's section on what it sent or read; "
               "compare your request body with its examples")


def _show(found: Any) -> None:
    """The contract's report: its table in a notebook, its lines elsewhere."""
    import sys

    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    if shell is None:
        print(found)
        return
    from IPython.display import display

    display(found)  # type: ignore[no-untyped-call]  # IPython leaves it unannotated


def paris_run(server: Any, answer: Any, *, stand_in: Provider) -> Run:
    """The Paris run over your adapter on `server`, or, until it runs, `stand_in`'s, said in one line.

    It judges nothing, so it is no check: the server comes first, where a check takes the answer.
    """
    why = "is not written yet"
    if isinstance(answer, type) and not _unwritten(answer):
        try:
            return run_agent(answer(server.url), PARIS_QUESTION, tools=[get_weather])
        except Exception as exc:  # the learner's adapter is not finished: say so in one line
            why = f"raised {type(exc).__name__}"
    print(f"MyPartsProvider {why}; here is the run of provider ({stand_in.name}) instead")
    return run_agent(stand_in, PARIS_QUESTION, tools=[get_weather])


# -- check yourself --------------------------------------------------------------------------------
def _two_results() -> tuple[int, int]:
    """(functionResponse parts, contents holding them) when two calls' results go back."""
    calls = [ToolCall("fc_01", "get_weather", {"city": "Tokyo"}),
             ToolCall("fc_02", "get_weather", {"city": "Paris"})]
    talk = Transcript(messages=[Message.user("What's the weather in Tokyo and in Paris?"),
                                Message.assistant(*calls),
                                Message.results([ToolResult("fc_01", "22°C, cloudy"),
                                                 ToolResult("fc_02", "18°C, sunny")])])
    body = _Adapter("").encode(talk, [get_weather])
    holding = [sum("functionResponse" in part for part in content["parts"]) for content in body["contents"]]
    return sum(holding), sum(count > 0 for count in holding)


def q1(answer: Any) -> None:
    """(parts, contents): how the results of two calls in one reply travel back."""
    check("Q1", answer, equal(_two_results()),
          hint="the documentation's Request section says where every functionCall is answered, and how "
               "many functionResponse parts that takes")


# -- exercise 1: the name the API repeats ----------------------------------------------------------
def _nameless(url: str) -> Any:
    """The worked adapter on `url`, with each functionResponse's name left out."""
    adapter = _Adapter(url)
    encode = adapter.encode

    def without_names(transcript: Transcript, tools: Sequence[Tool]) -> Any:
        body = encode(transcript, tools)
        for content in body["contents"]:
            for part in content["parts"]:
                part.get("functionResponse", {}).pop("name", None)
        return body

    adapter.encode = without_names  # subtle: complete() calls self.encode, so it sends these
    return adapter


def _failing_without_the_name() -> int:
    with PartsServer() as server:
        return len(check_provider(_nameless(server.url)))


def exercise_1(answer: Any) -> None:
    """How many of the contract's clauses an adapter that leaves out the result's name breaks."""
    check("Exercise 1", answer, number(_failing_without_the_name()),
          hint="section 2's report says what each clause plays: which of them send a result back to "
               "the server at some point?")


SOLUTIONS: dict[str, str] = {
    "MyPartsProvider": inspect.getsource(_worked.MyPartsProvider),
    "q1": "(2, 1)",
    "exercise_1": "6",
}
