"""The double's prompt cache: prefix hashing, minimum lengths, lifetimes, and usage as each API reports it.

A prompt cache keeps the model's work on a prompt's *prefix*, so a later request that
starts the same way pays less for that part. The double keeps one `PromptCache` per
`ApiDouble`, with entries per API and model (and, on OpenAI, per `prompt_cache_key`),
and a `FakeClock` that moves only when told, so a lesson can let a cache expire on cue.

The prompt is read in the order tools -> system -> messages, one *block* at a time (a
tool, a system text, a content block). Every block ends a prefix, named by a hash of
everything up to and including it (the bytes of the request, `cache_control` left out),
and measured in tokens the way the double counts all input: the scripted estimate of
about 4 characters per token, plus the hidden tool prompt on Anthropic. So the prefix
that ends with the last block is exactly the request's `input_tokens`.

Anthropic caches only where asked (a `cache_control` breakpoint, or the top-level
automatic one on the last block):

- read: from each breakpoint the API looks back up to 20 blocks for a prefix it already
  holds; the longest one found is read (`cache_read_input_tokens`) and its lifetime
  starts again;
- write: each breakpoint past what was read stores its prefix, if the prefix is at least
  the model's minimum (`models.Rules.min_cache_tokens`: 512 on Claude Haiku 5.5); the
  tokens from the read up to the last stored breakpoint are the write
  (`cache_creation_input_tokens`), split by the breakpoints' `ttl` into
  `cache_creation.ephemeral_5m_input_tokens` and `ephemeral_1h_input_tokens`;
- `input_tokens` is what is left: the tokens after the last breakpoint.

Below the minimum nothing is cached and nothing is said: both counts read 0. Changing a
tool or the system prompt changes every prefix after it, so nothing matches; editing a
message changes the prefixes from that message on.

OpenAI caches by itself: every request stores its prefixes from 1,024 tokens on, and a
later one reads the longest prefix it shares with them (`cached_tokens`, a part of
`input_tokens`), reported in steps of 128 tokens before the GPT-5.6 family (1,024, 1,152,
...) and exactly from GPT-5.6 on (`models.Rules.cache_increment`). The models that bill
a cache write (GPT-5.6 and later: `models.Price.cache_write`) also report it, as
`cache_write_tokens`: the prompt past what was read. Lifetimes: `prompt_cache_options.ttl`
("30m", "12h"), else `prompt_cache_retention` ("in_memory": 10 minutes, the top of
OpenAI's 5 to 10; "24h"), else 30 minutes from GPT-5.6 on and 10 minutes before; a read
starts the lifetime again. A model the table does not know (a local one) caches nothing,
and neither does Ollama.

Past `max_entries` prefixes (a long `serve`), the ones expiring first are dropped.

Left out: a cache shared between APIs or doubles, eviction as a real provider does it, OpenAI's explicit
`prompt_cache_breakpoint`s. (A 1-hour breakpoint after a 5-minute one never gets here:
the rules refuse it first, `wire.anthropic.caching`.)
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from ..blocks import block_to_dict
from ..errors import UsageError
from ..models import price_of, rules_of, tool_prompt_tokens
from ..tokens import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from ..messages import Message, Transcript
    from ..tool import Tool
    from ..usage import Usage

__all__ = ["LOOKBACK", "Boundary", "FakeClock", "PromptCache", "RealClock", "anthropic_layout", "kit_layout"]

#: How many blocks before a breakpoint Anthropic looks for a prefix it holds ("up to
#: approximately 20 blocks", the prompt-caching page); the breakpoint's own block is one more.
LOOKBACK = 20
MINUTE, HOUR = 60.0, 3600.0
_ANTHROPIC_TTLS = {"5m": 5 * MINUTE, "1h": HOUR}
_OPENAI_TTLS = {"30m": 30 * MINUTE, "12h": 12 * HOUR, "in_memory": 10 * MINUTE, "24h": 24 * HOUR}


class FakeClock:
    """A clock that moves only when told, so a cache expires when the lesson says.

    >>> clock = FakeClock()
    >>> clock.advance(minutes=6)
    360.0
    >>> clock
    FakeClock(at 6m 0s)
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        """Seconds since the clock started."""
        return self._now

    def advance(self, *, seconds: float = 0, minutes: float = 0, hours: float = 0) -> float:
        """Move the clock forward; returns the new time in seconds."""
        step = seconds + minutes * MINUTE + hours * HOUR
        if step < 0:
            raise UsageError(f"a clock only moves forward; advance by a positive time, not {step:g} s.")
        self._now += step
        return self._now

    def __repr__(self) -> str:
        minutes, seconds = divmod(self._now, MINUTE)
        return f"FakeClock(at {int(minutes)}m {seconds:g}s)"


