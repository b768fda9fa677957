"""The double in-process: a transport for the SDKs' HTTP clients, so nothing opens a socket.

Over a socket, an SDK's request goes from its HTTP client through a connection to the
double's request handler (`handler.py`), which reads the bytes and calls `ApiDouble.handle`.
A *transport* is the part of an HTTP client that sends a request and returns the response
(httpx's `BaseTransport.handle_request`, `AsyncBaseTransport.handle_async_request`); this
one calls `ApiDouble.handle` itself, in the same thread, and answers with what the handler
would have sent. So an SDK talks to a double with no port, no thread and no socket, which
is what a hub that forbids listening sockets (or a browser edition: Pyodide has none) needs:

    >>> import httpx2, openai
    >>> from toolcall_lab.double import ApiDouble
    >>> double = ApiDouble(["Hi!"])  # no start(): it is only reached through its transport
    >>> client = openai.OpenAI(base_url=double.base_url("chat"), api_key="unused",
    ...                        http_client=httpx2.Client(transport=double.transport()))
    >>> reply = client.chat.completions.create(model="gpt-5-mini", messages=[
    ...     {"role": "user", "content": "Hi"}])
    >>> double.base_url("chat"), reply.choices[0].message.content
    ('http://double.invalid/v1', 'Hi!')

The Anthropic and OpenAI SDKs build their clients on `httpx2`, the Ollama client on `httpx`
(`ollama.Client(host=..., transport=...)` passes the keyword on to its `httpx.Client`); the
two libraries share these interfaces, so one transport serves both: the response is built
with the request's own library. What the handler does besides `handle`, the transport does
the same way: `sdk_of` from the headers' names, the `X-Double-Fault` header, a body over
`max_body` refused (`refuse`), the double's header on every answer; a streamed answer
(`streams.Streamed`) is handed over an event at a time as the client reads it, with the
stream's pause between events, and a "cut" stream ends in the very error the HTTP client
raises when a connection drops mid-body (`RemoteProtocolError`, with its words), which
each SDK then wraps as it does over a socket (anthropic's and openai's `APIConnectionError`).

A double reached only through its transport is never started, and its `url` is then
`IN_PROCESS_URL`, `http://double.invalid`: a name no network resolves (RFC 2606 §2,
https://www.rfc-editor.org/rfc/rfc2606.html: '".invalid" is intended for use in online
construction of domain names that are sure to be invalid and which it is obvious at a glance
are invalid'), so a client given that URL without the transport reaches nothing, and says so.
The transport answers any URL: pointed at a started double's own URL, it still skips the socket.

Left out: timeouts while the double works (a "slow" answer arrives whole after its pause,
then, if the pause was longer than the client's read timeout, the client's `ReadTimeout` is
raised, as a socket would have raised it sooner; a "slow_stream" pause longer than the read
timeout raises it after that timeout), HTTP/1.1 framing (nothing is framed: the bytes of a
body are handed over as they are), and connection reuse, which has nothing to reuse.
"""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, Self

from .handler import answer_headers
from .streams import Streamed

if TYPE_CHECKING:
    from .api_double import ApiDouble

__all__ = ["IN_PROCESS_URL", "AsyncDoubleTransport", "DoubleTransport"]

#: The root a double reached only through its transport answers at (`ApiDouble.url`).
IN_PROCESS_URL = "http://double.invalid"
#: What the HTTP clients say when a connection drops before a chunked body's end (h11's words,
#: `_readers.py`), which they raise as `RemoteProtocolError`.
CUT = "peer closed connection without sending complete message body (incomplete chunked read)"


