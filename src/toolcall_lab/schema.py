"""From a Python function to the JSON Schema a model sees: what `@tool` builds its input from.

A model is shown a tool's arguments as a JSON Schema object. Python already says most of
it: the type hints say each parameter's type, the defaults say which are optional, and a
Google-style docstring says what each one means. `function_schema` reads all three:

    def get_weather(city: str, unit: Literal["C", "F"] = "C") -> str:
        '''...
        Args:
            city: the city name
        '''

    -> {"type": "object",
        "properties": {"city": {"type": "string", "description": "the city name"},
                       "unit": {"enum": ["C", "F"], "default": "C"}},
        "required": ["city"], "additionalProperties": False}

Covered: str, int, float, bool, list[...] (and tuple, set, Sequence), dict[str, ...],
Literal[...], Enum classes, X | None and unions, and Annotated[X, "a description"]. A
hint it cannot turn into JSON Schema is a `ToolDefinitionError` that lists what works.

`strict=True` builds what OpenAI's strict mode accepts (its function-calling guide: every
object `"additionalProperties": false`, every property listed in `required`): a parameter
with a default becomes required and nullable (`"anyOf": [..., {"type": "null"}]`), its
`default` keyword is dropped (strict mode has refused it: "'default' is not permitted",
567-labs/instructor#1074) and said in its description instead, and a `dict` parameter,
whose keys are open, is refused.

Left out: dataclasses and pydantic models as parameters, `$ref`s and recursive types,
and docstring styles other than Google's (their parameter notes are simply not read).
Building the `Tool` itself, and giving Enum parameters their members at call time, is
`tool.py`'s job.
"""

from __future__ import annotations

import enum
import json
import re
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

from .errors import ToolDefinitionError

__all__ = ["function_schema", "nullable_defaults", "parse_docstring", "schema_for"]

_SIMPLE_TYPES: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    dict: {"type": "object"},
    list: {"type": "array"},
}


def schema_for(hint: Any, where: str) -> dict[str, Any]:
    """The JSON Schema for one type hint; `where` names it in the error if there is none.

    >>> schema_for(list[int], "x")
    {'type': 'array', 'items': {'type': 'integer'}}
    >>> schema_for(str | None, "x")
    {'anyOf': [{'type': 'string'}, {'type': 'null'}]}
    """
    if hint in _SIMPLE_TYPES:
        return dict(_SIMPLE_TYPES[hint])
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        schema = schema_for(args[0], where)
        notes = [a for a in args[1:] if isinstance(a, str)]
        return {**schema, "description": " ".join(notes)} if notes else schema
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (list, tuple, set, frozenset, Sequence):  # typing.Sequence's origin is this too
        items = [a for a in args if a is not Ellipsis]
        return {"type": "array", "items": schema_for(items[0], where)} if items else {"type": "array"}
    if origin is dict:
        if not args:
            return {"type": "object"}
        return {"type": "object", "additionalProperties": schema_for(args[1], where)}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        schemas = [schema_for(a, where) for a in options]
        if len(options) < len(args):
            schemas.append({"type": "null"})
        return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"enum": [member.value for member in hint]}
    raise ToolDefinitionError(
        f"{where}: cannot turn the type hint {hint!r} into JSON Schema; use str, int, float, "
        "bool, list[...], dict[str, ...], Literal[...], an Enum, or X | None, or pass "
        "input_schema= to Tool yourself."
    )


