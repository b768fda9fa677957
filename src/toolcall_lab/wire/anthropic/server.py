"""The Anthropic Messages API's server half: what the API double reads and answers.

`decode_request` reads a `/v1/messages` body back into a transcript and tools (the
inverse of `encode_request`), `encode_response` writes the reply the API would send for
a `Turn` (the SDK's own `anthropic.types.Message` parses it), and `error_body` the
API's error JSON. The double signs the thinking it invents (`wire.signing`), so the
rules can tell when it comes back edited.

The rest is what the double asks of this half (`wire.ServerHalf`) to play Anthropic:
the body's shape (`shape.py`), the API's words for each failure (`fault`), the prompt
cache (`caching.py`), what the model reads of the thinking sent back and when it thinks
(`thinking.py`), the hidden tool-use system prompt Anthropic bills whenever tools are
offered (`as_served`, `models.tool_prompt_tokens`), the message threads it keeps between
requests (beta: `threads.py`; the `anthropic-beta` header read into the body's `betas` by
`with_headers`), and the reply as server-sent events when a request says `"stream": true`
(`streaming.py`, `encode_stream`).

The block translators are this folder's (`_blocks.py`), shared with the client half;
this module only adds what a server needs on top of them.

Left out: the Message Batches and Files APIs, token counting, and `GET /v1/models/{id}`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import replace
from typing import Any

from ...errors import UsageError
from ...messages import Message
from ...models import tool_prompt_tokens
from ...output_format import OutputFormat
from ...tool import Tool
from ...transcript import Transcript
from ...turn import StopReason, Turn
from ...usage import Usage
from .._server_half import ServerHalf
from .._shared import TOO_LARGE, from_the_wire, request_tool
from ..problem import Problem
from ..signing import binding_of, prefix_digests, sign_thinking, signature_is_ours
from ._blocks import STOP_IN, decode_blocks, encode_content, result_text
from .caching import cache_usage, with_cache_creation
from .rules import check_request
from .shape import SHAPE, shape_problem
from .streaming import encode_stream, stream_error
from .thinking import as_the_model_reads_it as thinking_as_read
from .thinking import thinks
from .threads import is_continue, with_betas, with_thread
from .threads import keep as keep_thread
from .threads import refusal as thread_refusal

__all__ = ["SERVER", "AnthropicServer", "cache_creation", "decode_output_format", "decode_request",
           "decode_tool_choice", "encode_response", "error_body", "fault", "model_list"]

_STOP_OUT: dict[StopReason, str] = {kit: wire for wire, kit in STOP_IN.items()}

_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    504: "gateway_timeout_error",
    529: "overloaded_error",
}


@from_the_wire
def decode_request(body: Mapping[str, Any]) -> tuple[Transcript, tuple[Tool, ...]]:
    """The conversation and tools in a request body (the inverse of `encode_request`).

    Thinking blocks come back as reasoning from "anthropic" with no model (the request
    does not say which model wrote them).

    >>> transcript, tools = decode_request({"model": "m", "max_tokens": 64, "system": "Be brief.",
    ...     "messages": [{"role": "user", "content": "Hi"}]})
    >>> transcript.system, transcript.messages, tools
    ('Be brief.', [Message.user(TextBlock('Hi'))], ())
    """
    system = body.get("system")
    if isinstance(system, list):  # the block-list form: [{"type": "text", "text": ...}]
        system = "\n".join(p.get("text", "") for p in system if isinstance(p, Mapping))
    messages = []
    for position, message in enumerate(body.get("messages") or []):
        content = message.get("content", [])
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        role = message.get("role")
        if role == "system":  # SDK 2.14's SystemMessageParam: fold it into the system prompt
            text = result_text(content)
            system = f"{system}\n{text}" if system else text
            continue
        try:
            messages.append(Message(role, tuple(decode_blocks(content, model=None))))
        except (TypeError, ValueError) as exc:
            raise UsageError(f"messages.{position}: {exc}") from None
    # subtle: a tool with a `type` other than "custom" (web_search_20250305, ...) is one
    # Anthropic runs itself; it is offered to the model, but it is not a tool of your code.
    tools = tuple(request_tool(t["name"], t.get("description"), t.get("input_schema"))
                  for t in body.get("tools") or [] if t.get("type", "custom") == "custom")
    return Transcript(system, messages), tools


def decode_tool_choice(body: Mapping[str, Any]) -> tuple[str | None, bool | None]:
    """(tool_choice, parallel_tool_calls) in the kit's vocabulary (the inverse of `tool_choice_config`).

    >>> decode_tool_choice({"tool_choice": {"type": "any", "disable_parallel_tool_use": True}})
    ('required', False)
    >>> decode_tool_choice({"tool_choice": {"type": "tool", "name": "get_weather"}}), decode_tool_choice({})
    (('get_weather', None), (None, None))
    """
    choice = body.get("tool_choice")
    if not isinstance(choice, Mapping):
        return None, None
    kind = str(choice.get("type"))
    modes = {"auto": "auto", "none": "none", "any": "required"}
    named = choice.get("name") if kind == "tool" else modes.get(kind)
    return named, (False if choice.get("disable_parallel_tool_use") else None)


def decode_output_format(body: Mapping[str, Any]) -> OutputFormat | None:
    """The structured output a request asks for (`output_config.format`), or None.

    Anthropic's format has no name and no strict switch: the reply is always held to it.

    >>> decode_output_format({"output_config": {"format": {"type": "json_schema",
    ...                       "schema": {"type": "object"}}}})
    OutputFormat('output', strict=True)
    """
    spec = (body.get("output_config") or {}).get("format")
    if not isinstance(spec, Mapping) or spec.get("type") != "json_schema":
        return None
    return OutputFormat("output", spec.get("schema") or {})


def encode_response(turn: Turn, *, response_id: str, request: Mapping[str, Any] | None = None
                    ) -> dict[str, Any]:
    """The response body the API would send for `turn` (`anthropic.types.Message` parses it).

    Reasoning becomes thinking blocks; one without a signature is signed by the double
    (`sign_thinking`), so a later request can show whether it came back unchanged. Given
    the `request` it answers, the double also binds each such signature to the block's
    prefix (the request's system, tools and messages, and the reply's blocks before it),
    as preserved thinking does (`wire.signing.prefix_digests`).
    Usage is split back into Anthropic's shape, where cache reads and writes sit beside
    `input_tokens` (kit input 360 with 300 read and 50 written -> input_tokens 10), and the
    writes are split into 5-minute and 1-hour ones in `cache_creation` when there are any.
    """
    if turn.message.tool_results:
        raise UsageError("an assistant turn cannot hold a tool result")  # Message forbids it
    content = encode_content(turn.message.blocks, sign=True)
    if request is not None:
        _bind(content, request)
    usage = turn.usage
    wire_usage: dict[str, Any] = {
        "input_tokens": usage.uncached_input_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
        "output_tokens": usage.output_tokens,
    }
    if usage.cache_write_tokens:
        # subtle: only when something was written, so the bodies the kit wrote before it knew the
        # split stay as they were (the double adds zeros itself to a request with breakpoints)
        wire_usage["cache_creation"] = cache_creation(usage)
    if usage.reasoning_tokens:
        wire_usage["output_tokens_details"] = {"thinking_tokens": usage.reasoning_tokens}
    if usage.web_search_requests:
        wire_usage["server_tool_use"] = {"web_search_requests": usage.web_search_requests,
                                         "web_fetch_requests": 0}
    return {"id": response_id, "type": "message", "role": "assistant", "model": turn.model,
            "content": content, "stop_reason": _STOP_OUT[turn.stop_reason], "stop_sequence": None,
            "usage": wire_usage}


def _bind(content: list[dict[str, Any]], request: Mapping[str, Any]) -> None:
    """Bind the double's own unbound thinking signatures in `content` to their prefixes, in place."""
    at = len(request.get("messages") or [])
    for position, block in enumerate(content):
        signature = block.get("signature")
        if block.get("type") != "thinking" or not signature_is_ours(signature) or binding_of(signature):
            continue
        # subtle: a block's prefix holds the blocks before it, signatures included, so sign in order.
        so_far = {**request, "messages": [*(request.get("messages") or []),
                                          {"role": "assistant", "content": content[:position + 1]}]}
        digest = next(d for i, j, d in prefix_digests(so_far) if (i, j) == (at, position))
        block["signature"] = sign_thinking(block.get("thinking", ""), bound_to=digest)


