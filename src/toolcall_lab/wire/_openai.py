"""What the server halves of OpenAI's two APIs (Responses, Chat Completions) share.

Both spell tool-call ids "call_..." (`call_ids`). Both fail alike: one error shape
(`_shared.openai_error_body`) and the same words for the failures the double injects
(`fault`). OpenAI's validator words a misshapen body one way for both APIs
(`shape_problem`, from a `_schema.Failure`), and the shapes share a few parts
(`PART_TEXT`, `EFFORT`, `FUNCTION`, `choice` for `tool_choice`). The dialect:

- "Invalid type for 'temperature': expected a decimal, but got a string instead."
  (recorded from api.openai.com in public code), code "invalid_type";
- "Missing required parameter: 'x'." ("missing_required_parameter");
- "Invalid value: 'x'. Supported values are: 'a', 'b', and 'c'." ("invalid_value"),

each with the param in OpenAI's spelling, `messages[0].role` (`openai_param`). These are
the patterns the API is seen to use; each case's exact text follows from them and is not
recorded unless a source is named (how OpenAI words "one of" more than two types, for
one, is not on record).

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

Left out: "Unknown parameter: ..." (the double lets unknown keys pass), and OpenAI's
explicit `prompt_cache_breakpoint`s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..blocks import ToolCall
from ..models import price_of, rules_of
from ..tokens import request_tokens
from ._layout import HOUR, MINUTE, Prefixes, kit_layout
from ._schema import BOOLEAN, OBJECT, STRING, Failure, Path, Schema, enum, kit_path, null, obj, types_of
from ._shared import TOO_LARGE, openai_error_body
from .problem import Problem

if TYPE_CHECKING:
    from ..tool import Tool
    from ..transcript import Transcript
    from ..turn import Turn
    from ..usage import Usage

__all__ = ["EFFORT", "FUNCTION", "JSON_SCHEMA", "PART_TEXT", "cache_usage", "choice", "fault", "identify",
           "openai_param", "shape_problem"]

# -- the parts both shapes share -----------------------------------------------------------------
#: A text part: what both APIs' content parts of type text hold
PART_TEXT = obj({"text": STRING}, required=("text",))
EFFORT = null(STRING)  # the values are a rule (`wire._shared.invalid_effort`), in OpenAI's words
#: A function tool's fields, in both APIs
FUNCTION = {"name": STRING, "description": null(STRING), "parameters": null(OBJECT), "strict": null(BOOLEAN)}
#: A json_schema response format's fields (ResponseFormatJsonSchema's `json_schema`, and
#: TextResponseFormatJsonSchema beside its `type`)
JSON_SCHEMA = {"name": STRING, "description": STRING, "schema": OBJECT, "strict": null(BOOLEAN)}


def choice(branches: dict[str, Schema], others: list[str] | bool) -> Schema:
    """OpenAI's `tool_choice`: one of its three modes, or an object told apart by `type`."""
    return {"type": ["string", "object"], "if": {"type": "string"},
            "then": {**enum("none", "auto", "required"), "x-hosted": True},
            "x-tagged": {"key": "type", "branches": branches, "others": others}}


# -- the words ----------------------------------------------------------------------------------
_OPENAI = {"object": ("an object", "objects"), "array": ("an array", "arrays"),
           "string": ("a string", "strings"), "integer": ("an integer", "integers"),
           "number": ("a decimal", "decimals"), "boolean": ("a boolean", "booleans")}


def openai_param(path: Path) -> str:
    """A JSON path the way OpenAI names a parameter.

    >>> openai_param(["messages", 0, "tool_calls", 1, "function"])
    'messages[0].tool_calls[1].function'
    """
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out.lstrip(".")


def _one_of(values: Sequence[Any]) -> str:
    """'a', 'b', and 'c', as OpenAI lists the values of an enum (two: 'a' and 'b')."""
    quoted = [f"'{v}'" for v in values]
    if len(quoted) < 3:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _expected(node: dict[str, Any]) -> str:
    """What OpenAI says it expected of a value of the wrong type.

    e.g. "a string", "an array of objects", "one of a string or array of objects", and
    for `tool_choice` "one of one of 'none', 'auto', or 'required' or object" (recorded).
    """
    def phrase(kind: str, *, article: bool) -> str:
        modes = node.get("then", {}) if node.get("if") == {"type": "string"} else {}  # tool_choice's
        strings = node.get("enum") or modes.get("enum")
        if kind == "string" and strings:
            return "one of " + _one_of([v for v in strings if v is not None]).replace(" and '", " or '")
        if kind == "array" and types_of(node.get("items", {})):
            said = f"array of {_OPENAI[types_of(node['items'])[0]][1]}"
            return f"an {said}" if article else said
        one = _OPENAI[kind][0]
        return one if article else one.split(" ", 1)[1]

    kinds = types_of(node)
    if len(kinds) == 1:
        return phrase(kinds[0], article=True)
    return "one of " + " or ".join(phrase(k, article=i == 0) for i, k in enumerate(kinds))


def _got(value: Any) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int():
            return "an integer"
        case float():
            return "a decimal number"
        case str():
            return "a string"
        case list():
            return "an array"
        case _:
            return "an object"


def shape_problem(api: str, failure: Failure) -> Problem:
    """The first way a body of `api` ("responses" or "chat") breaks its shape, in OpenAI's words."""
    path: tuple[str | int, ...] = failure.path
    if failure.kind in ("required", "tag") and failure.key is not None:
        path = (*path, failure.key)
    param, at = openai_param(path), kit_path(path)
    missing = failure.node.get("x-missing")
    match failure.kind:
        case "required" if missing:
            return Problem(api, at, missing, param=None)
        case "required" | "tag" if failure.key not in failure.value:
            return Problem(api, at, f"Missing required parameter: '{param}'.", param=param,
                           code="missing_required_parameter")
        case "tag" if not isinstance(failure.value[failure.key], str):
            expected = "one of " + _one_of(failure.allowed).replace(" and '", " or '")
            return Problem(api, at, f"Invalid type for '{param}': expected {expected}, but got "
                           f"{_got(failure.value[failure.key])} instead.", param=param, code="invalid_type")
        case "tag" | "enum":
            value = failure.value[failure.key] if failure.kind == "tag" else failure.value
            listed = _one_of(failure.allowed)
            return Problem(api, at, f"Invalid value: '{value}'. Supported values are: {listed}.",
                           param=param, code="invalid_value")
        case "type":
            expected = _expected(failure.node)
            return Problem(api, at, f"Invalid type for '{param}': expected {expected}, but got "
                           f"{_got(failure.value)} instead.", param=param, code="invalid_type")
        case _:
            return Problem(api, at, f"Invalid '{param}': {failure.message}.", param=param)


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
