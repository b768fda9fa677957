"""Two JSON encoders built once, for the kit's hot paths.

`json.dumps(value)` with every option at its default reuses one encoder; with any option
(`ensure_ascii=False`, `separators=...`) it builds a new `JSONEncoder` on every call, about
a third of the time of encoding a small value. The double encodes several values per
request, so the two shapes it uses are built here once; each returns what the matching
`json.dumps` call returns:

    >>> compact({"city": "Zürich", "days": [1, 2]})  # ensure_ascii=False, separators=(",", ":")
    '{"city":"Zürich","days":[1,2]}'
    >>> unicode_text({"city": "Zürich"})             # ensure_ascii=False
    '{"city": "Zürich"}'

An encoder keeps no state between calls, so both are safe on the double's many threads.

subtle: even a built encoder's `encode` runs a page of Python on every call (a fresh C
encoder, a float formatter, a dict to find circular references in) before its C code starts,
most of the cost of encoding one small stream event; so each is built once down to the C
encoder itself (where CPython has one), and a value that refers to itself raises
`RecursionError` instead of `ValueError` (no JSON body can; a script's own dict could).
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

__all__ = ["compact", "unicode_text"]


def _built(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """`encoder.encode` (ensure_ascii=False, no indent), its C encoder made once."""
    make: Any = getattr(json.encoder, "c_make_encoder", None)  # subtle: typeshed does not list it
    if make is None:  # pragma: no cover - a Python built without the C accelerator
        return encoder.encode
    encode = make(None, encoder.default, encode_basestring, None, encoder.key_separator,
                  encoder.item_separator, False, False, True)

    def encoded(value: Any) -> str:
        if isinstance(value, str):
            return encode_basestring(value)  # as `JSONEncoder.encode` does a bare string
        return "".join(encode(value, 0))

    return encoded


compact = _built(json.JSONEncoder(ensure_ascii=False, separators=(",", ":")))
unicode_text = _built(json.JSONEncoder(ensure_ascii=False))