def cache_creation(usage: Usage) -> dict[str, int]:
    """The `usage.cache_creation` object: the writes split by lifetime.

    >>> cache_creation(Usage(input_tokens=900, cache_write_tokens=800, cache_write_1h_tokens=600))
    {'ephemeral_5m_input_tokens': 200, 'ephemeral_1h_input_tokens': 600}
    """
    return {"ephemeral_5m_input_tokens": usage.cache_write_tokens - usage.cache_write_1h_tokens,
            "ephemeral_1h_input_tokens": usage.cache_write_1h_tokens}


def error_body(message: str, *, status: int = 400, param: str | None = None, code: str | None = None,
               error_type: str | None = None) -> dict[str, Any]:
    """The API's error JSON. Anthropic has no `param` (accepted and unused); a `code` goes in
    `error.details.error_code`, where the SDK reads it (`anthropic/_exceptions.py`,
    `extract_error_code`), as a thread's `thread_not_found`.

    `request_id` is derived from the status and message, so the same error gives the
    same body on every run; the double puts each request's own in its place (`identify`).

    >>> error_body("Overloaded", status=529)["error"]
    {'type': 'overloaded_error', 'message': 'Overloaded'}
    """
    kind = error_type or _ERROR_TYPES.get(status) or ("api_error" if status >= 500
                                                      else "invalid_request_error")
    request_id = "req_" + hashlib.sha256(f"{status} {message}".encode()).hexdigest()[:24]
    error: dict[str, Any] = {"type": kind, "message": message}
    if code is not None:
        error["details"] = {"error_code": code}
    return {"type": "error", "error": error, "request_id": request_id}


