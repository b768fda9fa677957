"""OpenAI Chat Completions' server half: what the API double reads and answers.

`decode_request` reads a `/v1/chat/completions` body back into a transcript and tools
(the inverse of `encode_request`), `encode_response` writes the body the API would
answer with for a `Turn` (the SDK's `ChatCompletion` parses it); OpenAI's error JSON, one
shape for both OpenAI APIs, is `_openai.server.openai_error_body`.

The rest is what the double asks of this half (`wire.ServerHalf`) to play OpenAI Chat:
the body's shape (`shape.py`), the failures and the automatic prompt cache both OpenAI
APIs share (`wire._openai`), tool-call ids spelled "call_...", and the reply as chunks
when a request says `"stream": true` (`streaming.py`, `encode_stream`). Chat Completions
shows no reasoning (only its token count), so the double's model never reasons here.

The call and content readers are this folder's (`_blocks.py`), shared with the client half.

Left out: `n > 1`, logprobs, and the stored completions of `store: true`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from ...blocks import Block, ReasoningBlock, TextBlock, ToolResult
from ...messages import Message
from ...output_format import OutputFormat
from ...tool import Tool
from ...transcript import Transcript
from ...turn import StopReason, Turn
from .._openai.client import arguments_json
from .._openai.server import OpenAIServer
from .._shared import from_the_wire, read_result_text, request_tool
from ._blocks import API_NAME, read_call, text_of
from .shape import SHAPE
from .streaming import STREAM_END, encode_stream, frame, stream_error

__all__ = ["SERVER", "ChatServer", "decode_output_format", "decode_request", "decode_tool_choice",
           "encode_response"]


@from_the_wire
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
                system.append(text_of(item.get("content")))
            case "user":
                messages.append(Message("user", _text_blocks(item.get("content"))))
            case "assistant":
                calls = tuple(read_call(c) for c in item.get("tool_calls") or [])
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
    content, is_error = read_result_text(text_of(item.get("content")))
    return ToolResult(str(item.get("tool_call_id") or ""), content, is_error)


def _decode_tool(function: Mapping[str, Any]) -> Tool:
    schema = dict(function.get("parameters") or {"type": "object", "properties": {}})
    schema.setdefault("type", "object")
    return request_tool(function["name"], function.get("description"), schema,
                        strict=function.get("strict") is True)


def decode_tool_choice(body: Mapping[str, Any]) -> tuple[str | None, bool | None]:
    """(tool_choice, parallel_tool_calls) in the kit's vocabulary; None for what is not sent.

    >>> decode_tool_choice({"tool_choice": {"type": "function", "function": {"name": "get_weather"}}})
    ('get_weather', None)
    """
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping):
        choice = (choice.get("function") or {}).get("name") if choice.get("type") == "function" else None
    parallel = body.get("parallel_tool_calls")
    return (choice if isinstance(choice, str) else None), (parallel if isinstance(parallel, bool) else None)


def decode_output_format(body: Mapping[str, Any]) -> OutputFormat | None:
    """The structured output a request asks for (`response_format` of type json_schema), or None.

    >>> decode_output_format({"response_format": {"type": "json_schema", "json_schema": {
    ...                       "name": "city", "schema": {"type": "object"}}}})
    OutputFormat('city', strict=False)
    """
    spec = body.get("response_format")
    if not isinstance(spec, Mapping) or spec.get("type") != "json_schema":
        return None
    inner = spec.get("json_schema") or {}
    return OutputFormat(str(inner.get("name") or ""), inner.get("schema") or {},
                        strict=inner.get("strict") is True)



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


class ChatServer(OpenAIServer):
    """OpenAI Chat Completions as the API double plays it: the translators above, on what both
    OpenAI APIs share (`wire._openai.OpenAIServer`: the failures, the validator's words, the ids,
    the automatic prompt cache), and its stream of
    chunks ended by `data: [DONE]` (`streaming.py`). The model never reasons here (the default):
    Chat Completions returns no reasoning, only its token count."""

    API_NAME = API_NAME
    SHAPE = SHAPE
    STREAM_END = STREAM_END
    decode_request = staticmethod(decode_request)
    decode_tool_choice = staticmethod(decode_tool_choice)
    decode_output_format = staticmethod(decode_output_format)
    encode_response = staticmethod(encode_response)
    encode_stream = staticmethod(encode_stream)
    frame = staticmethod(frame)
    stream_error = staticmethod(stream_error)

    def reply(self, turn: Turn, *, response_id: str, created: int = 0, **request: Any) -> dict[str, Any]:
        """The reply the double sends: `encode_response`'s body, `created` at the double's clock."""
        return encode_response(turn, response_id=response_id, created=created)


#: The server half `API_SPECS["chat"].server` names.
SERVER = ChatServer()