class RealClock:
    """The machine's monotonic clock (`ApiDouble(clock="real")`): real minutes, not deterministic."""

    def now(self) -> float:
        return time.monotonic()

    def advance(self, *, seconds: float = 0, minutes: float = 0, hours: float = 0) -> float:
        raise UsageError("a real clock cannot be moved; start the double with the default FakeClock "
                         "(ApiDouble()) to move time with double.clock.advance(minutes=6).")

    def __repr__(self) -> str:
        return "RealClock()"


class Boundary(NamedTuple):
    """The end of one block of the prompt: the prefix's hash, its tokens, and where it is."""

    key: str
    tokens: int
    where: str


class _Layout:
    """Walks a prompt block by block, keeping the running hash and character count.

    The characters are those `tokens.request_text` spends on each part, so the prefix
    that ends with the last block holds exactly the request's estimated tokens.
    """

    def __init__(self, offset: int) -> None:
        self.offset = offset  # tokens before any character: the hidden tool prompt
        self.chars = len('{"system":,"messages":[],"tools":}')  # request_text's fixed punctuation
        self.hash = hashlib.sha256()
        self.boundaries: list[Boundary] = []

    def add(self, chars: int, hashed: object = None) -> None:
        self.chars += chars
        if hashed is not None:
            self.hash.update(_json(hashed).encode())

    def boundary(self, where: str) -> int:
        tokens = self.offset + math.ceil(self.chars / CHARS_PER_TOKEN)
        self.boundaries.append(Boundary(self.hash.copy().hexdigest(), tokens, where))
        return len(self.boundaries) - 1

    def tools(self, specs: Sequence[Mapping[str, Any] | None], hashed: Sequence[object]) -> None:
        """One boundary per tool on the wire; `None` for a provider's own tool (web search, ...).

        subtle: the kit's token estimate counts only your tools, so a provider's own tool adds
        no characters, but it is in the prefix's hash: changing it invalidates the cache.
        """
        counted = [spec for spec in specs if spec is not None]
        self.add(1 if counted else 2)  # "[" (or "[]": no tools of yours)
        seen = 0
        for index, (spec, item) in enumerate(zip(specs, hashed, strict=True)):
            if spec is None:
                self.add(0, {"server_tool": item})
            else:
                self.add(len(_json(spec)) + (seen > 0) + (seen == len(counted) - 1), {"tool": item})
                seen += 1
            self.boundary(f"tools.{index}")

    def system(self, texts: Sequence[str], hashed: Sequence[object]) -> None:
        self.add(2)  # the quotes of the system string, "" when there is none
        shown = 0
        for index, item in enumerate(hashed):
            whole = len(_json("\n".join(texts[: index + 1]))) - 2
            self.add(whole - shown, {"system": item})
            shown = whole
            self.boundary("system" if len(hashed) == 1 else f"system.{index}")


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def _head(role: str) -> int:
    return len(f'{{"role":{_json(role)},"content":[')


def _without_mark(block: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in block.items() if key != "cache_control"}


