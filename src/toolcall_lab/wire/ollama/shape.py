"""Ollama's `/api/chat` request body, as its Go types read it, and Go's words for a wrong one.

`SHAPE` is the JSON Schema of the fields the API double reads and the kit sends (the
vocabulary: `wire._schema`); the double checks a body against it before anything reads
it, and `shape_problem` says the first failure the way Ollama does, which is Go's
encoding/json: "json: cannot unmarshal array into Go struct field ChatRequest.messages.content
of type string" (recorded, ollama/ollama#10255). Go reads a null as the zero value, and so
does the double where it can; where it cannot play that (a message, a role), it says so in
words of its own.

    >>> from toolcall_lab.double.shape import first_problem
    >>> first_problem("ollama", {"model": "m", "options": 5}).text
    'json: cannot unmarshal number into Go struct field ChatRequest.options of type map[string]interface {}'

The types are Ollama's Go types (ollama/ollama@fb307609, `api/types.go`: `ChatRequest`,
`Message`, `ToolCall`, `Tool`, `Options`), which Go's encoding/json enforces while it reads
a body.

`format` (structured output) takes "json", a JSON schema, "" or null; anything else is
Ollama's 500, in its runner's words (`_FORMAT_ERROR`).

Left out: value ranges (`rules.py` checks the few Ollama checks), and the fields the kit
neither sends nor the double reads (`keep_alive`, images).
"""

from __future__ import annotations

import json
from typing import Any

from .._schema import (
    BOOLEAN,
    INTEGER,
    OBJECT,
    STRING,
    Failure,
    Path,
    Schema,
    array,
    kit_path,
    null,
    obj,
    types_of,
)
from ..problem import Problem
from ._blocks import API_NAME

__all__ = ["SHAPE", "shape_problem"]

def go(schema: Schema, go_type: str) -> Schema:
    return {**schema, "x-go": go_type}


def go_null(schema: Schema, go_type: str) -> Schema:
    """A Go field null may be sent to (Go leaves the zero value), and the double reads it so."""
    return go(null(schema), go_type)


def _option(go_type: str) -> Schema:
    # api/types.go, Options.FromMap: read when the model is scheduled, and a failure there is
    # answered 500 (server/routes.go, handleScheduleError's default case); numbers of either
    # kind are taken for int and float32 options (JSON numbers arrive as float64).
    return {"type": ["number", "null"], "x-status": 500,
            "x-error": f'option "{{key}}" must be of type {go_type}'}


#: Ollama's `format` is a json.RawMessage, which takes any JSON; the runner then takes "json", a
#: schema (an object), or nothing ("", null), and answers anything else with this error, which
#: the chat handler sends as a 500 (ollama/ollama llm/server.go, Completion; server/routes.go)
_FORMAT_ERROR = {"x-status": 500,
                 "x-error": 'invalid format: {raw}; expected "json" or a valid JSON Schema object'}


_ROLE = {"type": "string", "pattern": "(?i)^(system|user|assistant|tool)$", "x-error": (
    # The double's own refusal: Ollama lower-cases any role and hands it to the model's chat
    # template, which may skip it; the double has no template, and plays these four only.
    "{path} is {value}: Ollama passes any role to the model's chat template, but the API double "
    "plays system, user, assistant and tool only; send one of those.")}
_OLLAMA_CALL = go(obj({"id": STRING, "function": go(obj({
    "index": INTEGER, "name": STRING,
    "arguments": go_null(OBJECT, "api.ToolCallFunctionArguments")}, required=("name",)),
    "api.ToolCallFunction")}, required=("function",)), "api.ToolCall")

