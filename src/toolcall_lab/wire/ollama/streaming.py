"""How Ollama's `/api/chat` streams a reply: the server's side (the default, `"stream": true`).

`encode_stream(reply)` plays a finished `/api/chat` body (the very one the double sends
with `"stream": false`) as Ollama's newline-delimited JSON, one object a line, so the
`ollama` client's `chat(..., stream=True)` yields pieces that join back to that body
(the client has no accumulator: the caller joins `thinking` and `content` and collects
`tool_calls`, as Ollama's tool-calling docs show). Reading a stream is the client's side
(`stream.py`). The grammar, from Ollama's API docs (`docs/api.md`, "Generate a chat
completion") and its server (`server/routes.go`, `ChatHandler`):

    {"model", "created_at", "message": {"role": "assistant", "content": <piece>}, "done": false}
                         the thinking first (`"thinking": <piece>`, content ""), then
                         the text, every line with its `role`
    {..., "message": {"role": "assistant", "content": "", "tool_calls": [<call>]}, "done": false}
                         each call whole, `arguments` an object, in a line of its own
    {..., "message": {"role": "assistant", "content": ""}, "done": true, "done_reason",
     "total_duration", ..., "eval_count", ...}
                         the end: the stop and the counts (durations in nanoseconds)

Each piece is `PIECE` characters (`wire._framing.pieces`):

    >>> reply = {"model": "m", "created_at": "t", "message": {"role": "assistant",
    ...          "content": "Hi there"}, "done": True, "done_reason": "stop"}
    >>> for line in encode_stream(reply):
    ...     print(frame(line).decode(), end="")
    {"model":"m","created_at":"t","message":{"role":"assistant","content":"Hi t"},"done":false}
    {"model":"m","created_at":"t","message":{"role":"assistant","content":"here"},"done":false}
    {"model":"m","created_at":"t","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}

An error mid-stream is a line `{"error": "..."}`, after which the stream stops; the
status stays 200, since it was sent already (`docs/api/errors.mdx`, `stream_error`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ...stream import pieces
from .._framing import NDJSON_HEADERS, ndjson

__all__ = ["STREAM_END", "STREAM_HEADERS", "encode_stream", "frame", "stream_error"]

#: The headers a stream goes out with (`server/routes.go`, `streamResponse`).
STREAM_HEADERS = NDJSON_HEADERS
#: Nothing follows the `done: true` line.
STREAM_END = b""


def encode_stream(reply: Mapping[str, Any], *, request: Mapping[str, Any] | None = None
                  ) -> Iterator[dict[str, Any]]:
    """The lines of `reply` (an `/api/chat` body), one dict each, the last with `done: true`."""
    head = {"model": reply.get("model"), "created_at": reply.get("created_at")}
    message = reply.get("message") or {}
    role = message.get("role", "assistant")
    for piece in pieces(message.get("thinking") or ""):
        yield {**head, "message": {"role": role, "content": "", "thinking": piece}, "done": False}
    for piece in pieces(message.get("content") or ""):
        yield {**head, "message": {"role": role, "content": piece}, "done": False}
    for call in message.get("tool_calls") or []:
        yield {**head, "message": {"role": role, "content": "", "tool_calls": [call]}, "done": False}
    yield {**reply, "message": {"role": role, "content": ""}}


def frame(event: Mapping[str, Any]) -> bytes:
    """One line of newline-delimited JSON (never a blank line: the ollama client fails on one)."""
    return ndjson(event)


def stream_error(sent: int, reply: Mapping[str, Any] | None = None, *, failed: bool = False
                 ) -> dict[str, Any]:
    """The line that breaks a stream off after `sent` lines: the docs' example.
    The API has no failed end of its own, so a `failed` stream ends the same way.

    >>> stream_error(2)
    {'error': 'an error was encountered while running the model'}
    """
    return {"error": "an error was encountered while running the model"}
