"""Reading a loaded JSON document one checked value at a time.

A saved transcript comes back from disk as plain dicts and lists, and anything may be in
them: a hand-edited file, another program's JSON, a file cut off halfway. `expect` and
`read_field` check one value each against the Python type that belongs there and, when it
is wrong, raise one `TranscriptFormatError` that names the value's JSON path, what belongs
there and what was found:

    messages[3].blocks[0].args must be a JSON object (the arguments), got a string: 'city=Paris'.

Used by `block_from_dict`, `Message.from_dict` and `Transcript.from_dict`, and (with
`error=TapeError`) by `Tape.from_dict`. Left out: JSON Schema (a transcript is checked by
the code that builds it, so the two cannot disagree).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._text import shorten
from .errors import ToolcallLabError, TranscriptFormatError

__all__ = ["expect", "json_name", "read_field"]

_JSON_NAMES = {dict: "a JSON object", list: "a list", str: "a string", bool: "true/false",
               int: "a number", float: "a number", type(None): "null"}
_MISSING: Any = object()


def expect(value: Any, expected: Any, path: str, what: str,
           error: type[ToolcallLabError] = TranscriptFormatError) -> Any:
    """`value` if it is an instance of `expected`, else an `error` (a `TranscriptFormatError`) at `path`.

    >>> expect(5, str, "block.text", "a string")
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.TranscriptFormatError: block.text must be a string, got a number: 5.
    """
    # subtle: bool is a subclass of int, and JSON's true is not a number: it passes only where
    # bool itself is expected (`bool`, `int | bool`), never for `int` or `int | None`.
    if isinstance(value, expected) and not (isinstance(value, bool) and bool not in _options(expected)):
        return value
    raise error(f"{path} must be {what}, got {json_name(value)}: {shorten(repr(value), 40)}.")


def _options(expected: Any) -> tuple[Any, ...]:
    """The types `expected` names: `int | None` -> (int, NoneType), `bool` -> (bool,)."""
    return getattr(expected, "__args__", None) or (expected,)


def json_name(value: Any) -> str:
    """What `value` is called in JSON: "a string", "a number", "null", ..."""
    return _JSON_NAMES.get(type(value), type(value).__name__)


def read_field(data: Mapping[str, Any], key: str, expected: Any, path: str, what: str,
               default: Any = _MISSING, error: type[ToolcallLabError] = TranscriptFormatError) -> Any:
    """`data[key]` checked against `expected`; missing keys take `default` or are an error."""
    where = f"{path}.{key}" if path else key
    if key not in data:
        if default is not _MISSING:
            return default
        raise error(f"{where} is missing; expected {what}.")
    return expect(data[key], expected, where, what, error)