def anthropic_layout(body: Mapping[str, Any], transcript: Transcript,
                     tools: Sequence[Tool]) -> tuple[list[Boundary], list[tuple[int, str]]]:
    """Every block boundary of a Messages request, and its breakpoints as (boundary, ttl).

    The hash covers the request's own blocks (so an image or a signature counts); the
    tokens follow the kit's estimate of the decoded `transcript` and `tools`.
    """
    from ..wire.anthropic._blocks import decode_blocks as _decode_blocks

    hidden = tool_prompt_tokens(str(body.get("model", ""))) if tools else 0
    layout = _Layout(hidden)
    marks: list[tuple[int, str]] = []

    def mark(item: Mapping[str, Any], index: int) -> None:
        control = item.get("cache_control")
        if isinstance(control, Mapping):
            marks.append((index, str(control.get("ttl") or "5m")))

    wire_tools = [t for t in body.get("tools") or [] if isinstance(t, Mapping)]
    yours = iter([t.spec() for t in tools])
    layout.tools([next(yours, None) if "input_schema" in t else None for t in wire_tools],
                 [_without_mark(t) for t in wire_tools])
    for index, item in enumerate(wire_tools):
        mark(item, index)  # the tools come first: boundary k ends tool k
    system = body.get("system")
    blocks = ([{"type": "text", "text": system}] if isinstance(system, str)
              else [b for b in system or [] if isinstance(b, Mapping)])
    start = len(layout.boundaries)
    layout.system([str(b.get("text", "")) for b in blocks], [_without_mark(b) for b in blocks])
    for offset, item in enumerate(blocks):
        mark(item, start + offset)
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping) and m.get("role") != "system"]
    for number, message in enumerate(messages):
        content = message.get("content")
        items = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        layout.add(_head(str(message.get("role"))) + (number > 0), {"role": message.get("role")})
        kit_blocks = 0
        for position, item in enumerate(items):
            decoded = list(_decode_blocks([item], model=None))
            chars = sum(len(_json(block_to_dict(b))) for b in decoded) + (kit_blocks > 0 and bool(decoded))
            kit_blocks += len(decoded)
            layout.add(chars + 2 * (position == len(items) - 1), _without_mark(item))
            mark(item, layout.boundary(f"messages.{number}.content.{position}"))
        if not items:
            layout.add(2)
    if isinstance(body.get("cache_control"), Mapping) and layout.boundaries:
        # automatic caching: the breakpoint goes on the last block (thinking cannot carry one,
        # which the kit's moving breakpoint also skips; here the last block stands for it)
        marks.append((len(layout.boundaries) - 1, str(body["cache_control"].get("ttl") or "5m")))
    return layout.boundaries, sorted(marks)


def kit_layout(transcript: Transcript, tools: Sequence[Tool]) -> list[Boundary]:
    """Every block boundary of a conversation in the kit's own shape (OpenAI's automatic cache).

    >>> from toolcall_lab import Message, Transcript
    >>> from toolcall_lab.tokens import request_tokens
    >>> t = Transcript("Be brief.", [Message.user("Hi"), Message.assistant("Hello!")])
    >>> [b.where for b in kit_layout(t, [])], kit_layout(t, [])[-1].tokens == request_tokens(t)
    (['system', 'messages.0.content.0', 'messages.1.content.0'], True)
    """
    layout = _Layout(0)
    specs = [t.spec() for t in tools]
    layout.tools(specs, specs)
    texts = [transcript.system] if transcript.system else []
    if texts:
        layout.system(texts, texts)
    else:
        layout.add(2)
    for number, message in enumerate(transcript.messages):
        _kit_message(layout, number, message)
    return layout.boundaries


def _kit_message(layout: _Layout, number: int, message: Message) -> None:
    layout.add(_head(message.role) + (number > 0), {"role": message.role})
    for position, block in enumerate(message.blocks):
        data = block_to_dict(block)
        layout.add(len(_json(data)) + (position > 0) + 2 * (position == len(message.blocks) - 1), data)
        layout.boundary(f"messages.{number}.content.{position}")
    if not message.blocks:
        layout.add(2)


