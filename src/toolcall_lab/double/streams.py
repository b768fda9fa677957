"""Playing a reply as a stream: its events, the faults that bend them, and the bytes they make.

A request that says `"stream": true` (or an Ollama request that does not say
`"stream": false`: `ApiSpec.streams_by_default`) is answered in two steps. First the
double finishes the reply exactly as it would unstreamed (the same body, the same ids and
usage), then `stream_of` plays that body as the API's events, asking the API's server
half (`wire/<api>/streaming.py`) for them and for their framing. So a streamed answer and
an unstreamed one can never disagree, and the SDKs' own accumulators rebuild the body
they would have got whole.

What a stream can be made to do (`ApiDouble.fail_next`, or the header `X-Double-Fault`),
each the way a real stream goes wrong:

    "cut"           the connection drops after `after` events (default: half of them): the
                    chunked body never ends, and the SDK's HTTP client says so
    "stream_error"  an error event after `after` events, in the API's words (Anthropic's
                    `overloaded_error`, Ollama's `{"error": ...}` line, Responses' `error`,
                    a local server's error body), and nothing more (vLLM: `[DONE]`)
    "stream_failed" the API's failed end after `after` events: Responses' `response.failed`
                    (the response, `status: "failed"`, its `error`); the APIs without one
                    send their error event, as "stream_error"
    "slow_stream"   `delay` seconds between events (default 0.1 s), a model writing slowly
    "malformed"     half the stream's bytes, then its end (an event torn in two)

A stream fault waits for the next streamed request: a request that is not streamed
leaves it queued.

>>> reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
...          "content": [{"type": "text", "text": "Hi!"}], "stop_reason": "end_turn",
...          "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 1}}
>>> played = stream_of("anthropic", reply, {"stream": True})
>>> [event["type"] for event in played.events][:3], played.headers["content-type"]
(['message_start', 'content_block_start', 'ping'], 'text/event-stream; charset=utf-8')
>>> [event["type"] for event in stream_of("anthropic", reply, {}, Fault("stream_error", after=1)).events]
['message_start', 'error']
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..turn import Turn
from ..wire import API_SPECS, decode_reply
from ..wire.flavoured import restream, stream_error
from ..wire.flavours import Flavour
from .faults import Fault

__all__ = ["ON_THE_STREAM", "RecordedStream", "Streamed", "play", "stream_of"]

#: The faults only a stream can take (they wait for a streamed request); "malformed" tears
#: either kind of answer.
ON_THE_STREAM = ("cut", "stream_error", "stream_failed", "slow_stream")
#: Seconds between events of a "slow_stream", unless the fault says.
SLOW = 0.1
#: How many events a stream makes and frames in one pass before its first frame goes out.
AT_ONCE = 64


@dataclass(frozen=True)
class Streamed:
    """A streamed answer, ready for the socket: its events, made and framed as they are sent.

    `reply` is the body the stream was played from (what the answer would have been
    unstreamed; None for a stream a tape recorded); `source` the raw events, in order,
    made only as they are read, so the first goes out before the last is written (a
    2,000-token reply is 2,000 events); `framing` turns one into its bytes. `events` and
    `frames` read them (each event made once, whoever reads first); `end` is what closes
    the stream after them (Chat's `data: [DONE]`); `delay` the seconds between frames;
    `cut` whether the connection drops after the last frame, the body never ended;
    `torn` whether only the first half of the stream's bytes go out (then its end).
    """

    api: str
    reply: Mapping[str, Any] | None
    source: Iterable[dict[str, Any]]
    framing: Callable[[Mapping[str, Any]], bytes]
    closing: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    cut: bool = False
    torn: bool = False
    _made: list[dict[str, Any]] = field(default_factory=list, repr=False, compare=False)
    _pending: Iterator[dict[str, Any]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_pending", iter(self.source))  # subtle: frozen, so set once here

    def _each(self) -> Iterator[dict[str, Any]]:
        """Every event, those made already first, then each as it is made.

        subtle: a reader that resumes after another made events (`events` read mid-stream) reads
        those first; the first reader alone just makes each event, keeps it and hands it on."""
        made, at = self._made, 0
        while True:
            while at < len(made):
                yield made[at]
                at += 1
            for event in self._pending:
                made.append(event)
                at += 1
                yield event
                if at != len(made):
                    break  # another reader made some meanwhile: those come next
            else:
                return

    @property
    def events(self) -> tuple[dict[str, Any], ...]:
        """The raw events sent, in order."""
        return tuple(self._each())

    @property
    def frames(self) -> Iterator[bytes]:
        """Each event's bytes, made as they are asked for (a torn stream: half of all its bytes)."""
        if self.torn:  # torn in two, as a dropped proxy leaves it
            whole = b"".join(map(self.framing, self._each())) + self.closing
            yield whole[: len(whole) // 2]
            return
        yield from map(self.framing, self._each())

    def paced(self) -> Iterator[tuple[float, bytes]]:
        """(pause, frame) for each frame that is sent: the seconds to wait before it (`delay`,
        none before the first) and its bytes; an empty frame is skipped, since an empty chunk
        would end the body. What the socket (`handler.py`) and the transport both send.

        subtle: a stream read first here, with no pause between its frames (every stream but a
        "slow_stream" or a torn one), has its first `AT_ONCE` events made and framed in one pass,
        all of a short reply's; the rest of a long one, each as it is read."""
        if self.torn or self.delay or self._made:
            return self._paced()
        made = self._made
        made.extend(itertools.islice(self._pending, AT_ONCE))
        first = zip(itertools.repeat(0.0), [*filter(None, map(self.framing, made))])
        if len(made) < AT_ONCE:
            return first  # the source ran out: a short reply, every frame made
        later = map(self.framing, itertools.islice(self._each(), len(made), None))  # past those made
        return itertools.chain(first, zip(itertools.repeat(0.0), filter(None, later)))

    def _paced(self) -> Iterator[tuple[float, bytes]]:
        pause = 0.0
        for frame in self.frames if self.torn else map(self.framing, self._each()):
            if frame:
                yield pause, frame
                pause = self.delay

    @property
    def end(self) -> bytes:
        """What is sent after the last frame (nothing after a torn stream)."""
        return b"" if self.torn else self.closing

    def __bytes__(self) -> bytes:
        """The stream's body as a client reads it to the end."""
        return b"".join(self.frames) + self.end

    def turn(self) -> Turn:
        """The reply the stream carries, as the kit reads it: the body it was played from, or,
        for a tape's stream, its events decoded (`wire.decode_stream`: the same `Turn`)."""
        return decode_reply(api=self.api, response=self.reply, events=self.events)


@dataclass(frozen=True)
class RecordedStream:
    """A streamed answer on a tape: its raw events, played again as they arrived (`play`), not
    a reply streamed anew (`double.playback`)."""

    events: tuple[dict[str, Any], ...]


def stream_of(api: str, reply: Mapping[str, Any], request: Mapping[str, Any],
              fault: Fault | None = None, *, flavour: Flavour | None = None) -> Streamed:
    """`reply` (an `api` response body) as its stream, bent by `fault` if it is a stream's, and
    streamed the way the local server `flavour` streams it (`wire.flavoured.restream`)."""
    events: Iterable[dict[str, Any]] = API_SPECS[api].server.encode_stream(reply, request=request)
    if flavour is not None and flavour.bends_chat_stream:
        events = restream(flavour, events)
    return play(api, reply, events, fault, flavour=flavour)


def play(api: str, reply: Mapping[str, Any] | None, events: Iterable[dict[str, Any]],
         fault: Fault | None = None, *, flavour: Flavour | None = None) -> Streamed:
    """`events` (an `api` stream's raw events, in order) ready for the socket, bent by `fault`.

    `reply` is the body they were played from (None for a stream replayed from a tape). Only
    a fault that counts them (a cut or an error "after half") makes every event first.
    """
    server = API_SPECS[api].server
    kind = fault.kind if fault is not None and fault.kind in (*ON_THE_STREAM, "malformed") else None
    end = server.STREAM_END
    if kind in ("cut", "stream_error", "stream_failed"):
        listed = list(events)
        after = _after(fault, len(listed))
        events, end = listed[:after], b""
        if kind != "cut":
            if flavour is not None and flavour.bends_chat_stream:
                failed, end = stream_error(flavour)
            else:
                failed = server.stream_error(after, reply, failed=kind == "stream_failed")
            events = [*listed[:after], failed]
    delay = (SLOW if fault is None or fault.delay is None else fault.delay) if kind == "slow_stream" else 0.0
    return Streamed(api, reply, events, server.frame, end, dict(server.STREAM_HEADERS), delay,
                    cut=kind == "cut", torn=kind == "malformed")


def _after(fault: Fault | None, count: int) -> int:
    """How many events go out before a cut or an error: the fault's `after`, else half."""
    wanted = count // 2 if fault is None or fault.after is None else fault.after
    return max(0, min(wanted, count))
