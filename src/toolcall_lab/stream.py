"""What a streamed reply says as it arrives: one family of events for all four APIs.

A streamed reply comes in pieces, and every API cuts it differently (Anthropic's
`content_block_delta`s, Responses' `response.output_text.delta`s, Chat's chunks, Ollama's
lines). Each API's stream decoder (`wire.<api>.decode_stream`) turns its pieces into
these events, so a program, a lesson or a widget watches one vocabulary:

    TextDelta(index, text)                some text of block `index` arrived
    ToolCallStarted(index, id, name)      a tool call began: its id and name are known
    ArgumentsDelta(index, json)           a piece of that call's arguments (partial JSON)
    ReasoningDelta(index, text, signature)  reasoning text, or its signature, arrived
    BlockFinished(index, block)           block `index` is complete: the kit's block
    StreamFinished(turn)                  the reply is complete: the same `Turn` the
                                          non-streaming reply decodes to

`index` numbers the reply's blocks 0, 1, 2... in the order they start: on Anthropic and
Responses, their places in the final `Turn`; Chat and Ollama have no blocks on the wire,
and their `Turn` puts reasoning, then text, then calls (as `decode_response` does),
whatever order the pieces came in. The texts of one block's deltas, joined, are the
block's text; the `json` pieces of one call, joined, are its arguments as the wire sent
them. `StreamFinished` comes last, once, after a `BlockFinished` for every block that
started. Each event is a small frozen dataclass with a `kind`, and `str(event)` is one
line (what a server sent is escaped there, so a line break in a name cannot forge a line),
so `for event in decode_stream(...): print(event)` narrates a reply:

>>> from toolcall_lab import ToolCall
>>> events = [ToolCallStarted(1, "toolu_01", "get_weather"), ArgumentsDelta(1, '{"ci'),
...           ArgumentsDelta(1, 'ty": "Paris"}'),
...           BlockFinished(1, ToolCall("toolu_01", "get_weather", {"city": "Paris"}))]
>>> for event in events:
...     print(event)
[1] call get_weather started, id toolu_01
[1] arguments += '{"ci'
[1] arguments += 'ty": "Paris"}'
[1] finished: ToolCall('toolu_01', 'get_weather', {'city': 'Paris'})

Never run a call before `StreamFinished`: until then the reply may still be cut off
(the stream decoders raise `IncompleteStreamError` when it is), and a reply cut at the
output limit ends with stop reason max_tokens and its last call incomplete.

`replay(turn)` gives the events a stream of a finished `Turn` brings, cut as the API
double cuts its streams (every 4 characters): what `ScriptedProvider.stream` plays, so a
lesson can watch a reply arrive offline.

Left out: events for a provider's own tools as they run (a `ServerToolCall` arrives as
its `BlockFinished`), citations, and timing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ._json import unicode_text
from ._text import one_line, shorten
from .blocks import Block, ReasoningBlock, TextBlock, ToolCall
from .turn import Turn

__all__ = ["ArgumentsDelta", "BlockFinished", "ReasoningDelta", "StreamEvent", "StreamFinished",
           "TextDelta", "ToolCallStarted", "replay"]

_SHOWN = 60  # characters of a delta `str(event)` shows


@dataclass(frozen=True)
class TextDelta:
    """Some text of block `index` arrived (the model's words, in order)."""

    index: int
    text: str
    kind: Literal["text_delta"] = "text_delta"

    def __str__(self) -> str:
        return f"[{self.index}] text += {shorten(self.text, _SHOWN)!r}"


@dataclass(frozen=True)
class ToolCallStarted:
    """A tool call began at block `index`: its id and name are known, its arguments are not yet.

    `id` is "" when the API sends none (Ollama's documented calls): the kit mints one
    once the reply is complete, and the call's `BlockFinished` carries it.
    """

    index: int
    id: str
    name: str
    kind: Literal["tool_call_started"] = "tool_call_started"

    def __str__(self) -> str:
        # subtle: a server's name or id is shown as it came, but escaped: a forged "\n" in it
        # could otherwise start a line that looks like the kit's own narration
        return f"[{self.index}] call {one_line(self.name)} started, id {one_line(self.id) or '(none yet)'}"


@dataclass(frozen=True)
class ArgumentsDelta:
    """A piece of the arguments of the call at block `index`: JSON text, not valid on its own."""

    index: int
    json: str
    kind: Literal["arguments_delta"] = "arguments_delta"

    def __str__(self) -> str:
        return f"[{self.index}] arguments += {shorten(self.json, _SHOWN)!r}"


@dataclass(frozen=True)
class ReasoningDelta:
    """Reasoning text of block `index` arrived, or its signature (what lets it go back).

    The signature is Anthropic's `signature`, or the `encrypted_content` of a Responses
    reasoning item; it arrives whole, once, and is sent back unchanged.
    """

    index: int
    text: str = ""
    signature: str = ""
    kind: Literal["reasoning_delta"] = "reasoning_delta"

    def __str__(self) -> str:
        if self.signature:
            return f"[{self.index}] reasoning signature ({len(self.signature)} characters)"
        return f"[{self.index}] reasoning += {shorten(self.text, _SHOWN)!r}"


@dataclass(frozen=True)
class BlockFinished:
    """Block `index` is complete: `block` is the kit's block, exactly as the final `Turn` holds it."""

    index: int
    block: Block
    kind: Literal["block_finished"] = "block_finished"

    def __str__(self) -> str:
        return f"[{self.index}] finished: {self.block!r}"


@dataclass(frozen=True)
class StreamFinished:
    """The reply is complete: the `Turn` the same reply decodes to without streaming."""

    turn: Turn
    kind: Literal["stream_finished"] = "stream_finished"

    def __str__(self) -> str:
        usage = self.turn.usage
        blocks = len(self.turn.message.blocks)
        return (f"done [{self.turn.stop_reason}]: {blocks} block{'' if blocks == 1 else 's'}, "
                f"{usage.input_tokens} tokens in, {usage.output_tokens} out")


StreamEvent = TextDelta | ToolCallStarted | ArgumentsDelta | ReasoningDelta | BlockFinished | StreamFinished


#: Characters per delta, in `replay` and in the double's streams (`wire._framing`): one token
#: by the kit's estimate (`tokens.estimate_tokens`).
PIECE = 4


def pieces(text: str, size: int = PIECE) -> list[str]:
    """`text` cut every `size` characters; an empty text is no piece at all.

    >>> pieces("It is 18°C"), pieces("")
    (['It i', 's 18', '°C'], [])
    """
    return [text[at:at + size] for at in range(0, len(text), size)]


def replay(turn: Turn, *, piece: int = PIECE) -> Iterator[StreamEvent]:
    """The events a stream of `turn` brings, ending in `StreamFinished(turn)`.

    Each text, reasoning text and call's arguments (its JSON text, or `raw_args` when it
    arrived malformed) is cut every `piece` characters, block by block in order; a
    reasoning block's signature (Anthropic's `signature`) comes whole, last; a block that
    does not stream (a provider's own tool call) comes as its `BlockFinished` alone.

    >>> from toolcall_lab import Message, StopReason, ToolCall, Usage
    >>> turn = Turn(Message.assistant("Checking.", ToolCall("toolu_01", "get_weather", {"city": "Paris"})),
    ...             StopReason.TOOL_USE, Usage(10, 8), "m")
    >>> for event in replay(turn, piece=9):
    ...     print(event)
    [0] text += 'Checking.'
    [0] finished: TextBlock('Checking.')
    [1] call get_weather started, id toolu_01
    [1] arguments += '{"city": '
    [1] arguments += '"Paris"}'
    [1] finished: ToolCall('toolu_01', 'get_weather', {'city': 'Paris'})
    done [tool_use]: 2 blocks, 10 tokens in, 8 out
    """
    size = max(piece, 1)
    for index, block in enumerate(turn.message.blocks):
        match block:
            case TextBlock():
                yield from (TextDelta(index, text) for text in pieces(block.text, size))
            case ToolCall():
                yield ToolCallStarted(index, block.id, block.name)
                arguments = block.raw_args if block.raw_args is not None else unicode_text(dict(block.args))
                yield from (ArgumentsDelta(index, text) for text in pieces(arguments, size))
            case ReasoningBlock():
                yield from (ReasoningDelta(index, text) for text in pieces(block.text, size))
                signature = block.opaque.get("signature")
                if isinstance(signature, str) and signature:
                    yield ReasoningDelta(index, signature=signature)
            case _:
                pass  # subtle: a provider's own tool and its result arrive whole, as on the wire
        yield BlockFinished(index, block)
    yield StreamFinished(turn)
