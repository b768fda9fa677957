"""What a lesson can watch: one event per step of the agent loop.

`run_agent(..., on_event=...)` calls `on_event` with one event each time something happens:

    CallSent        your code is about to send the whole transcript to the model
    ReplyReceived   the model replied (a `Turn`)
    ToolExecuted    your code ran one tool call and has its result
    ToolRefused     your code's permission gate refused a call: it did not run (`approval.py`)
    RunFinished     the loop stopped, and why

Each is a small frozen dataclass with a `kind` discriminator, and `str(event)` is one line
of narration (a name or an id the model sent is escaped there, so a line break in it cannot
forge a line), so `on_event=print` tells a run as it happens:

>>> from toolcall_lab import ScriptedProvider, run_agent
>>> from toolcall_lab.examples import PARIS_QUESTION, weather_policy
>>> from toolcall_lab.tools import get_weather
>>> run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather],
...                 on_event=print)
[1] your code -> model: 1 message, tools: get_weather
[1] model -> your code: asks for get_weather({'city': 'Paris'}) id=toolu_01 [tool_use]
[1] your code ran get_weather -> result for toolu_01: '18°C, sunny'
[2] your code -> model: 3 messages, tools: get_weather
[2] model -> your code: "It's 18°C and sunny in Paris." [end_turn]
[2] done (end_turn): the model answered.

With `run_agent(..., stream=True)` each reply is streamed, and `on_event` also receives,
between a call's `CallSent` and its `ReplyReceived`, the reply's stream events as they
arrive: `TextDelta`, `ToolCallStarted`, `ArgumentsDelta`, `ReasoningDelta`, `BlockFinished`
and, last, `StreamFinished` (`toolcall_lab.stream`, one family for all four APIs). They
number the reply's blocks, not the steps ("[0]" is block 0):

>>> from toolcall_lab import call
>>> script = ScriptedProvider([call("get_weather", city="Paris"), "Sunny."])
>>> run = run_agent(script, PARIS_QUESTION, tools=[get_weather], on_event=print, stream=True)
[1] your code -> model: 1 message, tools: get_weather
[0] call get_weather started, id toolu_01
[0] arguments += '{"ci'
[0] arguments += 'ty":'
[0] arguments += ' "Pa'
[0] arguments += 'ris"'
[0] arguments += '}'
[0] finished: ToolCall('toolu_01', 'get_weather', {'city': 'Paris'})
done [tool_use]: 1 block, 104 tokens in, 21 out
[1] model -> your code: asks for get_weather({'city': 'Paris'}) id=toolu_01 [tool_use]
[1] your code ran get_weather -> result for toolu_01: '18°C, sunny'
[2] your code -> model: 3 messages, tools: get_weather
[0] text += 'Sunn'
[0] text += 'y.'
[0] finished: TextBlock('Sunny.')
done [end_turn]: 1 block, 161 tokens in, 9 out
[2] model -> your code: 'Sunny.' [end_turn]
[2] done (end_turn): the model answered.

The loop acts only on `StreamFinished`'s turn: a call runs once its whole reply is in,
never on partial arguments.

Left out: timing (a `Turn` carries its latency) and steering: `on_event` only watches (an
exception from it interrupts the run, as Ctrl-C would, and closes a stream under way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ._text import one_line
from .blocks import ToolCall, ToolResult
from .turn import StopReason, Turn

__all__ = ["CallSent", "Event", "ReplyReceived", "RunFinished", "ToolExecuted", "ToolRefused"]


@dataclass(frozen=True)
class CallSent:
    """Your code is about to call the model with the whole transcript."""

    step: int
    messages: int
    tools: tuple[str, ...]
    kind: Literal["call_sent"] = "call_sent"
    #: The call's `tool_choice`, when it asked for one (`toolcall_lab.tool_choice`).
    tool_choice: str | None = None

    def __str__(self) -> str:
        offered = ", ".join(map(one_line, self.tools)) or "no tools"
        plural = "" if self.messages == 1 else "s"
        choice = f" (tool_choice={self.tool_choice!r})" if self.tool_choice is not None else ""
        return f"[{self.step}] your code -> model: {self.messages} message{plural}, tools: {offered}{choice}"


@dataclass(frozen=True)
class ReplyReceived:
    """The model replied."""

    step: int
    turn: Turn
    kind: Literal["reply_received"] = "reply_received"

    def __str__(self) -> str:
        asked = ", ".join(f"{one_line(c.name)}({dict(c.args)}) id={one_line(c.id)}"
                          for c in self.turn.tool_calls)
        said = repr(self.turn.text) if self.turn.text else ""
        content = " and ".join(part for part in (said, f"asks for {asked}" if asked else "") if part)
        return f"[{self.step}] model -> your code: {content or '(no content)'} [{self.turn.stop_reason}]"


@dataclass(frozen=True)
class ToolExecuted:
    """Your code ran one tool call (the model never does)."""

    step: int
    call: ToolCall
    result: ToolResult
    kind: Literal["tool_executed"] = "tool_executed"

    def __str__(self) -> str:
        outcome = "error" if self.result.is_error else "result"
        return (f"[{self.step}] your code ran {one_line(self.call.name)} -> {outcome} for "
                f"{one_line(self.call.id)}: {self.result.content!r}")


@dataclass(frozen=True)
class ToolRefused:
    """Your code refused one tool call: it did not run, and `result` tells the model why."""

    step: int
    call: ToolCall
    result: ToolResult
    kind: Literal["tool_refused"] = "tool_refused"

    def __str__(self) -> str:
        return (f"[{self.step}] your code refused {one_line(self.call.name)}({dict(self.call.args)}) "
                f"id={one_line(self.call.id)}: it did not run")


@dataclass(frozen=True)
class RunFinished:
    """The loop stopped; `note` says why in one sentence."""

    step: int
    stop_reason: StopReason
    note: str
    kind: Literal["run_finished"] = "run_finished"

    def __str__(self) -> str:
        return f"[{self.step}] done ({self.stop_reason}): {one_line(self.note)}"


Event = CallSent | ReplyReceived | ToolExecuted | ToolRefused | RunFinished
