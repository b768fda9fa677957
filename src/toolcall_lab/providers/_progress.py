"""A stream's progress clock: how `timeout=` bounds a stream that sends only keep-alives.

The SDKs pass `timeout` to their HTTP client as its read timeout: the longest wait for the
next bytes. A streamed reply can send bytes forever without saying anything: Anthropic's
`ping` events, SSE comments (`: keep-alive`, as OpenRouter sends while a model is queued),
which the SDKs read past without handing anything over. Each resets the read timeout, so a
stream of them outlives any `timeout=`. The kit keeps that timeout (silence is still cut at
`timeout`) and adds the one the reader cares about: no progress for `timeout` seconds, an
event handed over being progress, a keep-alive not.

    >>> clock = Progress(0.5, now=lambda: 0.0)
    >>> clock.check()  # within the timeout: nothing happens
    >>> clock.now = lambda: 0.6
    >>> clock.check()
    Traceback (most recent call last):
    ...
    toolcall_lab.providers._progress.Stalled: no progress for 0.6 s (timeout=0.5)
    >>> clock.stalled
    True

`watch(sdk_stream)` puts the check on each chunk of bytes the SDK reads, in the thread that
reads them (no timer thread, nothing closed from elsewhere): a stream that has gone
`timeout` seconds without progress stops at its next keep-alive, so the whole wait is at
most `timeout` plus one keep-alive's interval (itself at most `timeout`, the read timeout).

Left out: Ollama's NDJSON, which has no keep-alive (every line is an event), so its read
timeout already bounds it; and a total time for the whole reply, which no SDK defines (a
long reply that keeps arriving is progress, however long it takes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Progress", "Stalled"]


class Stalled(TimeoutError):
    """Raised in the SDK's read when a stream went `timeout` seconds without progress."""


class Progress:
    """When the stream last moved, and whether it went `timeout` seconds without."""

    def __init__(self, timeout: float, *, now: Callable[[], float] = time.monotonic) -> None:
        self.timeout = timeout
        self.now = now
        self.last = now()
        self.stalled = False

    def moved(self) -> None:
        """An event arrived that is not a keep-alive."""
        self.last = self.now()

    def check(self) -> None:
        """Raise `Stalled` if nothing moved for longer than `timeout`."""
        waited = self.now() - self.last
        if waited > self.timeout:
            self.stalled = True
            raise Stalled(f"no progress for {waited:.1f} s (timeout={self.timeout:g})")

    def watch(self, sdk_stream: Any) -> None:
        """Check the clock on each chunk of bytes `sdk_stream` reads (an Anthropic or OpenAI SDK
        `Stream`, whose public `response` is the HTTP response it reads with `iter_bytes`).

        A stream without one (Ollama's lines, a test's list) is left as it is.
        """
        response: Any = getattr(sdk_stream, "response", None)
        read = getattr(response, "iter_bytes", None)
        if not callable(read):
            return

        def checked(*args: Any, **kwargs: Any) -> Iterator[bytes]:
            for chunk in read(*args, **kwargs):
                self.check()
                yield chunk

        # subtle: set on the response itself, so only this stream's reads are checked
        response.iter_bytes = checked
