"""One reply from a model: a `Turn`, and why it ended: its `StopReason`.

A provider's `complete()` returns a `Turn`. Besides the assistant message it carries
what a program needs to decide what to do next (the stop reason), what the call cost
(usage), which model answered, how long it took, and, when a real provider made it,
the request and response bodies exactly as they crossed the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ._display import html_of
from ._text import PartsRepr
from .blocks import ToolCall
from .errors import UsageError
from .messages import Message
from .usage import Usage

__all__ = ["StopReason", "Turn"]


class StopReason(StrEnum):
    """Why a reply ended, which decides what your loop does next.

    | value                   | what to do                                                  |
    |-------------------------|-------------------------------------------------------------|
    | end_turn                | the answer is complete: use it                              |
    | tool_use                | run the requested tools, send the results, call again       |
    | max_tokens              | cut off at the output limit: a tool call in it is incomplete |
    | stop_sequence           | one of your stop sequences matched: treat as complete       |
    | refusal                 | the model declined: rephrase, or try another model          |
    | pause_turn              | the provider paused a long turn: send it back to continue   |
    | context_window_exceeded | the conversation filled the context window: truncated       |

    Anthropic names the last one `model_context_window_exceeded`; adapters map every
    API's own values onto these seven.
    """

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    STOP_SEQUENCE = "stop_sequence"
    REFUSAL = "refusal"
    PAUSE_TURN = "pause_turn"
    CONTEXT_WINDOW_EXCEEDED = "context_window_exceeded"

    def __repr__(self) -> str:
        return f"StopReason.{self.name}"


@dataclass(frozen=True, repr=False)
class Turn(PartsRepr):
    """One model reply.

    `request` and `response` are the wire bodies (JSON objects, never headers, so no
    key can hide in them) when a real provider made the turn; `None` for the scripted
    provider. A streamed reply has no one body: its `response` is `{"events": [...]}`, the
    raw events in the order they arrived (`WireProvider.stream`). `latency_s` is the
    seconds the call took: measured (wall clock, send to the whole reply) by a real
    provider, stated by the scripted one (`ScriptedProvider(..., latency_s=1.2)`, 0.0
    unless told), so a lesson's committed output can show it. A reply
    that asks for a tool is never the last call: the answer needs one more, so a question
    answered with a tool waits at least two calls' latency plus the tool's own time
    (`Run.latency_s` adds up the calls). It is left out of the repr, which stays the same
    from run to run.
    """

    message: Message
    stop_reason: StopReason
    usage: Usage
    model: str
    latency_s: float = 0.0
    request: Mapping[str, Any] | None = None
    response: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.message.role != "assistant":
            raise UsageError(f"a Turn holds the model's reply, an assistant message, not a "
                             f"{self.message.role} message.")
        object.__setattr__(self, "stop_reason", StopReason(self.stop_reason))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return self.message.tool_calls

    @property
    def text(self) -> str:
        return self.message.text

    def _parts(self) -> list[str]:
        return [repr(self.message), f"stop_reason={self.stop_reason!r}",
                f"usage={self.usage!r}", f"model={self.model!r}"]

    def _repr_html_(self) -> str | None:
        return html_of(self)  # the views register it from above (`_display.py`)