class DoubleTransport:
    """A transport for an `httpx2.Client` or `httpx.Client` that answers from `double` in-process.

    Duck-typed as the libraries' `BaseTransport` (`handle_request`, `close`, a `with` block):
    the clients call only these, and build the answer with the request's own library.
    """

    def __init__(self, double: ApiDouble) -> None:
        self.double = double

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.double!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to close: no connection was opened."""

    def handle_request(self, request: Any) -> Any:
        """Answer `request` (the client's `Request`) as the double's handler would, with no socket."""
        return self._respond(request, request.read(), _frames)

    def _respond(self, request: Any, raw: bytes, frames: Callable[[ModuleType, Any, Streamed], Any]) -> Any:
        """The client's `Response` to `request` with body `raw`, a stream's body read by `frames`."""
        http = _library(request)
        started = time.monotonic()
        status, body, headers = self._answer(request, raw)
        _late(http, request, time.monotonic() - started)
        content = (frames(http, request, body) if isinstance(body, Streamed)
                   else b"" if request.method == "HEAD" else body)
        return http.Response(status, headers=answer_headers(body, headers), content=content, request=request)

    def _answer(self, request: Any, raw: bytes) -> tuple[int, bytes | Streamed, dict[str, str]]:
        """What `ApiDouble.handle` says to `request`, after the handler's own checks (`handler.py`)."""
        double = self.double
        sdk = double.sdk_of(request.headers.keys())
        method, path = request.method, request.url.raw_path.decode("ascii")
        if len(raw) > double.max_body:  # subtle: read already, unlike the handler; refused all the same
            return double.refuse(method, path, "too_large", sdk=sdk, size=f"{len(raw):,}",
                                 limit=f"{double.max_body:,}")
        return double.handle(method, path, raw, fault_header=request.headers.get("x-double-fault"), sdk=sdk,
                             headers=dict(request.headers.items()))


class AsyncDoubleTransport(DoubleTransport):
    """The same for an `httpx2.AsyncClient` or `httpx.AsyncClient` (`handle_async_request`).

    subtle: the double answers in the event loop's thread, as it answers a request in the
    client's thread for the sync transport; only a stream's pauses (`asyncio.sleep`) and a
    "slow" answer's (a blocking sleep: `ApiDouble.handle` is not async) take time there.
    """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Nothing to close: no connection was opened."""

    async def handle_async_request(self, request: Any) -> Any:
        """Answer `request` as `handle_request` does, its stream read with `async for`."""
        return self._respond(request, await request.aread(), _async_frames)


def _library(request: Any) -> ModuleType:
    """The HTTP library `request` belongs to (httpx2 or httpx): its answer is built with it."""
    return sys.modules[type(request).__module__.partition(".")[0]]


def _read_timeout(request: Any) -> float | None:
    """The seconds the client waits for the next bytes (its `timeout` extension's "read")."""
    timeout: Any = request.extensions.get("timeout", {}).get("read")
    return None if timeout is None else float(timeout)


def _late(http: ModuleType, request: Any, took: float) -> None:
    """Raise the client's `ReadTimeout` if the double took longer to answer than it waits."""
    wait = _read_timeout(request)
    if wait is not None and took > wait:
        raise http.ReadTimeout("timed out", request=request)


def _frames(http: ModuleType, request: Any, stream: Streamed) -> Iterator[bytes]:
    """The stream's body, a frame at a time as the client reads it, with the stream's pauses
    (`Streamed.paced`, as the handler sends it); a pause longer than the client waits is its
    `ReadTimeout`, raised after that wait."""
    wait = _read_timeout(request)
    for pause, frame in stream.paced():
        if pause:
            time.sleep(pause if wait is None else min(pause, wait))
            _waited_out(http, request, pause, wait)
        yield frame
    if last := _last(http, request, stream):
        yield last


async def _async_frames(http: ModuleType, request: Any, stream: Streamed) -> AsyncIterator[bytes]:
    """`_frames` for an async client: the pauses are `asyncio.sleep`s."""
    import asyncio  # subtle: here, not at the top: `import toolcall_lab` stays light without it
    wait = _read_timeout(request)
    for pause, frame in stream.paced():
        if pause:
            await asyncio.sleep(pause if wait is None else min(pause, wait))
            _waited_out(http, request, pause, wait)
        yield frame
    if last := _last(http, request, stream):
        yield last


def _waited_out(http: ModuleType, request: Any, pause: float, wait: float | None) -> None:
    """The client's `ReadTimeout` if it waited `wait` seconds for a frame `pause` seconds away."""
    if wait is not None and pause > wait:
        raise http.ReadTimeout("timed out", request=request)


def _last(http: ModuleType, request: Any, stream: Streamed) -> bytes:
    """What closes the stream's body (`Streamed.end`); a cut stream ends instead in the error the
    client raises when a connection drops mid-body (no last chunk)."""
    if stream.cut:
        raise http.RemoteProtocolError(CUT, request=request)
    return stream.end
