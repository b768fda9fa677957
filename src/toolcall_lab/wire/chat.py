"""OpenAI Chat Completions (`POST /v1/chat/completions`), the dialect most servers speak.

OpenAI's hosted API speaks it, and so do vLLM, llama.cpp's `llama-server`, LM Studio,
Ollama's `/v1` and most gateways. The kit's transcript maps onto it like this:

    kit                                   Chat Completions
    Transcript.system                     first message {"role": "system"}
    user TextBlock                        {"role": "user", "content": "..."}
    assistant text + ToolCalls            {"role": "assistant", "content": "..." | null,
                                           "tool_calls": [{"id", "type": "function",
                                           "function": {"name", "arguments": "<JSON string>"}}]}
    user ToolResults                      one {"role": "tool", "tool_call_id", "content"} each,
                                          in the order they appear; the message's text, if any,
                                          follows them as a {"role": "user"} message
    Tool                                  {"type": "function", "function": {"name",
                                           "description", "parameters"}}

Three things have no Chat field, so this module decides:

- `ToolResult.is_error`: the content is sent as "Error: <content>" (`ERROR_PREFIX`), and
  read back as an error when it starts so. A result whose own text begins with
  "Error: " therefore reads back as an error: the wire cannot tell them apart.
- Reasoning is never sent. OpenAI's own models return none in Chat (only a token
  count), and the `reasoning_content` / `reasoning` fields some local servers return
  are not part of the API, so no server promises to read them back.
- Order inside a message: Chat puts an assistant's text before its tool calls, and a
  user's tool results before its text, whatever order the kit's blocks were in.

The API's rules, `check_request`, are in `wire/rules/chat.py`, re-exported here.

Left out: streaming, images and audio, `n > 1`, the deprecated `functions` /
`function_call`, custom (grammar) tools and `tool_choice`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, assert_never

from ..messages import Block, Message, ReasoningBlock, TextBlock, ToolCall, ToolResult, Transcript
from ..tool import Tool
from ..turn import StopReason, Turn
from ..usage import Usage
from ._shared import (
    ERROR_PREFIX,
    arguments_json,
    parse_arguments,
    read_result_text,
    request_tool,
    result_text,
)

if TYPE_CHECKING:
    from . import API

__all__ = [
    "API_NAME",
    "ERROR_PREFIX",
    "MAX_TOKENS_FIELDS",
    "PROVIDER_NAME",
    "check_request",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "error_body",
]

#: The API's name, as `wire.API_SPECS` and every `Problem` of this API spell it.
API_NAME: API = "chat"
#: The name this codec stamps on the reasoning it decodes (`ReasoningBlock.provider`).
PROVIDER_NAME = "openai-chat"
#: The two spellings of the output limit: OpenAI's current one, and the older one that
#: local servers read (Ollama ignores `max_completion_tokens` without a word).
MAX_TOKENS_FIELDS = ("max_completion_tokens", "max_tokens")

_THINK = re.compile(r"\A\s*<think>(.*?)</think>\s*", re.DOTALL)


# -- request: kit -> wire ---------------------------------------------------------------
def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                   max_tokens: int = 1024, reasoning_effort: str | None = None,
                   parallel_tool_calls: bool | None = None,
                   max_tokens_field: str = "max_completion_tokens") -> dict[str, Any]:
    """The Chat Completions request body for this conversation.

    >>> t = Transcript(system="Be brief.", messages=[Message.user("Hi")])
    >>> encode_request(t, model="gpt-6-luna", max_tokens=50, max_tokens_field="max_tokens")
    {'model': 'gpt-6-luna', 'messages': [{'role': 'system', 'content': 'Be brief.'}, \
{'role': 'user', 'content': 'Hi'}], 'max_tokens': 50}
    """
    if max_tokens_field not in MAX_TOKENS_FIELDS:
        raise ValueError(f"max_tokens_field must be one of {MAX_TOKENS_FIELDS}, got {max_tokens_field!r}")
    messages: list[dict[str, Any]] = []
    if transcript.system:
        messages.append({"role": "system", "content": transcript.system})
    for message in transcript:
        messages.extend(_encode_message(message))
    body: dict[str, Any] = {"model": model, "messages": messages}
    if tools:
        # subtle: no "tools": [] when there are none; the API refuses an empty array.
        body["tools"] = [{"type": "function", "function": {
            "name": t.name, "description": t.description, "parameters": dict(t.input_schema)}}
            for t in tools]
        if parallel_tool_calls is not None:
            # subtle: only beside tools; without them the API rejects the flag.
            body["parallel_tool_calls"] = parallel_tool_calls
    body[max_tokens_field] = max_tokens
    if reasoning_effort is not None:
        body["reasoning_effort"] = reasoning_effort
    return body


def _encode_message(message: Message) -> list[dict[str, Any]]:
    """One kit message as one or more Chat messages (results become `tool` messages)."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for block in message.blocks:
        match block:
            case TextBlock(text=text):
                texts.append(text)
            case ToolCall():
                calls.append({"id": block.id, "type": "function",
                              "function": {"name": block.name, "arguments": arguments_json(block)}})
            case ToolResult(call_id=call_id):
                results.append({"role": "tool", "tool_call_id": call_id, "content": result_text(block)})
            case ReasoningBlock():
                pass  # never replayed: see the module docstring
            case _:
                assert_never(block)
    if message.role == "assistant":
        # subtle: content may be null only beside tool_calls; an empty reply is "".
        assistant: dict[str, Any] = {"role": "assistant",
                                     "content": _content(texts) if texts else (None if calls else "")}
        if calls:
            assistant["tool_calls"] = calls
        return [assistant]
    if results and not texts:
        return results
    return [*results, {"role": "user", "content": _content(texts) if texts else ""}]


