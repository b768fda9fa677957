"""Answer keys of lesson 3, "One conversation, four wires" (its sequel's, lesson 4's, are in
`through_the_sdks`).

The request body a learner writes by hand is compared with the kit's codec field by
field, and the first difference is named by its path (`messages.2.tool_call_id`), the
way an API names what it rejects. Tool-call arguments are compared as JSON, so spacing
inside the string does not matter; that they are a string does.

Two answers are on the page already, and are refused with "write it yourself": the
codec's own body (the rules ask for exactly `model`, `messages` and `tools`, and the
codec always adds its output limit, so a body it wrote carries one key too many), and
mistake 3's `invented` transcript (Exercise 1 asks for a result that answers a call
the transcript *does* hold, so an invented id is refused by what it is, not by name).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from textwrap import shorten
from typing import Any

from ..selfcheck import check, number, word
from ..tool import Tool
from ..transcript import Transcript
from ..wire import APIS, encode_request
from ..wire import check as api_check

__all__ = ["SOLUTIONS", "chat_body", "exercise_1", "predict_accepted", "q1", "q2"]

#: The keys the rules of lesson 3, section 4, give a Chat Completions body: no more.
CHAT_KEYS = ("model", "messages", "tools")
#: What the kit's Chat codec adds beyond them (an output limit always, reasoning when asked).
_CODEC_EXTRAS = ("max_completion_tokens", "max_tokens", "reasoning_effort")


def first_difference(answer: Any, expected: Any, path: str = "") -> str | None:
    """The path of the first place `answer` differs from `expected`, and how; None if equal.

    An object is compared key by key, a list entry by entry, a call's `arguments` as the
    JSON they hold, anything else as the value itself.

    >>> first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]})
    "a.1.b: expected 'y'"
    """
    where = path or "the body"
    if isinstance(expected, Mapping):
        return _object_difference(answer, expected, path)
    if isinstance(expected, list):
        return _list_difference(answer, expected, where)
    if path.endswith(".arguments") and isinstance(expected, str):
        return _arguments_difference(answer, expected, where)
    if type(answer) is not type(expected) or answer != expected:
        return f"{where}: expected {expected!r}" if not isinstance(expected, str) or len(expected) < 60 \
            else f"{where}: this text differs from the transcript's"
    return None


def _object_difference(answer: Any, expected: Mapping[str, Any], path: str) -> str | None:
    """A key missing, a key too many, or the first value that differs."""
    where = path or "the body"
    if not isinstance(answer, Mapping):
        return f"{where}: expected an object (a dict), got {type(answer).__name__}"
    for key in expected:
        if key not in answer:
            return f"{where}: the key {key!r} is missing"
    for key in answer:
        if key not in expected:
            return f"{where}: the key {key!r} is not part of it"
    for key, value in expected.items():
        found = first_difference(answer[key], value, f"{path}.{key}" if path else str(key))
        if found:
            return found
    return None


def _list_difference(answer: Any, expected: list[Any], where: str) -> str | None:
    """Not a list, a different length, or the first entry that differs."""
    if not isinstance(answer, list):
        return f"{where}: expected a list, got {type(answer).__name__}"
    if len(answer) != len(expected):
        return f"{where}: expected {len(expected)} entries, got {len(answer)}"
    for index, (mine, theirs) in enumerate(zip(answer, expected, strict=True)):
        found = first_difference(mine, theirs, f"{where}.{index}")
        if found:
            return found
    return None


def _arguments_difference(answer: Any, expected: str, where: str) -> str | None:
    """A call's arguments: a string of JSON that must hold the same value (spacing may differ)."""
    if not isinstance(answer, str):
        return f"{where}: the arguments travel as a string of JSON, not a {type(answer).__name__}"
    try:
        same = json.loads(answer) == json.loads(expected)
    except ValueError:
        return f"{where}: this string is not valid JSON"
    return None if same else f"{where}: the arguments are not the call's arguments"


def _wrong_chat_body(answer: Any, transcript: Transcript, tools: Sequence[Tool]) -> str | None:
    if not isinstance(answer, Mapping):
        return f"expected the request body as a dict, got {type(answer).__name__}"
    if not isinstance(answer.get("model"), str):
        return "the body needs a \"model\": a model id, as a string"
    added = [key for key in _CODEC_EXTRAS if key in answer]
    if added:
        # subtle: the codec always writes an output limit, so a body it made is caught here, by
        # what it holds, however the learner called it (one call, other options, another name)
        return (f"it carries {added[0]!r}, which the rules above never name but the kit's encoder "
                "adds: write it yourself, from the rules")
    kit = encode_request(transcript, tools, api="chat", model=answer["model"])
    return first_difference(dict(answer), {key: kit[key] for key in CHAT_KEYS})


