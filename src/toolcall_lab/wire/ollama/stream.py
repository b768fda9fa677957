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
    one carries an `error`, and `MalformedResponseError` for a line after the `done: true`
    one, or a field of the wrong type.
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

    def trailing(self, raw: Mapping[str, Any]) -> bool:
        """After the `done: true` line, only an error line (which the ollama client raises)."""
        return bool(raw.get("error"))

    def read(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        if raw.get("error"):
            # subtle: after the first line the status stays 200, so the error can only be a line
            raise kit.broke(str(raw["error"]))
        if raw.get("message") is None:
            # subtle: /api/chat sends `message` on every line, the last one too; /api/generate's
            # lines carry `response` instead, and reading them here would give an empty reply.
            raise kit.malformed(f"line {kit.events} has no message (keys {sorted(raw)}); the kit reads "
                                "/api/chat streams, not /api/generate")
        wire = kit.mapping(raw, "message")
        self.message["role"] = kit.string(wire, "message.role") or self.message["role"]
        if thinking := kit.string(wire, "message.thinking"):
            self.said.add("thinking", thinking)
            yield kit.reasoning("reasoning", thinking)
        if content := kit.string(wire, "message.content"):
            self.said.add("content", content)
            yield kit.text("text", content)
        for n, call in enumerate(kit.listed(wire, "message.tool_calls")):
            yield from self._call(call, f"message.tool_calls[{n}]", kit)
        done = raw.get("done")
        if done is not None and not isinstance(done, bool):
            raise kit.wrong("done", done, "true or false")
        if done:
            self.last, self.finished = dict(raw), True

    def _call(self, call: object, path: str, kit: Assembly) -> Iterator[StreamEvent]:
        """One call of a line's tool_calls: it comes whole, so it starts, has its arguments and is whole."""
        if not isinstance(call, Mapping):
            raise kit.wrong(path, call, "an object")
        calls = self.message.setdefault("tool_calls", [])
        key = ("call", len(calls))
        calls.append(call)
        function = kit.mapping(call, "function", within=path)
        name = kit.string(function, "name", within=f"{path}.function")
        yield kit.call(key, kit.string(call, "id", within=path), name)
        arguments = function.get("arguments")
        if isinstance(arguments, Mapping):
            yield kit.arguments(key, json_text(arguments))
        elif isinstance(arguments, str):
            yield kit.arguments(key, arguments)
        elif arguments is not None:
            raise kit.wrong(f"{path}.function.arguments", arguments, "an object")
        kit.whole(key)

    def turn(self) -> Turn:
        message = {**self.message, **{field: self.said[field] for field in ("content", "thinking")
                                      if field in self.said}}
        return decode_response({**self.last, "message": message})

