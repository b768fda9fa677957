"""The one seam between the kit and any model: `Provider.complete(transcript, tools=...)`.

A provider takes the whole conversation (the model remembers nothing, so every call
gets all of it) and the tools on offer, and returns one `Turn`. The agent loop is
written against this method alone, which is why the offline scripted provider and a
real API can be swapped in one line.

`Provider` is a `typing.Protocol`: any class with `name`, `model` and a matching
`complete` is a provider, without importing or subclassing anything from the kit.

A provider that can stream also has `stream(transcript, tools=...)` (`StreamingProvider`):
the same reply as the kit's stream events (`toolcall_lab.stream`), the last one
`StreamFinished(turn)` with the `Turn` that `complete` would have returned;
`run_agent(..., stream=True)` uses it. The kit's own providers have both methods on one
base class, `BaseProvider`, as openai-agents' `Model` has `get_response` and
`stream_response` (github.com/openai/openai-agents-python, src/agents/models/interface.py:
"It provides methods for both standard and streaming responses"): `ScriptedProvider` plays
its reply as events, `WireProvider` reads the SDK's stream. What a provider that cannot
stream says is written once, here (`streaming`): `BaseProvider.stream`, left as it is, says
it, and so does `run_agent` for a one-method provider, before anything is sent. pydantic-ai's
`Model.request_stream` has the same default (github.com/pydantic/pydantic-ai,
pydantic_ai_slim/pydantic_ai/models/__init__.py: "This method is not required, but you
need to implement it if you want to support streamed responses").

Every provider of the kit also keeps `provider.requests`, one `SentRequest` per call that
succeeded: the system prompt, the messages and the tools it was sent, the estimated input
tokens, and (for a real provider) the exact body that crossed the wire. The record is the
same on all of them, so a cell that reads it runs unchanged after the one-line swap.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from .._text import shorten
from ..errors import UsageTypeError
from ..tokens import message_chars, request_tokens

if TYPE_CHECKING:
    from ..messages import Message
    from ..stream import StreamEvent
    from ..tool import Tool
    from ..transcript import Transcript
    from ..turn import Turn

__all__ = ["BaseProvider", "Provider", "SentRequest", "StreamingProvider", "streaming"]


@runtime_checkable
class Provider(Protocol):
    """Anything that can answer a transcript with one model reply.

    A provider must not change the transcript it is given; the caller appends the reply.
    If the call fails, it raises, and the transcript is exactly as it was.
    """

    @property
    def name(self) -> str: ...  # read-only, so a class attribute (ClassVar) satisfies it too
    model: str

    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = ()) -> Turn:
        """Send the conversation and the tool definitions; return the model's reply.

        The kit's providers also take `tool_choice=` and `parallel_tool_calls=` (see
        `toolcall_lab.tool_choice`); `run_agent` passes them only when they are set, so a
        provider without them still runs every loop that does not ask for a choice.
        """
        ...


@runtime_checkable
class StreamingProvider(Provider, Protocol):
    """A provider that can also hand its reply over as it arrives.

    `stream` takes what `complete` takes and yields the kit's stream events, in order,
    ending in `StreamFinished(turn)`: the same `Turn` `complete` returns for the same reply.
    A stream that breaks off raises `IncompleteStreamError` (before any `StreamFinished`),
    and, as with `complete`, the transcript it was given is never changed.
    """

    def stream(self, transcript: Transcript, *, tools: Sequence[Tool] = ()) -> Iterator[StreamEvent]:
        """Send the conversation and the tools; yield the reply as it arrives."""
        ...


class BaseProvider(ABC):
    """The base of the kit's providers: `complete`, and `stream` beside it, on one class.

    A subclass writes `complete` (the reply as one `Turn`) and, if it can, `stream` (the
    same reply as events, ending in `StreamFinished(turn)`). Left as it is, `stream` raises
    the kit's `UsageTypeError` saying this provider cannot stream, and `run_agent(...,
    stream=True)` says so before it sends anything (`streaming`).

    >>> from toolcall_lab import Message, StopReason, Transcript, Turn, Usage
    >>> class Fixed(BaseProvider):
    ...     name, model = "fixed", "fixed-1"
    ...     def complete(self, transcript, *, tools=(), tool_choice=None, parallel_tool_calls=None):
    ...         return Turn(Message.assistant("Hi."), StopReason.END_TURN, Usage(), self.model)
    >>> Fixed().complete(Transcript()).message.text
    'Hi.'
    >>> next(Fixed().stream(Transcript()))
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageTypeError: Fixed cannot stream: it has no stream method of its own; ...
    """

    name: str   # "scripted", "anthropic", ...: the class's, or an instance's own (a local server's preset)
    model: str

    @abstractmethod
    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = (), tool_choice: str | None = None,
                 parallel_tool_calls: bool | None = None) -> Turn:
        """Send the conversation and the tools; return the model's reply (see `Provider`)."""

    def stream(self, transcript: Transcript, *, tools: Sequence[Tool] = (), tool_choice: str | None = None,
               parallel_tool_calls: bool | None = None) -> Iterator[StreamEvent]:
        """The reply as it arrives (see `StreamingProvider`); here: the error saying there is none."""
        raise _cannot_stream(self)


def streaming(provider: Provider) -> StreamingProvider:
    """`provider`, if it can stream; else `UsageTypeError`, the one sentence saying it cannot.

    A provider cannot stream when it has no `stream` (a one-method provider, as lesson 9's
    `EchoProvider`) or only `BaseProvider`'s, which says just that.

    >>> from toolcall_lab import ScriptedProvider
    >>> streaming(ScriptedProvider(["Hi."])).name
    'scripted'
    """
    method = getattr(provider, "stream", None)
    if not callable(method) or getattr(method, "__func__", None) is BaseProvider.stream:
        raise _cannot_stream(provider)
    return cast(StreamingProvider, provider)


def _cannot_stream(provider: object) -> UsageTypeError:
    name = type(provider).__name__
    return UsageTypeError(
        f"{name} cannot stream: it has no stream method of its own; leave stream=True out (the same "
        f"run, unstreamed), or give {name} a stream(transcript, *, tools=()) that yields the reply's "
        "events and ends with StreamFinished(turn) (toolcall_lab.providers.base.BaseProvider).")


class SentRequest:
    """What one successful `complete()` call sent; `provider.requests` holds one per call.

    - `system`: the system prompt (None when there was none);
    - `messages`: the conversation as it was at the call, a tuple of the (frozen) `Message`
      objects themselves;
    - `tools`: the `Tool`s offered. Each one's full schema (`tool.spec()`) travels with
      every request, which is why tools cost input tokens on every call;
    - `input_tokens`: the kit's estimate of the input (`tokens.request_tokens`, the same
      number as `estimate_tokens(request_text(...))`: about 4 characters per token), worked
      out the same way on every provider; what the provider billed is in `Turn.usage`;
    - `body`: the exact request body that crossed the wire (the same dict as
      `Turn.request`), or None for the scripted provider, which sends nothing anywhere;
    - `tool_choice`, `parallel_tool_calls`: what the call asked of the model's use of the
      tools, in the kit's vocabulary (`toolcall_lab.tool_choice`), None when not asked.

    A loop re-sends the whole conversation on every call, so n records of copied messages
    would hold n*(n+1)/2 references. `of` keeps one append-only store of messages per
    conversation instead, shared by the records of its calls, and each record keeps only how
    many of them it sent; `messages` hands back that prefix. A transcript rewritten in the
    middle (not just appended to) starts a new store, so a record never changes.

    A failed call records nothing. The repr leaves the body out, so it reads the same on
    every provider (print a body with `report.wire_json`):

    >>> from toolcall_lab import Message, Transcript
    >>> from toolcall_lab.tools import get_weather
    >>> SentRequest.of(Transcript("Be brief.", [Message.user("Hi")]), [get_weather])
    SentRequest(system='Be brief.', messages=1, tools=['get_weather'], input_tokens≈100)
    """

    __slots__ = ("_count", "_store", "body", "input_tokens", "parallel_tool_calls", "system", "tool_choice",
                 "tools")
    _store: _Store
    _count: int

    system: str | None
    tools: tuple[Tool, ...]
    input_tokens: int
    body: dict[str, Any] | None
    tool_choice: str | None
    parallel_tool_calls: bool | None

    def __init__(self, system: str | None, messages: Sequence[Message], tools: Sequence[Tool],
                 input_tokens: int, body: dict[str, Any] | None = None, *, tool_choice: str | None = None,
                 parallel_tool_calls: bool | None = None) -> None:
        self._set(system=system, _store=_Store(messages), _count=len(messages), tools=tuple(tools),
                  input_tokens=input_tokens, body=body, tool_choice=tool_choice,
                  parallel_tool_calls=parallel_tool_calls)

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"SentRequest is a record of what was sent and cannot change ({name!r})")

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages this call sent, oldest first (a prefix of the shared store)."""
        return tuple(self._store[: self._count])

    @classmethod
    def of(cls, transcript: Transcript, tools: Sequence[Tool], *, body: dict[str, Any] | None = None,
           previous: SentRequest | None = None, tool_choice: str | None = None,
           parallel_tool_calls: bool | None = None) -> SentRequest:
        """The record of sending `transcript` with `tools` (and `body`, for a real provider).

        `previous`, the provider's last record, lends its message store when this
        conversation continues it (the loop's case), so nothing is copied or measured twice.
        """
        messages = transcript.messages
        store = _shared_store(previous._store if previous is not None else None, messages)
        record = cls.__new__(cls)
        tokens = request_tokens(transcript, tools, messages_chars=store.chars[len(messages)])
        record._set(system=transcript.system, _store=store, _count=len(messages), tools=tuple(tools),
                    input_tokens=tokens, body=body, tool_choice=tool_choice,
                    parallel_tool_calls=parallel_tool_calls)
        return record

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SentRequest):
            return NotImplemented
        return ((self.system, self.messages, self.tools, self.input_tokens, self.body, self.tool_choice,
                 self.parallel_tool_calls)
                == (other.system, other.messages, other.tools, other.input_tokens, other.body,
                    other.tool_choice, other.parallel_tool_calls))

    __hash__ = None  # type: ignore[assignment]  # like the dataclass it was: equal by value, unhashable

    def __repr__(self) -> str:
        # subtle: no body, no ids, the system prompt cut short and hidden when empty:
        # one short line that is the same for the scripted provider and every real one.
        system = f"system={shorten(self.system, 40)!r}, " if self.system else ""
        choice = "".join(f", {name}={value!r}" for name, value in (
            ("tool_choice", self.tool_choice), ("parallel_tool_calls", self.parallel_tool_calls))
            if value is not None)
        return (f"SentRequest({system}messages={self._count}, "
                f"tools={[t.name for t in self.tools]}{choice}, input_tokens≈{self.input_tokens})")


class _Store(list["Message"]):
    """An append-only list of messages and the running total of their lengths (`chars[k]`:
    characters the first k take inside `request_text`)."""

    __slots__ = ("chars",)

    def __init__(self, messages: Sequence[Message] = ()) -> None:
        super().__init__()
        self.chars = [0]
        self.grow(messages)

    def grow(self, messages: Sequence[Message]) -> None:
        """Append the messages past the end of this store (the store is a prefix of `messages`)."""
        for message in messages[len(self):]:
            self.append(message)
            self.chars.append(self.chars[-1] + message_chars(message))


def _shared_store(store: _Store | None, messages: Sequence[Message]) -> _Store:
    """`store`, grown to hold `messages`, when one starts with the other; else a new store.

    Compared as lists, in C: CPython compares list items by identity first, so thousands
    of the same (frozen) message objects compare in microseconds.

    >>> from toolcall_lab import Message
    >>> a, b = Message.user("a"), Message.user("b")
    >>> store = _Store([a])
    >>> _shared_store(store, [a, b]) is store, store == [a, b], _shared_store(store, [b]) is store
    (True, True, False)
    """
    shared = min(len(store), len(messages)) if store is not None else 0
    # subtle: a message equals only a message with its id (random per message), so two first
    # messages of different ids tell at once what comparing the lists would find field by field
    if store is None or (shared and store[0] is not messages[0] and store[0].id != messages[0].id) \
            or store[:shared] != messages[:shared]:
        return _Store(messages)
    store.grow(messages)  # subtle: append-only, so earlier records keep their prefix
    return store
