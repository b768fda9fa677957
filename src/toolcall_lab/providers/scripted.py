"""`ScriptedProvider`: a model played by your own Python, offline and reproducible.

It is a real provider, not a test hack: it speaks the same `complete()` as the API
adapters, so the same loop runs against it. What it adds is control. Real models are
not deterministic and rarely misbehave on cue; a script makes them do exactly what a
lesson or a test needs: call the wrong tool, send bad arguments, loop, refuse, stop
mid tool call.

Drive it with a *policy*, a function that sees the transcript and the tools and
returns the next reply, or with a list of replies used in order. A reply may be:

- a `str`: the model answers in text (stop reason end_turn);
- a `ToolCall` (see `call`): the model asks for one tool (stop reason tool_use);
- a list of `str` / blocks: text and calls together, or several calls at once;
- `stage(...)`: any content with a stop reason you choose (refusal, max_tokens, ...);
- a list holding `server_tools.web_search(...)`: a search "the provider" ran inside the
  reply, before the text that uses it (counted in `usage.web_search_requests`);
- a `Turn`: used exactly as given.

It honours `tool_choice` and `parallel_tool_calls` (`toolcall_lab.tool_choice`) the way an
API holds a real model to them, so a scripted run teaches what a real one does:

- a policy function is shown only the tools it may call: none under "none" (so
  `weather_policy` answers in text), only the named one under a tool's name;
- with `parallel_tool_calls=False` a reply keeps its first call only, as an API asked
  for at most one call per reply returns one now and leaves the rest for later;
- a reply that still breaks the choice (a call under "none", text when a call was
  forced, another tool than the one named) raises `ScriptError`, which says which
  reply to change: a script cannot be made to obey, it has to be written to.

What it makes up, it makes reproducibly: tool call ids count up (`toolu_01`,
`toolu_02`, ...; a provider-side search's `srvtoolu_01`, ...), usage is estimated
from characters and marked `estimated=True`, and each reply's `latency_s` is the value
you state (`latency_s=1.2`: a model that takes 1.2 s a call; 0.0 unless told), never a
stopwatch reading, so a run's timings are the same on every machine.
`stream(transcript, tools=...)` plays the same reply as a stream of the kit's events
(`toolcall_lab.stream`: text and arguments every 4 characters, as the API double cuts
them), ending in `StreamFinished(turn)` with the very turn `complete` returns, so a
lesson can watch a reply arrive offline and `run_agent(..., stream=True)` runs here too.
It records every call that succeeded in `provider.requests` (a `SentRequest` each, the
same record the real providers keep), so you can see what each call sent.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from ..blocks import Block, ServerToolCall, ServerToolResult, TextBlock, ToolCall
from ..errors import ScriptError, ScriptExhaustedError, UsageError, UsageTypeError
from ..messages import Message
from ..stream import StreamEvent, replay
from ..tokens import blocks_text, estimate_tokens
from ..tool import Tool
from ..tool_choice import callable_tools, check_tool_choice, forces_a_call
from ..transcript import Transcript
from ..turn import StopReason, Turn
from ..usage import Usage
from .base import BaseProvider, SentRequest

__all__ = ["Policy", "Reply", "ScriptedProvider", "Staged", "as_policy", "call", "stage"]


@dataclass(frozen=True)
class Staged:
    """A reply with the stop reason you choose; build it with `stage(...)`."""

    blocks: tuple[Block, ...]
    stop_reason: StopReason


Reply = str | ToolCall | Sequence[str | Block] | Staged | Turn
Policy = Callable[[Transcript, tuple[Tool, ...]], Reply]


def call(name: str, /, **args: object) -> ToolCall:
    """A tool call for a script; the provider gives it the next id.

    >>> call("get_weather", city="Paris")
    ToolCall('', 'get_weather', {'city': 'Paris'})
    """
    return ToolCall("", name, dict(args))


def stage(*content: str | Block, stop_reason: StopReason | str) -> Staged:
    """A reply that ends the way you say, to rehearse what real models do rarely.

    >>> stage("I can't help with that.", stop_reason="refusal").stop_reason
    StopReason.REFUSAL
    """
    blocks = tuple(TextBlock(c) if isinstance(c, str) else c for c in content)
    return Staged(blocks, StopReason(stop_reason))


def as_policy(policy: Policy | Sequence[Reply], *, who: str = "the script") -> Policy:
    """`policy` itself if it is a function, else a policy giving the replies in order.

    The replies are copied, so the caller's list can change without changing the script;
    once they run out, the next call raises `ScriptExhaustedError`, naming `who`.

    >>> script = as_policy(["Hi!"])
    >>> script(Transcript(), ())
    'Hi!'
    >>> script(Transcript(), ())
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.ScriptExhaustedError: the script has 1 replies and call 2 asked for another; ...
    """
    if callable(policy):
        return policy
    replies, position = list(policy), itertools.count()

    def next_in_script(transcript: Transcript, tools: tuple[Tool, ...]) -> Reply:
        index = next(position)
        if index >= len(replies):
            raise ScriptExhaustedError(
                f"{who} has {len(replies)} replies and call {index + 1} asked for another; add "
                "replies to the list, or pass a policy function that decides every reply.")
        return replies[index]

    return next_in_script


class ScriptedProvider(BaseProvider):
    """A provider whose replies come from a policy function or a list.

    >>> provider = ScriptedProvider(["Hello!"])
    >>> transcript = Transcript()
    >>> _ = transcript.append(Message.user("Hi"))
    >>> turn = provider.complete(transcript)
    >>> turn.message, turn.stop_reason
    (Message.assistant(TextBlock('Hello!')), StopReason.END_TURN)
    >>> turn.usage  # estimated from characters: about 4 per token
    Usage(input_tokens=24, output_tokens=9, estimated=True)

    `latency_s` is how long each reply takes, as you state it (a Python policy answers in
    microseconds, which say nothing about a model):

    >>> ScriptedProvider(["Hello!"], latency_s=1.2).complete(transcript).latency_s
    1.2

    `requests` holds every call's `SentRequest`, or the last `keep` of them (a provider that
    answers all day, as each of the API double's does, keeps one).
    """

    name = "scripted"

    def __init__(self, policy: Policy | Sequence[Reply], *, model: str = "scripted-1",
                 latency_s: float = 0.0, keep: int | None = None) -> None:
        if isinstance(latency_s, bool) or not isinstance(latency_s, (int, float)):
            raise UsageTypeError(f"latency_s is the seconds each reply takes, a number; got "
                                 f"{type(latency_s).__name__} {latency_s!r}. Pass, for example, "
                                 "latency_s=1.2.")
        if latency_s < 0:
            raise UsageError(f"latency_s is the seconds each reply takes, got {latency_s!r}; "
                             "pass 0 or more, for example latency_s=1.2.")
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 1):
            raise UsageError(f"keep is how many SentRequests to keep, a whole number of 1 or more (or "
                             f"None: all of them); got {keep!r}.")
        self.keep = keep
        self._policy = as_policy(policy)
        self.model = model
        self.latency_s = float(latency_s)
        self.requests: list[SentRequest] = []
        self._calls = 0  # every call, those `keep` dropped from `requests` too
        self._ids = itertools.count(1)
        self._server_ids = itertools.count(1)

    def __repr__(self) -> str:
        return f"ScriptedProvider(model={self.model!r}, calls={self._calls})"

    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = (), tool_choice: str | None = None,
                 parallel_tool_calls: bool | None = None) -> Turn:
        tools = tuple(tools)
        check_tool_choice(tool_choice, tools, parallel_tool_calls)
        sent = SentRequest.of(transcript, tools, previous=self.requests[-1] if self.requests else None,
                              tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls)
        # The policy gets a copy (it cannot change the caller's transcript by mistake), and
        # only the tools the choice lets it call.
        reply = self._policy(transcript.copy(), callable_tools(tool_choice, tools))
        if isinstance(reply, Turn):
            # a staged Turn is used as given, held to the choice like any reply
            blocks = _held_to(reply.message.blocks, reply.stop_reason, tool_choice, parallel_tool_calls)
            turn = reply if blocks == reply.message.blocks else replace(
                reply, message=replace(reply.message, blocks=blocks))
        else:
            turn = self._to_turn(reply, sent.input_tokens, tool_choice, parallel_tool_calls)
        # subtle: recorded only now, like a real provider's: a call that raised (a script
        # run dry, a policy's bug) sent nothing and leaves `requests` as it was.
        self.requests.append(sent)
        self._calls += 1
        if self.keep is not None:
            del self.requests[:-self.keep]
        return turn

    def stream(self, transcript: Transcript, *, tools: Sequence[Tool] = (), tool_choice: str | None = None,
               parallel_tool_calls: bool | None = None) -> Iterator[StreamEvent]:
        """The reply `complete` would return, as stream events ending in `StreamFinished(turn)`.

        >>> transcript = Transcript(messages=[Message.user("Hi")])
        >>> for event in ScriptedProvider(["Hello!"]).stream(transcript):
        ...     print(event)
        [0] text += 'Hell'
        [0] text += 'o!'
        [0] finished: TextBlock('Hello!')
        done [end_turn]: 1 block, 24 tokens in, 9 out
        """
        yield from replay(self.complete(transcript, tools=tools, tool_choice=tool_choice,
                                        parallel_tool_calls=parallel_tool_calls))

    # -- turning a policy's reply into a Turn ----------------------------------------
    def _to_turn(self, reply: Reply, input_tokens: int, tool_choice: str | None = None,
                 parallel_tool_calls: bool | None = None) -> Turn:
        if isinstance(reply, Staged):
            blocks, stop_reason = reply.blocks, reply.stop_reason
        else:
            blocks = self._blocks(reply)
            has_calls = any(isinstance(b, ToolCall) for b in blocks)
            stop_reason = StopReason.TOOL_USE if has_calls else StopReason.END_TURN
        blocks = _held_to(blocks, stop_reason, tool_choice, parallel_tool_calls)
        blocks = self._with_ids(blocks)
        # subtle: the model reads a provider-side search's results inside this same reply, before
        # it writes the answer, so they are this call's input (not output) as well as the next
        # call's: "Web search results retrieved throughout a conversation are counted as input
        # tokens, in search iterations executed during a single turn and in subsequent
        # conversation turns" (platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool)
        read = [b for b in blocks if isinstance(b, ServerToolResult)]
        written = [b for b in blocks if not isinstance(b, ServerToolResult)] if read else blocks
        searches = sum(isinstance(b, ServerToolCall) and b.name == "web_search" for b in blocks)
        usage = Usage(input_tokens=input_tokens + (estimate_tokens(blocks_text(read)) if read else 0),
                      output_tokens=estimate_tokens(blocks_text(written)),
                      web_search_requests=searches, estimated=True)
        # subtle: the stated latency, not a stopwatch: outputs that show it stay stable
        return Turn(Message("assistant", blocks), stop_reason, usage, self.model, latency_s=self.latency_s)

    @staticmethod
    def _blocks(reply: Reply) -> tuple[Block, ...]:
        match reply:
            case str():
                return (TextBlock(reply),)
            case ToolCall():
                return (reply,)
            case list() | tuple():
                return tuple(TextBlock(item) if isinstance(item, str) else item for item in reply)
            case _:
                raise UsageTypeError(
                    f"a scripted policy returned {type(reply).__name__}; return a str, a "
                    "ToolCall (call(...)), a list of them, stage(...), or a Turn."
                )

    def _with_ids(self, blocks: Sequence[Block]) -> tuple[Block, ...]:
        """Each call without an id numbered; a server result takes the id of the call before it."""
        out: list[Block] = []
        server_id = ""
        for block in blocks:
            if isinstance(block, ToolCall) and not block.id:
                block = replace(block, id=f"toolu_{next(self._ids):02d}")
            elif isinstance(block, ServerToolCall):
                if not block.id:
                    block = replace(block, id=f"srvtoolu_{next(self._server_ids):02d}")
                server_id = block.id
            elif isinstance(block, ServerToolResult) and not block.call_id:
                block = replace(block, call_id=server_id)
            out.append(block)
        return tuple(out)


def _held_to(blocks: Sequence[Block], stop_reason: StopReason, tool_choice: str | None,
             parallel_tool_calls: bool | None) -> tuple[Block, ...]:
    """`blocks` as an API holding the model to the choice would let them through.

    e.g. [call A, call B] with parallel_tool_calls=False -> [call A]; a call under "none",
    or text alone under a forced choice, raises `ScriptError`.
    """
    if tool_choice is None and parallel_tool_calls is None:
        return tuple(blocks)  # nothing asked of the model's use of the tools: nothing to hold
    calls = [b for b in blocks if isinstance(b, ToolCall)]
    names = ", ".join(c.name for c in calls)
    if tool_choice == "none" and calls:
        raise ScriptError(
            f"tool_choice='none' forbids tool calls, but the script's reply calls {names}; a real API "
            "would have made the model answer in text, so script a text reply for this call.")
    finished = stop_reason in (StopReason.END_TURN, StopReason.TOOL_USE)  # not cut off, not refused
    if forces_a_call(tool_choice) and finished and not calls:
        raise ScriptError(
            f"tool_choice={tool_choice!r} forces a tool call, but the script's reply has none "
            f"({_said(blocks)!r}); a real API guarantees a call here, so script one.")
    if forces_a_call(tool_choice) and tool_choice != "required" and any(c.name != tool_choice for c in calls):
        raise ScriptError(
            f"tool_choice={tool_choice!r} forces that tool, but the script's reply calls {names}; "
            f"script a call of {tool_choice}.")
    if parallel_tool_calls is False and len(calls) > 1:
        # subtle: like an API asked for one call per reply: the first now, the rest on later calls.
        return tuple(b for b in blocks if not isinstance(b, ToolCall) or b is calls[0])
    return tuple(blocks)


def _said(blocks: Sequence[Block]) -> str:
    """The text of a reply, cut short, for an error message."""
    return " ".join(b.text for b in blocks if isinstance(b, TextBlock))[:60]
