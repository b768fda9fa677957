"""The provider contract: six promises any `complete()` must keep, checked in one call.

The loop is written against one method, `provider.complete(transcript, tools=...)`. Whatever
happens inside it (an SDK, a raw HTTP call, your own Python), the loop relies on six things,
and `check_provider` checks each one by playing a short conversation with the provider:

    paris_run          the question, a call get_weather{city: Paris}, your result with the
                       call's id, and the answer made from that result
    parallel_calls     two calls in one reply keep their order and their own ids, and the
                       results, sent in one message in call order, arrive in that order
    error_result       a result with is_error=True reaches the model as an error
    leaves_transcript  complete() changes nothing in the transcript and appends nothing
    unique_ids         every reply is a new message with its own id; every call id is new
    usage              every reply reports input and output tokens above 0

The model in these conversations is the lessons' `examples.weather_policy`, which the API
double plays by default, so every reply is known word for word: the expected answer is what
`weather_policy` says to the transcript that was sent. Give `check_provider` either

- a *factory*, `policy -> provider`: `ScriptedProvider` itself, `through_double("anthropic")`
  (a kit provider talking to a fresh API double), or a function of your own. Each clause
  gets a fresh provider playing `weather_policy`; or
- a *ready provider* that plays `weather_policy` already: your adapter pointed at a server
  that runs it (the API double, `parts_api.PartsServer`). Every clause uses that one.

    >>> from toolcall_lab import ScriptedProvider
    >>> check_provider(ScriptedProvider)
    []
    >>> report(ScriptedProvider, only=["error_result", "usage"])
    Provider contract for ScriptedProvider: 2 of 2 clauses hold
      pass  error_result       a result with is_error=True reaches the model as an error
      pass  usage              every reply reports input and output tokens above 0

A broken clause is a `Failure`: the clause's name and one sentence saying what was expected
and what happened. An exception the provider raises becomes a failure too (its type and
first line, never a traceback), so one broken clause never hides the others.

Left out: streaming, reasoning blocks, stop reasons other than tool_use and end_turn, and
how API errors are mapped (tests/test_provider_contract.py covers those for the kit's own
providers). A real model is outside the contract: it answers in its own words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

from ._text import shorten
from .blocks import ToolCall, ToolResult
from .errors import UsageError, UsageTypeError
from .examples import PARIS_QUESTION, weather_policy
from .messages import Message
from .providers.base import Provider
from .providers.scripted import Policy
from .tool import execute, tool_map
from .tools.weather import get_weather
from .transcript import Transcript
from .turn import StopReason, Turn
from .usage import Usage

__all__ = ["CLAUSES", "DoubleFactory", "Failure", "Report", "check_provider", "report",
           "through_double"]

TOOLS = (get_weather,)
PARALLEL_QUESTION = "What's the weather in Tokyo and in Paris?"
FOLLOW_UP = "And in Tokyo and London?"
#: What a tool says when it fails: weather_policy reads it as weather if the flag is lost.
OUTAGE = "service unavailable, try again later"


@dataclass(frozen=True)
class Failure:
    """One clause a provider broke: `clause` names it, `message` says what was expected and
    what happened, in one sentence."""

    clause: str
    message: str

    def __str__(self) -> str:
        return f"{self.clause}: {self.message}"

    def __repr__(self) -> str:
        return f"Failure({self.clause!r}, {self.message!r})"


class _Unmet(Exception):
    """Raised inside a clause; its text becomes the failure's message."""


# -- the steps the clauses share --------------------------------------------------------------
def _ask(provider: Provider, transcript: Transcript, about: str) -> Turn:
    """`provider.complete` on a copy of `transcript`, so that a provider that changes what it
    is sent fails `leaves_transcript` alone, not every clause after it."""
    return _complete(provider, transcript.copy(), about)


def _complete(provider: Provider, transcript: Transcript, about: str) -> Turn:
    """`provider.complete(transcript)`; a raise, or anything but a Turn, is what happened."""
    try:
        turn = provider.complete(transcript, tools=TOOLS)
    except Exception as exc:
        raise _Unmet(f"expected a reply to {about}, but complete() raised {_exception(exc)}") from None
    if not isinstance(turn, Turn):
        raise _Unmet(f"expected complete() to return a Turn for {about}, got {type(turn).__name__}")
    return turn


