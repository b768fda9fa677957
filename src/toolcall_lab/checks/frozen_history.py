"""Answer keys of lesson 8, "History you can trust": frozen messages, ids and synthetic
messages, usage.

The questions are values, checked as in every lesson. The two exercises build a transcript
from another one, and their checks read it as a program would: the copy must leave the
original as it was, reuse what did not change, and give anything new its own identity
(a redacted results message with the old message's id claims to be the message it
replaced, the trap of section 1).

    >>> from toolcall_lab import ScriptedProvider, run_agent
    >>> from toolcall_lab.examples import PARIS_QUESTION, weather_policy
    >>> from toolcall_lab.tools import get_weather
    >>> paris = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    >>> exercise_1(paris.transcript, paris.transcript)
    ✗ Exercise 1: Transcript(...) is not it: that is the transcript itself; make a new one and \
leave the original as it is. Hint: section 1 made a redacted ToolResult; read what it says \
about a message made with replace()

Left out: lesson 7's blocks, `match` and what a loop re-sends, whose keys are in
`transcript_as_data`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..messages import Message
from ..selfcheck import check, equal
from ..transcript import Transcript
from ..wire import check as api_check
from ..wire import decode_response as decode_wire_response

__all__ = ["SOLUTIONS", "exercise_1", "exercise_2", "q1", "q2", "temperature_pairs"]

REDACTED = "[redacted]"


# -- check yourself --------------------------------------------------------------------------------
def q1(answer: Any) -> None:
    """Is Message.user("Hi") == Message.user("Hi")?"""
    check("Q1", answer, equal(Message.user("Hi") == Message.user("Hi")),
          hint="a dataclass compares every field; what does a message carry besides its role and blocks?")


def q2(answer: Any) -> None:
    """Anthropic: input 40, cache read 3000, output 200 with 150 thinking -> (kit input, non-reasoning)."""
    body = {"type": "message", "id": "msg_q2", "role": "assistant", "model": "claude-haiku-5-5",
            "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 40, "cache_read_input_tokens": 3000, "cache_creation_input_tokens": 0,
                      "output_tokens": 200, "output_tokens_details": {"thinking_tokens": 150}}}
    usage = decode_wire_response(body, api="anthropic").usage
    check("Q2", answer, equal((usage.input_tokens, usage.output_tokens - usage.reasoning_tokens)),
          hint="the kit counts cached input inside input_tokens, and reasoning inside output_tokens "
               "(section 3)")


# -- exercise 1: redact without rewriting history ---------------------------------------------------
def _wrong_redaction(answer: Any, original: Transcript, saved: list[dict[str, Any]]) -> str | None:
    if not isinstance(answer, Transcript):
        return f"expected a Transcript, got {type(answer).__name__}"
    if answer is original:
        return "that is the transcript itself; make a new one and leave the original as it is"
    if [m.to_dict() for m in original] != saved:
        return "the original transcript was changed; build the copy from new parts instead"
    if answer.system != original.system or len(answer) != len(original):
        return "the copy should have the original's system prompt and as many messages"
    for index, (mine, theirs) in enumerate(zip(answer, original, strict=True)):
        if not theirs.tool_results:
            if mine is not theirs:
                return f"message {index + 1} should be the very same object as in the original"
            continue
        results = mine.tool_results
        if [r.call_id for r in results] != [r.call_id for r in theirs.tool_results]:
            return f"the results of message {index + 1} must answer the same calls (same call_id)"
        if [r.content for r in results] != [REDACTED] * len(results) or any(r.is_error for r in results):
            return f"the result in message {index + 1} should say {REDACTED!r} and not be an error"
        if mine.id == theirs.id:  # subtle: replace() on a Message copies its id and creation time
            return (f"message {index + 1} is new, yet it has the id of the message it replaced, so "
                    "it claims to be the original")
    return None


def exercise_1(answer: Any, transcript: Transcript) -> None:
    """A copy of `transcript` whose tool results say "[redacted]"; the original unchanged."""
    saved = [m.to_dict() for m in transcript]
    check("Exercise 1", answer, lambda a: _wrong_redaction(a, transcript, saved),
          hint="section 1 made a redacted ToolResult; read what it says about a message made "
               "with replace()")


# -- exercise 2: a summary in place of old messages ------------------------------------------------
_TEMPERATURE = re.compile(r"-?\d+°C")
#: Where one clause of a summary ends: its temperature belongs to its city.
_CLAUSE_END = re.compile(r"[.;,:()\n]|\b(?:and|but|while|whereas)\b", re.IGNORECASE)


def temperature_pairs(text: str, cities: Sequence[str]) -> list[tuple[str, str]]:
    """(city, temperature) as `text` puts them side by side: a temperature goes with the one
    city its clause names, or with the city of the clause before when its own names none.

    >>> temperature_pairs("Paris was 18°C and sunny, Tokyo 22°C.", ["Paris", "Tokyo"])
    [('Paris', '18°C'), ('Tokyo', '22°C')]
    >>> temperature_pairs("It was 22°C in Paris and 18°C in Tokyo.", ["Paris", "Tokyo"])
    [('Paris', '22°C'), ('Tokyo', '18°C')]
    """
    pairs: list[tuple[str, str]] = []
    current: str | None = None
    for clause in _CLAUSE_END.split(text):
        named = [city for city in cities if re.search(rf"\b{re.escape(city)}\b", clause, re.IGNORECASE)]
        if named:
            current = named[0] if len(named) == 1 else None  # two cities in one clause: whose is it?
        pairs += [(current, found) for found in _TEMPERATURE.findall(clause) if current]
    return pairs


def _wrong_summary(answer: Any, original: Transcript, kept: int = 4) -> str | None:
    """What is wrong with `answer` as `original` summarised: its shape, its facts, or the API's rules."""
    return (_wrong_summary_shape(answer, original, kept)
            or _wrong_summary_facts(answer[0].text, original.messages[: len(original) - kept])
            or _anthropic_refusal(answer))


