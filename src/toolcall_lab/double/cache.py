"""The double's prompt cache: the prefixes it holds, their lifetimes, and the clock they expire by.

A prompt cache keeps the model's work on a prompt's *prefix*, so a later request that
starts the same way pays less for that part. The double keeps one `PromptCache` per
`ApiDouble`, with one space of prefixes per API and model (and, on OpenAI, per
`prompt_cache_key`), and a `FakeClock` that moves only when told, so a lesson can let a
cache expire on cue.

What a request reads and writes is its API's business, asked of its server half
(`wire/<api>/server.py`, `cache_usage`): Anthropic caches only where a request puts a
breakpoint (`wire/anthropic/caching.py`), OpenAI by itself from 1,024 tokens on
(`wire/_openai/server.py`), Ollama not at all that a client could see. Each API lays the prompt
out block by block, every block ending a prefix named by a hash (`wire._layout`), and
reads and writes through `held` and `keep` here, which keep each prefix's expiry and
start its lifetime again on a read.

Past `max_entries` prefixes (a long `serve`), the ones expiring first are dropped.

Left out: a cache shared between APIs or doubles, and eviction as a real provider does it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..wire import API_SPECS
from ..wire._layout import HOUR, MINUTE

if TYPE_CHECKING:
    from ..tool import Tool
    from ..transcript import Transcript
    from ..usage import Usage

__all__ = ["EPOCH", "FakeClock", "PromptCache", "RealClock"]


#: The Unix time a `FakeClock` starts at: 2026-01-01T00:00:00Z, the date Ollama's replies carry.
EPOCH = 1_767_225_600


class FakeClock:
    """A clock that moves only when told, so a cache expires when the lesson says.

    >>> clock = FakeClock()
    >>> clock.advance(minutes=6)
    360.0
    >>> clock, clock.unix() - EPOCH
    (FakeClock(at 6m 0s), 360.0)
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        """Seconds since the clock started."""
        return self._now

    def unix(self) -> float:
        """The clock's time as Unix seconds, what a reply's `created_at` says: `EPOCH` plus `now()`."""
        return EPOCH + self._now

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

    def unix(self) -> float:
        """The machine's time, in Unix seconds."""
        return time.time()

    def advance(self, *, seconds: float = 0, minutes: float = 0, hours: float = 0) -> float:
        raise UsageError("a real clock cannot be moved; start the double with the default FakeClock "
                         "(ApiDouble()) to move time with double.clock.advance(minutes=6).")

    def __repr__(self) -> str:
        return "RealClock()"


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
            usage = API_SPECS[api].server.cache_usage(self, body, transcript, tools, usage)
            self._evict()
            return usage

    # -- what a server half reads and writes (`wire._layout.Prefixes`), with the lock held -------
    def held(self, space: tuple[str, ...], key: str) -> bool:
        """Whether `space` holds the prefix `key`, not expired; a read starts its lifetime again."""
        entries = self._spaces.setdefault(space, {})
        entry = entries.get(key)
        if entry is None or entry[0] <= self.clock.now():
            entries.pop(key, None)
            return False
        entries[key] = (self.clock.now() + entry[1], entry[1])
        return True

    def keep(self, space: tuple[str, ...], key: str, lifetime: float) -> None:
        """Store the prefix `key` in `space` for `lifetime` seconds from now."""
        self._spaces.setdefault(space, {})[key] = (self.clock.now() + lifetime, lifetime)

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