def chat_body(answer: Any, transcript: Transcript, tools: Sequence[Tool]) -> None:
    """Your Chat Completions body for `transcript`: model, messages and tools (any max-tokens field)."""
    check("Your body", answer, lambda a: _wrong_chat_body(a, transcript, tools),
                 hint="go back to the rules above the cell: where the system prompt goes, what the "
                      "assistant message carries, one tool message per result")


def _wrong_api_set(answer: Any, expected: set[str]) -> str | None:
    if isinstance(answer, str):
        return "expected a set of API names, like {\"chat\"} (or set() for none), not one string"
    if not isinstance(answer, (set, frozenset, list, tuple)):
        return f"expected a set of API names, got {type(answer).__name__}"
    names = {str(a).strip().casefold() for a in answer}
    unknown = names - set(APIS)
    if unknown:
        return f"{', '.join(sorted(unknown))} is not one of {', '.join(APIS)}"
    return None if names == expected else "that is not the set the checker found"


def predict_accepted(answer: Any, transcript: Transcript) -> None:
    """Which APIs accept `transcript` (the one that forgot to send the results)."""
    expected: set[str] = {api for api in APIS if not api_check(transcript, api=api)}
    check("Prediction", answer, lambda a: _wrong_api_set(a, expected),
                 hint="an API that validates the conversation pairs each call with a result; one of "
                      "the four validates almost nothing")


def q1(answer: Any, results_message: Any) -> None:
    """How many `tool` messages Chat Completions needs for one user message of results."""
    check("Q1", answer, number(len(results_message.tool_results)),
                 hint="in Chat Completions each result is a message of its own")


def q2(answer: Any, transcript: Transcript) -> None:
    """Would Anthropic accept `transcript`, whose result id differs from the call's only by case?"""
    expected = "no" if api_check(transcript, api="anthropic") else "yes"
    check("Q2", answer, word(expected, choices=("yes", "no")),
                 hint="does an API compare ids the way people read them, or character by character?")


def _wrong_rejected(answer: Any) -> str | None:
    if not isinstance(answer, Transcript):
        return f"expected a Transcript, got {type(answer).__name__}"
    made = {c.id for c in answer.tool_calls()}
    invented = [r.call_id for r in answer.tool_results() if r.call_id not in made]
    if invented and invented[0].casefold() in {i.casefold() for i in made}:
        return (f"its result for {invented[0]!r} matches a call's id only if case is ignored, "
                "and ids are compared exactly")
    if invented:
        return (f"its result for {invented[0]!r} answers no call it holds: that is mistake 3, "
                "already on the page; write it yourself, with every result answering a call "
                "that was made")
    said = [p.text for p in api_check(answer, api="anthropic")]
    if not said:
        return "Anthropic accepts this transcript"
    if not any("unexpected `tool_use_id`" in text for text in said):
        return "Anthropic rejects it, but for something else: " + shorten(said[0], 80)
    return None


def exercise_1(answer: Any) -> None:
    """A transcript Anthropic rejects for an unexpected tool_use_id, though every result
    answers a call the transcript holds (a result in the wrong place, not an invented id)."""
    check("Exercise 1", answer, _wrong_rejected,
          hint="mistake 3's error says in which message Anthropic looks for a result's call")


SOLUTIONS: dict[str, str] = {
    "my_chat_body": (
        '{"model": "gpt-6-luna", "messages": ['
        '{"role": "system", "content": second_call.system}, '
        '{"role": "user", "content": second_call[0].text}, '
        '{"role": "assistant", "content": None, "tool_calls": [{"id": c.id, "type": "function", '
        '"function": {"name": c.name, "arguments": json.dumps(dict(c.args))}} '
        'for c in second_call[1].tool_calls]}, '
        '*[{"role": "tool", "tool_call_id": r.call_id, "content": r.content} '
        'for r in second_call[2].tool_results]], '
        '"tools": [{"type": "function", "function": {"name": get_weather.name, '
        '"description": get_weather.description, "parameters": get_weather.input_schema}}]}'),
    "predict_accepted": '{"ollama"}',
    "q1": "2",
    "q2": '"no"',
    "exercise_1": ('Transcript(messages=[question, calls, results, Message.assistant("Anything else?"), '
                   'Message.results([results.tool_results[0]])])'),
}
