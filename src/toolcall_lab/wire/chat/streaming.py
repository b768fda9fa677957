"""How OpenAI Chat Completions streams a reply: the server's side (`"stream": true`).

`encode_stream(reply, request=...)` plays a finished `/v1/chat/completions` body (the
very one the double sends unstreamed) as the API's chunks, so the openai SDK's
`chat.completions.stream(...).get_final_completion()` rebuilds that body's choice and
usage. Reading a stream is the client's side (`stream.py`). The grammar, from OpenAI's
spec (`CreateChatCompletionStreamResponse`, `ChatCompletionStreamOptions`) in the order of
the recorded streams (`tests/fixtures/openai_chat_*_stream.*.sse`):

    every chunk      `id`, `object: "chat.completion.chunk"`, `created`, `model` (the
                     same on each), one choice with `delta`, `logprobs: null`,
                     `finish_reason: null`
    the first        `delta: {"role": "assistant", "content": ""}` (`"refusal": null`
                     beside it), or `"content": null` when the reply opens with a call
    then             `delta.content` pieces (or `delta.refusal`, or a local server's
                     reasoning field first); per call, in order, not interleaved:
                     `{"index": k, "id", "type": "function", "function": {"name",
                     "arguments": ""}}`, then `{"index": k, "function": {"arguments":
                     <piece>}}` ...
    the finish       `delta: {}` and the `finish_reason`, on a chunk of its own
    with `stream_options.include_usage`: `usage: null` on every chunk, then one more
                     with `choices: []` and the usage
    data: [DONE]

A stream is `data:` lines only, no `event:` names. Each piece is `PIECE` characters
(`wire._framing.pieces`):

    >>> reply = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
    ...          "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
    ...                       "message": {"role": "assistant", "content": "Hi there"}}],
    ...          "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}}
    >>> for chunk in encode_stream(reply, request={"stream_options": {"include_usage": True}}):
    ...     print(chunk["choices"][0]["delta"] if chunk["choices"] else chunk["usage"])
    {'role': 'assistant', 'content': '', 'refusal': None}
    {'content': 'Hi t'}
    {'content': 'here'}
    {}
    {'prompt_tokens': 9, 'completion_tokens': 2, 'total_tokens': 11}

An error mid-stream is not specified by OpenAI: the double sends `data: {"error": {...}}`
(`stream_error`), as vLLM and llama.cpp do, which the openai SDK raises as an `APIError`,
and nothing after it (whether OpenAI sends `[DONE]` then is not on record).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ...stream import pieces
from .._framing import DONE, SSE_HEADERS, sse
from .._openai.server import fault

__all__ = ["STREAM_END", "STREAM_HEADERS", "encode_stream", "frame", "stream_error"]

#: The headers a stream goes out with (recorded: `text/event-stream; charset=utf-8`).
STREAM_HEADERS = SSE_HEADERS
#: The stream's last frame.
STREAM_END = DONE
#: A message's fields that are not streamed as text (the rest, a local server's reasoning, are).
_NOT_TEXT = ("role", "content", "refusal", "annotations", "tool_calls", "audio", "function_call")


def encode_stream(reply: Mapping[str, Any], *, request: Mapping[str, Any] | None = None
                  ) -> Iterator[dict[str, Any]]:
    """The chunks of `reply` (a Chat Completions body); the usage chunk only when `request`
    says `stream_options: {"include_usage": true}`."""
    options = (request or {}).get("stream_options")
    with_usage = isinstance(options, Mapping) and bool(options.get("include_usage"))
    head = {key: reply[key] for key in ("id", "created", "model", "service_tier", "system_fingerprint")
            if key in reply}
    head = {"id": head.pop("id", ""), "object": "chat.completion.chunk", **head}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**head, "choices": [choice], **({"usage": None} if with_usage else {})}

    choice = (reply.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    yield chunk(_first_delta(message))
    for field, text in message.items():
        if field not in _NOT_TEXT and isinstance(text, str):  # a local server's reasoning, first
            yield from (chunk({field: piece}) for piece in pieces(text))
    for field in ("content", "refusal"):
        yield from (chunk({field: piece}) for piece in pieces(message.get(field) or ""))
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") or {}
        opened = {"index": index, "id": call.get("id"), "type": call.get("type", "function"),
                  "function": {"name": function.get("name"), "arguments": ""}}
        yield chunk({"tool_calls": [opened]})
        for piece in pieces(function.get("arguments") or ""):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, choice.get("finish_reason"))
    if with_usage:
        yield {**head, "choices": [], "usage": reply.get("usage")}


def _first_delta(message: Mapping[str, Any]) -> dict[str, Any]:
    """The first chunk's delta: the role, and an empty content where text follows (recorded)."""
    if message.get("refusal") is not None:
        return {"role": "assistant", "content": None, "refusal": ""}
    if message.get("content") is None:
        return {"role": "assistant", "content": None}
    return {"role": "assistant", "content": "", "refusal": None}


def frame(event: Mapping[str, Any]) -> bytes:
    """One chunk on the wire: `data: <json>` and a blank line, with no `event:` line."""
    return sse(event, named=False)


def stream_error(sent: int, reply: Mapping[str, Any] | None = None, *, failed: bool = False
                 ) -> dict[str, Any]:
    """The error that breaks a stream off after `sent` chunks: OpenAI's error body for an
    overload, as one `data:` object (which the openai SDK raises).
    The API has no failed end of its own, so a `failed` stream ends the same way.

    >>> stream_error(3)["error"]["code"]
    'server_is_overloaded'
    """
    return fault("overloaded", 503)[1]
