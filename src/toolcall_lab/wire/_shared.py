"""What several codecs do the same way, written once.

- Every body that enters the kit from the wire (each codec's `decode_response`, each
  server half's `decode_request`) is read through `from_the_wire` first: every string in
  it, keys too, with each lone surrogate (a JSON `"\\ud83d"` escape) replaced by U+FFFD.
  Such a string cannot be encoded as UTF-8, so one in a tool call's name or id would make
  every later save and every later request fail.
- Three of the four APIs have no `is_error` field (OpenAI Responses, OpenAI Chat,
  Ollama), so a failed tool says so in words: its content goes out as "Error: <text>"
  (`ERROR_PREFIX`). A successful result that itself begins with "Error: " goes out with
  "Output: " (`OUTPUT_PREFIX`) in front, and so does one that begins with "Output: "
  repeated before "Error: " (`result_text`); the server side takes exactly that off again
  (`read_result_text`), so both the flag and the text come back as the kit sent them.
  What the real API (and so the model) sees: "Error: no such city" for a failure,
  "Output: Error: 3 matches" for a success that starts with those words, every other
  success as it is.
- A server reads tools out of a request as `Tool`s that describe themselves to the
  model but have no code: the code lives with the client that sent them.
- Arguments are read once, the same way everywhere (`parse_arguments` for text,
  `object_call` for an object): anything that is not a JSON object, nests more than
  `blocks.MAX_NESTING` levels deep, or holds NaN or Infinity makes a malformed call.
- Every codec sends reasoning back only to the provider that made it (`made_elsewhere`
  says why another's is left out); each codec's `why_dropped` adds its API's own reasons.
- Every codec sends a sampling `temperature` (and, where its API has one, a `seed`) only
  when asked; `sampling` checks both values once, the same way for all four.
- One refusal is the API double's own, whatever API it plays (`TOO_LARGE`): each server
  half's `fault` says it in its API's error shape.

What only OpenAI's two APIs share (their arguments as JSON text, their error shape, the
rules both refuse alike, the prompt cache's fields) has its own home, `wire._openai`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Concatenate, ParamSpec, TypeVar

from .._json import unicode_text
from ..blocks import ReasoningBlock, ToolCall, ToolResult, arguments_problem, clean_text, read_arguments
from ..errors import UsageError, UsageTypeError
from ..tool import Tool

__all__ = [
    "ERROR_PREFIX",
    "OUTPUT_PREFIX",
    "TOO_LARGE",
    "clean_body",
    "from_the_wire",
    "json_text",
    "made_elsewhere",
    "object_call",
    "parse_arguments",
    "plain_json",
    "read_result_text",
    "request_tool",
    "result_text",
    "sampling",
]

ERROR_PREFIX = "Error: "
#: What a successful result's text goes out behind when it would otherwise read as an error.
OUTPUT_PREFIX = "Output: "
#: A text `result_text` escapes: any number of OUTPUT_PREFIX, then ERROR_PREFIX.
_ESCAPED = re.compile(f"(?:{re.escape(OUTPUT_PREFIX)})*{re.escape(ERROR_PREFIX)}")


def result_text(result: ToolResult) -> str:
    """What a result says on a wire without an error flag; `read_result_text` reverses it exactly.

    A failure goes out behind "Error: "; a success that would read as one (it starts with
    "Error: ", or with "Output: " repeated and then "Error: ") behind "Output: "; any other
    success as it is:

    >>> result_text(ToolResult("call_1", "no such city", is_error=True))
    'Error: no such city'
    >>> result_text(ToolResult("call_1", "Error: 3 matches in app.log"))
    'Output: Error: 3 matches in app.log'
    >>> result_text(ToolResult("call_1", "Output: 42"))
    'Output: 42'
    """
    if result.is_error:
        return ERROR_PREFIX + result.content
    # subtle: the escape must be escaped too, or "Output: Error: x" (a success) would
    # come back as "Error: x".
    return OUTPUT_PREFIX + result.content if _ESCAPED.match(result.content) else result.content


def read_result_text(text: str) -> tuple[str, bool]:
    """(content, is_error) from what `result_text` wrote.

    Text some other client wrote is read by the same rule: "Error: " in front is a
    failure, and "Output: " in front of what would read as one is taken off.

    >>> read_result_text("Error: no such city"), read_result_text("Output: Error: 3 matches")
    (('no such city', True), ('Error: 3 matches', False))
    >>> read_result_text("Output: 42")
    ('Output: 42', False)
    """
    if text.startswith(OUTPUT_PREFIX) and _ESCAPED.match(text):
        return text[len(OUTPUT_PREFIX):], False
    if text.startswith(ERROR_PREFIX):
        return text[len(ERROR_PREFIX):], True
    return text, False


_Params = ParamSpec("_Params")
_Result = TypeVar("_Result")


def from_the_wire(decode: Callable[Concatenate[Mapping[str, Any], _Params], _Result],
                  ) -> Callable[Concatenate[Mapping[str, Any], _Params], _Result]:
    """`decode`, reading its body through `clean_body` first: the one door a body comes in by.

    Every codec's `decode_response` and every server half's `decode_request` wear it, so
    no string from the wire (a tool call's name or id, a model name, a reasoning item's
    field) reaches a transcript with a lone surrogate in it.
    """

    @functools.wraps(decode)
    def decoding(body: Mapping[str, Any], /, *args: _Params.args, **kwargs: _Params.kwargs) -> _Result:
        return decode(clean_body(body), *args, **kwargs)

    return decoding


def clean_body(body: Any) -> Any:
    """`body` with every string in it (keys too) through `blocks.clean_text`.

    A body with nothing to clean comes back as it is (one pass in C finds out); otherwise
    a copy made of dicts and lists, built without recursion, so a body nested as deep as
    the JSON parser allows is cleaned too.

    >>> clean_body({"name": "get_weather\\ud83d", "args": ["\\ud83d", 5]})
    {'name': 'get_weather�', 'args': ['�', 5]}
    >>> body = {"name": "get_weather"}
    >>> clean_body(body) is body
    True
    """
    try:
        unicode_text(body).encode("utf-8")
        return body
    except (TypeError, ValueError, RecursionError):
        pass  # a lone surrogate (UnicodeEncodeError is a ValueError), or not plain JSON
    if not isinstance(body, Mapping | list | tuple):
        return clean_text(body) if isinstance(body, str) else body
    root: dict[Any, Any] | list[Any] = {} if isinstance(body, Mapping) else []
    pending: list[tuple[Any, dict[Any, Any] | list[Any]]] = [(body, root)]
    while pending:
        source, target = pending.pop()
        pairs = source.items() if isinstance(source, Mapping) else enumerate(source)
        for key, value in pairs:
            if isinstance(value, Mapping | list | tuple):
                copy: Any = {} if isinstance(value, Mapping) else []
                pending.append((value, copy))
            else:
                copy = clean_text(value) if isinstance(value, str) else value
            if isinstance(target, dict):
                target[clean_text(key) if isinstance(key, str) else key] = copy
            else:
                target.append(copy)
    return root


def made_elsewhere(block: ReasoningBlock, provider: str) -> str | None:
    """Why `provider`'s API cannot take `block` back: another provider made it (None: it may).

    >>> made_elsewhere(ReasoningBlock("hmm", provider="anthropic"), "openai")
    'made by anthropic: reasoning goes back only to the provider that made it'
    >>> made_elsewhere(ReasoningBlock("hmm", provider="openai"), "openai") is None
    True
    """
    if block.replayable_to(provider):
        return None
    maker = f"made by {block.provider}" if block.provider else "made by no named provider"
    return f"{maker}: reasoning goes back only to the provider that made it"


def parse_arguments(text: str) -> dict[str, Any] | None:
    """The arguments in `text` as a dict, or None when the kit cannot take them as a call's.

    Never raises. None for text that is not a JSON object, one nested more than
    `blocks.MAX_NESTING` levels deep (or too deep for Python's parser at all, which
    raises RecursionError, not a ValueError), and one holding NaN or Infinity, which
    Python's parser accepts but no JSON API does (`blocks.read_arguments` says why).

    >>> parse_arguments('{"city": "Paris"}'), parse_arguments('{"city": "Par'), parse_arguments("[" * 5000)
    ({'city': 'Paris'}, None, None)
    >>> parse_arguments('{"x": NaN}'), parse_arguments('{"x": 1e999}')
    (None, None)
    """
    return read_arguments(text)[0]


def object_call(call_id: str, name: str, arguments: Mapping[str, Any]) -> ToolCall:
    """A call whose arguments came as a JSON object (Anthropic's `input`, Ollama's `arguments`).

    The same rule as `parse_arguments`: an object the kit cannot take (nested too deep,
    NaN or Infinity in it) makes a malformed call, with the object as text in `raw_args`.

    >>> object_call("call_1", "f", {"x": float("inf")})
    ToolCall('call_1', 'f', raw_args='{"x": Infinity}')
    """
    if arguments_problem(arguments) is None:
        return ToolCall(call_id, name, dict(arguments))
    return ToolCall(call_id, name, {}, raw_args=json_text(arguments))


def json_text(value: Any) -> str:
    """`value` as the JSON text it came as (NaN written as NaN), for a malformed call's `raw_args`.

    >>> json_text([1, float("nan")]), json_text({"a": {1, 2}})
    ('[1, NaN]', '(a dict that cannot be written as JSON)')
    """
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        # subtle: not str(value) either: the repr of an object nested that deep fails the same way
        return f"(a {type(value).__name__} that cannot be written as JSON)"


def _never_called(**_: Any) -> Any:
    raise UsageError("this tool was read from a request body; its code lives with the client "
                       "that sent it, so a server never runs it.")


def request_tool(name: str, description: str | None, schema: Mapping[str, Any] | None, *,
                 strict: bool = False) -> Tool:
    """A tool as a server reads it from a request: name, description, schema and strictness, no code."""
    return Tool(name, description or "", schema or {"type": "object"}, _never_called, strict=strict)


def plain_json(value: Any) -> Any:
    """A deep copy made of dicts and lists (what JSON is), so a request or a decoded turn never
    shares state with a transcript's frozen mappings.

    >>> plain_json({"a": ({"b": 1},)})
    {'a': [{'b': 1}]}
    """
    if isinstance(value, Mapping):
        return {k: plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(v) for v in value]
    return value


#: The double's words for a body over its `max_body` (filled with `size` and `limit`).
TOO_LARGE = "The request body is {size} bytes; the API double accepts at most {limit} bytes."


def sampling(temperature: float | None = None, seed: int | None = None) -> dict[str, Any]:
    """The sampling options that were set, checked: `temperature` a number >= 0, `seed` an integer.

    None means "not sent" (the API's own default), so the result leaves it out:

    >>> sampling(0), sampling(), sampling(0.7, seed=42)
    ({'temperature': 0}, {}, {'temperature': 0.7, 'seed': 42})

    The upper bound differs by API (Anthropic 1, OpenAI 2, Ollama none), so it is left to
    the API to refuse; a negative or non-numeric value is no temperature anywhere.
    """
    # subtle: True is an int to Python, never a temperature or a seed to an API.
    if temperature is not None and (isinstance(temperature, bool)
                                    or not isinstance(temperature, int | float)):
        raise UsageTypeError(f"temperature must be a number such as 0 or 0.7, not {temperature!r}.")
    if temperature is not None and not 0 <= temperature < float("inf"):  # subtle: NaN fails both
        raise UsageError(f"temperature must be 0 or more (0: always the likeliest token), "
                         f"not {temperature!r}.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise UsageTypeError(f"seed must be a whole number such as 42, not {seed!r}.")
    options: dict[str, Any] = {}
    if temperature is not None:
        options["temperature"] = temperature
    if seed is not None:
        options["seed"] = seed
    return options
