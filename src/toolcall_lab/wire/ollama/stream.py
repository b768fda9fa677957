"""Ollama's stream half: `/api/chat` lines in, the kit's events out.

`decode_stream(raw_events)` reads a streamed `/api/chat` reply (streaming is Ollama's
default), pure and with no I/O. A raw event is one line of the newline-delimited JSON
body, as a dict: what the `ollama` client's `chat(..., stream=True)` yields as objects
(`part.model_dump(exclude_none=True)` gives the line back, though that client drops a
call's `id`, so the kit mints one). The grammar, from Ollama's
`docs/api.md` ("Chat request (Streaming)") and its server (`server/routes.go`):

    {"message": {"role": "assistant", "content": "The"}, "done": false}     text, in pieces
    {"message": {"role": "assistant", "content": "", "thinking": "..."}, "done": false}
    {"message": {"role": "assistant", "content": "", "tool_calls": [{"function":
        {"name": "get_weather", "arguments": {"city": "Tokyo"}}}]}, "done": false}
                                          every call whole, in one line, arguments an object
    {"message": {...}, "done": true, "done_reason": "stop", "prompt_eval_count": 26,
     "eval_count": 282, ...durations in ns}                 the end, with the counts
    {"error": "an error was encountered while running the model"}   it broke off

A call arrives whole, so its `ToolCallStarted` and its one `ArgumentsDelta` (the object
as JSON text) come together; every block finishes at the `done: true` line, the end of
the reply. The final `Turn` is `decode_response` of the reply rebuilt as one
`stream: false` body (the last line, its message holding everything that came), so a
call without an id gets the id `decode_response` mints for it, which depends on the
whole reply: its `ToolCallStarted` says id "", and its `BlockFinished` carries the id.

>>> events = [{"model": "llama3.2", "message": {"role": "assistant", "content": "Hi"}, "done": False},
...           {"model": "llama3.2", "message": {"role": "assistant", "content": "!"}, "done": True,
...            "done_reason": "stop", "prompt_eval_count": 9, "eval_count": 2}]
>>> for event in decode_stream(events):
...     print(event)
[0] text += 'Hi'
[0] text += '!'
[0] finished: TextBlock('Hi!')
done [end_turn]: 1 block, 9 tokens in, 2 out

Left out: `/api/generate` (the kit speaks `/api/chat`), images and logprobs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...stream import StreamEvent
from ...turn import Turn
from .._shared import json_text
from .._stream import Assembly, Pieces, decode
from ._blocks import PROVIDER_NAME
from .client import decode_response

__all__ = ["decode_stream"]


def decode_stream(raw_events: Iterable[Mapping[str, Any]]) -> Iterator[StreamEvent]:
    """The kit's events for a streamed `/api/chat` reply, ending in `StreamFinished(turn)`.

    Raises `IncompleteStreamError` when the lines stop before one with `done: true`, or
    one carries an `error`.
    """
    return decode(raw_events, _Reader(), provider=PROVIDER_NAME)


class _Reader:
    """Joins the lines' message into one, and says each piece through the assembly."""

    END = 'a line with "done": true'

    def __init__(self) -> None:
        self.last: dict[str, Any] = {}
        self.message: dict[str, Any] = {"role": "assistant", "content": ""}
        self.said = Pieces()  # the message's content and thinking so far
        self.finished = False

    def read(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        if raw.get("error"):
            # subtle: after the first line the status stays 200, so the error can only be a line
            raise kit.broke(str(raw["error"]))
        wire = raw.get("message")
        if not isinstance(wire, Mapping):
            # subtle: /api/chat sends `message` on every line, the last one too; /api/generate's
            # lines carry `response` instead, and reading them here would give an empty reply.
            raise kit.malformed(f"line {kit.events} has no message (keys {sorted(raw)}); the kit reads "
                                "/api/chat streams, not /api/generate")
        self.message["role"] = wire.get("role") or self.message["role"]
        if wire.get("thinking"):
            self.said.add("thinking", wire["thinking"])
            yield kit.reasoning("reasoning", wire["thinking"])
        if wire.get("content"):
            self.said.add("content", wire["content"])
            yield kit.text("text", wire["content"])
        for call in wire.get("tool_calls") or ():
            calls = self.message.setdefault("tool_calls", [])
            key = ("call", len(calls))
            calls.append(call)
            function = call.get("function") or {}
            yield kit.call(key, str(call.get("id") or ""), str(function.get("name") or ""))
            arguments = function.get("arguments")
            if arguments is not None:
                yield kit.arguments(key, arguments if isinstance(arguments, str) else json_text(arguments))
            kit.whole(key)
        if raw.get("done"):
            self.last, self.finished = dict(raw), True

    def turn(self) -> Turn:
        message = {**self.message, **{field: self.said[field] for field in ("content", "thinking")
                                      if field in self.said}}
        return decode_response({**self.last, "message": message})

