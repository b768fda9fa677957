"""Structured output: a reply held to a JSON Schema, a tool call with no return trip.

A forced tool call and a structured reply carry the same thing, a JSON object shaped by a
schema. The difference is the trip: a tool call asks *your code* to run something and send
a result back; a structured reply is the answer itself, and the conversation can end there.
`OutputFormat` is the schema and its name; each codec spells it its API's way
(`encode_request(..., output_format=...)`):

    anthropic   output_config: {format: {type: "json_schema", schema}}
    responses   text: {format: {type: "json_schema", name, schema, strict}}
    chat        response_format: {type: "json_schema", json_schema: {name, schema, strict}}
    ollama      format: <the schema itself>

Sources, read 2026-12-01: Anthropic's structured outputs page
(https://platform.claude.com/docs/en/build-with-claude/structured-outputs: `output_config.format`,
which replaced the beta `output_format`) and `anthropic.types.JSONOutputFormatParam`;
OpenAI's Structured Outputs guide (https://platform.openai.com/docs/guides/structured-outputs)
and its OpenAPI document (`TextResponseFormatJsonSchema` for Responses' `text.format`,
`ResponseFormatJsonSchema` for Chat's `response_format`); Ollama's structured outputs page
(https://docs.ollama.com/capabilities/structured-outputs: `format` takes a JSON schema).

`read_reply` says what a reply holds: the object, a refusal, a reply the output limit cut
(whose JSON does not parse, and must not be repaired into something it is not), or JSON
that breaks the schema. `sample` is the deterministic object the API double answers with
when its script says nothing that fits.

    >>> fmt = OutputFormat("city", {"type": "object", "properties": {"name": {"type": "string"}},
    ...                             "required": ["name"], "additionalProperties": False})
    >>> sample(fmt.schema)
    {'name': ''}
    >>> problems({"name": 7}, fmt.schema)
    ['name must be a string, got 7']
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import UsageError, UsageTypeError
from .turn import StopReason, Turn

__all__ = ["NAME_PATTERN", "OutputFormat", "Reading", "loads", "problems", "read_reply", "sample"]

#: OpenAI's pattern for a response format's name ("a-z, A-Z, 0-9, or underscores and dashes,
#: with a maximum length of 64": the OpenAPI document's `ResponseFormatJsonSchema.name`).
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class OutputFormat:
    """A JSON Schema the reply must match, with the name OpenAI's APIs ask for.

    `strict` asks OpenAI's APIs to hold the model to the schema exactly (their default is
    false); Anthropic and Ollama have no such switch and always constrain the reply.

    >>> OutputFormat("my format", {"type": "object"})
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: an output format's name must match ^[a-zA-Z0-9_-]{1,64}$ \
(OpenAI's rule), got 'my format'; try 'my_format'.
    """

    name: str
    schema: Mapping[str, Any] = field(hash=False)
    strict: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_PATTERN.match(self.name):
            suggestion = re.sub(r"[^a-zA-Z0-9_-]", "_", str(self.name))[:64] or "answer"
            raise UsageError(f"an output format's name must match {NAME_PATTERN.pattern} (OpenAI's "
                             f"rule), got {self.name!r}; try {suggestion!r}.")
        if not isinstance(self.schema, Mapping):
            raise UsageTypeError(f"an output format's schema is a JSON Schema (a dict), got "
                                 f"{type(self.schema).__name__}: {self.schema!r}.")
        # subtle: a copy through JSON, so the caller's dict can change without changing this one
        object.__setattr__(self, "schema", json.loads(json.dumps(self.schema)))

    def __repr__(self) -> str:
        return f"OutputFormat({self.name!r}, strict={self.strict})"


def sample(schema: Mapping[str, Any]) -> Any:
    """The simplest value `schema` accepts, the same every time: what the double answers with.

    The first of an `enum` or `anyOf`, a `const` as it is, the smallest number at or above
    `minimum`, "" for a string, false, null, an array of `minItems` samples, and an object
    with every property (the ones strict mode makes required, and the optional ones too).
    A `$ref` (Pydantic's nested models, in `$defs`) is followed, resolved by jsonschema's
    own `referencing`; where a schema refers to itself, a choice or an optional property
    that would go round again is passed over, so the value is finite.

    >>> sample({"type": "object", "properties": {"unit": {"enum": ["C", "F"]},
    ...         "days": {"type": "integer", "minimum": 1}, "tags": {"type": "array"}}})
    {'unit': 'C', 'days': 1, 'tags': []}
    >>> sample({"$defs": {"Wind": {"type": "object", "properties": {"kmh": {"type": "integer"}}}},
    ...         "type": "object", "properties": {"wind": {"$ref": "#/$defs/Wind"}}})
    {'wind': {'kmh': 0}}
    """
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    # subtle: the schema as its own resource, so "#/$defs/..." and any $id inside it resolve
    resource = DRAFT202012.create_resource(dict(schema))
    try:
        return _sample(schema, Registry().with_resource("", resource).resolver(), ())
    except _GoesRound as exc:
        raise UsageError(f"the schema has no finite value: {exc.ref!r} requires itself at every turn; "
                         "make the way back optional (not required, or an anyOf with null).") from None


class _GoesRound(Exception):
    """A `$ref` met again inside its own expansion, where nothing lets the sample stop."""

    def __init__(self, ref: str) -> None:
        super().__init__(ref)
        self.ref = ref


def _sample(schema: Mapping[str, Any], resolver: Any, expanding: tuple[str, ...]) -> Any:
    """`sample` of one node; `resolver` resolves its `$ref`s, `expanding` are the refs on the way."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in expanding:
            raise _GoesRound(ref)
        resolved = resolver.lookup(ref)
        return _sample(resolved.contents, resolved.resolver, (*expanding, ref))
    for union in ("anyOf", "oneOf"):
        if schema.get(union):
            return _first_finite(schema[union], resolver, expanding)
    if schema.get("allOf"):
        parts = [_sample(part, resolver, expanding) for part in schema["allOf"]]
        if all(isinstance(part, dict) for part in parts):
            return {key: value for part in parts for key, value in part.items()}
        return parts[0]
    return _typed(schema, resolver, expanding)


def _typed(schema: Mapping[str, Any], resolver: Any, expanding: tuple[str, ...]) -> Any:
    """`sample` of a node that says only its type (and its bounds, items, properties)."""
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    match kind:
        case "object":
            return _object(schema, resolver, expanding)
        case "array":
            items = schema.get("items") or {}
            return [_sample(items, resolver, expanding) for _ in range(int(schema.get("minItems") or 0))]
        case "integer":
            return int(schema.get("minimum", 0))
        case "number":
            return schema.get("minimum", 0)
        case "boolean":
            return False
        case "null":
            return None
        case _:
            return "x" * int(schema.get("minLength") or 0)


def _first_finite(choices: list[Any], resolver: Any, expanding: tuple[str, ...]) -> Any:
    """The sample of the first choice that does not go round; if all do, the first one's error."""
    going_round: _GoesRound | None = None
    for choice in choices:
        try:
            return _sample(choice, resolver, expanding)
        except _GoesRound as exc:
            going_round = going_round or exc
    assert going_round is not None
    raise going_round


def _object(schema: Mapping[str, Any], resolver: Any, expanding: tuple[str, ...]) -> dict[str, Any]:
    """Every property's sample; an optional one that would go round again is left out."""
    required = set(schema.get("required") or ())
    value: dict[str, Any] = {}
    for key, inner in (schema.get("properties") or {}).items():
        try:
            value[key] = _sample(inner, resolver, expanding)
        except _GoesRound:
            if key in required:
                raise
    return value


def problems(value: Any, schema: Mapping[str, Any]) -> list[str]:
    """Where `value` breaks `schema`, one line each, checked by `jsonschema` (draft 2020-12) and
    said in the kit's words (`_jsonschema.describe`), path first.

    >>> problems({"city": "Paris", "extra": 1}, {"type": "object", "additionalProperties": False})
    ["the value has fields the schema does not allow: 'city', 'extra'"]
    """
    from ._jsonschema import describe, import_jsonschema

    validator = import_jsonschema().Draft202012Validator(dict(schema))
    found = sorted(validator.iter_errors(value),
                   key=lambda error: (list(map(str, error.absolute_path)), str(error.validator)))
    return [describe(error, at="") for error in found]


Kind = Literal["object", "refused", "cut", "not_json", "invalid"]


@dataclass(frozen=True)
class Reading:
    """What a structured reply holds: `kind`, the parsed `value` (if any), the text, the problems.

    kind is "object" (JSON that matches), "refused" (the model declined: no JSON to read),
    "cut" (the output limit stopped it: the text is half an object), "not_json" (text that
    does not parse, or holds NaN or Infinity, which JSON has not: `problems` says which),
    or "invalid" (JSON that breaks the schema).
    """

    kind: Kind
    value: Any
    text: str
    problems: tuple[str, ...] = ()

    def __str__(self) -> str:
        match self.kind:
            case "object":
                return f"an object matching the schema: {json.dumps(self.value, ensure_ascii=False)}"
            case "refused":
                return f"a refusal, no JSON: {self.text!r}"
            case "cut":
                return f"cut by the output limit after {len(self.text)} characters: {self.text!r}"
            case "not_json" if self.problems:
                return f"text that is not JSON ({self.problems[0]}): {self.text[:60]!r}"
            case "not_json":
                return f"text that is not JSON: {self.text[:60]!r}"
            case "invalid":
                return f"JSON that breaks the schema: {'; '.join(self.problems)}"


def read_reply(turn: Turn, schema: Mapping[str, Any]) -> Reading:
    """What `turn`, a reply to a structured request, holds, read against `schema`.

    The stop reason comes first: a refusal or a cut reply is that, whatever its text
    looks like (a cut reply can even parse, if the limit fell just after a closing brace).

    >>> from toolcall_lab import Message, Usage
    >>> cut = Turn(Message.assistant('{"name": "Ad'), "max_tokens", Usage(9, 4), "m")
    >>> print(read_reply(cut, {"type": "object"}))
    cut by the output limit after 12 characters: '{"name": "Ad'
    """
    text = turn.text
    if turn.stop_reason is StopReason.REFUSAL:
        return Reading("refused", None, text)
    if turn.stop_reason in (StopReason.MAX_TOKENS, StopReason.CONTEXT_WINDOW_EXCEEDED):
        return Reading("cut", None, text)
    try:
        value = loads(text)
    except json.JSONDecodeError:
        return Reading("not_json", None, text)
    except ValueError as exc:  # it parses, but holds what JSON has no spelling for
        return Reading("not_json", None, text, (str(exc),))
    found = problems(value, schema)
    return Reading("invalid" if found else "object", value, text, tuple(found))


def loads(text: str) -> Any:
    """`json.loads(text)`, held to JSON itself: NaN, Infinity and a number too large for a float
    (1e999, which Python reads as infinity) raise `UsageError` (a `ValueError`) saying so, as
    text that does not parse raises `json.JSONDecodeError` (a `ValueError` too).

    >>> loads('{"temp_c": 18.5}')
    {'temp_c': 18.5}
    >>> loads('{"temp_c": NaN}')
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: it holds NaN, which JSON has no spelling for (nor Infinity); \
a number must be written in digits, or the value be null.
    """
    return json.loads(text, parse_constant=_constant, parse_float=_finite)


def _constant(name: str) -> Any:
    # subtle: Python's json reads NaN, Infinity and -Infinity; JSON (RFC 8259 §6) has no such values
    raise UsageError(f"it holds {name}, which JSON has no spelling for (nor Infinity); a number must be "
                  "written in digits, or the value be null.")


def _finite(digits: str) -> float:
    number = float(digits)
    if math.isinf(number):
        raise UsageError(f"it holds {digits}, a number too large for a float (Python would read it as "
                      "infinity); a number must fit in a float, or the value be null.")
    return number
