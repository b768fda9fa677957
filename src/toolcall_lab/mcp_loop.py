"""The loop with its tools on an MCP server: `run_with_server`, and the `McpRun` it returns.

`run_with_server(connection, provider, prompt)` is `run_agent` with the server's tools
(`connection.tools`, or the ones you pass as `tools=`), and two things more:

- the run keeps its hops: every JSON-RPC message the connection carried since the last run
  (the first run's include the version and the `tools/list` done on connecting), each
  `tools/call` noted with the id of the model's call it answered (`McpRun.hops`). The
  sequence diagram and the step-through draw them in a lane of their own, the MCP server's;
- a server that goes away mid-run stops the run with `McpServerGoneError`, one sentence
  saying which call could not be sent, and the transcript is put back exactly as it was
  before the run, so the same run can be tried again once the server is back. (Without
  this, the loop would send the model an error result for the lost call and go on.)

    >>> from toolcall_lab import ScriptedProvider
    >>> from toolcall_lab.examples import PARIS_QUESTION, weather_policy
    >>> from toolcall_lab.mcp_tools import connect
    >>> from toolcall_lab.mcp_tools.servers import weather_server
    >>> with connect(weather_server()) as connection:
    ...     run = run_with_server(connection, ScriptedProvider(weather_policy), PARIS_QUESTION)
    >>> run.answer, [h.request.method for h in run.hops]
    ("It's 18°C and sunny in Paris.", ['server/discover', 'tools/list', 'tools/call'])
    >>> run.hops[-1].call_id, run.hops[-1].request.id
    ('toolu_01', 3)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from .blocks import ToolCall
from .errors import McpServerGoneError
from .events import Event, ToolExecuted
from .loop import Run, run_agent
from .mcp_tools.connection import McpConnection
from .mcp_tools.rpc import Hop, hops
from .providers.base import Provider
from .stream import StreamEvent
from .tool import Tool
from .transcript import Transcript

__all__ = ["McpRun", "run_with_server"]


@dataclass(repr=False)
class McpRun(Run):
    """A finished `Run` whose tools were on an MCP server, with the JSON-RPC hops it took."""

    hops: list[Hop] = field(default_factory=list)
    server: str = ""

    def _parts(self) -> list[str]:
        return [*super()._parts(), f"{len(self.hops)} MCP hop{'' if len(self.hops) == 1 else 's'}"]


def run_with_server(connection: McpConnection, provider: Provider, prompt: Any, *,
                    tools: Sequence[Tool] | None = None, transcript: Transcript | None = None,
                    system: str | None = None,
                    on_event: Callable[[Event | StreamEvent], object] | None = None,
                    **options: Any) -> McpRun:
    """`run_agent` offering the server's tools (or `tools`), keeping the hops; see the module.

    `options` go to `run_agent` as they are (`max_steps`, `approve`, `tool_choice`, ...).
    """
    offered = connection.tools if tools is None else tuple(tools)
    if transcript is None:
        transcript, system = Transcript(system=system), None
    before = list(transcript.messages)
    watch = _Watch(connection, on_event)
    try:
        run = run_agent(provider, prompt, tools=offered, transcript=transcript, system=system,
                        on_event=watch, **options)
    except McpServerGoneError as exc:
        transcript.messages[:] = before  # subtle: exactly as it was, the prompt taken out too
        kept = f"{len(before)} message{'' if len(before) == 1 else 's'}"
        raise McpServerGoneError(f"{exc}; the run stopped with the transcript as it was before it "
                                 f"({kept}): connect to the server again and run it again.") from None
    found = [hop.answering(watch.answered[hop.request.id]) if hop.request.id in watch.answered else hop
             for hop in hops(watch.messages())]
    fields_of_run = {f.name: getattr(run, f.name) for f in fields(Run)}
    return McpRun(**fields_of_run, hops=found, server=connection.server_name)


class _Watch:
    """The run's `on_event`: notes which model call each `tools/call` answered; stops a run
    whose server has gone away; passes every event on to the caller's own `on_event`."""

    def __init__(self, connection: McpConnection,
                 on_event: Callable[[Event | StreamEvent], object] | None) -> None:
        self.connection, self.on_event = connection, on_event
        self.start = connection.traced
        self.mark, self.lost = len(connection.log), connection.lost_calls
        self.answered: dict[Any, str] = {}  # JSON-RPC id of a tools/call -> the model's call id

    def __call__(self, event: Event | StreamEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)
        if isinstance(event, ToolExecuted):
            self._noted(event.call)

    def _noted(self, call: ToolCall) -> None:
        log = self.connection.log
        for message in log[self.mark:]:
            if message.sender == "client" and message.method == "tools/call":
                self.answered[message.id] = call.id
        self.mark = len(log)
        if self.connection.lost_calls > self.lost:
            raise McpServerGoneError(f"The MCP server {self.connection.server_name!r} went away during "
                                     f"the run, so your code could not send tools/call {call.name} for "
                                     f"the model's call {call.id}")

    def messages(self) -> list[Any]:
        """The messages of this run (since the last run on the connection), marked as traced."""
        log = self.connection.log
        self.connection.traced = len(log)
        return log[self.start:]