def _content(texts: list[str]) -> str | list[dict[str, str]]:
    """One text as a string; several as text parts, so their boundaries survive."""
    if len(texts) == 1:
        return texts[0]
    return [{"type": "text", "text": text} for text in texts]



# -- response: wire -> kit --------------------------------------------------------------
def decode_response(body: Mapping[str, Any]) -> Turn:
    """The `Turn` in a Chat Completions response body (the first choice).

    Tool use is read from the presence of `tool_calls`, never from `finish_reason`
    alone: local servers answer `"stop"` beside tool calls.

    >>> turn = decode_response({"model": "qwen3:4b", "choices": [{"finish_reason": "stop",
    ...     "message": {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1",
    ...     "type": "function", "function": {"name": "get_weather",
    ...     "arguments": "{\\"city\\": \\"Paris\\"}"}}]}}]})
    >>> turn.message, turn.stop_reason
    (Message.assistant(ToolCall('call_1', 'get_weather', {'city': 'Paris'})), StopReason.TOOL_USE)
    """
    choices = body.get("choices") or []
    if not choices:
        raise ValueError("the response has no choices")
    choice = choices[0]
    message = choice.get("message") or {}
    model = str(body.get("model") or "")
    blocks: list[Block] = []
    content = message.get("content")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if not reasoning and isinstance(content, str) and (think := _THINK.match(content)):
        # subtle: without a reasoning parser, Qwen3-style models leave <think>...</think>
        # at the start of content; take it out so it is not replayed as the model's words.
        reasoning, content = think.group(1).strip(), content[think.end():]
    if reasoning:
        blocks.append(ReasoningBlock(str(reasoning), PROVIDER_NAME, model or None))
    text = _text_of(content)
    if text:
        blocks.append(TextBlock(text))
    refusal = message.get("refusal")
    if refusal:
        blocks.append(TextBlock(refusal))
    calls = [_decode_call(call) for call in message.get("tool_calls") or []]
    blocks.extend(calls)
    return Turn(Message("assistant", tuple(blocks)),
                _stop_reason(choice.get("finish_reason"), bool(refusal), bool(calls)),
                _decode_usage(body.get("usage")), model)


def _stop_reason(finish_reason: str | None, refused: bool, called: bool) -> StopReason:
    if finish_reason == "length":
        # subtle: before tool calls: a call cut off by the limit has incomplete arguments.
        return StopReason.MAX_TOKENS
    if refused or finish_reason == "content_filter":
        return StopReason.REFUSAL
    if called:
        return StopReason.TOOL_USE
    # "stop", and "tool_calls" with an empty list (vLLM's `required` can send that).
    return StopReason.END_TURN


