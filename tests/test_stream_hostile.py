"""Streams that lie, stall or are typed wrong, and what the decoders make of them (issue 29 §5).

- **The end of reply is the end.** Nothing after the API's end (`message_stop`, Chat's
  `finish_reason` and its usage chunk, `response.completed`, Ollama's `done: true`) changes
  the `Turn`: it is refused, in one sentence. A Chat stream that asked for its usage and
  stopped before the usage chunk is cut, not free.
- **One source for each block.** A `message_delta` cannot replace the streamed blocks, a
  `response.completed` cannot disagree with the items streamed, an item cannot be added
  twice, and reasoning sent under two names is said once.
- **Streamed and unstreamed agree**, a Qwen3-style `<think>` prefix in Chat content too.
- **Wrong types are the kit's error**: a field of the wrong JSON type is a
  `MalformedResponseError` naming the field and what came, never a Python `TypeError`.
- **Linear time**: no text is grown by `+=` per delta (`benchmarks/stream_decode_scale.py`
  prints the figures; nothing here is timed).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from stream_grammar import STREAMS
from test_stream_ends import REPLIES, SplitEvery
from toolcall_lab.stream import StreamFinished
from toolcall_lab.wire import APIS, codec


def stream(api: str, reply: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The plain grammar's stream of `reply` (the reply of test_stream_ends), cut every 4 characters."""
    return STREAMS[api](copy.deepcopy(reply or REPLIES[api]), SplitEvery(4))


def finished(api: str, events: list[dict[str, Any]]) -> Any:
    said = list(codec(api).decode_stream(events))
    assert isinstance(said[-1], StreamFinished)
    return said[-1].turn


# -- linear time -----------------------------------------------------------------------------------
class Piece(str):
    """A delta's text that refuses to be joined by `+`: growing a text with `+=` per delta
    copies all of it each time (quadratic); the decoders keep pieces and join them once."""

    def __add__(self, other: object) -> str:
        raise AssertionError(f"a delta was joined with + ({self!r})")

    def __radd__(self, other: object) -> str:
        raise AssertionError(f"a delta was joined with + ({self!r})")


def pieces_of(api: str, event: dict[str, Any]) -> None:
    """Each text or arguments piece of `event` made a `Piece`, in place."""
    def wrap(holder: dict[str, Any], *keys: str) -> None:
        for key in keys:
            if isinstance(holder.get(key), str):
                holder[key] = Piece(holder[key])

    if api == "anthropic" and event.get("type") == "content_block_delta":
        wrap(event["delta"], "text", "thinking", "partial_json")
    elif api == "responses" and str(event.get("type")).endswith(".delta"):
        wrap(event, "delta")
    elif api == "chat":
        for choice in event.get("choices") or ():
            wrap(choice["delta"], "content", "refusal", "reasoning_content")
            for call in choice["delta"].get("tool_calls") or ():
                wrap(call.get("function") or {}, "arguments")
    elif api == "ollama":
        wrap(event["message"], "content", "thinking")


@pytest.mark.parametrize("api", APIS)
def test_no_text_or_arguments_are_grown_with_plus_per_delta(api):
    events = stream(api)
    for event in events:
        pieces_of(api, event)
    turn = finished(api, events)
    assert turn.text == "It is 18°C and sunny"
    assert [dict(call.args) for call in turn.tool_calls] == [{"city": "Paris"}, {"city": "Tokyo"}]
