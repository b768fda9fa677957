"""How the double fails on purpose, and how it refuses a request, in each API's words.

`FAULTS` lists what `ApiDouble.fail_next` (or the header `X-Double-Fault`) can inject;
`error(shape, kind)` is the (status, body) of a failure `kind` in the error shape and
words of the API `shape`. Where the API's error page or a recorded response gives the text
it is quoted (Anthropic: platform.claude.com/docs/en/api/errors; OpenAI: the recorded
errors in tests/fixtures/; Ollama: github.com/ollama/ollama/blob/main/docs/api.md); the rest
is what these servers are commonly seen to answer.

    >>> error("ollama", "not_found", model="qwen9")
    (404, {'error': "model 'qwen9' not found"})

Left out: the long tail of statuses (402, 408, 409, 422, ...), which no lesson needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["FAULTS", "FINAL", "TRANSIENT", "Fault", "error", "retry_headers", "should_retry"]

FAULTS = ("rate_limit", "overloaded", "server_error", "unauthorized", "not_found", "slow", "malformed")
#: The faults that stand for a server in trouble, so the SDKs retry them as they would the real ones.
TRANSIENT = ("rate_limit", "overloaded", "server_error")


@dataclass(frozen=True)
class Fault:
    """One injected failure: its `kind` (one of `FAULTS`), `retry_after` and, for "slow", `delay` seconds."""

    kind: str
    retry_after: float | None = None
    delay: float | None = None


_STATUS = {"rate_limit": 429, "overloaded": 503, "server_error": 500, "unauthorized": 401,
           "not_found": 404, "no_route": 404, "bad_json": 400, "stream": 400, "bad_header": 400,
           "method": 405, "too_large": 413, "no_length": 411}
_ANTHROPIC_429 = (  # tests/fixtures/anthropic_error_rate_limit_429.body.json, word for word
    "This request would exceed your organization's rate limit of 20,000,000 prompt bytes per hour "
    "(org: 5576611f-a1ee-427c-9800-298d9579899c, model: claude-sonnet-4-5-20250929). For details, "
    "refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for "
    "current usage. Please reduce the prompt length or the maximum tokens requested, or try again "
    "later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your "
    "options for a rate limit increase.")
_NO_STREAM = "The API double does not stream; send the request without `stream: true`."
_TOO_LARGE = "The request body is {size} bytes; the API double accepts at most {limit} bytes."
_WORDS = {
    "anthropic": {"rate_limit": _ANTHROPIC_429, "overloaded": "Overloaded", "not_found": "model: {model}",
                  "server_error": "Internal server error", "unauthorized": "invalid x-api-key",
                  "no_route": "Not Found", "bad_json": "The request body is not valid JSON: {detail}",
                  "stream": _NO_STREAM, "bad_header": "{detail}", "method": "Method Not Allowed",
                  "too_large": "Request exceeds the maximum allowed number of bytes. " + _TOO_LARGE,
                  "no_length": "A request body needs a Content-Length header."},
    "openai": {  # Responses and Chat Completions fail alike
        "rate_limit": "Rate limit reached for {model} in organization org-double on requests per min "
                      "(RPM): Limit 3, Used 3, Requested 1.",
        "overloaded": "The engine is currently overloaded, please try again later.",
        "server_error": "The server had an error while processing your request. Sorry about that!",
        "unauthorized": "Incorrect API key provided. You can find your API key at "
                        "https://platform.openai.com/account/api-keys.",
        "not_found": "The model `{model}` does not exist or you do not have access to it.",
        "no_route": "Invalid URL ({method} {path})", "method": "Invalid method for URL ({method} {path})",
        "bad_json": "We could not parse the JSON body of your request.", "stream": _NO_STREAM,
        "bad_header": "{detail}", "too_large": _TOO_LARGE,
        "no_length": "A request body needs a Content-Length header."},
    "ollama": {
        "rate_limit": "too many requests", "unauthorized": "unauthorized",
        "overloaded": "server busy, please try again.  maximum pending requests exceeded",
        "server_error": "llama runner process has terminated: exit status 2",
        "not_found": "model '{model}' not found", "no_route": "404 page not found", "bad_json": "{detail}",
        # subtle: Ollama streams unless told not to, so a request *without* "stream" is refused too.
        "stream": 'The API double does not stream, and Ollama streams unless the request says '
                  '"stream": false; add it.',
        "bad_header": "{detail}", "method": "405 method not allowed", "too_large": _TOO_LARGE,
        "no_length": "a request body needs a Content-Length header"},
}
#: OpenAI's error (type, code) where the codecs' defaults ("invalid_request_error" for a
#: 4xx, "server_error" for a 5xx, no code) are not what OpenAI says.
_OPENAI_KINDS = {"rate_limit": ("requests", "rate_limit_exceeded"), "unauthorized": (None, "invalid_api_key"),
                 "overloaded": ("service_unavailable_error", "server_is_overloaded"),
                 "not_found": (None, "model_not_found"), "stream": (None, "unsupported_value")}
#: Anthropic's error type where the codec's default for the status is not it.
_ANTHROPIC_KINDS = {"too_large": "request_too_large", "method": "invalid_request_error",
                    "no_length": "invalid_request_error"}


def error(shape: str, kind: str, *, param: str | None = None, **fill: object) -> tuple[int, dict[str, Any]]:
    """(status, error body) for a failure `kind`, in the words and shape of `shape`'s API."""
    from ..wire import API_SPECS

    family = "openai" if shape in ("responses", "chat") else shape
    status = 529 if (family, kind) == ("anthropic", "overloaded") else _STATUS[kind]
    error_type, code = _OPENAI_KINDS.get(kind, (None, None)) if family == "openai" else (None, None)
    if family == "anthropic":
        error_type = _ANTHROPIC_KINDS.get(kind)
    wire = API_SPECS[shape].codec
    return status, wire.error_body(_WORDS[family][kind].format(**fill), status=status,
                                   param=param if family == "openai" else None,
                                   code=code, error_type=error_type)


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