def _decode_call(call: Mapping[str, Any]) -> ToolCall:
    function = call.get("function") or {}
    call_id, name = str(call.get("id") or ""), str(function.get("name") or "")
    arguments = function.get("arguments")
    if isinstance(arguments, Mapping):  # a few servers send an object instead of a string
        return ToolCall(call_id, name, dict(arguments))
    text = "" if arguments is None else str(arguments)
    if not text.strip():
        # subtle: local servers send "" for a call without arguments; that is {}, not an error.
        return ToolCall(call_id, name, {})
    # subtle: text nested too deep ('[' * 5000) is malformed too, not a RecursionError.
    args = parse_arguments(text)
    if args is None:
        return ToolCall(call_id, name, {}, raw_args=text)
    return ToolCall(call_id, name, args)


def _decode_usage(usage: Mapping[str, Any] | None) -> Usage:
    """Chat's usage in the kit's convention, which is OpenAI's: cache and reasoning inside.

    Every field is optional: local servers leave out the details, and some the usage.
    """
    if not usage:
        return Usage()
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    input_tokens = int(usage.get("prompt_tokens") or 0)
    output_tokens = int(usage.get("completion_tokens") or 0)
    # subtle: parts are capped at their whole; a local server's odd count must not make
    # the whole reply unreadable (Usage refuses parts larger than the total).
    cache_read = min(int(prompt_details.get("cached_tokens") or 0), input_tokens)
    cache_write = min(int(prompt_details.get("cache_write_tokens") or 0), input_tokens - cache_read)
    reasoning = min(int(completion_details.get("reasoning_tokens") or 0), output_tokens)
    return Usage(input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cache_read,
                 cache_write_tokens=cache_write, reasoning_tokens=reasoning)