def _calls(turn: Turn, cities: list[str], about: str) -> tuple[ToolCall, ...]:
    """The reply's calls, which must be get_weather for `cities`, in order, with ids of their own."""
    calls = turn.tool_calls
    wanted = ", ".join(f"get_weather{{city: {city!r}}}" for city in cities)
    if [(c.name, dict(c.args)) for c in calls] != [("get_weather", {"city": c}) for c in cities]:
        asked = sorted(c.args.get("city", "?") for c in calls if c.name == "get_weather")
        if len(cities) > 1 and asked == sorted(cities):
            order = ", ".join(str(c.args["city"]) for c in calls)
            raise _Unmet(f"expected the calls in the order the model made them ({', '.join(cities)}), "
                         f"got {order}")
        raise _Unmet(f"expected {wanted} in reply to {about}, got {_said(turn)}")
    for call in calls:
        if not call.id:
            raise _Unmet(f"expected the call get_weather{{city: {call.args['city']!r}}} to carry an id "
                         "to answer it with, got an empty id")
    ids = [c.id for c in calls]
    for call_id in ids:
        if ids.count(call_id) > 1:
            raise _Unmet(f"expected each call its own id, got {call_id!r} for {ids.count(call_id)} calls")
    if turn.stop_reason is not StopReason.TOOL_USE:
        raise _Unmet(f"expected stop_reason tool_use with {wanted}, got {turn.stop_reason.value}")
    return calls


def _answer(turn: Turn, transcript: Transcript, about: str) -> None:
    """The reply must be the text `weather_policy` says to `transcript`, ending the turn."""
    expected = weather_policy(transcript.copy(), TOOLS)
    if turn.tool_calls or turn.text != expected:
        raise _Unmet(f"expected the answer {expected!r} after {about}, got {_said(turn)}")
    if turn.stop_reason is not StopReason.END_TURN:
        raise _Unmet(f"expected stop_reason end_turn with the answer, got {turn.stop_reason.value}")


def _run_tools(turn: Turn) -> Message:
    """Your code's answer to every call of `turn`, in call order, as the loop sends it."""
    return Message.results([execute(call, tool_map(TOOLS)) for call in turn.tool_calls])


def _said(turn: Turn) -> str:
    """A reply in a few words: "the text 'Which city…'", "2 calls (…)", "an empty reply"."""
    if turn.tool_calls:
        calls = ", ".join(f"{c.name}{dict(c.args)}" for c in turn.tool_calls)
        return f"{len(turn.tool_calls)} call{'s' if len(turn.tool_calls) > 1 else ''} ({calls})"
    return f"the text {shorten(turn.text, 80)!r}" if turn.text else "an empty reply"


def _messages(count: int) -> str:
    return f"{count} message{'s' if count != 1 else ''}"


