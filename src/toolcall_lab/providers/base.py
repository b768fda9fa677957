"""The one seam between the kit and any model: `Provider.complete(transcript, tools=...)`.

A provider takes the whole conversation (the model remembers nothing, so every call
gets all of it) and the tools on offer, and returns one `Turn`. The agent loop is
written against this method alone, which is why the offline scripted provider and a
real API can be swapped in one line.

`Provider` is a `typing.Protocol`: any class with `name`, `model` and a matching
`complete` is a provider, without importing or subclassing anything from the kit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..messages import Transcript
    from ..tool import Tool
    from ..turn import Turn

__all__ = ["Provider"]


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
