"""Answer keys of lesson 9, "Your own provider": a pretend model, a broken translator, and a
tracer whose log lines are keyed by provider and model.

Two answers are classes the learner writes in a `your-code` cell; their checks judge them
by what they do, one promise at a time, and name the first one broken. A class whose
`complete` is still the template's `...` counts as not answered yet, so **Run All** reaches
the end. Each class must be the learner's own: one that is, or builds on, a class of the
kit (its scripted provider, which echoes too, or a worked answer) is refused with "write it
yourself" (`_runs.yourself`).

    >>> from toolcall_lab import ScriptedProvider
    >>> echo_provider(ScriptedProvider)
    ✗ EchoProvider: your class ScriptedProvider is not it: write it yourself: it is the kit's \
ScriptedProvider, which already echoes. Hint: the list above the cell says what a Turn holds \
and where its numbers come from

The worked classes are `_worked_providers` (real code, linted and tested); `SOLUTIONS`
holds their source text, which the lesson's tests and a teacher's solved copy put in place
of the templates.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from typing import Any

from ..examples import PARIS_QUESTION, weather_policy
from ..loop import run_agent
from ..messages import Message
from ..providers.base import Provider
from ..providers.scripted import ScriptedProvider
from ..selfcheck import check, number
from ..tokens import estimate_tokens, request_text
from ..tool import Tool
from ..tools.weather import get_weather
from ..transcript import Transcript
from ..turn import StopReason, Turn
from ..usage import Usage
from . import _worked_providers as _worked
from ._runs import quietly, raised
from ._runs import unwritten_class as _unwritten
from ._runs import yourself as _yourself

__all__ = ["SOLUTIONS", "echo_provider", "exercise_1", "predict_refused_call", "q1"]


# -- section 1: EchoProvider -----------------------------------------------------------------------
def _reply_problem(provider: Any, transcript: Transcript, expected: str,
                   tools: Sequence[Tool] = ()) -> str | None:
    """What is wrong with `provider`'s reply to `transcript`, which should echo `expected`."""
    before = list(transcript.messages)
    try:
        turn = provider.complete(transcript, tools=tools)
    except Exception as exc:
        return f"complete() raised {raised(exc)}"
    if list(transcript.messages) != before:
        return "complete() changed the transcript; a provider only reads it (the loop appends the reply)"
    if not isinstance(turn, Turn):
        return f"complete() should return a Turn, got {type(turn).__name__}"
    if not isinstance(turn.message, Message) or turn.message.role != "assistant":
        return "the Turn's message should be an assistant Message"
    if turn.message.text != expected:
        return f"the reply says {turn.message.text!r}; it should echo the newest user text, {expected!r}"
    if turn.stop_reason is not StopReason.END_TURN:
        return f"the stop reason is {turn.stop_reason.value}; an answer ends the turn (end_turn)"
    used = turn.usage
    if not isinstance(used, Usage) or used.input_tokens <= 0 or used.output_tokens <= 0:
        return f"its usage is {used!r}; estimate input and output tokens, both above 0"
    sent = estimate_tokens(request_text(transcript, tools))
    if used.input_tokens != sent:
        return (f"its input_tokens ({used.input_tokens}) are not the estimate of what this call "
                f"sends, the whole request with its tools ({sent})")
    if used.output_tokens != estimate_tokens(expected):
        return (f"its output_tokens ({used.output_tokens}) are not the estimate of the reply's "
                f"words ({estimate_tokens(expected)})")
    if not used.estimated:
        return "its usage is made up by your code, so it must say estimated=True"
    if turn.model != provider.model:
        return f"the Turn names model {turn.model!r}; it should be the provider's, {provider.model!r}"
    return None


