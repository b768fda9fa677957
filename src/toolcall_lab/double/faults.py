"""How the double fails on purpose, and how it refuses a request, in each API's words.

`FAULTS` lists what `ApiDouble.fail_next` (or the header `X-Double-Fault`) can inject;
`error(shape, kind)` is the (status, body) of a failure `kind` in the error shape and
words of the API `shape`, which its server half (`wire/<api>/server.py`, `fault`) writes,
quoting the API's error page or a recorded response where one gives the text. What is
the same for every API lives here: the statuses, which faults are transient (the SDKs
retry those), the retry headers, and `FINAL` on every error a retry cannot fix. The last
four faults bend a stream once it has begun ("cut", "stream_error", "stream_failed",
"slow_stream"), each
in its API's way (`double/streams.py`).

    >>> [kind for kind in FAULTS if kind in TRANSIENT]
    ['rate_limit', 'overloaded', 'server_error']

Left out: the long tail of statuses (402, 408, 409, 422, ...), which no lesson needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["FAULTS", "FINAL", "TRANSIENT", "Fault", "error", "retry_headers", "should_retry"]

FAULTS = ("rate_limit", "overloaded", "server_error", "unauthorized", "not_found", "slow", "malformed", "cut",
          "stream_error", "stream_failed", "slow_stream")
#: The faults that stand for a server in trouble, so the SDKs retry them as they would the real ones.
TRANSIENT = ("rate_limit", "overloaded", "server_error")


@dataclass(frozen=True)
class Fault:
    """One injected failure: its `kind` (one of `FAULTS`), `retry_after`, `delay` (seconds before
    a "slow" answer, or between the events of a "slow_stream") and `after` (the events a "cut"
    or "stream_error" stream sends first; `double/streams.py`)."""

    kind: str
    retry_after: float | None = None
    delay: float | None = None
    after: int | None = None


_STATUS = {"rate_limit": 429, "overloaded": 503, "server_error": 500, "unauthorized": 401,
           "not_found": 404, "no_route": 404, "bad_json": 400, "bad_header": 400,
           "method": 405, "too_large": 413, "no_length": 411}


def error(shape: str, kind: str, *, param: str | None = None, **fill: object) -> tuple[int, dict[str, Any]]:
    """(status, error body) for a failure `kind`, in the words and shape of `shape`'s API.

    The status is the kind's (a 429 for "rate_limit", a 404 for "not_found", ...) unless the
    API has its own (Anthropic's 529 "Overloaded"); the body is the API's server half's
    (`wire/<api>/server.py`, `fault`).
    """
    from ..wire import API_SPECS

    return API_SPECS[shape].server.fault(kind, _STATUS[kind], param=param, **fill)


#: On every error a retry cannot fix: both SDKs obey it before they look at the status
#: (anthropic and openai, `_base_client.py`, `_should_retry`: "If the server explicitly says
#: whether or not to retry, obey."), and Anthropic sends it on a 400 (a recorded response in
#: writingmate/chatlabs#35). So a body the double refuses, a script that fails or has
#: stopped, or a request it cannot play is sent once, not three times.
FINAL = {"x-should-retry": "false"}


def should_retry(fault: Fault) -> dict[str, str]:
    """The retry header of an injected fault: none for a transient one, which the SDKs retry as
    they would the real API's, and `FINAL` for the others (a refused key, an unknown model).

    >>> should_retry(Fault("rate_limit")), should_retry(Fault("unauthorized"))
    ({}, {'x-should-retry': 'false'})
    """
    return {} if fault.kind in TRANSIENT else FINAL


def retry_headers(fault: Fault) -> dict[str, str]:
    """The `retry-after` headers a fault sends: whole seconds, plus `-ms` when not whole.

    >>> retry_headers(Fault("rate_limit", retry_after=0.25))
    {'retry-after': '1', 'retry-after-ms': '250'}
    """
    if fault.kind != "rate_limit" and fault.retry_after is None:
        return {}
    wait = 1.0 if fault.retry_after is None else fault.retry_after
    headers = {"retry-after": str(max(1, round(wait)))}
    if wait != int(wait):  # subtle: retry-after holds whole seconds; the SDKs read -ms first
        headers["retry-after-ms"] = str(round(wait * 1000))
    return headers
