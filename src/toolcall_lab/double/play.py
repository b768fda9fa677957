"""Playing the model: a valid request body in, the API's response body out.

`Player.answer(api, body)` reads the body the way the API's model reads it, asks the
scripted provider for the next turn (held to the request's `tool_choice` and
`parallel_tool_calls`, as the API holds a real model), and writes the reply the API's
way. Every step that differs between APIs is asked of the API's server half
(`wire/<api>/server.py`, a `wire.ServerHalf`):

    server.refusal(body, stored)                what only the server can refuse
    server.as_the_model_reads_it(body, stored)  the request as the model reads it
    server.decode_request(read)                 ... as a transcript and tools
    server.decode_tool_choice(read)             ... and how free the model is
    server.decode_output_format(read)           ... and the schema its reply must match
    (the scripted provider plays the turn)
    server.as_served(turn, tools)               the turn as the API serves it: its ids,
                                                the hidden prompt it bills
    server.cache_usage(...)                     what it reads from the prompt cache, and writes
    server.reasons(body, transcript, turn)      whether the model reasons first
    server.reply(turn, ...)                     the reply the double sends

Where the model reasons, the double adds a short deterministic reasoning block first
("Thinking about: <the question>"), which the API's `encode_response` seals its way, so
its `check_request` can tell later whether it came back unchanged. Where the request asks
for structured output, the reply is held to the schema as the API's constrained decoding
holds a model: a finished text reply that is not JSON matching it is replaced by
`output_format.sample(schema)` (a call, a refusal and a cut reply stay as they are, which is
how a script stages those). What each server half
keeps between requests (Responses: the responses it stored, for `previous_response_id`;
Anthropic: its message threads) is one bounded mapping per API (`Player.stored`), the last
`keep` entries, with the double's clock they expire by.

Left out: reasoning summaries worth reading.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from .._text import shorten
from ..blocks import ReasoningBlock, TextBlock
from ..errors import ToolcallLabError, UsageError
from ..output_format import OutputFormat, loads, problems, sample
from ..providers.scripted import Policy, Reply, ScriptedProvider, as_policy
from ..tokens import estimate_tokens
from ..tool import Tool
from ..tool_choice import check_tool_choice
from ..transcript import Transcript
from ..turn import StopReason, Turn
from ..wire import API_SPECS
from ..wire.problem import Problem
from .cache import FakeClock, PromptCache, RealClock

__all__ = ["PROVIDER_FOR", "Kept", "Player", "Unplayable", "held_to_format"]

#: The provider (registry name) that speaks each API: what `serve` tells you to use.
PROVIDER_FOR = {spec.name: spec.provider for spec in API_SPECS.values()}


class Unplayable(UsageError):
    """Raised by `Player.answer` when the kit cannot read a well-shaped body into a
    transcript: a tool whose name or schema the kit's `Tool` refuses, a `tool_choice` naming
    no tool on offer, an input item or part the kit does not model. The double answers it
    with a 400 in the API's shape and these words, which are the double's own: the real API
    may refuse such a request in other words, or (for what the kit does not model) accept it.
    """


class Kept(collections.OrderedDict[str, Any]):
    """What one API's server half keeps between requests: the last `keep` entries, oldest
    dropped first, each stored under a lock (requests are answered on many threads)."""

    def __init__(self, keep: int, clock: FakeClock | RealClock | None = None) -> None:
        super().__init__()
        self.keep = keep
        #: the double's clock, by which what is kept expires (Anthropic's threads: 5 minutes)
        self.clock = clock
        self._lock = threading.Lock()

    def __setitem__(self, key: str, value: Any) -> None:
        with self._lock:
            super().__setitem__(key, value)
            while len(self) > self.keep:
                self.popitem(last=False)  # the oldest goes first


class Player:
    """Plays the model for every API of one double: one `ScriptedProvider` per API.

    Each provider lives as long as the double, so tool-call ids count up across
    requests; `play` is called with the lock held (a script is not thread-safe). Each
    keeps only its last `SentRequest`: what the double keeps is `ApiDouble.requests`.
    """

    def __init__(self, play: Callable[[Transcript, tuple[Tool, ...]], Reply], *, keep: int = 1000,
                 cache: PromptCache | None = None, clock: FakeClock | RealClock | None = None) -> None:
        self.cache = cache
        #: the time a reply is made at (`created_at`): the cache's clock, or a `FakeClock` of its own
        self.clock = clock or (cache.clock if cache is not None else FakeClock())
        # subtle: one record each (the next request continues its message store); kept
        # whole, a double serving a class all day grew by every request
        self._providers = {api: ScriptedProvider(play, keep=1) for api in API_SPECS}
        #: the model each plays when a request names none: the scripted provider's own
        self._unnamed = {api: provider.model for api, provider in self._providers.items()}
        self._ids = {api: itertools.count(1) for api in API_SPECS}
        self._lock = threading.Lock()
        #: api -> what its server half keeps between requests (Responses: its stored responses)
        self.stored = {api: Kept(keep, self.clock) for api in API_SPECS}

    def problem(self, api: str, body: dict[str, Any]) -> tuple[int, Problem] | None:
        """(status, problem) for what only the server can refuse (a response it does not hold)."""
        return API_SPECS[api].server.refusal(body, self.stored[api])

    def answer(self, api: str, body: dict[str, Any], *, held_to: tuple[str | None, bool | None] | None = None,
               adjust: Callable[[Turn], Turn] | None = None) -> dict[str, Any]:
        """The response body for a valid request `body` to `api`: the model's next reply.

        Raises `Unplayable` when the body cannot be read into a transcript; anything else
        it raises comes from the script (the policy, or a reply it cannot hold).

        A server flavour (`wire.flavours`) passes `held_to`, the (tool_choice,
        parallel_tool_calls) the server really holds the model to, and `adjust`, what the
        server does to the reply (cut it at its limit, spell its ids) before it is written.
        """
        spec = API_SPECS[api]
        server, stored = spec.server, self.stored[api]
        try:
            read, notes = server.as_the_model_reads_it(body, stored)
            transcript, tools = server.decode_request(read)
            tool_choice, parallel_tool_calls = held_to or server.decode_tool_choice(read)
            check_tool_choice(tool_choice, tools, parallel_tool_calls)
            output_format = server.decode_output_format(read)
        except ToolcallLabError as exc:  # the kit cannot hold what the body says: not the script's fault
            raise Unplayable(f"The API double cannot play this request: {exc}") from None
        model = body.get("model")
        with self._lock:
            provider = self._providers[api]
            # subtle: the provider plays the model the request names, so its turn needs no copy to
            # say so; a Turn a script returns whole says its own model, which the request's replaces
            provider.model = model or self._unnamed[api]
            turn = provider.complete(transcript, tools=tools, tool_choice=tool_choice,
                                     parallel_tool_calls=parallel_tool_calls)
            number = next(self._ids[api])
        if model and turn.model != model:
            turn = replace(turn, model=model)
        turn = server.as_served(held_to_format(turn, output_format), tools)
        if adjust is not None:
            turn = adjust(turn)
        if self.cache is not None:
            usage = self.cache.usage(api, read, transcript, tools, turn.usage)
            turn = turn if usage is turn.usage or usage == turn.usage else replace(turn, usage=usage)
        if server.reasons(body, transcript, turn) and not turn.message.reasoning:
            turn = _with_reasoning(turn, spec.provider, transcript)
        # subtle: "double" in the prefix gives its place to this process's token, six characters
        # for six, so an id is unique across runs yet as long as before: a Responses id goes back
        # in the next request's input, whose tokens (4 characters each) a lesson counts
        response_id = f"{spec.response_id.replace('double', this_process(), 1)}{number:04d}"
        return server.reply(turn, response_id=response_id, request=body, read=read,
                            notes=notes, stored=stored, created=int(self.clock.unix()))


_PROCESSES: dict[int, str] = {}


def this_process() -> str:
    """A random token for this process, six letters and digits (36⁶, about 2 billion), the same
    for every call in it.

    subtle: the APIs' response ids are unique. Numbered from 1 alone, every run of a lesson
    would send msg_double_0001 again; with this token a response id is unique across runs and
    processes, while two doubles in one process, playing one script, still send the very same
    bytes (a test compares them). Keyed by the process id, so a forked child draws its own.
    """
    if os.getpid() not in _PROCESSES:
        _PROCESSES[os.getpid()] = "".join(secrets.choice(_TOKEN) for _ in range(6))
    return _PROCESSES[os.getpid()]


_TOKEN = "0123456789abcdefghijklmnopqrstuvwxyz"


def held_to_format(turn: Turn, output_format: OutputFormat | None) -> Turn:
    """`turn` as an API that constrains the reply to `output_format` lets it out.

    A finished text reply whose text is JSON matching the schema goes out as it is; any
    other finished text becomes `sample(schema)`, the same every time. A tool call, a
    refusal and a reply cut by the limit are left as they are.

    >>> from toolcall_lab import Message, Usage
    >>> fmt = OutputFormat("city", {"type": "object", "properties": {"name": {"type": "string"}}})
    >>> held_to_format(Turn(Message.assistant("Paris!"), "end_turn", Usage(5, 2), "m"), fmt).text
    '{"name": ""}'
    """
    if output_format is None or turn.stop_reason is not StopReason.END_TURN or turn.tool_calls:
        return turn
    try:
        fits = not problems(loads(turn.text), output_format.schema)
    except ValueError:  # not JSON, or NaN and Infinity, which JSON has not
        fits = False
    if fits:
        return turn
    text = json.dumps(sample(output_format.schema), ensure_ascii=False)
    kept = tuple(b for b in turn.message.blocks if not isinstance(b, TextBlock))
    usage = replace(turn.usage, output_tokens=turn.usage.reasoning_tokens + estimate_tokens(text))
    return replace(turn, message=replace(turn.message, blocks=(*kept, TextBlock(text))), usage=usage)


def _with_reasoning(turn: Turn, provider: str, transcript: Transcript) -> Turn:
    """`turn` with a short deterministic reasoning block first.

    The block has no opaque part, so the API's `encode_response` seals it its way (a
    `signature`, an `encrypted_content`: `wire.signing`), and its `check_request` can
    tell later whether it came back unchanged; `provider` is the API's, so it goes back.
    """
    text = "Thinking about: " + shorten(transcript.last_user_text(), 60)
    block = ReasoningBlock(text, provider=provider, model=turn.model)
    spent = estimate_tokens(text)  # reasoning tokens are part of output tokens
    usage = replace(turn.usage, output_tokens=turn.usage.output_tokens + spent,
                    reasoning_tokens=turn.usage.reasoning_tokens + spent)
    message = replace(turn.message, blocks=(block, *turn.message.blocks))
    return replace(turn, message=message, usage=usage)


def policy_of(policy: Policy | Sequence[Reply] | None) -> Policy:
    """`policy` as a function: the lessons' `weather_policy` for None, a script for a list."""
    if policy is None:
        from ..examples import weather_policy

        return weather_policy
    return as_policy(policy, who="the double's script")
