"""The OpenAI Responses API's stream half: server-sent events in, the kit's events out.

`decode_stream(raw_events)` reads a streamed `/v1/responses` reply (`"stream": true`),
pure and with no I/O. A raw event is one server-sent event's `data` JSON as a dict,
whose `type` names the event (what the openai SDK's `client.responses.create(...,
stream=True)` yields as objects; `event.to_dict()` gives the dict back, and the events
of its `responses.stream()` helper decode the same). The grammar, from the API
reference's "Streaming events" and the recorded streams in the openai-dotnet tests:

    response.created                  the Response, with no output yet
    response.output_item.added        item `output_index` begins: a message, a
                                      function_call (call_id, name, arguments ""), a
                                      reasoning item (summary [])
    response.content_part.added       part `content_index` of a message begins
    response.output_text.delta        text of that part (refusal.delta: a refusal's)
    response.function_call_arguments.delta / .done    a call's arguments, in pieces
    response.reasoning_summary_part.added, response.reasoning_summary_text.delta
                                      a reasoning summary, part by part
    response.output_item.done         the item, whole (a reasoning item with its
                                      encrypted_content)
    response.completed                the Response, whole, with the usage: the end
    response.incomplete               ... cut short (max_output_tokens): the end too
    response.failed, error            it broke off

The final `Turn` is `decode_response` of the terminal event's Response, as the SDK's
`get_final_response()` takes it (`openai/lib/streaming/responses/_responses.py`); when
that Response has no `output`, the items are the `output_item.done` ones, as there. Each
message part is a block of its own (as `decode_response` reads them); the summary parts
of one reasoning item are one block, joined by a blank line, so a "\\n\\n" delta arrives
before each part after the first.

>>> events = [
...     {"type": "response.created", "response": {"id": "resp_1", "model": "gpt-6-luna", "output": []}},
...     {"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call",
...      "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ""}},
...     {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"city":"Paris"}'},
...     {"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call",
...      "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'}},
...     {"type": "response.completed", "response": {"id": "resp_1", "model": "gpt-6-luna",
...      "status": "completed", "output": None, "usage": {"input_tokens": 50, "output_tokens": 12}}}]
>>> for event in decode_stream(events):
...     print(event)
[0] call get_weather started, id call_1
[0] arguments += '{"city":"Paris"}'
[0] finished: ToolCall('call_1', 'get_weather', {'city': 'Paris'})
done [tool_use]: 1 block, 50 tokens in, 12 out

Left out: the events of built-in tools as they run (a web search arrives as its item),
`reasoning_text` deltas (raw reasoning, which `decode_response` does not read either),
annotations, logprobs and the `obfuscation` padding.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..._text import shorten
from ...blocks import Block
from ...stream import StreamEvent
from ...turn import Turn
from .._stream import Assembly, Pieces, decode
from ._blocks import PROVIDER_NAME
from .client import decode_response

__all__ = ["decode_stream"]

#: The item types `decode_response` makes blocks of (other built-in tools' items are skipped).
_BLOCK_ITEMS = ("reasoning", "message", "function_call", "web_search_call")


def decode_stream(raw_events: Iterable[Mapping[str, Any]]) -> Iterator[StreamEvent]:
    """The kit's events for a streamed `/v1/responses` reply, ending in `StreamFinished(turn)`.

    Raises `IncompleteStreamError` when the stream stops before `response.completed` (or
    `response.incomplete`), or sends `response.failed` or an `error` event, and
    `MalformedResponseError` when it breaks the grammar (an item added twice, a delta for a
    part never added, an event after the end, a terminal output that is not the items
    streamed, a field of the wrong type).
    """
    return decode(raw_events, _Reader(), provider=PROVIDER_NAME)


class _Reader:
    """Keeps the Response and its items as they grow, and says each piece through the assembly."""

    END = "response.completed"

    def __init__(self) -> None:
        self.response: dict[str, Any] | None = None
        self.finished = False
        self._added: dict[int, dict[str, Any]] = {}  # each item as it began, by output_index
        self._done: dict[int, dict[str, Any]] = {}   # each item as output_item.done sent it
        # what grew of an item since: (index, "arguments"), (index, "content", part, field),
        # (index, "summary", part)
        self._said = Pieces()

    def trailing(self, raw: Mapping[str, Any]) -> bool:
        """After response.completed, only an error event (which the SDK raises)."""
        return raw.get("type") == "error"

    def read(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        kind = kit.string(raw, "type")
        if kind in ("error", "response.failed"):
            raise kit.broke(_error_of(kind, raw))
        if kind == "response.created":
            self.response = copy.deepcopy(dict(kit.mapping(raw, "response", required=True)))
            return
        if self.response is None:
            raise kit.malformed(f"event {kit.events} is {kind!r}, before response.created")
        match kind:
            case "response.output_item.added":
                yield from self._added_item(raw, kit)
            case "response.output_item.done":
                yield from self._done_item(raw, kit)
            case "response.completed" | "response.incomplete":
                self.response = copy.deepcopy(dict(kit.mapping(raw, "response", required=True)))
                kit.listed(self.response, "response.output")  # a list, null, or the kit's error
                self._agree(kind, kit)
                self.finished = True
            case _:
                yield from self._piece(kind, raw, kit)

    def _added_item(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        index = kit.number(raw, "output_index", required=True)
        assert index is not None
        item = copy.deepcopy(dict(kit.mapping(raw, "item", required=True)))
        if index in self._added:
            raise kit.malformed(f"item {index} was added twice ({_named(self._added[index])}, then "
                                f"{_named(item)}): each item has an output_index of its own")
        self._added[index] = item
        for parts in ("item.content", "item.summary"):
            kit.listed(item, parts)  # what its parts are added to: a list, or the kit's error
        match kit.string(item, "item.type"):
            case "function_call":
                yield kit.call(index, kit.string(item, "item.call_id"), kit.string(item, "item.name"))
                if arguments := kit.string(item, "item.arguments"):
                    yield kit.arguments(index, arguments)
            case "reasoning":
                kit.begin(index, "reasoning")
            case "web_search_call":
                kit.begin(index, "other")
            case _:
                return  # a message begins with its first part; other items make no block

    def _piece(self, kind: str, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        """A piece of an item that is open: a part, some text, some arguments."""
        index = kit.number(raw, "output_index")
        if index is None or index not in self._added:
            if kind.startswith("response.") and index is not None:
                raise kit.malformed(f"event {kit.events} ({kind}) is for item {index!r}, which never began")
            return  # response.in_progress, response.queued, or an event newer than this kit
        item = self._added[index]
        match kind:
            case "response.content_part.added":
                yield from self._part(index, item, raw, kit)
            case "response.output_text.delta" | "response.refusal.delta":
                field = "text" if kind == "response.output_text.delta" else "refusal"
                at, part = self._at(item, "content", raw, kit)
                delta = kit.string(raw, "delta", required=True)
                self._said.add((index, "content", at, field), delta, start=part.get(field) or "")
                yield kit.text((index, at), delta)
            case "response.function_call_arguments.delta":
                delta = kit.string(raw, "delta", required=True)
                self._said.add((index, "arguments"), delta, start=item.get("arguments") or "")
                yield kit.arguments(index, delta)
            case "response.reasoning_summary_part.added":
                summary = item.setdefault("summary", [])
                summary.append(copy.deepcopy(dict(kit.mapping(raw, "part", required=True))))
                text = kit.string(summary[-1], "part.text")
                if said := "\n\n" + text if len(summary) > 1 else text:
                    yield kit.reasoning(index, said)
            case "response.reasoning_summary_text.delta":
                at, part = self._at(item, "summary", raw, kit)
                delta = kit.string(raw, "delta", required=True)
                self._said.add((index, "summary", at), delta, start=part.get("text") or "")
                yield kit.reasoning(index, delta)
            case "response.function_call_arguments.done":
                kit.whole(index)  # the arguments are all in; the item's done event has the call
            case _:
                return  # other .done events repeat what the deltas said; output_item.done has it all

    def _part(self, index: int, item: dict[str, Any], raw: Mapping[str, Any],
              kit: Assembly) -> Iterator[StreamEvent]:
        """A message's part `content_index` begins (its text, if it came with any)."""
        part = copy.deepcopy(dict(kit.mapping(raw, "part", required=True)))
        item.setdefault("content", []).append(part)
        key = (index, len(item["content"]) - 1)
        kit.begin(key, "text")
        if said := kit.string(part, "part.text") or kit.string(part, "part.refusal"):
            yield kit.text(key, said)

    def _at(self, item: Mapping[str, Any], parts: str, raw: Mapping[str, Any],
            kit: Assembly) -> tuple[int, dict[str, Any]]:
        """(the index, the part) a delta is for: a message's `content_index`, a summary's `summary_index`.

        e.g. content_index 5 of an item with one part -> the kit's error, naming both.
        """
        name = "content_index" if parts == "content" else "summary_index"
        at = kit.number(raw, name, required=True)
        added = item.get(parts) or []
        if at is None or not 0 <= at < len(added):
            plural = "" if len(added) == 1 else "s"
            raise kit.malformed(f"event {kit.events} ({raw.get('type')}) is for {name} {at}, but item "
                                f"{raw.get('output_index')} has {len(added)} part{plural} added")
        part: dict[str, Any] = added[at]
        return at, part

    def _done_item(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        index = kit.number(raw, "output_index", required=True)
        assert index is not None
        item = copy.deepcopy(dict(kit.mapping(raw, "item", required=True)))
        self._done[index] = item
        kind = kit.string(item, "item.type")
        if kind not in _BLOCK_ITEMS:
            return
        kit.listed(item, "item.content" if kind == "message" else "item.summary")  # a list, or the error
        if kind == "reasoning" and (signature := kit.string(item, "item.encrypted_content")):
            yield kit.reasoning(index, signature=signature)
        blocks = self._blocks(item)
        if kind == "message":
            for part, block in enumerate(blocks):
                yield kit.finished((index, part), block)
        elif blocks:
            yield kit.finished(index, blocks[0])

    def _blocks(self, item: Mapping[str, Any]) -> tuple[Block, ...]:
        """One item's blocks, as `decode_response` reads them in a reply holding only it."""
        assert self.response is not None
        return decode_response({"model": self.response.get("model", ""), "status": "completed",
                                "output": [item]}).message.blocks

    def _grown(self, index: int) -> dict[str, Any]:
        """Item `index` as far as it grew: what it began with, and the pieces that came since."""
        item = self._added[index]
        if (index, "arguments") in self._said:
            item["arguments"] = self._said[index, "arguments"]
        for at, part in enumerate(item.get("content") or ()):
            for field in ("text", "refusal"):
                if (index, "content", at, field) in self._said:
                    part[field] = self._said[index, "content", at, field]
        for at, part in enumerate(item.get("summary") or ()):
            if (index, "summary", at) in self._said:
                part["text"] = self._said[index, "summary", at]
        return item

    def _streamed(self) -> list[dict[str, Any]]:
        """The items as they streamed, in order: each as output_item.done sent it, or, if it never
        got there (a reply cut short), as far as it grew."""
        indexes = sorted({*self._added, *self._done})
        return [self._done[i] if i in self._done else self._grown(i) for i in indexes]

    def _agree(self, kind: str, kit: Assembly) -> None:
        """Refuse a terminal Response whose `output` is not the items streamed.

        The SDK's `get_final_response()` takes the terminal event's output; the kit's events
        have already said each streamed block, so an output that holds other blocks (a call
        no event announced, a call's other arguments) would make the `Turn` disagree with
        them. An output with no items streamed at all (a proxy that sends the whole reply in
        its terminal event) is the reply.
        """
        assert self.response is not None
        output = self.response.get("output")
        if output is None or not (self._added or self._done):
            return
        final = {**self.response, "model": self.response.get("model") or ""}
        held = decode_response(final).message.blocks
        said = decode_response({**final, "output": self._streamed()}).message.blocks
        if held == said:
            return
        at = next((i for i, pair in enumerate(zip(held, said, strict=False)) if pair[0] != pair[1]),
                  min(len(held), len(said)))
        raise kit.malformed(f"{kind}'s output is not the items streamed: block {at} streamed as "
                            f"{_shown(said, at)}, and {kind} holds {_shown(held, at)}")

    def turn(self) -> Turn:
        assert self.response is not None
        final = self.response
        if final.get("output") is None:
            # subtle: as the SDK does, the items are then the ones output_item.done sent;
            # one that never got there (a reply cut short) is kept as far as it grew.
            final["output"] = self._streamed()
        final.setdefault("model", "")
        return decode_response(final)


def _error_of(kind: str, raw: Mapping[str, Any]) -> str:
    """What an `error` event or `response.failed` says, e.g. "server_is_overloaded: Our servers are busy."."""
    if kind == "response.failed":
        response = raw.get("response")
        error = response.get("error") if isinstance(response, Mapping) else None
        error = error if isinstance(error, Mapping) else {}
        code, message = error.get("code") or "server_error", error.get("message") or "no message"
        return f"response.failed, {code}: {message}"
    # subtle: the spec's ResponseErrorEvent has code and message at the top; streams relayed
    # from the Codex backend nest them in "error" (zyycn/codex-proxy-rs#90,
    # editor-code-assistant/eca#559). Both are read.
    nested = raw.get("error")
    said: Mapping[str, Any] = nested if isinstance(nested, Mapping) else raw
    return f"{said.get('code') or said.get('type') or 'error'}: {said.get('message') or 'no message'}"


def _named(item: Mapping[str, Any]) -> str:
    """An item as a message names it: e.g. "function_call get_weather (call_01)"."""
    if item.get("type") == "function_call":
        return f"function_call {item.get('name')} ({item.get('call_id')})"
    return str(item.get("type") or "an item with no type")


def _shown(blocks: tuple[Block, ...], at: int) -> str:
    """Block `at` as a message shows it, or "nothing" past the end."""
    return shorten(repr(blocks[at]), 60) if at < len(blocks) else "nothing"
