"""How the Anthropic Messages API streams a reply: the server's side (`"stream": true`).

`encode_stream(reply)` plays a finished `/v1/messages` body (the very one the double
sends unstreamed) as the API's server-sent events, so the anthropic SDK's
`messages.stream(...).get_final_message()` rebuilds exactly that body. Reading a stream
is the client's side (`stream.py`). The grammar, from Anthropic's "Streaming messages"
page (https://platform.claude.com/docs/en/build-with-claude/streaming) and the recorded
streams in `tests/fixtures/anthropic_messages_*_stream.sdk_recorded.sse`:

    message_start          the message with `content: []`, no stop reason, and its usage so
                           far: the input counts, `output_tokens` 1
    content_block_start    block `index` with its payload empty: text "", tool_use
                           `input: {}`, thinking "" with signature ""; a block that does
                           not stream (redacted_thinking, a search's results) comes whole
    ping                   once, after the first block starts (as in every recording)
    content_block_delta    text_delta, input_json_delta (first "", then the JSON text),
                           thinking_delta, then one signature_delta just before the stop
    content_block_stop
    message_delta          stop_reason, stop_sequence, and the usage, cumulative: the input
                           counts again and the final output tokens
    message_stop

Each piece is `PIECE` characters (`wire._framing.pieces`), so the stream of a reply is the
same on every run; each event goes out as a named server-sent event (the server half's
default, `ServerHalf.frame`), and nothing follows `message_stop`:

    >>> from toolcall_lab.wire._framing import sse
    >>> reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
    ...          "content": [{"type": "text", "text": "Hi there"}], "stop_reason": "end_turn",
    ...          "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 2}}
    >>> for event in encode_stream(reply):
    ...     print(sse(event).decode().split("\\n")[0], *[event["delta"]] if "delta" in event else [])
    event: message_start
    event: content_block_start
    event: ping
    event: content_block_delta {'type': 'text_delta', 'text': 'Hi t'}
    event: content_block_delta {'type': 'text_delta', 'text': 'here'}
    event: content_block_stop
    event: message_delta {'stop_reason': 'end_turn', 'stop_sequence': None}
    event: message_stop

An error mid-stream is an `error` event, the docs' own example (`stream_error`); the SDK
raises it as an `APIStatusError` with status 200. Whether anything follows it is not
documented; the double sends nothing more.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ...stream import pieces

__all__ = ["encode_stream", "stream_error"]

#: Blocks whose `input` arrives as `input_json_delta` pieces.
_TAKES_INPUT = ("tool_use", "server_tool_use", "mcp_tool_use")
#: The usage counts known when the message starts; the rest arrive with `message_delta`.
_AT_THE_END = ("output_tokens", "output_tokens_details", "server_tool_use")
#: The usage `message_delta` repeats (recorded streams, 2026): the input counts, and the end's.
_REPEATED = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", *_AT_THE_END)


def encode_stream(reply: Mapping[str, Any], *, request: Mapping[str, Any] | None = None
                  ) -> Iterator[dict[str, Any]]:
    """The events of `reply` (a Messages body), one dict each, its `type` the event's name."""
    usage = dict(reply.get("usage") or {})
    started = {key: value for key, value in usage.items() if key not in _AT_THE_END}
    started["output_tokens"] = min(1, usage.get("output_tokens", 0))
    yield {"type": "message_start", "message": {**reply, "content": [], "stop_reason": None,
                                                "stop_sequence": None, "usage": started}}
    for index, block in enumerate(reply.get("content") or []):
        yield from _block(index, block)
    if not reply.get("content"):
        yield {"type": "ping"}
    yield {"type": "message_delta",
           "delta": {"stop_reason": reply.get("stop_reason"), "stop_sequence": reply.get("stop_sequence")},
           "usage": {key: usage[key] for key in _REPEATED if key in usage}}
    yield {"type": "message_stop"}


def _block(index: int, block: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """One content block's events: its start with the payload empty, the deltas, its stop."""
    kind = block.get("type")
    deltas: list[dict[str, Any]] = []
    if kind == "text":
        start = {**block, "text": ""}
        deltas = [{"type": "text_delta", "text": piece} for piece in pieces(block["text"])]
    elif kind == "thinking":
        start = {**block, "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": piece} for piece in pieces(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block.get("signature", "")})
    elif kind in _TAKES_INPUT:
        start = {**block, "input": {}}
        arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
        # subtle: every recorded stream opens a call's arguments with an empty piece
        deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in ["", *pieces(arguments)]]
    else:
        start = dict(block)  # redacted thinking, a search's results: whole, with no delta
    yield {"type": "content_block_start", "index": index, "content_block": start}
    if index == 0:
        yield {"type": "ping"}
    for delta in deltas:
        yield {"type": "content_block_delta", "index": index, "delta": delta}
    yield {"type": "content_block_stop", "index": index}


def stream_error(sent: int, reply: Mapping[str, Any] | None = None, *, failed: bool = False
                 ) -> dict[str, Any]:
    """The error event that breaks a stream off after `sent` events: the docs' `overloaded_error`.
    The API has no failed end of its own, so a `failed` stream ends the same way.

    >>> stream_error(5)
    {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}}
    """
    return {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
