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

Nearly every body fits, and jsonschema walks one slowly (a validator object made for every
node it descends into: a third of the double's time per request). So each shape is also
compiled once into plain checks (`fits`) that answer only "surely fits" or "not sure";
jsonschema runs, as before, on a body that is not sure to fit, and finds its first failure.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from .._jsonschema import import_jsonschema
from ..wire import API_SPECS
from ..wire._schema import Failure
from ..wire.problem import Problem

__all__ = ["first_problem", "fits", "refusal"]


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
    if fits(api, body):
        return None  # subtle: surely no failure, whether `hosted` or not
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


# -- the shape compiled into plain checks, once per API -----------------------------------------
Check = Callable[[Any], bool]
#: JSON Schema's types as Python's (2020-12: an integer may be written 1.0; a bool is no number)
_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str), "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer())}
#: The types that are each one Python type (`_type` checks them with one isinstance)
_PYTHON_TYPE: dict[str, type] = {"object": dict, "array": list, "string": str,
                              "null": type(None), "boolean": bool}
#: keywords that check nothing (annotations, and the words `wire._schema` adds for the errors)
_SAYS_NOTHING = frozenset({"description", "title", "default", "examples", "x-go", "x-error", "x-status",
                           "x-missing", "x-hosted"})


def fits(api: str, body: Any) -> bool:
    """Whether `body` surely has `api`'s shape: True only where jsonschema would find no failure;
    False where it would, or where the compiled checks cannot tell (jsonschema then decides).

    >>> fits("chat", {"model": "m", "messages": [{"role": "user", "content": "Hi"}]})
    True
    >>> fits("chat", {"model": "m", "messages": 5})
    False
    """
    return _compiled(api)(body)


@functools.cache
def _compiled(api: str) -> Check:
    return _compile(API_SPECS[api].server.SHAPE)


def _compile(schema: Any) -> Check:
    """The checks of one schema node, each node compiled once: every keyword the node has must
    hold; a keyword not known here makes the node "not sure" (False).

    subtle: every body a request sends is walked here, so each node is one plain function, with
    loops instead of generators: `all(check(v) for ...)` made a generator per node visited."""
    if schema is True or schema == {}:
        return _always
    if not isinstance(schema, dict) or any(k not in _KEYWORDS and k not in _SAYS_NOTHING for k in schema):
        return _never
    checked = schema.keys() - _SAYS_NOTHING
    if schema.get("type") == "object" and checked <= {"type", "properties", "required"}:
        return _object(schema.get("properties", {}), schema.get("required", ()))
    made = (_KEYWORDS[k](schema[k], schema) for k in schema if k in _KEYWORDS)
    checks = tuple(check for check in made if check is not None)  # `then` is its `if`'s
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]

    def every(value: Any) -> bool:
        for check in checks:
            if not check(value):
                return False
        return True

    return every


def _object(properties: dict[str, Any], required: Any) -> Check:
    """An object's three keywords in one check, the most common node of every shape: `type`
    object, its `required` names, its `properties` each as compiled."""
    compiled = {name: _compile(node) for name, node in properties.items()}
    find, names = compiled.get, tuple(required)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for name in names:
            if name not in value:
                return False
        for name, item in value.items():
            test = find(name)
            if test is not None and not test(item):
                return False
        return True

    return check


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _type(kinds: Any, schema: dict[str, Any]) -> Check:
    names = kinds if isinstance(kinds, list) else [kinds]
    if "number" in names or "integer" in names:
        tests = [_TYPES[kind] for kind in names]
        return lambda value: any(test(value) for test in tests)
    # subtle: object, array, string, null and boolean are each one Python type, and a bool is
    # only a boolean (it is no number here), so one isinstance answers for all of them
    exact = tuple(_PYTHON_TYPE[kind] for kind in names)
    return lambda value: isinstance(value, exact)


def _properties(properties: dict[str, Any], schema: dict[str, Any]) -> Check:
    compiled = {name: _compile(node) for name, node in properties.items()}
    find = compiled.get

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name, item in value.items():
            test = find(name)
            if test is not None and not test(item):
                return False
        return True

    return check


def _required(names: list[str], schema: dict[str, Any]) -> Check | None:
    if not names:
        return None  # subtle: nothing is required, so there is nothing to check
    return lambda value: not isinstance(value, dict) or all(name in value for name in names)


def _items(items: Any, schema: dict[str, Any]) -> Check:
    each = _compile(items)

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        for item in value:
            if not each(item):
                return False
        return True

    return check


def _enum(members: list[Any], schema: dict[str, Any]) -> Check:
    # subtle: only strings and null are sure; jsonschema's equality (1 is not True) decides the rest
    strings = frozenset(m for m in members if isinstance(m, str))
    return lambda value: (isinstance(value, str) and value in strings) or (value is None and None in members)


def _pattern(pattern: str, schema: dict[str, Any]) -> Check:
    search = re.compile(pattern).search
    return lambda value: not isinstance(value, str) or search(value) is not None


def _if(condition: Any, schema: dict[str, Any]) -> Check:
    then = _compile(schema.get("then", True))
    if isinstance(condition, dict) and set(condition) <= {"type"}:  # a type is exact both ways
        test = _compile(condition)
        return lambda value: then(value) if test(value) else True
    # subtle: "not sure" the condition holds is not "sure it fails", so its `then` must hold
    # either way: a body that breaks `then` where the condition fails goes to jsonschema
    return then


def _tagged_checks(spec: dict[str, Any], schema: dict[str, Any]) -> Check:
    """`_tagged`'s rule, compiled: the tag names a branch that holds, or one of the others."""
    key, branches = spec["key"], {tag: _compile(node) for tag, node in spec["branches"].items()}
    others = spec["others"]

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True  # "type" says so
        if key not in value and "default" not in spec:
            return False
        tag = value.get(key, spec.get("default"))
        tag = spec.get("null", tag) if tag is None else tag
        if isinstance(tag, str) and tag in branches:
            return branches[tag](value)
        return isinstance(tag, str) and (others is True or tag in others)

    return check


_KEYWORDS: dict[str, Callable[[Any, dict[str, Any]], Check | None]] = {
    "type": _type, "properties": _properties, "required": _required, "items": _items, "enum": _enum,
    "pattern": _pattern, "if": _if, "then": lambda then, schema: None, "x-tagged": _tagged_checks}