def _text_of(content: Any) -> str:
    """The text of a content field: a string, text parts, or null."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text") or part.get("refusal") or "" for part in content
                   if isinstance(part, Mapping))


# -- the server side (for the loopback API double) ---------------------------------------
def decode_request(body: Mapping[str, Any]) -> tuple[Transcript, tuple[Tool, ...]]:
    """The conversation and tools a Chat request carries: `encode_request` reversed.

    A run of `tool` messages becomes one user message of results; `system` and
    `developer` messages become the transcript's system prompt (joined by a blank line
    if there are several); images and other non-text parts are skipped.

    >>> t, tools = decode_request({"model": "m", "messages": [
    ...     {"role": "user", "content": "Hi"},
    ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
    ...      "function": {"name": "f", "arguments": "{}"}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "Error: no such city"}]})
    >>> t.messages
    [Message.user(TextBlock('Hi')), Message.assistant(ToolCall('c1', 'f', {})), \
Message.user(ToolResult('c1', 'no such city', is_error=True))]
    """
    system: list[str] = []
    messages: list[Message] = []
    results: list[ToolResult] = []
    for item in body.get("messages") or []:
        role = item.get("role")
        if role == "tool":
            results.append(_decode_result(item))
            continue
        if results:
            messages.append(Message.results(results))
            results = []
        match role:
            case "system" | "developer":
                system.append(_text_of(item.get("content")))
            case "user":
                messages.append(Message("user", _text_blocks(item.get("content"))))
            case "assistant":
                calls = tuple(_decode_call(c) for c in item.get("tool_calls") or [])
                messages.append(Message("assistant", _text_blocks(item.get("content")) + calls))
            case _:
                pass  # the deprecated "function" role: the kit never sends it
    if results:
        messages.append(Message.results(results))
    tools = tuple(_decode_tool(t["function"]) for t in body.get("tools") or []
                  if t.get("type", "function") == "function")
    return Transcript("\n\n".join(system) or None, messages), tools


def _text_blocks(content: Any) -> tuple[Block, ...]:
    if content is None or content == "":
        return ()
    if isinstance(content, str):
        return (TextBlock(content),)
    return tuple(TextBlock(part.get("text") or part.get("refusal") or "") for part in content
                 if isinstance(part, Mapping) and part.get("type") in ("text", "refusal"))


def _decode_result(item: Mapping[str, Any]) -> ToolResult:
    content, is_error = read_result_text(_text_of(item.get("content")))
    return ToolResult(str(item.get("tool_call_id") or ""), content, is_error)


def _decode_tool(function: Mapping[str, Any]) -> Tool:
    schema = dict(function.get("parameters") or {"type": "object", "properties": {}})
    schema.setdefault("type", "object")
    return request_tool(function["name"], function.get("description"), schema)



def encode_response(turn: Turn, *, response_id: str, created: int = 0) -> dict[str, Any]:
    """A Chat Completions response body for `turn`, as the API would send it.

    `created` is the Unix time a real server stamps (0 keeps test output stable).
    Lossy where Chat has no word for it: `stop_sequence` becomes "stop" (read back as
    end_turn), `pause_turn` and `context_window_exceeded` become "stop" and "length",
    several text blocks are joined by a newline, and reasoning goes out as the
    `reasoning_content` field local servers use.

    >>> from toolcall_lab import Message, Usage
    >>> body = encode_response(Turn(Message.assistant("Hi!"), "end_turn", Usage(12, 3), "m"),
    ...                        response_id="chatcmpl-1")
    >>> body["choices"][0]["message"]["content"], body["choices"][0]["finish_reason"]
    ('Hi!', 'stop')
    """
    texts = [b.text for b in turn.message.blocks if isinstance(b, TextBlock)]
    text = "\n".join(texts) if texts else None
    refused = turn.stop_reason is StopReason.REFUSAL
    message: dict[str, Any] = {"role": "assistant", "content": None if refused else text,
                               "refusal": text if refused else None, "annotations": []}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments_json(c)}}
            for c in turn.tool_calls]
    reasoning = [b.text for b in turn.message.blocks if isinstance(b, ReasoningBlock)]
    if reasoning:
        message["reasoning_content"] = "\n".join(reasoning)
    usage = turn.usage
    details: dict[str, int] = {"cached_tokens": usage.cache_read_tokens}
    if usage.cache_write_tokens:
        details["cache_write_tokens"] = usage.cache_write_tokens
    return {
        "id": response_id,
        "object": "chat.completion",
        "created": created,
        "model": turn.model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": _finish_reason(turn.stop_reason, refused_with_text=bool(text))}],
        "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
                  "total_tokens": usage.total_tokens, "prompt_tokens_details": details,
                  "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens}},
    }


def _finish_reason(stop_reason: StopReason, *, refused_with_text: bool) -> str:
    match stop_reason:
        case StopReason.TOOL_USE:
            return "tool_calls"
        case StopReason.MAX_TOKENS | StopReason.CONTEXT_WINDOW_EXCEEDED:
            return "length"
        case StopReason.REFUSAL:
            # A refusal with words travels in `refusal`; one without needs the filter reason.
            return "stop" if refused_with_text else "content_filter"
        case StopReason.END_TURN | StopReason.STOP_SEQUENCE | StopReason.PAUSE_TURN:
            return "stop"
        case _:
            assert_never(stop_reason)


def error_body(message: str, *, status: int = 400, param: str | None = None, code: str | None = None,
               error_type: str | None = None) -> dict[str, Any]:
    """The API's error JSON: `{"error": {"message", "type", "param", "code"}}`.

    The same shape as the Responses API's (`responses.error_body`): `status` picks the
    type ("invalid_request_error" for a 4xx, "requests" for a 429, "server_error" for a 5xx).

    >>> error_body("Invalid 'messages': empty array. ...", code="empty_array")["error"]["type"]
    'invalid_request_error'
    """
    from . import responses  # subtle: one OpenAI error shape serves both APIs; one copy of it

    return responses.error_body(message, status=status, param=param, code=code, error_type=error_type)


# -- the API's rules, in a module of their own ------------------------------------------------
# subtle: imported last, because the rules read this module's API_NAME; re-exported, so
# this module stays the API's one codec (`wire.API_SPECS`).
from .rules.chat import check_request  # noqa: E402