def _exception(exc: BaseException) -> str:
    """`TypeName: first line of the message`, e.g. "RuntimeError: boom"."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {shorten(lines[0], 160)}" if lines else type(exc).__name__


# -- the clauses ---------------------------------------------------------------------------------
CLAUSES: dict[str, Callable[[Provider], None]] = {}


def clause(check: Callable[[Provider], None]) -> Callable[[Provider], None]:
    """Register `check` under its name; the first line of its docstring is its summary."""
    CLAUSES[check.__name__] = check
    return check


@clause
def paris_run(provider: Provider) -> None:
    """the question, a call get_weather{city: Paris}, your result with its id, the answer

    Proves the whole round trip: the reply's call arrives with its name, its arguments and
    an id, and a result sent back with that id reaches the model, which answers from it.
    """
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    turn = _ask(provider, transcript, "the Paris question")
    _calls(turn, ["Paris"], "the Paris question")
    transcript.append(turn.message)
    transcript.append(_run_tools(turn))
    _answer(_ask(provider, transcript, "your result"), transcript, "your result")


@clause
def parallel_calls(provider: Provider) -> None:
    """two calls in one reply keep their order and their own ids, and so do their results

    Proves that several calls in one reply arrive in the order the model made them, each
    with its own id, and that their results, sent together in one message in call order,
    reach the model in that order.
    """
    transcript = Transcript(messages=[Message.user(PARALLEL_QUESTION)])
    turn = _ask(provider, transcript, "a question about two cities")
    _calls(turn, ["Tokyo", "Paris"], "a question about two cities")
    transcript.append(turn.message)
    transcript.append(_run_tools(turn))
    _answer(_ask(provider, transcript, "both results in one message"), transcript,
            "both results in one message")


@clause
def error_result(provider: Provider) -> None:
    """a result with is_error=True reaches the model as an error

    Proves the error flag survives the trip: `weather_policy` says it could not get the
    weather when it sees an error, and reads the text as the weather when the flag is lost.
    """
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    turn = _ask(provider, transcript, "the Paris question")
    if len(turn.tool_calls) != 1:
        raise _Unmet(f"expected one call to answer with an error, got {_said(turn)}")
    transcript.append(turn.message)
    transcript.append(Message.results([ToolResult(turn.tool_calls[0].id, OUTAGE, is_error=True)]))
    _answer(_ask(provider, transcript, "your error result"), transcript, "your error result")


@clause
def leaves_transcript(provider: Provider) -> None:
    """complete() changes nothing in the transcript and appends nothing

    Proves the caller owns the transcript: the provider reads it and returns a Turn; the
    loop appends the reply. Checked on a question and on a tool result, with a system prompt.
    """
    transcript = Transcript("Be brief.", [Message.user(PARIS_QUESTION)])
    turn = _untouched(provider, transcript, "the Paris question")
    if turn.tool_calls:
        transcript.append(turn.message)
        transcript.append(_run_tools(turn))
        _untouched(provider, transcript, "your result")


def _untouched(provider: Provider, transcript: Transcript, about: str) -> Turn:
    system, messages = transcript.system, list(transcript.messages)
    saved = [m.to_dict() for m in messages]
    turn = _complete(provider, transcript, about)
    if len(transcript) != len(messages):
        raise _Unmet(f"expected complete() to leave the transcript at {_messages(len(messages))}, but "
                     f"after {about} it has {len(transcript)} (the caller appends the reply, not the "
                     "provider)")
    if transcript.system != system:
        raise _Unmet(f"expected the system prompt to stay {system!r}, but complete() changed it to "
                     f"{transcript.system!r}")
    for index, (before, after) in enumerate(zip(messages, transcript.messages, strict=True)):
        if after is not before or after.to_dict() != saved[index]:
            raise _Unmet(f"expected message {index} ({before.role}) to stay as it was, but complete() "
                         f"changed it when sent {about}")
    return turn


@clause
def unique_ids(provider: Provider) -> None:
    """every reply is a new message with its own id; every call id is new

    Proves results can always be matched to their call: over a conversation of two
    questions (one call, then two), no call id is empty or used twice, and no reply
    reuses the id of a message sent before it or of another reply.
    """
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    replies: list[Turn] = []
    for question in (None, FOLLOW_UP):
        if question:
            transcript.append(Message.user(question))
        for about in ("a question", "your results"):
            earlier = {m.id for m in transcript} | {r.message.id for r in replies}
            turn = _ask(provider, transcript, about)
            if not turn.message.id or turn.message.id in earlier:
                has = "it reuses an earlier message's id" if turn.message.id else "its id is empty"
                raise _Unmet(f"expected reply {len(replies) + 1} to be a new message with an id of "
                             f"its own, but {has}")
            replies.append(turn)
            transcript.append(turn.message)
            if not turn.tool_calls:
                break
            transcript.append(_run_tools(turn))
    seen: dict[str, ToolCall] = {}
    for call in transcript.tool_calls():
        if not call.id:
            raise _Unmet(f"expected every call to carry an id, got an empty one for "
                         f"{call.name}{dict(call.args)}")
        if call.id in seen:
            raise _Unmet(f"expected every call id to be new in the conversation, but {call.id!r} names "
                         f"both {seen[call.id].name}{dict(seen[call.id].args)} and "
                         f"{call.name}{dict(call.args)}")
        seen[call.id] = call


@clause
def usage(provider: Provider) -> None:
    """every reply reports input and output tokens above 0

    Proves the bill can be added up: each Turn carries a `Usage` whose input and output
    token counts are whole numbers above zero (estimated ones count, if marked so).
    """
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    for number, about in enumerate(("the Paris question", "your result"), start=1):
        turn = _ask(provider, transcript, about)
        used = turn.usage
        if not isinstance(used, Usage) or used.input_tokens <= 0 or used.output_tokens <= 0:
            raise _Unmet(f"expected usage with input and output tokens above 0 on every reply, got "
                         f"{used!r} on reply {number}")
        if not turn.tool_calls:
            break
        transcript.append(turn.message)
        transcript.append(_run_tools(turn))


# -- running them ---------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class Report:
    """What `report` found: per clause, None when it holds, else its `Failure`.

    Its repr is one line per clause, "pass" or "FAIL" (words, not colours), with the
    clause's summary or what went wrong; in a notebook it shows as a table.
    """

    subject: str
    results: tuple[tuple[str, Failure | None], ...]

    @property
    def failures(self) -> list[Failure]:
        return [failure for _, failure in self.results if failure is not None]

    @property
    def ok(self) -> bool:
        """True when every clause checked holds."""
        return not self.failures

    def _rows(self) -> list[tuple[str, str, str]]:
        return [(name, "FAIL" if failure else "pass", failure.message if failure else _summary(name))
                for name, failure in self.results]

    def _title(self) -> str:
        held = len(self.results) - len(self.failures)
        return f"Provider contract for {self.subject}: {held} of {len(self.results)} clauses hold"

    def __repr__(self) -> str:
        lines = [f"  {verdict}  {name:<18} {why}" for name, verdict, why in self._rows()]
        return "\n".join([self._title(), *lines])

    def _repr_html_(self) -> str:
        from html import escape

        from .views.display.html import THEME
        from .views.palette import OKABE_ITO

        cell = f"padding:3px 8px;border-top:1px solid {THEME['rule-soft']};text-align:left;vertical-align:top"
        badge = {"pass": f"border:2px solid {THEME['ink']}",
                 "FAIL": f"background:{OKABE_ITO['vermillion']};color:#000;border:2px solid #000"}
        rows = "".join(
            f'<tr><td style="{cell};font-family:monospace">{name}</td>'
            f'<td style="{cell}"><span style="{badge[verdict]};padding:0 6px;border-radius:4px;'
            f'font-weight:700">{verdict}</span></td><td style="{cell}">{escape(why)}</td></tr>'
            for name, verdict, why in self._rows())
        return (f'<div class="tcl-contract" style="font-size:17px;color:{THEME["ink"]};'
                f'background:{THEME["paper"]};padding:8px 12px;border:1px solid {THEME["rule"]};'
                f'border-radius:6px"><div style="font-weight:700">{escape(self._title())}</div>'
                f'<table style="border-collapse:collapse">{rows}</table></div>')


def check_provider(provider_or_factory: Any, /, *, only: Iterable[str] | None = None) -> list[Failure]:
    """Every clause the provider breaks, as `Failure`s: `[]` when it keeps the contract.

    `provider_or_factory` is a ready provider playing `weather_policy`, or a factory
    `policy -> provider` (see the module's docstring); `only` checks some clauses by name.
    In a test: `assert not check_provider(MyProvider)`.
    """
    return report(provider_or_factory, only=only).failures


def report(provider_or_factory: Any, /, *, only: Iterable[str] | None = None) -> Report:
    """The contract checked clause by clause, as a `Report` that shows one line per clause.

    Doubles started by a `through_double` factory for the check are stopped before it returns.
    """
    names = list(CLAUSES) if only is None else list(only)
    for name in names:
        if name not in CLAUSES:
            raise UsageError(f"there is no clause called {name!r}; the clauses are {', '.join(CLAUSES)}.")
    provider_for, subject = _provider_for(provider_or_factory)
    started = len(provider_or_factory._doubles) if isinstance(provider_or_factory, DoubleFactory) else 0
    try:
        results = tuple((name, _check(name, provider_for)) for name in names)
    finally:
        if isinstance(provider_or_factory, DoubleFactory):
            provider_or_factory._stop(after=started)  # subtle: only the doubles this check started
    return Report(subject, results)


def _check(name: str, provider_for: Callable[[], Any]) -> Failure | None:
    """Run clause `name` on a provider from `provider_for`; its failure, or None."""
    try:
        provider = provider_for()
    except Exception as exc:
        return Failure(name, f"expected the factory to build a provider, but it raised {_exception(exc)}")
    if not callable(getattr(provider, "complete", None)):
        return Failure(name, f"expected a provider with a complete() method, got {type(provider).__name__}")
    try:
        CLAUSES[name](provider)
    except _Unmet as unmet:
        return Failure(name, str(unmet))
    except Exception as exc:  # the provider's reply broke the clause's own reading of it
        return Failure(name, f"expected a reply the loop can read, but reading it raised {_exception(exc)}")
    return None


def _provider_for(target: Any) -> tuple[Callable[[], Any], str]:
    """(a function giving the provider for one clause, what to call it in the report)."""
    if not isinstance(target, type) and callable(getattr(target, "complete", None)):
        return (lambda: target), type(target).__name__  # a ready provider: it plays weather_policy
    if callable(target):
        name = cast(str, getattr(target, "label", None) or getattr(target, "__name__", "<lambda>"))
        return (lambda: target(weather_policy)), (name if name != "<lambda>" else "a factory function")
    raise UsageTypeError(f"check_provider takes a provider (an object with complete()) or a factory "
                    f"policy -> provider (ScriptedProvider, through_double(...)), got {target!r}.")


def _summary(name: str) -> str:
    return (CLAUSES[name].__doc__ or "").strip().splitlines()[0]


# -- a kit provider through a fresh API double ------------------------------------------------------
class DoubleFactory:
    """`factory(policy)`: the kit provider `name`, talking to a new API double playing `policy`,
    in-process (`get_provider(..., double=)`: through the double's transport, no socket).

    Build it with `through_double`. Every double it makes is stopped (and its providers'
    clients closed) by `close()` or on leaving a `with` block, and `check_provider` stops the
    ones it made it make.
    """

    def __init__(self, name: str, /, **options: Any) -> None:
        from .providers.registry import PROVIDERS
        from .providers.sdk import NO_KEY_NEEDED

        spec = PROVIDERS.get(name)
        if spec is None or spec.api is None:
            speaks = ", ".join(n for n, s in PROVIDERS.items() if s.api is not None)
            raise UsageError(f"through_double takes a provider that speaks an API ({speaks}), not "
                             f"{name!r}; check ScriptedProvider itself: check_provider(ScriptedProvider).")
        if spec.key_env:
            options.setdefault("api_key", NO_KEY_NEEDED)  # subtle: a real key never goes to the double
        options.setdefault("max_retries", 0)  # the double fails the same way every time
        self.name, self.api, self.options = name, spec.api, options
        self.label = f"{name} through the API double"  # what a report calls it
        self._doubles: list[tuple[Any, list[Any]]] = []  # (double, [the provider talking to it])

    def __call__(self, policy: Policy = weather_policy) -> Provider:
        from .double.api_double import ApiDouble
        from .providers.registry import get_provider

        double = ApiDouble(policy)
        self._doubles.append((double, []))
        provider = get_provider(self.name, double=double, **self.options)
        self._doubles[-1][1].append(provider)
        return provider

    def _stop(self, *, after: int = 0) -> None:
        while len(self._doubles) > after:
            double, providers = self._doubles.pop()
            for provider in providers:
                # subtle: the SDK's client keeps its connection open; closing it first ends the
                # double's thread serving that connection, and leaves no socket to the garbage collector
                provider._client.close()
            double.stop()

    def close(self) -> None:
        """Stop every double this factory started."""
        self._stop()

    def __enter__(self) -> DoubleFactory:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"through_double({self.name!r})"


def through_double(name: str, /, **options: Any) -> DoubleFactory:
    """A factory `policy -> provider` for the kit provider `name` through a fresh API double.

    `options` go to `get_provider` (model=, max_tokens=, ...).

    >>> report(through_double("openai-chat"), only=["error_result"])
    Provider contract for openai-chat through the API double: 1 of 1 clauses hold
      pass  error_result       a result with is_error=True reaches the model as an error
    """
    return DoubleFactory(name, **options)
