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
- a `Turn`: used exactly as given.

What it makes up, it makes reproducibly: tool call ids count up (`toolu_01`,
`toolu_02`, ...) and usage is estimated from characters and marked `estimated=True`.
It records every call that succeeded in `provider.requests` (a `SentRequest` each, the
same record the real providers keep), so you can see what each call sent.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..errors import ScriptExhaustedError, UsageTypeError
from ..messages import Block, Message, TextBlock, ToolCall, Transcript
from ..tokens import blocks_text, estimate_tokens
from ..tool import Tool
from ..turn import StopReason, Turn
from ..usage import Usage
from .base import SentRequest

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


class ScriptedProvider:
    """A provider whose replies come from a policy function or a list.

    >>> provider = ScriptedProvider(["Hello!"])
    >>> transcript = Transcript()
    >>> _ = transcript.append(Message.user("Hi"))
    >>> turn = provider.complete(transcript)
    >>> turn.message, turn.stop_reason
    (Message.assistant(TextBlock('Hello!')), StopReason.END_TURN)
    >>> turn.usage  # estimated from characters: about 4 per token
    Usage(input_tokens=24, output_tokens=9, estimated=True)
    """

    name = "scripted"

    def __init__(self, policy: Policy | Sequence[Reply], *, model: str = "scripted-1") -> None:
        self._policy = as_policy(policy)
        self.model = model
        self.requests: list[SentRequest] = []
        self._ids = itertools.count(1)

    def __repr__(self) -> str:
        return f"ScriptedProvider(model={self.model!r}, calls={len(self.requests)})"

    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = ()) -> Turn:
        tools = tuple(tools)
        started = time.perf_counter()
        sent = SentRequest.of(transcript, tools, previous=self.requests[-1] if self.requests else None)
        # The policy gets a copy: a policy cannot change the caller's transcript by mistake.
        reply = self._policy(transcript.copy(), tools)
        if isinstance(reply, Turn):
            turn = reply  # a staged Turn is used exactly as given
        else:
            turn = replace(self._to_turn(reply, sent.input_tokens),
                           latency_s=time.perf_counter() - started)
        # subtle: recorded only now, like a real provider's: a call that raised (a script
        # run dry, a policy's bug) sent nothing and leaves `requests` as it was.
        self.requests.append(sent)
        return turn

    # -- turning a policy's reply into a Turn ----------------------------------------
    def _to_turn(self, reply: Reply, input_tokens: int) -> Turn:
        if isinstance(reply, Staged):
            blocks, stop_reason = reply.blocks, reply.stop_reason
        else:
            blocks = self._blocks(reply)
            has_calls = any(isinstance(b, ToolCall) for b in blocks)
            stop_reason = StopReason.TOOL_USE if has_calls else StopReason.END_TURN
        blocks = tuple(self._with_id(b) for b in blocks)
        usage = Usage(input_tokens=input_tokens, output_tokens=estimate_tokens(blocks_text(blocks)),
                      estimated=True)
        return Turn(Message("assistant", blocks), stop_reason, usage, self.model)

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

    def _with_id(self, block: Block) -> Block:
        if isinstance(block, ToolCall) and not block.id:
            return replace(block, id=f"toolu_{next(self._ids):02d}")
        return block
