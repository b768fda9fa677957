"""A reply body's fields checked against the types its API sends, before a decoder reads them.

Each API's `decode_response` reads its body the way the API documents it: `choices` is a list, a
call's `function` an object, a count a whole number. A server that is not the API (a proxy, a
local server with ideas of its own) may send anything there, and reading it raised Python's own
words ("'int' object has no attribute 'get'"). So each client half lists the fields its decoder
reads (`REPLY_FIELDS`, parents before children), and `check_reply` walks them first: a field of
the wrong type is the kit's `MalformedResponseError`, naming the field and what came.

    >>> fields = (Field("choices", LIST), Field("choices[]", OBJECT), Field("choices[].message", OBJECT))
    >>> try:
    ...     check_reply({"choices": [{"message": 42}]}, fields, api="chat", provider="openai-chat")
    ... except MalformedResponseError as error:
    ...     print(error)
    the chat reply is not the API's: choices[0].message is a number (42), not an object; check the
    server's URL, or report the server.

A field that is absent or null passes (the decoders default it) unless it is `required`; an item
of a list that is null does not. The
stream half checks its events' fields the same way, as it reads them (`wire/_stream.py`).
Left out: the values' ranges, and the fields no decoder reads (a newer field never breaks it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from ..errors import MalformedResponseError
from ._stream import _described

__all__ = ["COUNT", "LIST", "OBJECT", "STRING", "TEXT", "Field", "Kind", "check_reply"]


class Kind(NamedTuple):
    """A JSON type a field holds, in the words an error says it with."""

    words: str
    holds: Callable[[Any], bool]


OBJECT = Kind("an object", lambda value: isinstance(value, Mapping))
LIST = Kind("a list", lambda value: isinstance(value, list))
STRING = Kind("a string", lambda value: isinstance(value, str))
# subtle: JSON's true is not a count, though Python's bool is an int
COUNT = Kind("a whole number", lambda value: type(value) is int)
#: a message's content: a string, or a list of parts
TEXT = Kind("a string or a list of parts", lambda value: isinstance(value, str | list))


class Field(NamedTuple):
    """One field a decoder reads: its path ("choices[].message.content": `[]` is each item of a
    list), the kind it must hold, and whether the API always sends it."""

    path: str
    kind: Kind
    required: bool = False


def check_reply(body: object, fields: Sequence[Field], *, api: str, provider: str) -> None:
    """Raise `MalformedResponseError` for the first of `fields` that `body` holds wrongly typed
    (or lacks, where it is required); return None when every one fits."""
    if not isinstance(body, Mapping):
        raise _malformed(api, provider, f"the body is {_described(body)}, not an object")
    for field in fields:
        for where, value in _values(body, field.path):
            # subtle: an item of a list is never absent, so a null one is the wrong type
            if value is None and not where.endswith("]"):
                if field.required:
                    raise _malformed(api, provider, f"{where} is missing, where the API always "
                                                    f"sends {field.kind.words}")
            elif not field.kind.holds(value):
                raise _malformed(api, provider, f"{where} is {_described(value)}, not {field.kind.words}")


def _values(body: Mapping[str, Any], path: str) -> Iterator[tuple[str, Any]]:
    """(concrete path, value) of every place `path` names in `body`, e.g. "choices[].message" ->
    ("choices[0].message", {...}), ...; a place under a holder of the wrong kind is skipped (the
    holder's own field says so first)."""
    places: list[tuple[str, Any]] = [("", body)]
    for step in path.split("."):
        key, each = (step[:-2], True) if step.endswith("[]") else (step, False)
        found: list[tuple[str, Any]] = []
        for where, holder in places:
            if not isinstance(holder, Mapping):
                continue
            here = f"{where}.{key}" if where else key
            value = holder.get(key)
            if not each:
                found.append((here, value))
            elif isinstance(value, list):
                found.extend((f"{here}[{index}]", item) for index, item in enumerate(value))
        places = found
    return iter(places)


def _malformed(api: str, provider: str, what: str) -> MalformedResponseError:
    return MalformedResponseError(f"the {api} reply is not the API's: {what}; check the server's URL, "
                                  "or report the server.", provider=provider)
