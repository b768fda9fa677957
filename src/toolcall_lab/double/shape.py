"""Is a request body the right *shape*? The type checks each API runs before its rules.

A real API validates a body against its schema before anything else, and answers a
wrong shape with a 400 in its own error format: `messages: 5`, `tools: 5`, a content
block without a `type`, `temperature: "hot"`, Chat tool-call `arguments` sent as an
object instead of a string of JSON. The codecs' `check_request` assumes the shape is
right and checks the *rules* (pairing, thinking, models); this module runs first, so a
misshapen body gets the API's 400 instead of crashing the double into a 500, which the
SDKs would retry.

One mechanism for every API: the body is checked with `jsonschema` against the API's
shape (`double/shapes.py`, one JSON Schema per API, its types taken from the API's
own schema), and the first failure is said in the API's words, naming its JSON path:

    >>> first_problem("chat", {"model": "m", "messages": 5})
    Problem(api='chat', path='messages', text="Invalid type for 'messages': expected an array of \
objects, but got an integer instead.", param='messages', code='invalid_type')
    >>> first_problem("anthropic", {"model": "m", "max_tokens": 8, "messages": [], "tools": 5}).text
    'tools: Input should be a valid list'
    >>> first_problem("ollama", {"model": "m", "options": 5}).text
    'json: cannot unmarshal number into Go struct field ChatRequest.options of type map[string]interface {}'

Three dialects:

- Anthropic's validator speaks pydantic: "tools.0.custom.name: Field required", the tag of
  a discriminated union in the path ("messages.1.content.0.tool_use.input: Input should be
  a valid dictionary" is recorded, anthropics/anthropic-sdk-typescript#648).
- OpenAI's: "Invalid type for 'temperature': expected a decimal, but got a string instead."
  (recorded from api.openai.com in public code), code "invalid_type"; "Missing required
  parameter: 'x'." ("missing_required_parameter"); "Invalid value: 'x'. Supported values
  are: 'a', 'b', and 'c'." ("invalid_value"), param in OpenAI's spelling, `messages[0].role`.
  A Chat request without a model gets OpenAI's recorded "you must provide a model parameter".
- Ollama's is Go's encoding/json: "json: cannot unmarshal array into Go struct field
  ChatRequest.messages.content of type string" (recorded, ollama/ollama#10255). Go reads a
  null as the zero value, and so does the double where it can; where it cannot play that
  (a message, a role), it says so in words of its own.

These are the patterns the APIs are seen to use; each case's exact text follows from them
and is not recorded unless a source is named (how OpenAI words "one of" more than two
types, for one, is not on record).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._jsonschema import import_jsonschema
from ..wire import Problem
from .shapes import SHAPES

__all__ = ["first_problem", "refusal"]

Path = Sequence[str | int]


def first_problem(api: str, body: Any, *, hosted: bool = True) -> Problem | None:
    """The first thing in `body` that has the wrong shape for `api`, or None."""
    found = refusal(api, body, hosted=hosted)
    return None if found is None else found[1]


def refusal(api: str, body: Any, *, hosted: bool = True) -> tuple[int, Problem] | None:
    """(status, problem) for the first misshapen field of `body`, or None; the status is 400
    unless the API answers otherwise (Ollama: 500 for an option of the wrong type).

    `hosted=False` leaves out the values only the hosted API holds a field to (marked
    `x-hosted`, such as OpenAI's three `tool_choice` modes): a local server speaking the
    same API checks those its own way (`wire.server.flavours`).
    """
    for error in _validator(api).iter_errors(body):
        if hosted or not error.schema.get("x-hosted"):
            failure = Failure.of(error)
            return failure.status, _DIALECTS[api](api, failure)
    return None


@functools.cache
def _validator(api: str) -> Any:
    jsonschema = import_jsonschema()  # subtle: without its format checkers' packages (seconds of CPU)
    kind = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"x-tagged": _tagged})
    return kind(SHAPES[api])


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


@dataclass(frozen=True)
class Failure:
    """One way a body breaks its shape, read off a jsonschema error.

    `kind` is "type", "required", "enum", "tag" (a tagged union's key absent, or naming no
    branch) or another JSON Schema keyword; `path` leads to the value (for "required" and
    "tag", to the object that lacks the key or carries the tag); `key` is the key missing or
    carrying the tag; `tags` are the (depth in `path`, tag) of the tagged unions on the way.
    """

    kind: str
    path: tuple[str | int, ...]
    value: Any
    node: dict[str, Any]
    key: str | None = None
    tags: tuple[tuple[int, str], ...] = ()
    message: str = ""

    @classmethod
    def of(cls, error: Any) -> Failure:
        path, node, key = tuple(error.absolute_path), error.schema, None
        if error.validator == "required":
            key = next(k for k in error.validator_value if k not in error.instance)
            node = node.get("properties", {}).get(key, {})  # the missing key's own node
        elif error.validator == "x-tagged":
            key = error.validator_value["key"]
        kind = "tag" if error.validator == "x-tagged" else str(error.validator)
        return cls(kind, path, error.instance, node, key, _tags(error.schema_path), error.message)

    @property
    def status(self) -> int:
        return int(self.node.get("x-status", 400))

    @property
    def allowed(self) -> list[Any]:
        """The values an enum (or a tagged union's key) takes."""
        if self.kind == "tag":
            spec = self.node["x-tagged"]
            return [*spec["branches"], *(spec["others"] if isinstance(spec["others"], list) else [])]
        return [v for v in self.node.get("enum", []) if v is not None]


def _tags(schema_path: Sequence[Any]) -> tuple[tuple[int, str], ...]:
    """Where the tagged unions on an error's way sit: (depth in the instance path, tag).

    e.g. properties, messages, items, properties, content, items, x-tagged, tool_use, ...
    -> ((4, "tool_use"),): the block at messages.N.content.M is a tool_use.
    """
    tags, depth, tokens, at = [], 0, list(schema_path), 0
    while at < len(tokens):
        token = tokens[at]
        if token in ("properties", "x-tagged"):  # each followed by a name: a property's, a tag
            if token == "x-tagged" and at + 1 < len(tokens):
                tags.append((depth, str(tokens[at + 1])))
            depth += token == "properties"
            at += 2
            continue
        depth += token in ("items", "additionalProperties")
        at += 1
    return tuple(tags)


# -- the words: one function per dialect -----------------------------------------------------
def _kit_path(path: Path) -> str:
    return ".".join(map(str, path))


def _types(node: dict[str, Any]) -> list[str]:
    kinds = node.get("type", [])
    return [k for k in (kinds if isinstance(kinds, list) else [kinds]) if k != "null"]


# Anthropic: pydantic -------------------------------------------------------------------------
_PYDANTIC = {"object": "a valid dictionary", "array": "a valid list", "string": "a valid string",
             "integer": "a valid integer", "number": "a valid number", "boolean": "a valid boolean"}


def _anthropic(api: str, failure: Failure) -> Problem:
    parts: list[str | int] = list(failure.path)
    for depth, tag in sorted(failure.tags, reverse=True):
        parts.insert(depth, tag)  # pydantic names the branch of a tagged union in the path
    where = _kit_path(parts)
    match failure.kind:
        case "required":
            where, text = f"{where}.{failure.key}".lstrip("."), "Field required"
        case "tag" if failure.key not in failure.value:
            text = f"Unable to extract tag using discriminator '{failure.key}'"
        case "tag":
            tags = ", ".join(f"'{tag}'" for tag in failure.allowed)
            tag = failure.value[failure.key]
            text = (f"Input tag '{tag}' found using '{failure.key}' does not match any of the expected "
                    f"tags: {tags}")
        case "type" if isinstance(failure.value, float) and "integer" in _types(failure.node):
            text = "Input should be a valid integer, got a number with a fractional part"
        case "type":
            # subtle: for a union (a string or a list of blocks) pydantic reports each member; the
            # API's one message is taken to be the last member's (inferred, not recorded)
            text = f"Input should be {_PYDANTIC[_types(failure.node)[-1]]}"
        case "enum":
            values = [f"'{v}'" for v in failure.allowed]
            listed = values[0] if len(values) == 1 else ", ".join(values[:-1]) + f" or {values[-1]}"
            text = f"Input should be {listed}"
        case _:
            text = failure.message
    return Problem(api, _kit_path(failure.path), f"{where}: {text}" if where else text)


# OpenAI: Responses and Chat ----------------------------------------------------------------
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
        if kind == "array" and _types(node.get("items", {})):
            said = f"array of {_OPENAI[_types(node['items'])[0]][1]}"
            return f"an {said}" if article else said
        one = _OPENAI[kind][0]
        return one if article else one.split(" ", 1)[1]

    kinds = _types(node)
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


def _openai(api: str, failure: Failure) -> Problem:
    path: tuple[str | int, ...] = failure.path
    if failure.kind in ("required", "tag") and failure.key is not None:
        path = (*path, failure.key)
    param, at = openai_param(path), _kit_path(path)
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


# Ollama: Go's encoding/json --------------------------------------------------------------------
_GO_VALUES = {bool: "bool", str: "string", list: "array", dict: "object"}
_GO_TYPES = {"string": "string", "integer": "int", "number": "float64", "boolean": "bool"}


def _ollama(api: str, failure: Failure) -> Problem:
    where, at = openai_param(failure.path), _kit_path(failure.path)
    template = failure.node.get("x-error")
    if template and failure.kind != "required":
        key = str(failure.path[-1]) if failure.path else ""
        return Problem(api, at, template.format(path=where, key=key, value=repr(failure.value)))
    if failure.kind == "required" or failure.value is None:
        # Go reads a missing field or a null as the zero value; where the double has nothing to
        # play from that (an empty message, a call without a function), it says so itself.
        said = f"{where}.{failure.key}".lstrip(".") if failure.kind == "required" else where
        how = "is missing" if failure.kind == "required" else "is null"
        return Problem(api, at, f"{said} {how}, which Ollama reads as an empty value (Go's zero value); "
                       "the API double cannot play a request without it, so send it.")
    field = ".".join(part for part in failure.path if isinstance(part, str))
    go_type = failure.node.get("x-go") or _GO_TYPES[_types(failure.node)[0]]
    return Problem(api, at, f"json: cannot unmarshal {_go_value(failure.value, go_type)} into Go struct "
                   f"field ChatRequest.{field} of type {go_type}")


def _go_value(value: Any, go_type: str) -> str:
    """How Go names a JSON value it cannot read: "number", or "number 1.5" for an int field."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return f"number {value:g}" if go_type == "int" and isinstance(value, float) else "number"
    return _GO_VALUES[type(value)]


_DIALECTS: dict[str, Callable[[str, Failure], Problem]] = {
    "anthropic": _anthropic, "responses": _openai, "chat": _openai, "ollama": _ollama}
