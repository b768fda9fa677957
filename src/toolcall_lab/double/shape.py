"""Is a request body the right *shape*? The type checks each API runs before its rules.

A real API validates a body against its schema before anything else, and answers a
wrong shape with a 400 in its own error format: `messages: 5`, `tools: 5`, a content
block without a `type`, `temperature: "hot"`, Chat tool-call `arguments` sent as an
object instead of a string of JSON. The codecs' `check_request` assumes the shape is
right and checks the *rules* (pairing, thinking, models); this module runs first, so a
misshapen body gets the API's 400 instead of crashing the double into a 500, which the
SDKs would retry.

One mechanism for every API: the body is checked with `jsonschema` against the API's
shape (its server half's `SHAPE`, `wire/<api>/shape.py`, its types taken from the API's
own schema; the vocabulary and the keywords beyond JSON Schema are `wire._schema`'s), and
the first failure is said in the API's words by its server half (`shape_problem`),
naming its JSON path:

    >>> first_problem("chat", {"model": "m", "messages": 5})
    Problem(api='chat', path='messages', text="Invalid type for 'messages': expected an array of \
objects, but got an integer instead.", param='messages', code='invalid_type')

Each API's `shape.py` says how its validator words a failure (pydantic's words for
Anthropic, OpenAI's own for Responses and Chat, Go's encoding/json for Ollama), with
the recorded examples the words follow.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from .._jsonschema import import_jsonschema
from ..wire import API_SPECS
from ..wire._schema import Failure
from ..wire.problem import Problem

__all__ = ["first_problem", "refusal"]


def first_problem(api: str, body: Any, *, hosted: bool = True) -> Problem | None:
    """The first thing in `body` that has the wrong shape for `api`, or None."""
    found = refusal(api, body, hosted=hosted)
    return None if found is None else found[1]


def refusal(api: str, body: Any, *, hosted: bool = True) -> tuple[int, Problem] | None:
    """(status, problem) for the first misshapen field of `body`, or None; the status is 400
    unless the API answers otherwise (Ollama: 500 for an option of the wrong type).

    `hosted=False` leaves out the values only the hosted API holds a field to (marked
    `x-hosted`, such as OpenAI's three `tool_choice` modes): a local server speaking the
    same API checks those its own way (`wire.flavours`).
    """
    server = API_SPECS[api].server
    for error in _validator(api).iter_errors(body):
        if hosted or not error.schema.get("x-hosted"):
            failure = Failure.of(error)
            return failure.status, server.shape_problem(failure)
    return None


@functools.cache
def _validator(api: str) -> Any:
    jsonschema = import_jsonschema()  # subtle: without its format checkers' packages (seconds of CPU)
    kind = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"x-tagged": _tagged})
    return kind(API_SPECS[api].server.SHAPE)


def _tagged(validator: Any, spec: dict[str, Any], instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """The `x-tagged` keyword: check an object against the branch its tag names."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return  # "type" says so
    key = spec["key"]
    if key not in instance and "default" not in spec:
        yield ValidationError(f"{key!r} is a required property")
        return
    tag = instance.get(key, spec.get("default"))
    tag = spec.get("null", tag) if tag is None else tag
    if isinstance(tag, str) and tag in spec["branches"]:
        yield from validator.descend(instance, spec["branches"][tag], schema_path=tag)
    elif not (isinstance(tag, str) and (spec["others"] is True or tag in spec["others"])):
        yield ValidationError(f"{tag!r} is not one of the {key}s")