def _wrong_echo(cls: Any) -> str | None:
    if not isinstance(cls, type):
        return f"expected the class itself (EchoProvider, without brackets), got {type(cls).__name__}"
    shortcut = _yourself(cls, ", which already echoes")
    if shortcut:
        return shortcut
    try:
        provider = cls()
    except Exception as exc:
        return f"EchoProvider() raised {raised(exc)}; it should need no arguments"
    if not isinstance(provider, Provider):
        return "a provider has a name, a model and a complete() method"
    alone = Transcript("Be brief.", [Message.user("Is anyone there?")])
    found = _reply_problem(provider, alone, "Is anyone there?")
    if found:
        return found
    longer = Transcript(messages=[Message.user("First words"), Message.assistant("First words"),
                                  Message.user("The newest words of all")])
    found = _reply_problem(provider, longer, "The newest words of all", tools=[get_weather])
    if found:
        return f"in a longer conversation with a tool on offer, {found}"
    try:
        run = run_agent(provider, "Hello?")
    except Exception as exc:
        return f"run_agent with it raised {raised(exc)}"
    if run.answer != "Hello?" or len(run.transcript) != 2:
        return f"run_agent with it answered {run.answer!r} in {len(run.transcript)} messages"
    return None


def echo_provider(answer: Any) -> None:
    """Your EchoProvider, run alone and inside run_agent."""
    check("EchoProvider", ... if _unwritten(answer) else answer, _wrong_echo,
          hint="the list above the cell says what a Turn holds and where its numbers come from")


# -- section 2: break the translator --------------------------------------------------------------
def predict_refused_call(answer: Any, double: Any) -> None:
    """Which call of the run the server refused (1-based; 0 for none)."""
    statuses = [request.status for request in getattr(double, "requests", [])]
    expected = next((index for index, status in enumerate(statuses, start=1) if status >= 400), 0)
    check("Prediction", answer, number(expected),
          hint="the bug is in how a call's arguments are written; which request is the first to carry "
               "a call back to the server?")


# -- check yourself --------------------------------------------------------------------------------
def q1(answer: Any, translator: Any) -> None:
    """How many requests of two tool-free questions the forgetful translator gets refused."""
    check("Q1", answer, number(_refused_without_tools(translator)),
          hint="which field does the bug write wrong, and does a conversation without tools ever "
               "send that field?")


def _refused_without_tools(translator: Any) -> int:
    """Requests refused when `translator` (a Chat provider class) asks two questions, no tools."""
    from ..double.api_double import ApiDouble
    from ..errors import InvalidRequestError

    with ApiDouble() as double:
        provider = translator(base_url=double.base_url("chat"), max_retries=0)
        talk = Transcript()
        for question in ("Hello?", "What can you do?"):
            try:
                run_agent(provider, question, transcript=talk)
            except InvalidRequestError:
                break
        return sum(request.status >= 400 for request in double.requests)


# -- exercise 1: a provider around a provider -----------------------------------------------------
class _Recording:
    """A provider around another that keeps every Turn it hands out (to compare identities)."""

    def __init__(self, inner: Provider, name: str) -> None:
        self.inner, self.name, self.model = inner, name, inner.model
        self.turns: list[Turn] = []

    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = ()) -> Turn:
        turn = self.inner.complete(transcript, tools=tools)
        self.turns.append(turn)
        return turn


_LABEL = r"\b(in(?:put)?|out(?:put)?)"
_LABEL_BEFORE = re.compile(_LABEL + r"(?:\s+tokens)?\s*[:=]\s*$", re.IGNORECASE)  # "in: 183", "in=183"
_LABEL_AFTER = re.compile(r"\s*(?:tokens?\s*)?" + _LABEL + r"\b", re.IGNORECASE)  # "183 in", "183 tokens in"
_WORD_BEFORE = re.compile(_LABEL + r"(?:\s+tokens)?\s+$", re.IGNORECASE)  # "input 183"


