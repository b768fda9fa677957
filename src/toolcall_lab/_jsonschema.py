"""`jsonschema`, imported on first use without the packages only its format checkers use,
and what its errors say, in the kit's words.

The kit validates with jsonschema in two places: a tool's arguments (`tool.py`, before
the function runs) and the API double's request shapes (`double/shape.py`). Neither
passes a `format_checker`, so "format" stays an annotation and the format checkers never
run. jsonschema still imports their packages when it is imported, and with the ones
JupyterLab brings (through jupyter-events) that costs seconds: `rfc3987_syntax` alone
builds its lark grammars at import, about 1.5 s of CPU on a quiet machine
(python-jsonschema/jsonschema#1428). `import_jsonschema` skips them:

    >>> jsonschema = import_jsonschema()
    >>> jsonschema.Draft202012Validator({"type": "string"}).is_valid(5)
    False

`describe(error, at="args")` words a `jsonschema.ValidationError` the kit's way, from the
rule it broke (`error.validator`) and the values, never from jsonschema's own `message`:
that text is the library's, and its next release may word it otherwise (a lesson's page
and what a model reads in an error result must not change with it):

    >>> validator = jsonschema.Draft202012Validator({"required": ["city"]})
    >>> describe(next(validator.iter_errors({"town": "Paris"})), at="args")
    'args.city is missing (it is required)'

Left out: checking "format" at all (both callers leave it out on purpose), and the words
of rules no tool schema of the kit uses (`if`/`then`, `dependentSchemas`, ...): those say
which rule was broken, by its keyword.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Sequence
from typing import Any

from ._text import shorten

__all__ = ["describe", "import_jsonschema"]

# The packages only jsonschema's *format checkers* use ("format": "iri", "duration", ...),
# each imported by jsonschema/_format.py inside `suppress(ImportError)`.
_FORMAT_ONLY_PACKAGES = frozenset({"rfc3987", "rfc3987_syntax", "rfc3986_validator", "rfc3339_validator",
                                   "isoduration", "uri_template", "webcolors", "jsonpointer", "fqdn", "idna"})
_LOCK = threading.Lock()


class _Skip:
    """Refuses the format-only packages, in one thread only: the one importing jsonschema.

    A finder on `sys.meta_path` needs only `find_spec`; `importlib.abc`'s base class would cost
    `import toolcall_lab` about 30 ms (it loads `importlib.resources`).
    """

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if threading.get_ident() == self.thread and name.partition(".")[0] in _FORMAT_ONLY_PACKAGES:
            raise ModuleNotFoundError(f"{name} is skipped while the kit imports jsonschema", name=name)
        return None  # every other import is found as usual


def import_jsonschema() -> Any:
    """jsonschema, imported (once) without the packages of its format checkers.

    jsonschema imports each of them inside `suppress(ImportError)`, so one that cannot be
    found is simply a format it leaves out. A package already loaded is used as it is
    (finders are asked only for what is not in `sys.modules`), and once jsonschema is in,
    anyone may import the skipped packages themselves.
    """
    # subtle: a lock, because the double's first request and a tool's first argument check
    # can come from two threads at once; the second must not get a half-imported module.
    with _LOCK:
        if "jsonschema" in sys.modules:
            import jsonschema  # subtle: waits for an import another thread may have under way

            return jsonschema
        # subtle: refused in this thread only, so no other thread's imports fail meanwhile.
        # In this process jsonschema's own FormatChecker then lacks those formats (iri,
        # duration, ...), which the kit never asks for.
        skip = _Skip()
        sys.meta_path.insert(0, skip)
        try:
            import jsonschema
        finally:
            sys.meta_path.remove(skip)
        return jsonschema


# -- what an error says ----------------------------------------------------------------------------
#: JSON Schema's type names as the kit says them.
_TYPES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
          "object": "an object", "array": "an array", "null": "null"}
#: The bound rules: keyword -> (what the value must be, the unit of what is measured).
_BOUNDS = {"minimum": ("at least", ""), "maximum": ("at most", ""),
           "exclusiveMinimum": ("more than", ""), "exclusiveMaximum": ("less than", ""),
           "minLength": ("at least", " characters long"), "maxLength": ("at most", " characters long"),
           "minItems": ("at least", " items long"), "maxItems": ("at most", " items long"),
           "minProperties": ("at least", " fields"), "maxProperties": ("at most", " fields")}
_SHOWN = 40  # characters of a value an error shows


def describe(error: Any, *, at: str) -> str:
    """What `error` (a `jsonschema.ValidationError`) found, as the kit says it; `at` names the
    value checked ("args" for a tool's arguments) and starts the path.

    e.g. {"city": 42} against {"properties": {"city": {"type": "string"}}}, at="args" ->
    "args.city must be a string, got 42".
    """
    where = _path(at, error.absolute_path)
    return (_fields(error, at) or _value(error, where) or _choices(error, where)
            or f"{where} breaks the schema's {error.validator!r} rule, got {_shown(error.instance)}")


def _fields(error: Any, at: str) -> str | None:
    """A field missing, or fields the schema does not allow; None for any other rule."""
    value = error.instance
    match error.validator:
        case "required":
            missing = [name for name in error.validator_value
                       if isinstance(value, dict) and name not in value]
            return f"{_path(at, [*error.absolute_path, *missing[:1]])} is missing (it is required)"
        case "additionalProperties" | "unevaluatedProperties":
            known = set(error.schema.get("properties") or {})
            extra = [name for name in value if name not in known] if isinstance(value, dict) else []
            fields = "a field" if len(extra) == 1 else "fields"
            return (f"{_path(at, error.absolute_path)} has {fields} the schema does not allow: "
                    f"{', '.join(map(repr, extra))}")
        case _:
            return None


def _value(error: Any, where: str) -> str | None:
    """A value of the wrong type, outside the allowed ones or past a bound; None for other rules."""
    rule, wanted, got = error.validator, error.validator_value, _shown(error.instance)
    match rule:
        case "type":
            return f"{where} must be {_either([_TYPES.get(k, k) for k in _listed(wanted)])}, got {got}"
        case "enum":
            return f"{where} must be {_either([_shown(v) for v in wanted])}, got {got}"
        case "const":
            return f"{where} must be {_shown(wanted)}, got {got}"
        case _ if rule in _BOUNDS:
            bound, unit = _BOUNDS[rule]
            return f"{where} must be {bound} {wanted}{unit}, got {got}"
        case "pattern":
            return f"{where} must match the pattern {wanted!r}, got {got}"
        case "multipleOf":
            return f"{where} must be a multiple of {wanted}, got {got}"
        case "uniqueItems":
            return f"{where} must not hold the same item twice"
        case _:
            return None


def _choices(error: Any, where: str) -> str | None:
    """A value that fits none (or, for oneOf, more than one) of the choices; None for other rules."""
    wanted, got = error.validator_value, _shown(error.instance)
    match error.validator:
        case "anyOf" if all(isinstance(c, dict) and set(c) - {"description"} == {"type"} for c in wanted):
            kinds = [kind for choice in wanted for kind in _listed(choice["type"])]
            return f"{where} must be {_either([_TYPES.get(k, k) for k in kinds])}, got {got}"
        case "anyOf":
            return f"{where} fits none of the schema's choices, got {got}"
        case "oneOf" if error.context:  # subtle: jsonschema keeps each choice's error when none fit
            return f"{where} fits none of the schema's choices, got {got}"
        case "oneOf":
            return f"{where} fits more than one of the schema's choices (oneOf allows one)"
        case "not":
            return f"{where} must not fit the schema under 'not', got {got}"
        case None:  # the schema `false`: nothing fits
            return f"{where} is not allowed here"
        case _:
            return None


def _path(at: str, path: Sequence[Any]) -> str:
    """e.g. _path("args", ["xs", 1]) -> "args.xs[1]"; _path("", ["a", "b"]) -> "a.b"."""
    text = at
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "the value"


def _listed(kinds: Any) -> list[str]:
    """A "type" keyword's value as a list: "string" -> ["string"]."""
    return [kinds] if isinstance(kinds, str) else list(kinds)


def _either(items: list[str]) -> str:
    """e.g. ["a string", "null"] -> "a string or null"; three -> "'a', 'b' or 'c'"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _shown(value: Any) -> str:
    """A value as JSON would spell it, cut short: 42, "Paris", null, {"a": 1}."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return shorten(text, _SHOWN)
