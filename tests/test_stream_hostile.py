"""Streams that lie, stall or are typed wrong, and what the decoders make of them (issue 29 §5).

- **The end of reply is the end.** Nothing after the API's end (`message_stop`, Chat's
  `finish_reason` and its usage chunk, `response.completed`, Ollama's `done: true`) changes
  the `Turn`: it is refused, in one sentence. A Chat stream that asked for its usage and
  stopped before the usage chunk is cut, not free.
- **One source for each block.** A `message_delta` cannot replace the streamed blocks, a
  `response.completed` cannot disagree with the items streamed, an item cannot be added
  twice, and reasoning sent under two names is said once.
- **Streamed and unstreamed agree**, a Qwen3-style `<think>` prefix in Chat content too.
- **Wrong types are the kit's error**: a field of the wrong JSON type is a
  `MalformedResponseError` naming the field and what came, never a Python `TypeError`.
- **Linear time**: no text is grown by `+=` per delta (`benchmarks/stream_decode_scale.py`
  prints the figures; nothing here is timed).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stream_grammar import STREAMS
from test_stream_ends import REPLIES, SplitEvery
from test_stream_property import BODIES, DrawnCuts
from toolcall_lab.errors import IncompleteStreamError, MalformedResponseError
from toolcall_lab.stream import StreamFinished
from toolcall_lab.wire import APIS, codec


def stream(api: str, reply: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The plain grammar's stream of `reply` (the reply of test_stream_ends), cut every 4 characters."""
    return STREAMS[api](copy.deepcopy(reply or REPLIES[api]), SplitEvery(4))


def finished(api: str, events: list[dict[str, Any]]) -> Any:
    said = list(codec(api).decode_stream(events))
    assert isinstance(said[-1], StreamFinished)
    return said[-1].turn


# -- linear time -----------------------------------------------------------------------------------
class Piece(str):
    """A delta's text that refuses to be joined by `+`: growing a text with `+=` per delta
    copies all of it each time (quadratic); the decoders keep pieces and join them once."""

    def __add__(self, other: object) -> str:
        raise AssertionError(f"a delta was joined with + ({self!r})")

    def __radd__(self, other: object) -> str:
        raise AssertionError(f"a delta was joined with + ({self!r})")


def pieces_of(api: str, event: dict[str, Any]) -> None:
    """Each text or arguments piece of `event` made a `Piece`, in place."""
    def wrap(holder: dict[str, Any], *keys: str) -> None:
        for key in keys:
            if isinstance(holder.get(key), str):
                holder[key] = Piece(holder[key])

    if api == "anthropic" and event.get("type") == "content_block_delta":
        wrap(event["delta"], "text", "thinking", "partial_json")
    elif api == "responses" and str(event.get("type")).endswith(".delta"):
        wrap(event, "delta")
    elif api == "chat":
        for choice in event.get("choices") or ():
            wrap(choice["delta"], "content", "refusal", "reasoning_content")
            for call in choice["delta"].get("tool_calls") or ():
                wrap(call.get("function") or {}, "arguments")
    elif api == "ollama":
        wrap(event["message"], "content", "thinking")


@pytest.mark.parametrize("api", APIS)
def test_no_text_or_arguments_are_grown_with_plus_per_delta(api):
    events = stream(api)
    for event in events:
        pieces_of(api, event)
    turn = finished(api, events)
    assert turn.text == "It is 18°C and sunny"
    assert [dict(call.args) for call in turn.tool_calls] == [{"city": "Paris"}, {"city": "Tokyo"}]


# -- wrong types ---------------------------------------------------------------------------------------
#: A JSON value of any type but null (null is how the APIs leave a field out).
ANY_JSON = (st.booleans() | st.integers(-3, 3) | st.floats(-2, 2).filter(lambda x: x != int(x))
            | st.text(max_size=4) | st.lists(st.integers(0, 2), max_size=2)
            | st.dictionaries(st.sampled_from(["a", "type", "text"]), st.integers(0, 2), max_size=2))


def json_type(value: object) -> str:
    return "null" if value is None else type(value).__name__  # bool, int, float, str, list, dict


