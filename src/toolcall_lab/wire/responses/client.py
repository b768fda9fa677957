"""The OpenAI Responses API's client half: a `POST /v1/responses` body out, its reply in.

`encode_request` writes a transcript as one flat list of input items (see the package's
docstring, `wire.responses`, for what maps to what and why); `decode_response` reads a
reply's output items into a `Turn`, and raises the kit's error for a response that
"failed"; `why_dropped` says which reasoning a request leaves out. The item readers are
this folder's (`_blocks.py`), shared with the server half.

Left out: background requests (a response still "queued" or "in_progress" is refused),
and `previous_response_id` (the kit sends the whole conversation every time).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from ...blocks import Block, ReasoningBlock, ServerToolCall, ServerToolResult, TextBlock, ToolCall, ToolResult
from ...errors import InvalidRequestError, ProviderError, RateLimitError, ServerError, UsageError
from ...messages import Message
from ...output_format import OutputFormat
from ...tool import Tool
from ...tool_choice import MODES, check_tool_choice
from ...transcript import Transcript
from ...turn import StopReason, Turn
from ...usage import Usage
from .._fields import COUNT, LIST, OBJECT, STRING, Field, check_reply
from .._openai.client import arguments_json, prompt_cache_fields
from .._shared import from_the_wire, made_elsewhere, plain_json, result_text, sampling
from ._blocks import API_NAME, PROVIDER_NAME, part_text, read_call, summary, web_search_call

__all__ = ["REPLY_FIELDS", "decode_response", "encode_request", "why_dropped"]


# -- request out ---------------------------------------------------------------------------------
def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                   max_tokens: int = 1024, reasoning_effort: str | None = None,
                   store: bool = False, tool_choice: str | None = None,
                   parallel_tool_calls: bool | None = None,
                   server_tools: Sequence[Mapping[str, Any]] = (),
                   temperature: float | None = None,
                   prompt_cache_key: str | None = None,
                   prompt_cache_retention: str | None = None,
                   output_format: OutputFormat | None = None) -> dict[str, Any]:
    """The `POST /v1/responses` body for this conversation.

    `reasoning_effort` ("low", "medium", "high", ...) sets `reasoning.effort`; `store`
    is whether OpenAI keeps the response (the kit sends everything each time, so False).
    `tool_choice` (the kit's vocabulary, `toolcall_lab.tool_choice`) and
    `parallel_tool_calls` are sent beside tools only; a tool's name becomes
    `{"type": "function", "name": ...}`. `server_tools` are OpenAI's built-in tool
    definitions, sent after yours as given (e.g. `{"type": "web_search"}`). `temperature`
    is sent as `temperature` when given; the Responses API has no seed.
    `prompt_cache_key` and `prompt_cache_retention` go out as they are (caching itself is
    automatic; see `_openai.prompt_cache_fields`). `output_format` (structured output,
    `toolcall_lab.output_format`) goes out as `text.format`, `{"type": "json_schema", "name",
    "schema", "strict"}` (OpenAI's Structured Outputs guide; `TextResponseFormatJsonSchema`).

    >>> from toolcall_lab import Transcript, Message
    >>> body = encode_request(Transcript("Be brief.", [Message.user("Hi")]), model="gpt-6-luna")
    >>> body["instructions"], body["store"]
    ('Be brief.', False)
    >>> body["input"]
    [{'type': 'message', 'role': 'user', 'content': [{'type': 'input_text', 'text': 'Hi'}]}]
    """
    check_tool_choice(tool_choice, tools, parallel_tool_calls)
    body: dict[str, Any] = {"model": model}
    if transcript.system is not None:
        body["instructions"] = transcript.system
    body["input"] = [item for message in transcript for item in _items(message, store=store)]
    body["tools"] = [_tool_spec(t) for t in tools] + [plain_json(spec) for spec in server_tools]
    if tools and tool_choice is not None:
        named = {"type": "function", "name": tool_choice}
        body["tool_choice"] = tool_choice if tool_choice in MODES else named
    if tools and parallel_tool_calls is not None:
        body["parallel_tool_calls"] = parallel_tool_calls
    body["max_output_tokens"] = max_tokens
    body.update(sampling(temperature))
    body["store"] = store
    if reasoning_effort is not None:
        body["reasoning"] = {"effort": reasoning_effort}
        if not store:
            body["include"] = ["reasoning.encrypted_content"]
    body.update(prompt_cache_fields(prompt_cache_key, prompt_cache_retention))  # caching is automatic
    if output_format is not None:
        body["text"] = {"format": {"type": "json_schema", "name": output_format.name,
                                   "schema": dict(output_format.schema), "strict": output_format.strict}}
    return body


def _items(message: Message, *, store: bool = False) -> list[dict[str, Any]]:
    """The input items of one message, in the order of its blocks."""
    items: list[dict[str, Any]] = []
    for block in message.blocks:
        match block:
            case TextBlock(text=text) if message.role == "assistant":
                items.append({"type": "message", "role": "assistant", "content": text})
            case TextBlock(text=text):
                part = {"type": "input_text", "text": text}
                if items and items[-1].get("role") == "user":
                    items[-1]["content"].append(part)  # text next to text: one message
                else:
                    items.append({"type": "message", "role": "user", "content": [part]})
            case ToolCall(id=call_id, name=name):
                items.append({"type": "function_call", "call_id": call_id, "name": name,
                              "arguments": arguments_json(block)})
            case ToolResult(call_id=call_id):
                items.append({"type": "function_call_output", "call_id": call_id,
                              "output": result_text(block)})
            case ReasoningBlock(opaque=opaque):
                if why_dropped(block, store=store) is None:
                    items.append(plain_json(opaque))  # verbatim: encrypted_content is checked
            case ServerToolCall(opaque=opaque) if block.replayable_to(PROVIDER_NAME) and opaque:
                items.append(plain_json(opaque))  # the web_search_call item, as it came
            case ServerToolCall() | ServerToolResult():
                pass  # another provider's search (or a result, which Responses has no item for)
            case _:
                assert_never(block)
    return items


def why_dropped(block: ReasoningBlock, *, model: str | None = None, store: bool = False,
                **options: Any) -> str | None:
    """Why a request (with this `store`) leaves `block` out, or None when it sends the item back.

    `model` and the other `options` change nothing here.

    >>> item = {"type": "reasoning", "id": "rs_1", "summary": []}
    >>> why_dropped(ReasoningBlock("", "openai", "gpt-6-luna", item), store=True) is None
    True
    >>> print(why_dropped(ReasoningBlock("", "openai", "gpt-6-luna", item)))
    no encrypted_content, and with store: false the API would not find the item by its id
    """
    elsewhere = made_elsewhere(block, PROVIDER_NAME)
    if elsewhere is not None:
        return elsewhere
    if not block.opaque:
        return "no reasoning item came with it: nothing OpenAI could find or verify"
    if not store and not block.opaque.get("encrypted_content"):
        return "no encrypted_content, and with store: false the API would not find the item by its id"
    return None


def _tool_spec(tool: Tool) -> dict[str, Any]:
    # subtle: the Responses API treats a missing `strict` as TRUE (Chat Completions as false).
    # Strict mode demands every property in `required` and "additionalProperties": false,
    # so a tool with an optional parameter is refused ("Invalid schema for function ...").
    # The kit validates arguments itself, so it says `strict` out loud: false unless the
    # tool asks for it (`Tool(strict=True)`, `@tool(strict=True)`).
    return {"type": "function", "name": tool.name, "description": tool.description,
            "parameters": plain_json(tool.input_schema), "strict": tool.strict}


# -- reply in -----------------------------------------------------------------------------------
#: The fields `decode_response` reads, with the types the API sends (`wire._fields`).
REPLY_FIELDS = (
    Field("status", STRING), Field("model", STRING, required=True), Field("error", OBJECT),
    Field("incomplete_details", OBJECT), Field("incomplete_details.reason", STRING),
    Field("output", LIST, required=True), Field("output[]", OBJECT), Field("output[].type", STRING),
    Field("output[].id", STRING), Field("output[].content", LIST), Field("output[].content[]", OBJECT),
    Field("output[].content[].type", STRING), Field("output[].content[].text", STRING),
    Field("output[].content[].refusal", STRING), Field("output[].summary", LIST),
    Field("output[].summary[]", OBJECT), Field("output[].summary[].text", STRING),
    Field("output[].call_id", STRING), Field("output[].name", STRING), Field("output[].arguments", STRING),
    Field("usage", OBJECT), Field("usage.input_tokens", COUNT), Field("usage.output_tokens", COUNT),
    Field("usage.input_tokens_details", OBJECT), Field("usage.input_tokens_details.cached_tokens", COUNT),
    Field("usage.input_tokens_details.cache_write_tokens", COUNT),
    Field("usage.output_tokens_details", OBJECT),
    Field("usage.output_tokens_details.reasoning_tokens", COUNT),
)


@from_the_wire
def decode_response(body: Mapping[str, Any]) -> Turn:
    """The `Turn` in a Responses body: output items become blocks, in order.

    `status` "completed" with `function_call` items means tool_use; "incomplete" means
    max_tokens (or refusal, for `content_filter`); a refusal part means refusal. A
    "failed" response raises the kit's error for its `error.code` (server_error ->
    `ServerError`, rate_limit_exceeded -> `RateLimitError`, invalid_* ->
    `InvalidRequestError`). A `web_search_call` item (a search OpenAI ran) becomes a
    `ServerToolCall`, and counts in `usage.web_search_requests`; other built-in tools'
    items are skipped.

    >>> turn = decode_response({"model": "gpt-6-luna", "status": "completed", "output": [
    ...     {"type": "function_call", "call_id": "call_1", "name": "get_weather",
    ...      "arguments": '{"city":"Paris"}'}],
    ...     "usage": {"input_tokens": 50, "output_tokens": 12}})
    >>> turn.tool_calls, turn.stop_reason
    ((ToolCall('call_1', 'get_weather', {'city': 'Paris'}),), StopReason.TOOL_USE)
    >>> turn.usage
    Usage(input_tokens=50, output_tokens=12)
    """
    check_reply(body, REPLY_FIELDS, api=API_NAME, provider=PROVIDER_NAME)
    status = body.get("status") or "completed"
    if status == "failed":
        raise _failure(body.get("error"))
    if status not in ("completed", "incomplete"):
        raise UsageError(f"the response is {status!r}, not finished; the kit sends no background "
                         "requests, so a finished response (completed or incomplete) was expected")
    model = body["model"]
    blocks: list[Block] = []
    refused = False
    for item in body["output"]:
        match item.get("type"):
            case "reasoning":
                blocks.append(ReasoningBlock(summary(item), PROVIDER_NAME, model, plain_json(item)))
            case "message":
                for part in item["content"]:
                    refused = refused or part["type"] == "refusal"
                    blocks.append(TextBlock(part_text(part)))
            case "function_call":
                blocks.append(read_call(item["call_id"], item["name"], item["arguments"]))
            case "web_search_call":
                blocks.append(web_search_call(item))
            case _:
                continue  # other built-in tools' items (file_search_call, ...): not in the kit's vocabulary
    has_calls = any(isinstance(b, ToolCall) for b in blocks)
    stop = _stop_reason(status, body.get("incomplete_details"), has_calls=has_calls, refused=refused)
    usage = _decode_usage(body.get("usage"))
    searches = sum(isinstance(b, ServerToolCall) for b in blocks)
    if searches:
        # subtle: the usage object has no search count; each web_search_call item is one billed call.
        usage = Usage(**{**vars(usage), "web_search_requests": searches})
    return Turn(Message("assistant", tuple(blocks)), stop, usage, model)


def _stop_reason(status: str, details: Mapping[str, Any] | None, *, has_calls: bool,
                 refused: bool) -> StopReason:
    """Responses has no finish_reason: it is read off `status` and the output."""
    if refused:
        return StopReason.REFUSAL
    if status == "incomplete":
        reason = (details or {}).get("reason")
        if reason == "content_filter":
            return StopReason.REFUSAL
        # subtle: any other reason ("max_output_tokens", or one added later) means the
        # output was cut short, which is what max_tokens tells a loop.
        return StopReason.MAX_TOKENS
    return StopReason.TOOL_USE if has_calls else StopReason.END_TURN


def _decode_usage(usage: Mapping[str, Any] | None) -> Usage:
    """OpenAI already counts the kit's way: cached tokens inside input, reasoning inside output."""
    if not usage:
        return Usage()
    read_write = usage.get("input_tokens_details") or {}  # missing in older recordings
    output = usage.get("output_tokens_details") or {}
    return Usage(input_tokens=usage["input_tokens"], output_tokens=usage["output_tokens"],
                 cache_read_tokens=read_write.get("cached_tokens") or 0,
                 cache_write_tokens=read_write.get("cache_write_tokens") or 0,
                 reasoning_tokens=output.get("reasoning_tokens") or 0)


def _failure(error: Mapping[str, Any] | None) -> ProviderError:
    """The kit's error for a response whose status is "failed"."""
    code = str((error or {}).get("code") or "server_error")
    said = str((error or {}).get("message") or "no message").rstrip(".")
    where = f"openai could not finish the response ({code}: {said})"
    if code == "rate_limit_exceeded":
        return RateLimitError(f"{where}; wait a little and call again.", provider=PROVIDER_NAME)
    if code.startswith("invalid_"):
        return InvalidRequestError(f"{where}; change what the request sends and try again.",
                                   provider=PROVIDER_NAME)
    return ServerError(f"{where}; the request may be fine, try again later.", provider=PROVIDER_NAME)
