"""The one stream assembler the four APIs share: wire events in, the kit's events out.

Each API's `stream.py` is a `Reader`: it knows what its wire events mean, rebuilds the
non-streaming reply from them (as the official SDKs' accumulators do) and says each
piece through an `Assembly`. Everything that does not depend on the API lives here,
written once (`decode`):

- the order of the kit's events: each block's index given when it starts, deltas only
  for a block that is open, one `BlockFinished` per block, `StreamFinished` last;
- the end: a stream that stops before the API's end of reply raises
  `IncompleteStreamError`, saying what had arrived and what had not; and nothing after
  the end changes the reply: an event there that is not one the API sends after its end
  (a keep-alive, an error, Chat's usage chunk: the reader's `trailing`) is refused;
- the final `Turn`: the API's own `decode_response` of the rebuilt reply, so a streamed
  reply and the same reply unstreamed decode alike, by construction;
- linear time: text and arguments that arrive in pieces are kept as `Pieces`, lists joined
  once when read, never a string grown with `+=` per delta (which copies the whole text
  each time: quadratic; `benchmarks/stream_decode_scale.py`).

A worked example, with a made-up reader whose wire events are ("text", "Hi") pairs and
("end",), to show the shape every API's reader has:

>>> from toolcall_lab import Message, StopReason, Turn, Usage
>>> class Pairs:
...     END = "end"
...     def __init__(self):
...         self.finished, self.said = False, ""
...     def trailing(self, raw):
...         return False  # nothing comes after "end"
...     def read(self, raw, kit):
...         if raw["type"] == "end":
...             self.finished = True
...             return []
...         self.said += raw["text"]
...         return [kit.text("words", raw["text"])]
...     def turn(self):
...         return Turn(Message.assistant(self.said), StopReason.END_TURN, Usage(), "m")
>>> for event in decode([{"type": "text", "text": "Hi"}, {"type": "end"}], Pairs(), provider="toy"):
...     print(event)
[0] text += 'Hi'
[0] finished: TextBlock('Hi')
done [end_turn]: 1 block, 0 tokens in, 0 out
>>> list(decode([{"type": "text", "text": "It is 18°C and sunny"}], Pairs(), provider="toy"))
Traceback (most recent call last):
...
toolcall_lab.errors.IncompleteStreamError: the stream ended after 1 event, before end: text 'It is 18°C…' \
had arrived; nothing was added to the transcript and no tool ran: call again.
>>> list(decode([{"type": "end"}, {"type": "text", "text": "and"}], Pairs(), provider="toy"))
Traceback (most recent call last):
...
toolcall_lab.errors.MalformedResponseError: toy's stream is not the API's: event 2 (text) came after end, \
the end of the reply; check the server's URL, or report the server.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Literal, Protocol, TypeVar, assert_never

from .._text import shorten
from ..blocks import Block, ReasoningBlock, ServerToolCall, ServerToolResult, TextBlock, ToolCall
from ..errors import IncompleteStreamError, MalformedResponseError, UsageTypeError
from ..stream import (
    ArgumentsDelta,
    BlockFinished,
    ReasoningDelta,
    StreamEvent,
    StreamFinished,
    TextDelta,
    ToolCallStarted,
)
from ..turn import Turn
from ._shared import json_text

__all__ = ["Assembly", "Pieces", "Reader", "decode"]

_Default = TypeVar("_Default")
#: An event about one block (every kind but StreamFinished, which is about the reply).
_Said = TypeVar("_Said", TextDelta, ToolCallStarted, ArgumentsDelta, ReasoningDelta, BlockFinished)
_QUOTED = 11  # characters of text or arguments an error message quotes
#: The kit's blocks each kind of streamed block becomes.
_KINDS: dict[str, type | UnionType] = {"text": TextBlock, "call": ToolCall, "reasoning": ReasoningBlock,
                                       "other": ReasoningBlock | ServerToolCall | ServerToolResult}
#: The kind of block each delta belongs to, what it adds, and how a message names a block of each kind.
_KIND_OF: dict[type, tuple[str, str]] = {
    TextDelta: ("text", "text"), ReasoningDelta: ("reasoning", "reasoning"),
    ToolCallStarted: ("call", "a tool call"), ArgumentsDelta: ("call", "a call's arguments")}
_NAMED = {"text": "text", "call": "a tool call", "reasoning": "reasoning", "other": "a provider's own block"}


class Reader(Protocol):
    """One API's half of a stream decoder: what its wire events mean, and the reply they rebuild.

    `END` names the API's end of reply, as its docs do ("message_stop"); `finished` is
    True once it arrived; `read` says, through `kit`, what one wire event carries (and
    raises `kit.broke(...)` for an error event); `trailing` says whether an event that
    comes after the end is one the API sends there (a `ping`); `turn` is
    `decode_response` of the rebuilt reply, asked once, after the last event.
    """

    @property
    def END(self) -> str: ...  # a constant on most readers; Chat's changes as its stream goes

    @property
    def finished(self) -> bool: ...

    def trailing(self, raw: Mapping[str, Any]) -> bool: ...

    def read(self, raw: Mapping[str, Any], kit: Assembly) -> Iterable[StreamEvent]: ...

    def turn(self) -> Turn: ...


def decode(raw_events: Iterable[Mapping[str, Any]], reader: Reader, *,
           provider: str) -> Iterator[StreamEvent]:
    """The kit's events for a stream of wire events, read by `reader`, ending in `StreamFinished`.

    Blocks still open when the reply ends (Chat and Ollama never close theirs; a call cut
    at the output limit is never closed either) finish then, as the final `Turn` holds
    them, in index order. A field of the wrong type that a reader did not check itself
    (`Assembly.mapping`, ...) is still the kit's `MalformedResponseError`, never a bare
    `TypeError` or `KeyError`.
    """
    kit = Assembly(provider, reader.END)
    for raw in raw_events:
        kit.events += 1
        kit.raw = _checked(raw, kit)
        try:
            if reader.finished and not reader.trailing(kit.raw):
                raise kit.late(reader.END)
            yield from reader.read(kit.raw, kit)
        except _UNREAD as exc:
            raise kit.malformed(f"{kit.where()} cannot be read ({_said(exc)})") from None
    if not reader.finished:
        kit.end = reader.END  # subtle: what is due can change as the stream goes (Chat's usage chunk)
        raise kit.broke()
    try:
        turn = reader.turn()
    except _UNREAD as exc:
        raise kit.malformed(f"the reply its events rebuild is not the API's ({_said(exc)})") from None
    yield from kit.close(turn)
    yield StreamFinished(turn)


#: What reading a field of the wrong type raises in Python (a UsageError from decode_response too).
_UNREAD = (KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError)


def _said(exc: BaseException) -> str:
    """What `exc` says, its first clause, e.g. KeyError('content') -> "KeyError: 'content'"."""
    return f"{type(exc).__name__}: {shorten(str(exc).partition('; ')[0], 80)}"


def _checked(raw: object, kit: Assembly) -> Mapping[str, Any]:
    """`raw` if it is a wire event as a dict; an SDK's event object is the caller's slip, said so."""
    if isinstance(raw, Mapping):
        return raw
    if hasattr(raw, "to_dict") or hasattr(raw, "model_dump"):
        raise UsageTypeError(f"decode_stream reads each event as a dict, the JSON the wire carries, not "
                             f"a {type(raw).__name__}; pass event.to_dict() (the ollama client's: "
                             "part.model_dump(exclude_none=True)).")
    raise kit.malformed(f"event {kit.events} is a {type(raw).__name__}, not a JSON object")


class Pieces:
    """Texts that arrive in pieces, each kept as a list and joined once, when it is read.

    `text += piece` per delta copies the whole text every time: a 400 KB reply in
    4-character deltas is 100,000 copies of up to 400 KB. A list appended to, joined when
    asked for (and kept joined), is linear.

    >>> said = Pieces()
    >>> said.add("text", "It i")
    >>> said.add("text", "s 18°C")
    >>> said["text"], "text" in said, said.get("other")
    ('It is 18°C', True, '')
    """

    def __init__(self) -> None:
        self._pieces: dict[Hashable, list[str]] = {}

    def add(self, key: Hashable, piece: str, *, start: str = "") -> None:
        """`piece` after what came of `key` so far; after `start` when it is the first (the
        text an item began with, say)."""
        if key not in self._pieces:
            self._pieces[key] = [start] if start else []
        self._pieces[key].append(piece)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._pieces

    def __getitem__(self, key: Hashable) -> str:
        pieces = self._pieces[key]
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]  # subtle: kept joined, so reading it again costs nothing
        return pieces[0] if pieces else ""

    def get(self, key: Hashable, default: str = "") -> str:
        return self[key] if key in self._pieces else default


@dataclass
class _Part:
    """What has arrived of one block: its kind, its text or arguments so far, a call's name."""

    kind: Literal["text", "call", "reasoning", "other"]
    pieces: list[str] = field(default_factory=list)  # its text or arguments, joined when read
    name: str = ""
    whole: bool = False  # a call's arguments are all in, though the block is not finished yet
    done: bool = False

    @property
    def text(self) -> str:
        return "".join(self.pieces)