# -- how the API fails: the faults the double injects, and what it refuses unread ----------------
_OVERLOADED = 529  # Anthropic's own status for "Overloaded"
_429 = (  # tests/fixtures/anthropic_error_rate_limit_429.body.json, word for word
    "This request would exceed your organization's rate limit of 20,000,000 prompt bytes per hour "
    "(org: 5576611f-a1ee-427c-9800-298d9579899c, model: claude-sonnet-4-5-20250929). For details, "
    "refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for "
    "current usage. Please reduce the prompt length or the maximum tokens requested, or try again "
    "later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your "
    "options for a rate limit increase.")
#: Each failure in Anthropic's words: its error page's (platform.claude.com/docs/en/api/errors)
#: or a recorded response's where there is one, else what the API is commonly seen to answer.
_FAULT_WORDS = {"rate_limit": _429, "overloaded": "Overloaded", "not_found": "model: {model}",
                "server_error": "Internal server error", "unauthorized": "invalid x-api-key",
                "no_route": "Not Found", "bad_json": "The request body is not valid JSON: {detail}",
                "bad_header": "{detail}", "method": "Method Not Allowed",
                "too_large": "Request exceeds the maximum allowed number of bytes. " + TOO_LARGE,
                "no_length": "A request body needs a Content-Length header."}
#: The error type where the status's own (`_ERROR_TYPES`) is not what Anthropic says.
_FAULT_TYPES = {"too_large": "request_too_large", "method": "invalid_request_error",
                "no_length": "invalid_request_error"}


def fault(kind: str, status: int, *, param: str | None = None, **fill: object) -> tuple[int, dict[str, Any]]:
    """(status, body) of the failure `kind` (`double.FAULTS`, or a refusal before a body is read)
    as Anthropic answers it, `fill` completing the words; an overload is Anthropic's 529.

    >>> fault("overloaded", 503)[0], fault("overloaded", 503)[1]["error"]
    (529, {'type': 'overloaded_error', 'message': 'Overloaded'})
    """
    status = _OVERLOADED if kind == "overloaded" else status
    return status, error_body(_FAULT_WORDS[kind].format(**fill), status=status,
                              error_type=_FAULT_TYPES.get(kind))


def model_list(model: str, owner: str) -> dict[str, Any]:
    """A one-model list, as `GET /v1/models` answers (the SDK's `ModelInfo` parses each), enough
    for a "test connection" button; Anthropic names no owner."""
    return {"data": [{"type": "model", "id": model, "display_name": model, "lifecycle": "active",
                      "created_at": "2026-01-01T00:00:00Z"}],
            "has_more": False, "first_id": model, "last_id": model}


# -- playing the model: what it reads, how its reply is billed and written -----------------------
def _now(stored: Mapping[str, Any]) -> float:
    """The double's clock, which the mapping it keeps for this API carries (`double.play.Kept`)."""
    clock = getattr(stored, "clock", None)
    return float(clock.now()) if clock is not None else 0.0