#: The request body, as Ollama's Go types describe it (see the module docstring)
SHAPE: Schema = obj({
    "model": STRING,
    "messages": go_null(array(go(obj({
        "role": _ROLE,
        "content": go_null(STRING, "string"),
        "thinking": go_null(STRING, "string"),
        "tool_calls": go_null(array(_OLLAMA_CALL), "[]api.ToolCall"),
        "tool_name": go_null(STRING, "string"), "tool_call_id": go_null(STRING, "string"),
    }, required=("role",)), "api.Message")), "[]api.Message"),
    "tools": go_null(array(go(obj({"type": go_null(STRING, "string"), "function": go(obj({
        "name": STRING, "description": go_null(STRING, "string"),
        "parameters": go_null(OBJECT, "api.ToolFunctionParameters")}, required=("name",)),
        "api.ToolFunction")}, required=("function",)), "api.Tool")), "api.Tools"),
    "stream": go_null(BOOLEAN, "bool"),
    "top_logprobs": go_null(INTEGER, "int"),
    "logprobs": go_null(BOOLEAN, "bool"),
    # last: Ollama reads the options only once the whole body is decoded
    "options": go_null({"type": "object", "properties": {
        "num_predict": _option("integer"), "seed": _option("integer"),
        "temperature": _option("float32"), "top_p": _option("float32"), "top_k": _option("integer")}},
        "map[string]interface {}"),
    # later still: read only when the model runs (llm/server.go, Completion), so a 500 too
    "format": {"type": ["object", "string", "null"], "if": {"type": "string"},
               "then": {"enum": ["", "json"], **_FORMAT_ERROR}, **_FORMAT_ERROR},
})  # `think` is a type of Ollama's own (ThinkValue), checked with its words by `wire.ollama.rules`


# -- the words: Go's encoding/json ---------------------------------------------------------------
_GO_VALUES = {bool: "bool", str: "string", list: "array", dict: "object"}
_GO_TYPES = {"string": "string", "integer": "int", "number": "float64", "boolean": "bool"}


def shape_problem(failure: Failure) -> Problem:
    """The first way a body breaks its shape, in the words of Go's encoding/json, as Ollama says it."""
    where, at = _go_path(failure.path), kit_path(failure.path)
    template = failure.node.get("x-error")
    if template and failure.kind != "required":
        key = str(failure.path[-1]) if failure.path else ""
        return Problem(API_NAME, at, template.format(path=where, key=key, value=repr(failure.value),
                                                     raw=_go_quoted(failure.value)))
    if failure.kind == "required" or failure.value is None:
        # Go reads a missing field or a null as the zero value; where the double has nothing to
        # play from that (an empty message, a call without a function), it says so itself.
        said = f"{where}.{failure.key}".lstrip(".") if failure.kind == "required" else where
        how = "is missing" if failure.kind == "required" else "is null"
        return Problem(API_NAME, at, f"{said} {how}, which Ollama reads as an empty value (Go's zero value); "
                       "the API double cannot play a request without it, so send it.")
    field = ".".join(part for part in failure.path if isinstance(part, str))
    go_type = failure.node.get("x-go") or _GO_TYPES[types_of(failure.node)[0]]
    return Problem(API_NAME, at, f"json: cannot unmarshal {_go_value(failure.value, go_type)} into Go struct "
                   f"field ChatRequest.{field} of type {go_type}")


def _go_value(value: Any, go_type: str) -> str:
    """How Go names a JSON value it cannot read: "number", or "number 1.5" for an int field."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return f"number {value:g}" if go_type == "int" and isinstance(value, float) else "number"
    return _GO_VALUES[type(value)]


def _go_path(path: Path) -> str:
    """A JSON path as the double names it in Go's words: messages[0].role."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")


def _go_quoted(value: Any) -> str:
    """A JSON value's text as Go's %q prints the raw bytes: 5 -> "5", "yes" -> "\\"yes\\"".

    subtle: Ollama quotes the bytes it was sent; the double has the parsed value, so the
    text is its compact JSON, which differs from the sent bytes only in spacing.
    """
    return json.dumps(json.dumps(value, ensure_ascii=False, separators=(",", ":")), ensure_ascii=False)