def _labelled(line: str, value: int, label: str) -> bool:
    """True when `value` stands in `line` as a whole number labelled `label`, "in" or "out".

    A number's label is the one tied to it by ":" or "=" before it, else the word just after
    it, else the word just before it: in "in=183 out=12", 183 is "in", though "out" follows it.

    >>> _labelled("call 1: 183 in, 12 out", 183, "in"), _labelled("call 1: 12 in, 183 out", 183, "in")
    (True, False)
    """
    line = line.replace(",", "") if re.search(r"\d,\d{3}", line) else line
    for found in re.finditer(rf"(?<![\d.]){value}(?![\d])", line):
        before, after = line[: found.start()], line[found.end():]
        tied = _LABEL_BEFORE.search(before) or _LABEL_AFTER.match(after) or _WORD_BEFORE.search(before)
        if tied and tied.group(1).casefold().startswith(label):
            return True
    return False


def _line_problem(line: str, number_: int, turn: Turn, inner: _Recording) -> str | None:
    shown = line.strip()[:50]
    used = turn.usage
    if re.search(rf"(?<![\d.]){number_}(?![\d])", line) is None:
        return f"line {number_} ({shown!r}) should show the call's number, {number_}"
    for word_ in (inner.name, inner.model):
        if re.search(rf"(?<![\w-]){re.escape(word_)}(?![\w-])", line) is None:
            return (f"line {number_} ({shown!r}) should name who answered: the wrapped provider's "
                    f"name and model, {inner.name!r} and {inner.model!r}")
    if not _labelled(line, used.input_tokens, "in") or _labelled(line, used.input_tokens, "out"):
        return (f"line {number_} ({shown!r}) should show the call's input tokens "
                f"({used.input_tokens}) as \"in\"")
    if not _labelled(line, used.output_tokens, "out") or _labelled(line, used.output_tokens, "in"):
        return (f"line {number_} ({shown!r}) should show the call's output tokens "
                f"({used.output_tokens}) as \"out\"")
    return None


def _wrong_tracer(cls: Any) -> str | None:
    if not isinstance(cls, type):
        return f"expected the class itself (Traced, without brackets), got {type(cls).__name__}"
    shortcut = _yourself(cls, "")
    if shortcut:
        return shortcut
    for name, model in (("scripted", "scripted-traced"), ("weather-lab", "forecast-2")):
        inner = _Recording(ScriptedProvider(weather_policy, model=model), name)
        try:
            traced = cls(inner)
        except Exception as exc:
            return f"Traced(provider) raised {raised(exc)}"
        if getattr(traced, "name", None) != inner.name or getattr(traced, "model", None) != inner.model:
            return "a Traced provider takes its name and model from the provider it wraps"
        try:
            run, printed = quietly(lambda: run_agent(traced, PARIS_QUESTION, tools=[get_weather]))  # noqa: B023
        except Exception as exc:
            return f"run_agent with it raised {raised(exc)}"
        if [s.turn for s in run.steps] != inner.turns or any(
                s.turn is not t for s, t in zip(run.steps, inner.turns, strict=False)):
            return "complete() should return the inner provider's Turn itself, unchanged"
        lines = [line for line in printed.splitlines() if line.strip()]
        if len(lines) != len(inner.turns):
            return f"expected one printed line per call ({len(inner.turns)} calls), got {len(lines)}"
        for number_, (line, turn) in enumerate(zip(lines, inner.turns, strict=True), start=1):
            found = _line_problem(line, number_, turn, inner)
            if found:
                return found
    return None


def exercise_1(answer: Any) -> None:
    """Your Traced wrapper, around two scripted Paris runs with different names and models."""
    check("Exercise 1", ... if _unwritten(answer) else answer, _wrong_tracer,
          hint="section 1 says what complete() is given and what it returns; the Turn you get back "
               "says what the call used, and section 3 what a line is keyed by")


SOLUTIONS: dict[str, str] = {
    "EchoProvider": inspect.getsource(_worked.EchoProvider),
    "predict_refused_call": "2",
    "q1": "0",
    "Traced": inspect.getsource(_worked.Traced),
}
