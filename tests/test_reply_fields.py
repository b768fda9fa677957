"""A reply body with a wrongly typed field is the kit's error naming the field, on every wire.

Each recorded reply below has every one of its fields replaced, in turn, by a value of each other
JSON type. `decode_response` then reads it as before (the field is one it does not read, or reads
leniently) or raises one of the kit's errors; a field it reads with the wrong type in it is a
`MalformedResponseError` that names the field and what came (`wire/_fields.py`), never Python's
own words ("'int' object has no attribute 'get'", "unhashable type: 'dict'"), which it said
before for 107 of these 917 bodies.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import pytest

from schemas import fixture
from toolcall_lab.errors import MalformedResponseError, ToolcallLabError
from toolcall_lab.wire import codec

RECORDED = {
    "anthropic": "anthropic_messages_tool_use_response.sdk_recorded.json",
    "responses": "openai_responses_function_call_response.spec_example.json",
    "chat": "openai_chat_tool_calls_response.spec_example.json",
    "ollama": "ollama_chat_tool_calls_response.docs.json",
}
WRONG: list[Any] = [42, 1.5, "x", True, None, [], {}]


def places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path into `value`, e.g. ("choices", 0, "message")."""
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from places(item, (*path, index))


def named(path: tuple[Any, ...]) -> str:
    """("choices", 0, "message") -> "choices[0].message", as the kit's error names it."""
    return re.sub(r"\.(\d+)", r"[\1]", ".".join(map(str, path)))


def with_value(body: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(body)
    holder = changed
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return changed


@pytest.mark.parametrize("api", RECORDED)
def test_every_wrongly_typed_field_is_the_kits_error_or_read_as_before(api):
    body = fixture(RECORDED[api])
    raw = []
    for path in places(body):
        for value in WRONG:
            try:
                codec(api).decode_response(with_value(body, path, value))
            except MalformedResponseError as exc:
                assert f"the {api} reply is not the API's: " in str(exc), exc
                # the field itself, or one inside it (a required key an emptied object lacks)
                assert re.search(rf"(?<![\w.]){re.escape(named(path))}(?=[ .\[])", str(exc)), str(exc)
            except ToolcallLabError:
                pass  # the kit's own words, as for a value it reads and refuses (a stop reason, ...)
            except Exception as exc:
                raw.append(f"{named(path)} = {value!r}: {type(exc).__name__}: {exc}")
    assert raw == []


@pytest.mark.parametrize(("api", "path", "value", "said"), [
    ("chat", ("choices", 0, "message"), 42, "choices[0].message is a number (42), not an object"),
    ("chat", ("usage", "prompt_tokens"), "12", "usage.prompt_tokens is a string ('12'), not a whole number"),
    ("anthropic", ("stop_reason",), {}, "stop_reason is an object ({}), not a string"),
    ("anthropic", ("content", 0), None, "content[0] is null, not an object"),
    ("responses", ("output",), "x", "output is a string ('x'), not a list"),
    ("responses", ("usage", "input_tokens"), True,
     "usage.input_tokens is the boolean true, not a whole number"),
    ("ollama", ("message", "tool_calls", 0), {}, "message.tool_calls[0].function is missing, where the API "
                                                 "always sends an object"),
])
def test_the_error_names_the_field_and_what_came(api, path, value, said):
    with pytest.raises(MalformedResponseError) as caught:
        codec(api).decode_response(with_value(fixture(RECORDED[api]), path, value))
    assert str(caught.value) == (f"the {api} reply is not the API's: {said}; check the server's URL, "
                                 "or report the server.")
