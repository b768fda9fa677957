"""What the server halves of both OpenAI APIs (Responses, Chat Completions) share.

`OpenAIServer` is what each of the two `ServerHalf`s (`wire/chat/server.py`,
`wire/responses/server.py`) is built on: both fail alike, with one error shape
(`openai_error_body`) and the same words for the failures the double injects (`fault`);
both word a misshapen body alike (`shape.shape_problem`); both spell tool-call ids
"call_..." (`call_ids`), send their request id in a header (`identify`), list models alike
(`model_list`) and cache a prompt by themselves.

Both cache by themselves (`cache_usage`): every request stores its prefixes from 1,024
tokens on, and a later one reads the longest prefix it shares with them (`cached_tokens`,
a part of `input_tokens`), reported in steps of 128 tokens before the GPT-5.6 family
(1,024, 1,152, ...) and exactly from GPT-5.6 on (`models.Rules.cache_increment`). The
models that bill a cache write (GPT-5.6 and later: `models.Price.cache_write`) also report
it, as `cache_write_tokens`: the prompt past what was read. Lifetimes:
`prompt_cache_options.ttl` ("30m", "12h"), else `prompt_cache_retention` ("in_memory": 10
minutes, the top of OpenAI's 5 to 10; "24h"), else 30 minutes from GPT-5.6 on and 10
minutes before; a read starts the lifetime again. A model the table does not know (a
local one) caches nothing. The prefixes are the conversation's, laid out in the kit's own
shape (`_layout.kit_layout`), one cache per API, model and `prompt_cache_key`.

Left out: OpenAI's explicit `prompt_cache_breakpoint`s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from ...blocks import ToolCall
from ...models import price_of, rules_of
from ...tokens import request_tokens
from .._layout import HOUR, MINUTE, Prefixes, kit_layout
from .._server_half import ServerHalf
from .._shared import TOO_LARGE
from .shape import shape_problem

if TYPE_CHECKING:
    from ...tool import Tool
    from ...transcript import Transcript
    from ...turn import Turn
    from ...usage import Usage
    from .._schema import Failure
    from ..problem import Problem

__all__ = ["OpenAIServer", "cache_usage", "call_ids", "fault", "identify", "model_list", "openai_error_body"]


def openai_error_body(message: str, *, status: int = 400, param: str | None = None,
                      code: str | None = None, error_type: str | None = None) -> dict[str, Any]:
    """An OpenAI error body, for Responses and Chat alike: `{"error": {"message", "type", "param", "code"}}`.

    The type follows the status as OpenAI sends it: 4xx "invalid_request_error" (a
    refused key too, with code "invalid_api_key"), 429 "requests" (the limit that was
    hit; OpenAI also says "tokens"), 5xx "server_error".

    >>> error = openai_error_body("No tool output found for function call call_1.", param="input")["error"]
    >>> error["type"], error["param"], error["code"]
    ('invalid_request_error', 'input', None)
    >>> openai_error_body("Rate limit reached for requests", status=429)["error"]["type"]
    'requests'
    >>> openai_error_body("Invalid 'messages': empty array. ...", code="empty_array")["error"]["type"]
    'invalid_request_error'
    """
    if error_type is None:
        error_type = ("requests" if status == 429 else
                      "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


def identify(body: Any, token: str) -> tuple[Any, dict[str, str]]:
    """An answer with its request id, `req_` and `token` (32 hex digits, unique per request), in
    the `x-request-id` header, where both OpenAI APIs send it (the body does not repeat it).

    >>> identify({"id": "chatcmpl-1"}, "0123456789abcdef" * 2)[1]
    {'x-request-id': 'req_0123456789abcdef0123456789abcdef'}
    """
    return body, {"x-request-id": f"req_{token}"}


# -- how the APIs fail: the faults the double injects, and what it refuses unread -----------------
#: Each failure in OpenAI's words: the recorded errors in tests/fixtures/ where there is one,
#: else what the API is commonly seen to answer.
_FAULT_WORDS = {
    "rate_limit": "Rate limit reached for {model} in organization org-double on requests per min "
                  "(RPM): Limit 3, Used 3, Requested 1.",
    "overloaded": "The engine is currently overloaded, please try again later.",
    "server_error": "The server had an error while processing your request. Sorry about that!",
    "unauthorized": "Incorrect API key provided. You can find your API key at "
                    "https://platform.openai.com/account/api-keys.",
    "not_found": "The model `{model}` does not exist or you do not have access to it.",
    "no_route": "Invalid URL ({method} {path})", "method": "Invalid method for URL ({method} {path})",
    "bad_json": "We could not parse the JSON body of your request.",
    "bad_header": "{detail}", "too_large": TOO_LARGE,
    "no_length": "A request body needs a Content-Length header."}
#: OpenAI's error (type, code) where the error body's defaults ("invalid_request_error" for a
#: 4xx, "server_error" for a 5xx, no code) are not what OpenAI says.
_FAULT_KINDS = {"rate_limit": ("requests", "rate_limit_exceeded"), "unauthorized": (None, "invalid_api_key"),
                "overloaded": ("service_unavailable_error", "server_is_overloaded"),
                "not_found": (None, "model_not_found")}


def fault(kind: str, status: int, *, param: str | None = None, **fill: object) -> tuple[int, dict[str, Any]]:
    """(status, body) of the failure `kind` (`double.FAULTS`, or a refusal before a body is read)
    as OpenAI answers it, `fill` completing the words.

    >>> fault("not_found", 404, model="gpt-9")[1]["error"]["code"]
    'model_not_found'
    """
    error_type, code = _FAULT_KINDS.get(kind, (None, None))
    return status, openai_error_body(_FAULT_WORDS[kind].format(**fill), status=status, param=param, code=code,
                                     error_type=error_type)


def model_list(model: str, owner: str) -> dict[str, Any]:
    """A one-model list, as `GET /v1/models` answers (the SDK's `Model` parses each), enough for
    a "test connection" button."""
    return {"object": "list", "data": [{"id": model, "object": "model", "created": 0, "owned_by": owner}]}


# -- the ids OpenAI's models write -----------------------------------------------------------------
def call_ids(turn: Turn) -> Turn:
    """`turn` with its tool-call ids the OpenAI way: the double's "toolu_01" becomes "call_01"."""
    blocks = tuple(replace(b, id="call_" + b.id.removeprefix("toolu_"))
                   if isinstance(b, ToolCall) and b.id.startswith("toolu_") else b
                   for b in turn.message.blocks)
    if blocks == turn.message.blocks:
        return turn  # no call to rename (most replies): nothing to rebuild
    return replace(turn, message=replace(turn.message, blocks=blocks))


# -- the prompt cache, automatic on both APIs -----------------------------------------------------
_TTLS = {"30m": 30 * MINUTE, "12h": 12 * HOUR, "in_memory": 10 * MINUTE, "24h": 24 * HOUR}


def cache_usage(api: str, cache: Prefixes, body: Mapping[str, Any], transcript: Transcript,
                tools: Sequence[Tool], usage: Usage) -> Usage:
    """`usage` with what a request to `api` reads from `cache` and writes to it (see the module docstring)."""
    model = str(body.get("model", ""))
    rules = rules_of(model)
    if rules.provider != "openai":
        return usage  # a local model, or one the table does not know: no cache to speak of
    minimum = rules.min_cache_tokens or 1024
    total = usage.input_tokens
    if max(total, request_tokens(transcript, tools)) < minimum:
        # subtle: the longest prefix holds request_tokens (`kit_layout`), so none is stored and
        # none read; a shorter prefix was never stored either, so the layout is not walked
        if not usage.cache_read_tokens and not usage.cache_write_tokens:
            return usage  # already so (every scripted reply): the very same usage, no copy
        return replace(usage, cache_read_tokens=0, cache_write_tokens=0)
    space = (api, model, str(body.get("prompt_cache_key") or ""))
    boundaries = kit_layout(transcript, tools)
    shared = max((min(b.tokens, total) for b in boundaries if cache.held(space, b.key)), default=0)
    step = rules.cache_increment
    read = 0 if shared < minimum else minimum + (shared - minimum) // step * step
    lifetime = _lifetime(body, step)
    for boundary in boundaries:
        if boundary.tokens >= minimum:
            cache.keep(space, boundary.key, lifetime)
    price = price_of(model)
    billed_writes = price is not None and price.cache_write is not None
    write = total - read if billed_writes and total >= minimum else 0
    return replace(usage, cache_read_tokens=read, cache_write_tokens=write)


def _lifetime(body: Mapping[str, Any], step: int) -> float:
    """Seconds a prefix lives unused: asked for, else the model generation's default."""
    options = body.get("prompt_cache_options")
    asked = options.get("ttl") if isinstance(options, Mapping) else None
    asked = asked or body.get("prompt_cache_retention")
    return _TTLS.get(str(asked), _TTLS["30m"] if step == 1 else _TTLS["in_memory"])


class OpenAIServer(ServerHalf):
    """A server half of OpenAI's, as the API double plays it: what both APIs do alike (see the
    module docstring). A subclass names its API (`API_NAME`) and its own translators."""

    #: The API's name, as `API_SPECS` spells it ("chat", "responses").
    API_NAME: ClassVar[str]
    error_body = staticmethod(openai_error_body)
    fault = staticmethod(fault)
    model_list = staticmethod(model_list)
    identify = staticmethod(identify)

    def shape_problem(self, failure: Failure) -> Problem:
        """The first way a body breaks the API's shape, in OpenAI's words (`shape.shape_problem`)."""
        return shape_problem(self.API_NAME, failure)

    def cache_usage(self, cache: Prefixes, body: Mapping[str, Any], transcript: Transcript,
                    tools: Sequence[Tool], usage: Usage) -> Usage:
        """`usage` with the prefixes this request reads from `cache` and writes to it (`cache_usage`)."""
        return cache_usage(self.API_NAME, cache, body, transcript, tools, usage)

    def as_served(self, turn: Turn, tools: Sequence[Tool]) -> Turn:
        """`turn` with its tool-call ids spelled OpenAI's way ("call_01")."""
        return call_ids(turn)