def places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path to every value inside an event (a key or a list index at each step)."""
    if path:
        yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from places(inner, (*path, key))
    elif isinstance(value, list):
        for at, inner in enumerate(value):
            yield from places(inner, (*path, at))


def swap(event: dict[str, Any], path: tuple[Any, ...], value: object) -> object:
    """The value at `path` in `event`, replaced by `value`; returns the old one."""
    holder: Any = event
    for step in path[:-1]:
        holder = holder[step]
    old, holder[path[-1]] = holder[path[-1]], value
    return old


@pytest.mark.parametrize("api", APIS)
@settings(max_examples=300)
@given(data=st.data())
def test_a_field_of_the_wrong_type_is_the_kits_error_naming_it_never_a_python_error(api, data):
    body = data.draw(BODIES[api], label="body")
    events = json.loads(json.dumps(STREAMS[api](copy.deepcopy(body), DrawnCuts(data))))
    at = data.draw(st.integers(0, len(events) - 1), label="event")
    path = data.draw(st.sampled_from(list(places(events[at]))), label="field")
    old = swap(events[at], path, None)
    wrong = data.draw(ANY_JSON.filter(lambda v: json_type(v) != json_type(old)), label="wrong value")
    swap(events[at], path, wrong)
    try:
        said = list(codec(api).decode_stream(events))
    except IncompleteStreamError:
        return  # a wrong `type` can make the end of reply another event, which never came
    except MalformedResponseError as error:
        message = str(error)
        assert message.count("; ") == 1 and message.endswith("check the server's URL, or report the server.")
        named = [step for step in path if isinstance(step, str)]
        assert any(name in message for name in named[-2:]) or "rebuild" in message, message
        return
    assert isinstance(said[-1], StreamFinished)  # a field the decoder reads past, or passes on as it is


def has(*path: Any) -> Any:
    """Whether an event has a value at `path`."""
    def test(event: dict[str, Any]) -> bool:
        try:
            holder: Any = event
            for step in path:
                holder = holder[step]
        except (KeyError, IndexError, TypeError):
            return False
        return True
    return test


ARGUMENTS = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")


@pytest.mark.parametrize(("api", "at", "field", "wrong", "says"), [
    ("anthropic", has("delta", "text"), ("index",), "1", "index is a string ('1'), not a whole number"),
    ("anthropic", has("delta", "text"), ("delta",), ["x"], "delta is a list ([\"x\"]), not an object"),
    ("responses", has("delta"), ("delta",), 7, "delta is a number (7), not a string"),
    ("chat", has(*ARGUMENTS), ARGUMENTS, 12,
     "choices[0].delta.tool_calls[0].function.arguments is a number (12), not a string of JSON"),
    ("ollama", has("message", "content"), ("message", "content"), {"text": 1},
     "message.content is an object ({\"text\": 1}), not a string"),
])
def test_a_wrong_type_is_named_with_what_came(api, at, field, wrong, says):
    events = stream(api)
    index = next(i for i, event in enumerate(events) if at(event))
    swap(events[index], field, wrong)
    said = re.escape(f"event {index + 1}") + ".*" + re.escape(says)
    with pytest.raises(MalformedResponseError, match=said):
        list(codec(api).decode_stream(events))


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat"])
def test_a_wrong_type_through_a_provider_is_the_malformed_response_not_a_bare_provider_error(name):
    from test_stream_fixtures import anthropic_sdk, openai_sdk
    from toolcall_lab import Message, Transcript, get_provider
    from toolcall_lab.wire import API_SPECS

    api = {"anthropic": "anthropic", "openai": "responses", "openai-chat": "chat"}[name]
    events = stream(api)
    for event in events:  # every text piece a number
        if event.get("type") == "response.output_text.delta":
            event["delta"] = 5
        elif event.get("type") == "content_block_delta" and event["delta"]["type"] == "text_delta":
            event["delta"]["text"] = 5
        for choice in event.get("choices") or ():
            if "content" in choice["delta"]:
                choice["delta"]["content"] = 5
    server = API_SPECS[api].server
    body = b"".join(server.frame(event) for event in events) + server.STREAM_END
    client = (anthropic_sdk if api == "anthropic" else openai_sdk)(body)
    provider = get_provider(name, client=client)
    with pytest.raises(MalformedResponseError, match=r"is a number \(5\), not a string"):
        list(provider.stream(Transcript(messages=[Message.user("hi")])))


def test_arguments_nested_too_deep_to_parse_are_the_kits_error_not_a_recursion_error():
    events = stream("anthropic")
    first = next(e for e in events if e.get("delta", {}).get("type") == "input_json_delta")
    first["delta"]["partial_json"] = '{"a": ' + "[" * 100_000 + "]" * 100_000
    with pytest.raises(MalformedResponseError, match=r"block 1's input \('\{\"a\": \[+…', "
                       r"[\d,]+ characters\) is nested deeper than a JSON parser reads"):
        list(codec("anthropic").decode_stream(events))


@pytest.mark.parametrize(("kind", "index", "says"), [
    ("response.output_text.delta", "content_index", "is for content_index 3, but item 0 has 1 part"),
    ("response.reasoning_summary_text.delta", "summary_index", "is for summary_index 2, but item 0 has 0"),
])
def test_a_responses_delta_for_a_part_never_added_is_the_kits_error_not_an_index_error(kind, index, says):
    events = stream("responses")
    at = next(i for i, e in enumerate(events) if e["type"] == "response.output_text.delta")
    if kind == "response.output_text.delta":
        events[at][index] = 3
    else:
        events[at] = {"type": kind, "output_index": 0, "summary_index": 2, "delta": "Hm"}
    with pytest.raises(MalformedResponseError, match=re.escape(says)):
        list(codec("responses").decode_stream(events))
