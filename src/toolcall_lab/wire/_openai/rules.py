"""What both OpenAI APIs refuse alike, in OpenAI's words: efforts, function parameters, strict schemas.

Each API's `rules.py` (`wire/chat/rules.py`, `wire/responses/rules.py`) calls these with its
own name and its own spelling of the parameter (Chat's `reasoning_effort`, Responses'
`reasoning.effort`):

- a reasoning effort on a model that does not reason (gpt-4o): `unsupported_reasoning`
  (`models.rules_of` knows which do); an effort that is no effort at all ("extreme"):
  `invalid_effort`, against the spec's `OPENAI_EFFORTS`;
- function parameters that are not of type "object" (`parameters_problems`);
- a `strict` function whose schema leaves an object open, or leaves a property out of
  `required` (`strict_schema_problems`).

Left out: the rules only one API has (each API's own `rules.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...models import rules_of
from ..problem import Problem

__all__ = ["OPENAI_EFFORTS", "invalid_effort", "parameters_problems", "strict_schema_problems",
           "unsupported_reasoning"]

#: The reasoning efforts OpenAI's spec lists (`ReasoningEffort` in its OpenAPI spec,
#: github.com/openai/openai-openapi); not every model takes every one.
OPENAI_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


def unsupported_reasoning(api: str, model: str, param: str) -> list[Problem]:
    """OpenAI's 400 for a reasoning effort (`param`) sent to a model that does not reason.

    The Responses text is recorded (RageAgainstThePixel/OpenAI-DotNet#500, gpt-4o, with
    param "reasoning.effort" and code "unsupported_parameter"); the Chat one is the same
    sentence with Chat's parameter name, paraphrased. Models not in `models.RULES` pass.

    >>> [p.text for p in unsupported_reasoning("responses", "gpt-4o-2024-08-06", "reasoning.effort")]
    ["Unsupported parameter: 'reasoning.effort' is not supported with this model."]
    >>> unsupported_reasoning("responses", "gpt-6-luna", "reasoning.effort")
    []
    """
    if rules_of(model).reasons is not False:
        return []
    return [Problem(api, param, f"Unsupported parameter: '{param}' is not supported with this model.",
                    param=param, code="unsupported_parameter")]


def invalid_effort(api: str, effort: object, param: str) -> list[Problem]:
    """OpenAI's 400 for a reasoning effort that is not one of the spec's values.

    The wording ("Invalid value: ... Supported values are: ...", code "invalid_value") is
    OpenAI's enum-validation error as quoted in public tests for `reasoning.effort`
    (e.g. "Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low',
    'medium', 'high', 'xhigh', and 'max'."); the list is the spec's `ReasoningEffort`.

    >>> [p.text for p in invalid_effort("chat", "extreme", "reasoning_effort")]
    ["Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', \
'high', 'xhigh', and 'max'."]
    >>> invalid_effort("chat", "high", "reasoning_effort")
    []
    """
    if effort is None or effort in OPENAI_EFFORTS:
        return []
    listed = ", ".join(f"'{e}'" for e in OPENAI_EFFORTS[:-1]) + f", and '{OPENAI_EFFORTS[-1]}'"
    return [Problem(api, param, f"Invalid value: {effort!r}. Supported values are: {listed}.",
                    param=param, code="invalid_value")]


def parameters_problems(api: str, name: object, schema: object, *, path: str, param: str) -> list[Problem]:
    """OpenAI's 400 for function parameters that are not a JSON Schema of type "object".

    The text is recorded in live traffic for a schema of another type and for one with no
    type at all ("... got 'type: \"None\"'.", both OpenAI's APIs; e.g.
    alibaba/spring-ai-alibaba#4576 and smithers-orchestrator's postinstall notes); the
    code is the one OpenAI gives its other schema errors. Parameters left out, null or
    `{}` are a function without parameters, which the API takes.

    >>> print(parameters_problems("chat", "f", {"type": "string"}, path="tools.0",
    ...                           param="tools[0].function.parameters")[0].text)
    Invalid schema for function 'f': schema must be a JSON Schema of 'type: "object"', got 'type: "string"'.
    >>> parameters_problems("chat", "f", {}, path="tools.0", param="tools[0].function.parameters")
    []
    """
    if not isinstance(schema, Mapping) or not schema or schema.get("type") == "object":
        return []  # a non-object is the shape check's (`double/shape.py`), in OpenAI's words
    said = f'type: "{schema.get("type")}"'
    return [Problem(api, path, f"Invalid schema for function '{name}': schema must be a JSON Schema of "
                    f"'type: \"object\"', got '{said}'.", param=param, code="invalid_function_parameters")]


def strict_schema_problems(api: str, name: object, schema: object, *, path: str,
                           param: str, subject: str = "function",
                           code: str | None = "invalid_function_parameters") -> list[Problem]:
    """The 400 for a `strict` function whose schema strict mode cannot hold the model to.

    `subject` is what the schema belongs to: "function" for a tool, "response_format" for
    structured output, whose texts OpenAI words the same way ("Invalid schema for
    response_format 'name': In context=(), ..."; its code is not on record, so pass None).

    Strict mode needs `"additionalProperties": false` on every object and every property
    of an object listed in its `required`. Both texts are recorded in live traffic, with
    code "invalid_function_parameters": "Invalid schema for function '...': In context=(),
    'additionalProperties' is required to be supplied and to be false." (openai/openai-dotnet,
    tests/SessionRecords) and "... In context=(), 'required' is required to be supplied and
    to be an array including every key in properties. Missing 'params'." (a Responses
    request, param "tools[1].parameters": kevinwatt/mysql-mcp#5). `context` names the
    nested object the way the API does, as a Python tuple (`('properties', 'location')`).
    Only the first problem is reported, as the API does; within one object the kit looks
    at `additionalProperties` before `required` (which the API reports first when both are
    wrong is not on record). The param is the tool's parameters, as recorded.

    >>> [p.text for p in strict_schema_problems("chat", "f", {"type": "object"}, path="tools.0",
    ...                                           param="tools[0].function.parameters")]
    ["Invalid schema for function 'f': In context=(), 'additionalProperties' is required to be \
supplied and to be false."]
    >>> closed = {"type": "object", "properties": {"city": {}, "days": {}}, "required": ["city"],
    ...           "additionalProperties": False}
    >>> strict_schema_problems("responses", "f", closed, path="tools.0",
    ...                        param="tools[0].parameters")[0].text.partition("properties. ")[2]
    "Missing 'days'."
    """
    found = _strict_problem(schema if isinstance(schema, Mapping) else {"type": "object"}, ())
    if found is None:
        return []
    context, clause = found
    return [Problem(api, path, f"Invalid schema for {subject} '{name}': In context={context!r}, {clause}",
                    param=param, code=code)]


def _strict_problem(schema: Mapping[str, Any],
                    context: tuple[str, ...]) -> tuple[tuple[str, ...], str] | None:
    """(where, what) of the first object strict mode refuses, or None."""
    types = schema.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types)
    if is_object and schema.get("additionalProperties") is not False:
        return context, "'additionalProperties' is required to be supplied and to be false."
    properties = schema.get("properties") or {}
    required = schema.get("required")
    missing = [key for key in properties if not isinstance(required, list) or key not in required]
    if is_object and missing:
        return context, ("'required' is required to be supplied and to be an array including every key "
                         f"in properties. Missing '{missing[0]}'.")
    for key, value in properties.items():
        if isinstance(value, Mapping) and (found := _strict_problem(value, (*context, "properties", key))):
            return found
    items = schema.get("items")
    if isinstance(items, Mapping) and (found := _strict_problem(items, (*context, "items"))):
        return found
    for index, option in enumerate(schema.get("anyOf") or []):
        where = (*context, "anyOf", str(index))
        if isinstance(option, Mapping) and (found := _strict_problem(option, where)):
            return found
    return None
