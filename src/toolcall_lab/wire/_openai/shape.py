"""How OpenAI's validator words a misshapen body, and the parts both OpenAI APIs' shapes share.

`shape_problem` says the first way a body breaks its API's shape (a `_schema.Failure`) the
way OpenAI does for both APIs (each API's server half, an `OpenAIServer`, says it so).
The dialect:

- "Invalid type for 'temperature': expected a decimal, but got a string instead."
  (recorded from api.openai.com in public code), code "invalid_type";
- "Missing required parameter: 'x'." ("missing_required_parameter");
- "Invalid value: 'x'. Supported values are: 'a', 'b', and 'c'." ("invalid_value"),

each with the param in OpenAI's spelling, `messages[0].role` (`openai_param`). These are
the patterns the API is seen to use; each case's exact text follows from them and is not
recorded unless a source is named (how OpenAI words "one of" more than two types, for
one, is not on record).

Both shapes take their types from OpenAI's OpenAPI document (openai/openai-openapi@f85dbe22,
kept in tests/fixtures/openai_openapi_excerpt.json, where a test holds each shape to it),
and share a few parts: `PART_TEXT`, `EFFORT`, `FUNCTION`, `JSON_SCHEMA`, `choice` for
`tool_choice`, `CACHE_RETENTION`.

Left out: value ranges and the rules between fields (each API's `rules.py`), and "Unknown
parameter: ..." (the double lets unknown keys pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._schema import BOOLEAN, OBJECT, STRING, Failure, Path, Schema, enum, kit_path, null, obj, types_of
from ..problem import Problem
from .client import CACHE_RETENTIONS

__all__ = ["CACHE_RETENTION", "EFFORT", "FUNCTION", "JSON_SCHEMA", "PART_TEXT", "choice", "openai_param",
           "shape_problem"]

# -- the parts both shapes share -----------------------------------------------------------------
#: A text part: what both APIs' content parts of type text hold
PART_TEXT = obj({"text": STRING}, required=("text",))
EFFORT = null(STRING)  # the values are a rule (`_openai.rules.invalid_effort`), in OpenAI's words
#: A function tool's fields, in both APIs
FUNCTION = {"name": STRING, "description": null(STRING), "parameters": null(OBJECT), "strict": null(BOOLEAN)}
#: A json_schema response format's fields (ResponseFormatJsonSchema's `json_schema`, and
#: TextResponseFormatJsonSchema beside its `type`)
JSON_SCHEMA = {"name": STRING, "description": STRING, "schema": OBJECT, "strict": null(BOOLEAN)}
#: `prompt_cache_retention`'s values (`client.CACHE_RETENTIONS`), which only the hosted API refuses
CACHE_RETENTION = {**null(enum(*CACHE_RETENTIONS)), "x-hosted": True}


def choice(branches: dict[str, Schema], others: list[str] | bool) -> Schema:
    """OpenAI's `tool_choice`: one of its three modes, or an object told apart by `type`."""
    return {"type": ["string", "object"], "if": {"type": "string"},
            "then": {**enum("none", "auto", "required"), "x-hosted": True},
            "x-tagged": {"key": "type", "branches": branches, "others": others}}


# -- the words ----------------------------------------------------------------------------------
_OPENAI = {"object": ("an object", "objects"), "array": ("an array", "arrays"),
           "string": ("a string", "strings"), "integer": ("an integer", "integers"),
           "number": ("a decimal", "decimals"), "boolean": ("a boolean", "booleans")}


def openai_param(path: Path) -> str:
    """A JSON path the way OpenAI names a parameter.

    >>> openai_param(["messages", 0, "tool_calls", 1, "function"])
    'messages[0].tool_calls[1].function'
    """
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out.lstrip(".")


def _one_of(values: Sequence[Any]) -> str:
    """'a', 'b', and 'c', as OpenAI lists the values of an enum (two: 'a' and 'b')."""
    quoted = [f"'{v}'" for v in values]
    if len(quoted) < 3:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _expected(node: dict[str, Any]) -> str:
    """What OpenAI says it expected of a value of the wrong type.

    e.g. "a string", "an array of objects", "one of a string or array of objects", and
    for `tool_choice` "one of one of 'none', 'auto', or 'required' or object" (recorded).
    """
    def phrase(kind: str, *, article: bool) -> str:
        modes = node.get("then", {}) if node.get("if") == {"type": "string"} else {}  # tool_choice's
        strings = node.get("enum") or modes.get("enum")
        if kind == "string" and strings:
            return "one of " + _one_of([v for v in strings if v is not None]).replace(" and '", " or '")
        if kind == "array" and types_of(node.get("items", {})):
            said = f"array of {_OPENAI[types_of(node['items'])[0]][1]}"
            return f"an {said}" if article else said
        one = _OPENAI[kind][0]
        return one if article else one.split(" ", 1)[1]

    kinds = types_of(node)
    if len(kinds) == 1:
        return phrase(kinds[0], article=True)
    return "one of " + " or ".join(phrase(k, article=i == 0) for i, k in enumerate(kinds))


def _got(value: Any) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int():
            return "an integer"
        case float():
            return "a decimal number"
        case str():
            return "a string"
        case list():
            return "an array"
        case _:
            return "an object"


def shape_problem(api: str, failure: Failure) -> Problem:
    """The first way a body of `api` ("responses" or "chat") breaks its shape, in OpenAI's words."""
    path: tuple[str | int, ...] = failure.path
    if failure.kind in ("required", "tag") and failure.key is not None:
        path = (*path, failure.key)
    param, at = openai_param(path), kit_path(path)
    missing = failure.node.get("x-missing")
    match failure.kind:
        case "required" if missing:
            return Problem(api, at, missing, param=None)
        case "required" | "tag" if failure.key not in failure.value:
            return Problem(api, at, f"Missing required parameter: '{param}'.", param=param,
                           code="missing_required_parameter")
        case "tag" if not isinstance(failure.value[failure.key], str):
            expected = "one of " + _one_of(failure.allowed).replace(" and '", " or '")
            return Problem(api, at, f"Invalid type for '{param}': expected {expected}, but got "
                           f"{_got(failure.value[failure.key])} instead.", param=param, code="invalid_type")
        case "tag" | "enum":
            value = failure.value[failure.key] if failure.kind == "tag" else failure.value
            listed = _one_of(failure.allowed)
            return Problem(api, at, f"Invalid value: '{value}'. Supported values are: {listed}.",
                           param=param, code="invalid_value")
        case "type":
            expected = _expected(failure.node)
            return Problem(api, at, f"Invalid type for '{param}': expected {expected}, but got "
                           f"{_got(failure.value)} instead.", param=param, code="invalid_type")
        case _:
            return Problem(api, at, f"Invalid '{param}': {failure.message}.", param=param)