def _wrong_summary_shape(answer: Any, original: Transcript, kept: int) -> str | None:
    """A new Transcript: the same system prompt, one synthetic user summary, the last `kept` kept."""
    if not isinstance(answer, Transcript):
        return f"expected a Transcript, got {type(answer).__name__}"
    if answer is original or len(original) < kept + 1:
        return "build a new Transcript and leave long_talk as it is"
    if answer.system != original.system:
        return "keep long_talk's system prompt"
    if len(answer) != kept + 1:
        return f"expected one summary and the last {kept} messages ({kept + 1} in all), got {len(answer)}"
    summary, rest = answer[0], answer.messages[1:]
    if any(mine is not theirs for mine, theirs in zip(rest, original.messages[-kept:], strict=True)):
        return f"after the summary come the last {kept} messages of long_talk, the same objects"
    if summary.role != "user" or not summary.text:
        return "the summary is a user message with text"
    if not summary.synthetic:
        return "nobody said the summary: mark it synthetic=True"
    return None


def _wrong_summary_facts(summary: str, replaced: list[Message]) -> str | None:
    """Every city the replaced calls asked about is named, beside the temperature its tool reported."""
    calls = [c for m in replaced for c in m.tool_calls]
    for tool_call in calls:
        city = str(tool_call.args.get("city", ""))
        if city.casefold() not in summary.casefold():
            return f"the summary does not mention {city}"
    results = {r.call_id: r for m in replaced for r in m.tool_results}
    reported: dict[str, str] = {}  # city -> the temperature its (last) result gave
    for tool_call in calls:
        said = results.get(tool_call.id)
        found = _TEMPERATURE.search(said.content) if said else None
        if found:
            reported[str(tool_call.args.get("city", ""))] = found.group()
    pairs = temperature_pairs(summary, list(reported))
    for city, temperature in pairs:
        if temperature != reported[city]:
            return (f"the summary puts {temperature} beside {city}, which is not what the tool "
                    f"reported for {city}")
    for city, temperature in reported.items():
        if (city, temperature) not in pairs:
            return f"the summary does not give {city}'s temperature beside {city}, as the tool reported it"
    return None


def _anthropic_refusal(answer: Transcript) -> str | None:
    refused = api_check(answer, api="anthropic")
    return f"Anthropic would refuse it: {refused[0].text[:80]}" if refused else None


def exercise_2(answer: Any, long_talk: Transcript) -> None:
    """long_talk with messages 1-8 replaced by one synthetic summary, the last 4 kept."""
    check("Exercise 2", answer, lambda a: _wrong_summary(a, long_talk),
          hint="section 2 built a synthetic message and a Transcript around it; read the trace for each "
               "city's result, and put each temperature beside its own city")


SOLUTIONS: dict[str, str] = {
    "q1": "False",
    "q2": "(3040, 50)",
    "exercise_1": ("Transcript(transcript.system, [transcript[0], transcript[1], Message.results("
                   "[replace(r, content='[redacted]') for r in transcript[2].tool_results]), "
                   "*transcript.messages[3:]])"),
    "exercise_2": ("Transcript(long_talk.system, [Message.user('Earlier: Paris was 18°C and sunny, "
                   "Tokyo 22°C and cloudy.', synthetic=True), *long_talk.messages[-4:]])"),
}
