"""The one seam between the kit and any model: `Provider.complete(transcript, tools=...)`.

A provider takes the whole conversation (the model remembers nothing, so every call
gets all of it) and the tools on offer, and returns one `Turn`. The agent loop is
written against this method alone, which is why the offline scripted provider and a
real API can be swapped in one line.

`Provider` is a `typing.Protocol`: any class with `name`, `model` and a matching
`complete` is a provider, without importing or subclassing anything from the kit.

Every provider of the kit also keeps `provider.requests`, one `SentRequest` per call that
succeeded: the system prompt, the messages and the tools it was sent, the estimated input
tokens, and (for a real provider) the exact body that crossed the wire. The record is the
same on all of them, so a cell that reads it runs unchanged after the one-line swap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .._text import shorten
from ..tokens import estimate_tokens, request_text

if TYPE_CHECKING:
    from ..messages import Message, Transcript
    from ..tool import Tool
    from ..turn import Turn

__all__ = ["Provider", "SentRequest"]


@runtime_checkable
class Provider(Protocol):
    """Anything that can answer a transcript with one model reply.

    A provider must not change the transcript it is given; the caller appends the reply.
    If the call fails, it raises, and the transcript is exactly as it was.
    """

    name: str
    model: str

    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = ()) -> Turn:
        """Send the conversation and the tool definitions; return the model's reply."""
        ...


@dataclass(frozen=True, repr=False)
class SentRequest:
    """What one successful `complete()` call sent; `provider.requests` holds one per call.

    - `system`: the system prompt (None when there was none);
    - `messages`: the conversation as it was at the call: a tuple of the (frozen) `Message`
      objects themselves, so a long loop stores one reference per message, not a copy;
    - `tools`: the `Tool`s offered. Each one's full schema (`tool.spec()`) travels with
      every request, which is why tools cost input tokens on every call;
    - `input_tokens`: the kit's estimate of the input (`estimate_tokens(request_text(...))`,
      about 4 characters per token), worked out the same way on every provider; what the
      provider billed is in `Turn.usage`;
    - `body`: the exact request body that crossed the wire (the same dict as
      `Turn.request`), or None for the scripted provider, which sends nothing anywhere.

    A failed call records nothing. The repr leaves the body out, so it reads the same on
    every provider (print a body with `report.wire_json`):

    >>> from toolcall_lab import Message, Transcript
    >>> from toolcall_lab.tools import get_weather
    >>> SentRequest.of(Transcript("Be brief.", [Message.user("Hi")]), [get_weather])
    SentRequest(system='Be brief.', messages=1, tools=['get_weather'], input_tokens≈100)
    """

    system: str | None
    messages: tuple[Message, ...]
    tools: tuple[Tool, ...]
    input_tokens: int
    body: dict[str, Any] | None = None

    @classmethod
    def of(cls, transcript: Transcript, tools: Sequence[Tool], *,
           body: dict[str, Any] | None = None) -> SentRequest:
        """The record of sending `transcript` with `tools` (and `body`, for a real provider)."""
        tools = tuple(tools)
        return cls(transcript.system, tuple(transcript.messages), tools,
                   estimate_tokens(request_text(transcript, tools)), body)

    def __repr__(self) -> str:
        # subtle: no body, no ids, the system prompt cut short and hidden when empty:
        # one short line that is the same for the scripted provider and every real one.
        system = f"system={shorten(self.system, 40)!r}, " if self.system else ""
        return (f"SentRequest({system}messages={len(self.messages)}, "
                f"tools={[t.name for t in self.tools]}, input_tokens≈{self.input_tokens})")