class Assembly:
    """What a stream has delivered so far, each piece turned into the kit's event.

    A block is known by the reader's own key (Anthropic's block index, a Responses item's
    part, Chat's "text"); the kit numbers blocks 0, 1, 2... in the order they start.
    """

    def __init__(self, provider: str, end: str) -> None:
        self.provider, self.end = provider, end
        self.events = 0
        self.raw: Mapping[str, Any] = {}  # the wire event being read
        self._index: dict[Hashable, int] = {}
        self._parts: list[_Part] = []

    # -- what arrived -------------------------------------------------------------------------
    def begin(self, key: Hashable, kind: Literal["text", "call", "reasoning", "other"]) -> int:
        """The index of the block `key`, started now as `kind` if it is new."""
        if key not in self._index:
            self._index[key] = len(self._parts)
            self._parts.append(_Part(kind))
        return self._index[key]

    def text(self, key: Hashable, text: str) -> TextDelta:
        return self._said(TextDelta(self.begin(key, "text"), text))

    def call(self, key: Hashable, call_id: str, name: str) -> ToolCallStarted:
        return self._said(ToolCallStarted(self.begin(key, "call"), call_id, name))

    def arguments(self, key: Hashable, json: str) -> ArgumentsDelta:
        return self._said(ArgumentsDelta(self.begin(key, "call"), json))

    def reasoning(self, key: Hashable, text: str = "", signature: str = "") -> ReasoningDelta:
        return self._said(ReasoningDelta(self.begin(key, "reasoning"), text, signature))

    def whole(self, key: Hashable) -> None:
        """The call `key`'s arguments are all in (an Ollama call comes whole; Responses says .done)."""
        self._parts[self.begin(key, "call")].whole = True

    def finished(self, key: Hashable, block: Block) -> BlockFinished:
        """Block `key` is complete, as `block` (started now if nothing of it came before)."""
        return self._said(BlockFinished(self.begin(key, "other"), block))

    def _said(self, event: _Said) -> _Said:
        """`event`, once what it tells of its block is noted (what `arrived` reports).

        e.g. ArgumentsDelta(1, '{"ci') -> block 1's arguments so far end in '{"ci'.
        """
        part = self._parts[event.index]
        if part.done:
            raise self.malformed(f"event {self.events} adds to block {event.index} after it finished")
        kind, adds = _KIND_OF.get(type(event), (part.kind, ""))
        if kind != part.kind:
            raise self.malformed(f"{self.where()} adds {adds} to block {event.index}, which is "
                                 f"{_NAMED[part.kind]}")
        match event:
            case TextDelta() | ReasoningDelta():
                part.pieces.append(event.text)
            case ArgumentsDelta():
                part.pieces.append(event.json)
            case ToolCallStarted():
                part.name = event.name
            case BlockFinished():
                part.done = True
            case _:
                assert_never(event)
        return event

    def close(self, turn: Turn) -> Iterator[BlockFinished]:
        """A `BlockFinished` for each block still open, as `turn` holds it.

        Block `index` of the turn, when it is of the open block's kind; else the turn's next
        unclaimed block of that kind (Chat and Ollama have no blocks on the wire, and their
        `Turn` puts reasoning, then text, then calls). Among text or reasoning blocks, the one
        whose text is what the deltas said comes first (Chat's content and refusal are two
        text blocks, and either may start first).
        """
        blocks = turn.message.blocks
        claimed = {index for index, part in enumerate(self._parts) if part.done}
        for index, part in enumerate(self._parts):
            if part.done:
                continue
            fits = self._fits(index, part, blocks, claimed)
            if not fits:
                raise self.malformed(f"block {index} ({part.kind}) started, but the finished reply "
                                     "has no such block")
            claimed.add(fits[0])
            part.done = True
            yield BlockFinished(index, blocks[fits[0]])

    @staticmethod
    def _fits(index: int, part: _Part, blocks: tuple[Block, ...], claimed: set[int]) -> list[int]:
        """The turn's blocks open block `index` may be, best first (see `close`)."""
        fits = [at for at in (index, *range(len(blocks))) if at < len(blocks) and at not in claimed
                and isinstance(blocks[at], _KINDS[part.kind])]
        if part.kind in ("text", "reasoning"):
            said = part.text
            fits = [at for at in fits if getattr(blocks[at], "text", None) == said] + fits
        return fits

    # -- what a field holds: the type the API sends, or the kit's error naming it ---------------------
    def mapping(self, holder: Mapping[str, Any], path: str, *, within: str = "",
                required: bool = False) -> Mapping[str, Any]:
        """The field `path` names in `holder` (its last name: "delta" of "choices[0].delta";
        `within` is the path of `holder` itself, for a message), a JSON object; {} when it is
        absent or null, unless `required`."""
        value = holder.get(path.rpartition(".")[2])
        if type(value) is dict or isinstance(value, Mapping):
            return value
        if value is None:
            return self._absent(within, path, required, {})
        raise self.wrong(_joined(within, path), value, "an object")

    def listed(self, holder: Mapping[str, Any], path: str, *, within: str = "") -> list[Any]:
        """The field `path` names in `holder`, a JSON list; [] when it is absent or null."""
        value = holder.get(path.rpartition(".")[2])
        if type(value) is list or isinstance(value, tuple):
            return list(value)
        if value is None:
            return []
        raise self.wrong(_joined(within, path), value, "a list")

    def string(self, holder: Mapping[str, Any], path: str, *, within: str = "",
               required: bool = False) -> str:
        """The field `path` names in `holder`, a string; "" when it is absent or null, unless `required`."""
        value = holder.get(path.rpartition(".")[2])
        if isinstance(value, str):
            return value
        if value is None:
            return self._absent(within, path, required, "")
        raise self.wrong(_joined(within, path), value, "a string")

    def number(self, holder: Mapping[str, Any], path: str, *, within: str = "",
               required: bool = False) -> int | None:
        """The field `path` names in `holder`, a whole number; None when it is absent or null,
        unless `required`."""
        value = holder.get(path.rpartition(".")[2])
        if type(value) is int:
            return value
        if value is None:
            return self._absent(within, path, required, None)
        raise self.wrong(_joined(within, path), value, "a whole number")

    def _absent(self, within: str, path: str, required: bool, default: _Default) -> _Default:
        if required:
            raise self.malformed(f"{self.where()} has no {_joined(within, path)}")
        return default

    def wrong(self, path: str, value: object, expected: str) -> MalformedResponseError:
        """e.g. wrong("index", "0", "a whole number") -> "... event 3 (content_block_delta)'s
        index is a string ('0'), not a whole number; ..."."""
        return self.malformed(f"{self.where()}'s {path} is {_described(value)}, not {expected}")

    def where(self) -> str:
        """The event being read, as a message names it: "event 3 (content_block_delta)", or "event 3"."""
        kind = self.raw.get("type")
        return f"event {self.events} ({shorten(kind, 40)})" if isinstance(kind, str) and kind else \
            f"event {self.events}"

    # -- what went wrong ------------------------------------------------------------------------
    def broke(self, error: str = "") -> IncompleteStreamError:
        """The kit's error for a stream that stopped early: `error` is what the server sent, if anything.

        e.g. broke("overloaded_error: Overloaded") after 3 events -> "anthropic sent an
        error after 3 events (overloaded_error: Overloaded): nothing had arrived; ...".
        """
        events = f"{self.events} event{'' if self.events == 1 else 's'}"
        how = (f"{self.provider} sent an error after {events} ({error.rstrip('.')})" if error
               else f"the stream ended after {events}, before {self.end}")
        arrived = self.arrived()
        return IncompleteStreamError(f"{how}: {arrived}; nothing was added to the transcript "
                                     "and no tool ran: call again.", provider=self.provider,
                                     events=self.events, arrived=arrived)

    def late(self, end: str) -> MalformedResponseError:
        """The kit's error for an event after the end of reply `end`: whatever it says, the reply
        was complete, so it cannot be added to (a call after message_stop would never run right)."""
        return self.malformed(f"{self.where()} came after {end}, the end of the reply")

    def malformed(self, what: str) -> MalformedResponseError:
        return MalformedResponseError(f"{self.provider}'s stream is not the API's: {what}; check the "
                                      "server's URL, or report the server.", provider=self.provider)

    def arrived(self) -> str:
        """What has arrived, in a few words.

        e.g. "text 'Hi' had arrived and get_weather's arguments were cut at '{"ci'".
        """
        whole: list[str] = []
        cut: list[str] = []
        for part in self._parts:
            match part.kind:
                case "text" | "reasoning":
                    whole.append(f"{part.kind} {shorten(part.text, _QUOTED)!r}")
                case "call" if part.done or part.whole:
                    whole.append(f"a whole {part.name} call")
                case "call" if part.text:
                    shown = part.text if len(part.text) <= _QUOTED else "…" + part.text[-_QUOTED + 1:]
                    cut.append(f"{part.name}'s arguments were cut at {shown!r}")
                case "call":
                    cut.append(f"{part.name}'s call had begun, with no arguments yet")
                case "other":
                    whole.append("a provider's own block")
        said = [_listed(whole) + " had arrived"] if whole else []
        return " and ".join(said + cut) or "nothing had arrived"


def _joined(within: str, path: str) -> str:
    """e.g. ("choices[0].delta", "content") -> "choices[0].delta.content"."""
    return f"{within}.{path}" if within else path


def _described(value: object) -> str:
    """A value as an error message shows it: its JSON type, and the value, cut short.

    >>> _described("0"), _described([1, 2]), _described(True), _described(None)
    ("a string ('0')", 'a list ([1, 2])', 'the boolean true', 'null')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"a string ({shorten(value, 24)!r})"
    kind = ("a number" if isinstance(value, int | float) else "a list" if isinstance(value, list | tuple)
            else "an object" if isinstance(value, Mapping) else f"a {type(value).__name__}")
    return f"{kind} ({shorten(json_text(value), 24)})"


def _listed(items: list[str]) -> str:
    """e.g. ["text 'Hi'", "a whole f call", "a whole f call"] -> "text 'Hi' and 2 whole f calls"."""
    counted, shown = Counter(items), []
    for item in items:
        if counted[item] > 1 and item.startswith("a "):
            item = f"{counted[item]} {item.removeprefix('a ')}s"  # a whole f call, twice: 2 whole f calls
            if item in shown:
                continue
        shown.append(item)
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