_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Returns?|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^(\s*)(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {parameter: description}).

    The description is everything before the first section (Args:, Returns:, ...).

    >>> parse_docstring('''Add two numbers.
    ...
    ...     Args:
    ...         a: the first
    ...         b (int): the second,
    ...             a whole number
    ...     ''')
    ('Add two numbers.', {'a': 'the first', 'b': 'the second, a whole number'})
    """
    import inspect

    summary: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in inspect.cleandoc(doc).splitlines():
        header = _SECTION.match(line)
        if header:
            section, current = header.group(1), None
        elif section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters"):
            match = _ARG_LINE.match(line)
            if match and len(match.group(1)) <= 4:
                current = match.group(2)
                params[current] = match.group(3).strip()
            elif current and line.strip():
                params[current] += " " + line.strip()
    return "\n".join(summary).strip(), params


_NO_JSON = object()


def _json_default(value: Any) -> Any:
    """A parameter default as JSON, or `_NO_JSON` when it has none (then it is not shown)."""
    value = value.value if isinstance(value, enum.Enum) else value
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return _NO_JSON
    return value


def function_schema(function: Callable[..., Any], *, where: str, strict: bool = False) -> dict[str, Any]:
    """The input schema of `function`'s parameters: types from its hints, notes from its docstring.

    Every parameter must be an ordinary named one with a type hint (the arguments arrive
    as one JSON object); `where` names the function in the `ToolDefinitionError` if not.
    `strict=True` makes every parameter required, and a defaulted one nullable (see the
    module docstring): for `forecast(city: str, days: int = 3)`, `days` becomes
    `{"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "null means the default, 3"}`.

    >>> def add(a: int, b: int = 0) -> int:
    ...     '''Add two whole numbers.
    ...
    ...     Args:
    ...         b: the second number
    ...     '''
    >>> function_schema(add, where="@tool add")  # doctest: +NORMALIZE_WHITESPACE
    {'type': 'object', 'properties': {'a': {'type': 'integer'},
     'b': {'type': 'integer', 'description': 'the second number', 'default': 0}},
     'required': ['a'], 'additionalProperties': False}
    """
    import inspect

    param_docs = parse_docstring(function.__doc__ or "")[1]
    hints = typing.get_type_hints(function, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(function).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise ToolDefinitionError(f"{where}: parameter {param.name!r} must be an ordinary "
                                      "named parameter (arguments arrive as one JSON object).")
        if param.name not in hints:
            raise ToolDefinitionError(f"{where}: parameter {param.name!r} needs a type hint, "
                                      "which becomes its JSON Schema (e.g. city: str).")
        schema = schema_for(hints[param.name], f"{where}, parameter {param.name!r}")
        if param.name in param_docs and "description" not in schema:
            schema["description"] = param_docs[param.name]
        if strict:
            schema = _strict(schema, param.default, f"{where}: parameter {param.name!r}")
        if param.default is param.empty or strict:
            required.append(param.name)
        elif (default := _json_default(param.default)) is not _NO_JSON:
            schema.setdefault("default", default)
        properties[param.name] = schema
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


def _strict(schema: dict[str, Any], default: Any, where: str) -> dict[str, Any]:
    """One parameter's schema as strict mode wants it: closed, and nullable if it has a default.

    e.g. {"type": "integer"} with default 3 -> {"anyOf": [{"type": "integer"}, {"type": "null"}],
    "description": "null means the default, 3"}.
    """
    import inspect

    if _has_open_object(schema):
        raise ToolDefinitionError(
            f"{where} is a dict whose keys are open, and strict mode needs every object closed "
            '("additionalProperties": false); use strict=False, or pass input_schema= to Tool yourself.')
    if default is inspect.Parameter.empty:
        return schema
    note = schema.pop("description", "")
    if not _admits_null(schema):
        schema = {"anyOf": [schema, {"type": "null"}]}
    said = _json_default(default)
    if said is not None and said is not _NO_JSON:
        default_note = f"null means the default, {json.dumps(said, ensure_ascii=False)}"
        note = f"{note}; {default_note}" if note else default_note
    return {**schema, "description": note} if note else schema


def _admits_null(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf", [])
    return schema.get("type") == "null" or any(option.get("type") == "null" for option in options)


def _has_open_object(schema: Any) -> bool:
    """Whether `schema` has an object anywhere whose keys are not closed."""
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "object" and schema.get("additionalProperties") is not False:
        return True
    return any(_has_open_object(part) for part in [schema.get("items"), *schema.get("anyOf", [])])


def nullable_defaults(function: Callable[..., Any]) -> frozenset[str]:
    """The parameters with a default whose hint does not take None; a strict tool reads a null
    the model sends for one of them as "use the default".

    >>> def forecast(city: str, days: int = 3, region: str | None = None) -> str: ...
    >>> sorted(nullable_defaults(forecast))
    ['days']
    """
    import inspect

    hints = typing.get_type_hints(function, include_extras=True)
    return frozenset(name for name, param in inspect.signature(function).parameters.items()
                     if param.default is not param.empty and name in hints
                     and not _admits_null(schema_for(hints[name], name)))