class PromptCache:
    """The prefixes the double holds, per API and model, and when each one expires.

    `usage(api, body, transcript, tools, usage)` answers one request: it reads and writes
    the cache and returns `usage` with the cache reads and writes filled in (the kit's
    convention: both are parts of `input_tokens`).
    """

    def __init__(self, clock: FakeClock | RealClock, *, max_entries: int = 100_000) -> None:
        self.clock = clock
        self.max_entries = max_entries
        self._spaces: dict[tuple[str, ...], dict[str, tuple[float, float]]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many prefixes are held and not expired."""
        now = self.clock.now()
        return sum(expires > now for space in self._spaces.values() for expires, _ in space.values())

    def __repr__(self) -> str:
        return f"PromptCache({len(self)} prefixes held, {self.clock!r})"

    def clear(self) -> None:
        """Forget every prefix (as if the provider had evicted them all)."""
        with self._lock:
            self._spaces.clear()

    def usage(self, api: str, body: Mapping[str, Any], transcript: Transcript, tools: Sequence[Tool],
              usage: Usage) -> Usage:
        """`usage` with the cache reads and writes this request makes (unchanged if it makes none)."""
        with self._lock:
            if api == "anthropic":
                usage = self._anthropic(body, transcript, tools, usage)
            elif api in ("responses", "chat"):
                usage = self._openai(api, body, transcript, tools, usage)
            # else Ollama, which keeps its KV cache to itself and bills nothing
            self._evict()
            return usage

    def _evict(self) -> None:
        """Past `max_entries` (a long `serve`), drop the expired entries, then those expiring first."""
        held = sum(map(len, self._spaces.values()))
        if held <= self.max_entries:
            return
        # subtle: sorted by expiry, the expired entries come first; half the room is freed at once
        entries = sorted((expires, key, name) for key, space in self._spaces.items()
                         for name, (expires, _) in space.items())
        for _, key, name in entries[: held - self.max_entries // 2]:
            del self._spaces[key][name]

    def _live(self, space: dict[str, tuple[float, float]], key: str) -> bool:
        entry = space.get(key)
        if entry is None or entry[0] <= self.clock.now():
            space.pop(key, None)
            return False
        space[key] = (self.clock.now() + entry[1], entry[1])  # a read starts the lifetime again
        return True

    def _anthropic(self, body: Mapping[str, Any], transcript: Transcript, tools: Sequence[Tool],
                   usage: Usage) -> Usage:
        boundaries, marks = anthropic_layout(body, transcript, tools)
        if not marks:
            return usage
        model = str(body.get("model", ""))
        space = self._spaces.setdefault(("anthropic", model), {})
        total = usage.input_tokens
        at = [min(b.tokens, total) for b in boundaries]  # subtle: never more than the request holds
        read = 0
        for index, _ in marks:
            for back in range(index, max(index - LOOKBACK - 1, -1), -1):
                if self._live(space, boundaries[back].key):
                    read = max(read, at[back])
                    break
        minimum = rules_of(model).min_cache_tokens or 0
        written = {"5m": 0, "1h": 0}
        start = read
        for index, ttl in marks:
            if at[index] < minimum:
                continue  # too short to cache: silently not cached
            space[boundaries[index].key] = (self.clock.now() + _ANTHROPIC_TTLS[ttl], _ANTHROPIC_TTLS[ttl])
            if at[index] > start:
                written[ttl] += at[index] - start
                start = at[index]
        return replace(usage, cache_read_tokens=read, cache_write_tokens=written["5m"] + written["1h"],
                       cache_write_1h_tokens=written["1h"])

    def _openai(self, api: str, body: Mapping[str, Any], transcript: Transcript, tools: Sequence[Tool],
                usage: Usage) -> Usage:
        model = str(body.get("model", ""))
        rules = rules_of(model)
        if rules.provider != "openai":
            return usage  # a local model, or one the table does not know: no cache to speak of
        minimum = rules.min_cache_tokens or 1024
        space = self._spaces.setdefault((api, model, str(body.get("prompt_cache_key") or "")), {})
        boundaries = kit_layout(transcript, tools)
        total = usage.input_tokens
        shared = max((min(b.tokens, total) for b in boundaries if self._live(space, b.key)), default=0)
        step = rules.cache_increment
        read = 0 if shared < minimum else minimum + (shared - minimum) // step * step
        lifetime = _openai_lifetime(body, step)
        for boundary in boundaries:
            if boundary.tokens >= minimum:
                space[boundary.key] = (self.clock.now() + lifetime, lifetime)
        price = price_of(model)
        billed_writes = price is not None and price.cache_write is not None
        write = total - read if billed_writes and total >= minimum else 0
        return replace(usage, cache_read_tokens=read, cache_write_tokens=write)


def _openai_lifetime(body: Mapping[str, Any], step: int) -> float:
    """Seconds an OpenAI prefix lives unused: asked for, else the model generation's default."""
    options = body.get("prompt_cache_options")
    asked = options.get("ttl") if isinstance(options, Mapping) else None
    asked = asked or body.get("prompt_cache_retention")
    return _OPENAI_TTLS.get(str(asked), _OPENAI_TTLS["30m"] if step == 1 else _OPENAI_TTLS["in_memory"])
