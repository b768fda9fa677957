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
"""

from __future__ import annotations

import json

__all__ = ["compact", "unicode_text"]

compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
unicode_text = json.JSONEncoder(ensure_ascii=False).encode