class AnthropicServer(ServerHalf):
    """The Anthropic Messages API as the API double plays it: the translators above, its words for
    each failure, its prompt cache (`caching.py`), the thinking it reads and when it thinks
    (`thinking.py`), the hidden tool-use prompt it bills, the threads it keeps between requests
    (`threads.py`), its request ids, and its stream of named server-sent events (`streaming.py`)."""

    SHAPE = SHAPE
    shape_problem = staticmethod(shape_problem)
    decode_request = staticmethod(decode_request)
    decode_tool_choice = staticmethod(decode_tool_choice)
    decode_output_format = staticmethod(decode_output_format)
    encode_response = staticmethod(encode_response)
    error_body = staticmethod(error_body)
    fault = staticmethod(fault)
    model_list = staticmethod(model_list)
    encode_stream = staticmethod(encode_stream)
    stream_error = staticmethod(stream_error)
    cache_usage = staticmethod(cache_usage)

    def with_headers(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> Mapping[str, Any]:
        """`body` as the rules read it: the betas of its `anthropic-beta` header as `betas`."""
        return with_betas(body, headers.get("anthropic-beta"))

    def refusal(self, body: Mapping[str, Any], stored: MutableMapping[str, Any]
                ) -> tuple[int, Problem] | None:
        """(status, problem) for a thread continue the double cannot serve (`threads.refusal`: a 404
        `thread_not_found` for one it does not hold or that expired), or whose rebuilt conversation
        breaks a rule (the API "rebuilds the conversation before it calls the model"); else None."""
        found = thread_refusal(body, stored, _now(stored))
        if found is not None or not is_continue(body):
            return found
        rebuilt = {key: value for key, value in with_thread(body, stored).items() if key != "betas"}
        problems = check_request(rebuilt)
        if not problems:
            return None
        stored[str(body["thread"]["previous_message_id"])]["state"] = "open"  # not continued after all
        return 400, problems[0]

    def as_the_model_reads_it(self, body: Mapping[str, Any], stored: Mapping[str, Any]
                              ) -> tuple[Mapping[str, Any], list[dict[str, str]]]:
        """The request as the model reads it: a thread's conversation put back before a continue's
        messages (`threads.with_thread`), thinking dropped or stripped as the model's rules say
        (`thinking.as_the_model_reads_it`), and the `input_transformations` the reply lists."""
        return thinking_as_read(with_thread(body, stored))

    def as_served(self, turn: Turn, tools: Sequence[Tool]) -> Turn:
        """`turn` as the API bills it: with tools offered, the hidden tool-use system prompt the kit
        cannot see is input too (`models.tool_prompt_tokens`)."""
        if not tools:
            return turn
        hidden = tool_prompt_tokens(turn.model)
        return replace(turn, usage=replace(turn.usage, input_tokens=turn.usage.input_tokens + hidden))

    def reasons(self, body: Mapping[str, Any], transcript: Transcript, turn: Turn) -> bool:
        """Whether the model thinks before `turn` (`thinking.thinks`)."""
        return thinks(body, transcript, turn)

    def identify(self, body: Any, token: str) -> tuple[Any, dict[str, str]]:
        """An answer with its request id, `req_` and 24 characters of `token` (unique per request):
        the `request-id` header on every answer, and the error body's `request_id` too.

        >>> body, headers = SERVER.identify(error_body("Overloaded", status=529), "0123456789abcdef" * 2)
        >>> headers, body["request_id"]
        ({'request-id': 'req_0123456789abcdef01234567'}, 'req_0123456789abcdef01234567')
        """
        request_id = f"req_{token[:24]}"
        if isinstance(body, dict) and body.get("type") == "error":
            body = {**body, "request_id": request_id}
        return body, {"request-id": request_id}

    def reply(self, turn: Turn, *, response_id: str, request: Mapping[str, Any], read: Mapping[str, Any],
              notes: Sequence[dict[str, Any]], stored: MutableMapping[str, Any],
              created: int = 0) -> dict[str, Any]:
        """The reply the double sends: its thinking bound to the `request`'s prefix, its cache writes
        said whenever the request has breakpoints, and the thinking the model did not read listed;
        a thread's conversation kept under its id (`threads.keep`). A message carries no time, so
        `created` is not used."""
        written = encode_response(turn, response_id=response_id, request=request)
        written = with_cache_creation(written, request)
        if notes:
            written["input_transformations"] = list(notes)
        keep_thread(stored, response_id, request, written, _now(stored))
        return written


#: The server half `API_SPECS["anthropic"].server` names.
SERVER = AnthropicServer()
