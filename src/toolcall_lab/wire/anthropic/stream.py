"""The Anthropic Messages API's stream half: server-sent events in, the kit's events out.

`decode_stream(raw_events)` reads a streamed `/v1/messages` reply (`"stream": true`)
event by event, pure and with no I/O. A raw event is one server-sent event's `data`
JSON, as a dict; its `type` is the event's name (`event: content_block_delta` carries
`{"type": "content_block_delta", ...}`), so the `event:` line adds nothing. The
anthropic SDK's `client.messages.create(..., stream=True)` yields these as objects
(`event.to_dict()` gives the dict back; the SDK itself raises on an `error` event). The
events of its `messages.stream()` helper decode the same: the ones it adds (`text`,
`input_json`, ...) repeat the deltas and are read past. The grammar, from Anthropic's "Streaming
messages" page (https://platform.claude.com/docs/en/build-with-claude/streaming):

    message_start                 the Message, with empty content and the input usage
    content_block_start           block `index` begins: text "", tool_use input {},
                                  thinking "" ..., or a whole block (redacted_thinking,
                                  a server tool's result)
    content_block_delta           text_delta, input_json_delta (a piece of partial JSON),
                                  thinking_delta, signature_delta
    content_block_stop            block `index` is complete
    message_delta                 stop_reason, and the usage so far (cumulative)
    message_stop                  the end of the reply
    ping                          any number of them, anywhere
    error                         {"error": {"type": "overloaded_error", ...}}: it broke off

The reply is rebuilt as the SDK's `MessageStream` rebuilds it
(`anthropic/lib/streaming/_messages.py`, `accumulate_event`), and the final `Turn` is
`decode_response` of the rebuilt Message. One difference, on purpose: a tool call whose
arguments never closed (the reply hit max_tokens inside it, so no `content_block_stop`
came) keeps its partial JSON as `raw_args`, a malformed call the loop never runs; the
SDK parses the fragment leniently into an object, which would look like a whole call.

>>> events = [
...     {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
...      "model": "claude-haiku-5-5", "content": [], "usage": {"input_tokens": 12, "output_tokens": 1}}},
...     {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
...     {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi!"}},
...     {"type": "content_block_stop", "index": 0},
...     {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
...     {"type": "message_stop"}]
>>> for event in decode_stream(events):
...     print(event)
[0] text += 'Hi!'
[0] finished: TextBlock('Hi!')
done [end_turn]: 1 block, 12 tokens in, 3 out

Left out: citations (`citations_delta` is read past, as `decode_response` reads past a
block's citations), and the structured-output parsing the SDK can add.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..._text import shorten
from ...stream import StreamEvent
from ...turn import Turn
from .._stream import Assembly, Pieces, decode
from ._blocks import PROVIDER_NAME
from .client import decode_response

__all__ = ["decode_stream"]

#: Blocks whose `input` arrives as `input_json_delta` pieces (the SDK's TRACKS_TOOL_INPUT).
_TAKES_INPUT = ("tool_use", "server_tool_use", "mcp_tool_use")
#: What message_start and the content blocks build, which a message_delta cannot replace (the
#: SDK's accumulate_event takes only stop_reason, stop_sequence, container and the usage from one).
_BUILT = ("content", "id", "type", "role", "model", "usage")
#: Events the SDK's `messages.stream()` helper adds beside the wire's own: the same deltas again.
_HELPER_EVENTS = ("text", "input_json", "thinking", "signature", "citation")


def decode_stream(raw_events: Iterable[Mapping[str, Any]]) -> Iterator[StreamEvent]:
    """The kit's events for a streamed `/v1/messages` reply, ending in `StreamFinished(turn)`.

    Raises `IncompleteStreamError` when the stream stops before `message_stop` or sends an
    `error` event, and `MalformedResponseError` when it breaks the grammar (a delta for a
    block that never started, an event after `message_stop`, a `message_delta` that would
    replace the content, a field of the wrong type).
    """
    return decode(raw_events, _Reader(), provider=PROVIDER_NAME)


class _Reader:
    """Rebuilds the Message from its events, and says each piece through the assembly."""

    END = "message_stop"

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        self.finished = False
        # (block, field) -> what arrived of a block's text, thinking or input JSON, joined when it stops
        self._said = Pieces()
        self._json: set[int] = set()  # the blocks whose input arrives as JSON pieces
        self._stopped: set[int] = set()

    def trailing(self, raw: Mapping[str, Any]) -> bool:
        """After message_stop, only a ping (read past) or an error (which the SDK raises)."""
        return raw.get("type") in ("ping", "error")

    def read(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        kind = kit.string(raw, "type")
        if kind == "error":
            error = raw.get("error")
            error = error if isinstance(error, Mapping) else {"message": error}
            raise kit.broke(f"{error.get('type') or 'error'}: {error.get('message') or 'no message'}")
        if kind in ("ping", *_HELPER_EVENTS):
            return
        if kind == "message_start":
            self.message = copy.deepcopy(dict(kit.mapping(raw, "message", required=True)))
            self.message["content"] = []
            self.message["usage"] = dict(kit.mapping(self.message, "message.usage"))
            return
        if self.message is None:
            raise kit.malformed(f"event {kit.events} is {kind!r}, before message_start")
        match kind:
            case "content_block_start":
                yield from self._start(raw, kit)
            case "content_block_delta":
                yield from self._delta(raw, kit)
            case "content_block_stop":
                index = self._index(raw, kit)
                self._close(index, kit)
                yield kit.finished(index, self._block(index))
            case "message_delta":
                self._message_delta(raw, kit)
            case "message_stop":
                for index in range(len(self.message["content"])):
                    if index not in self._stopped:  # never stopped (cut at the limit): as far as it came
                        self._close(index, kit)
                self.finished = True
            case _:
                return  # an event newer than this kit: the SDK reads past it too

    def _start(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        assert self.message is not None
        block = copy.deepcopy(dict(kit.mapping(raw, "content_block", required=True)))
        index = len(self.message["content"])
        if kit.number(raw, "index") != index:
            raise kit.malformed(f"block {raw.get('index')!r} started where block {index} was due")
        self.message["content"].append(block)
        match kit.string(block, "content_block.type"):
            case "text":
                kit.begin(index, "text")
                if text := kit.string(block, "content_block.text"):
                    self._said.add((index, "text"), text)
                    yield kit.text(index, text)
            case "thinking":
                kit.begin(index, "reasoning")
                if thinking := kit.string(block, "content_block.thinking"):
                    self._said.add((index, "thinking"), thinking)
                    yield kit.reasoning(index, thinking)
            case "tool_use":
                self._json.add(index)
                yield kit.call(index, kit.string(block, "content_block.id"),
                               kit.string(block, "content_block.name"))
            case kind if kind in _TAKES_INPUT:
                self._json.add(index)
                kit.begin(index, "other")  # a server tool's call: the provider runs it, not your code
            case _:
                kit.begin(index, "other")  # whole in its start: redacted thinking, a search's results

    def _delta(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        assert self.message is not None
        index = self._index(raw, kit)
        block, delta = self.message["content"][index], kit.mapping(raw, "delta")
        match kit.string(delta, "delta.type"):
            case "text_delta" if block.get("type") == "text":
                text = kit.string(delta, "delta.text", required=True)
                self._said.add((index, "text"), text)
                yield kit.text(index, text)
            case "thinking_delta" if block.get("type") == "thinking":
                thinking = kit.string(delta, "delta.thinking", required=True)
                self._said.add((index, "thinking"), thinking)
                yield kit.reasoning(index, thinking)
            case "signature_delta" if block.get("type") == "thinking":
                # subtle: the signature is set, not appended (the SDK's accumulate_event does the same)
                block["signature"] = kit.string(delta, "delta.signature", required=True)
                yield kit.reasoning(index, signature=block["signature"])
            case "input_json_delta" if index in self._json:
                piece = kit.string(delta, "delta.partial_json", required=True)
                self._said.add((index, "input"), piece)
                if block.get("type") == "tool_use":
                    yield kit.arguments(index, piece)
            case _:
                return  # citations_delta, or a delta newer than this kit: nothing the kit keeps

    def _index(self, raw: Mapping[str, Any], kit: Assembly) -> int:
        assert self.message is not None
        index = kit.number(raw, "index")
        if index is None or not 0 <= index < len(self.message["content"]):
            raise kit.malformed(f"event {kit.events} ({raw.get('type')}) is for block {index!r}, "
                                "which never started")
        return index

    def _close(self, index: int, kit: Assembly) -> None:
        """Block `index` whole: its text or thinking joined, its input parsed from its pieces
        (pieces that are not JSON stay as text).

        e.g. '{"city": "Par' -> input '{"city": "Par' (a string), which `decode_response`
        reads as a malformed call: the usual is_error result, never a run.
        """
        assert self.message is not None
        self._stopped.add(index)
        block = self.message["content"][index]
        for field in ("text", "thinking"):
            if (index, field) in self._said:
                block[field] = self._said[index, field]
        pieces = self._said.get((index, "input"))
        if pieces:  # subtle: no pieces at all (or one empty one) leaves the start's input {}
            try:
                block["input"] = json.loads(pieces)
            except RecursionError:  # subtle: not a ValueError; Python's parser stops near 1,000 levels
                raise kit.malformed(f"block {index}'s input ({shorten(pieces, 16)!r}, {len(pieces):,} "
                                    "characters) is nested deeper than a JSON parser reads") from None
            except ValueError:
                block["input"] = pieces

    def _message_delta(self, raw: Mapping[str, Any], kit: Assembly) -> None:
        """The reply's stop_reason, stop_sequence, container (...) and its usage so far.

        What message_start and the content blocks built (the content, the id, the model, ...)
        is not a message_delta's to replace: such a delta is refused, not obeyed.
        """
        assert self.message is not None
        delta = kit.mapping(raw, "delta")
        for named in ("delta.stop_reason", "delta.stop_sequence"):
            kit.string(delta, named)  # a string, null, or the kit's error
        for key, value in delta.items():
            if key in _BUILT:
                raise kit.malformed(f"{kit.where()}'s delta carries {key}, which message_start and "
                                    "the content_block events build; a message_delta carries the stop "
                                    "reason and the usage only")
            if value is not None or key != "container":
                self.message[key] = value
        usage = self.message.setdefault("usage", {})
        # subtle: the counts are cumulative totals, so they replace; a count left out (None)
        # keeps message_start's (the SDK's accumulate_event does the same).
        for key, value in kit.mapping(raw, "usage").items():
            if value is not None and not isinstance(value, Mapping):
                kit.number(raw["usage"], f"usage.{key}")  # a count, or the kit's error naming it
            if value is not None:
                usage[key] = value

    def _block(self, index: int) -> Any:
        """Block `index` as the kit reads it: decoded as a reply holding only it."""
        assert self.message is not None
        return decode_response({"type": "message", "model": self.message.get("model", ""),
                                "content": [self.message["content"][index]]}).message.blocks[0]

    def turn(self) -> Turn:
        assert self.message is not None
        return decode_response(self.message)
