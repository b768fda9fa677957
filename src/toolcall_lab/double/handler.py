"""The double's HTTP side: the request handler, and how a request's body length is read.

Everything about sockets and bytes lives here; what a request *means* is decided in
`ApiDouble.handle` (bytes in, status and bytes out, no socket). The handler, for one
double (`handler_for`), does the same few steps for every request:

1. read the request line (one over 64 KiB is refused with a 414) and the headers, and
   refuse what cannot be read in JSON, never http.server's HTML;
2. read the body, whose length is Content-Length as HTTP defines it (`content_length`);
   a body whose end cannot be known, or over `max_body`, is refused unread, and the
   connection closed;
3. let the double answer (`ApiDouble.handle`), telling it only which SDK sent the request
   (by a header's name, never a value);
4. send the status line, the headers (one of them `DOUBLE_HEADER`) and the body in one
   write, with `TCP_NODELAY` set on the connection (without it each small reply waits on
   the client's delayed ACK, about 40 ms); or, for a streamed answer (`streams.Streamed`),
   the headers at once and then each event as a chunk of its own (`Transfer-Encoding:
   chunked`), flushed as it is written, with the stream's pause between events; a "cut"
   stream hangs up before the body's last chunk, as a dropped connection does.

Left out: HTTP/2, chunked request bodies (refused with a 411), and TLS.
"""

from __future__ import annotations

import functools
import socket
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .streams import Streamed

if TYPE_CHECKING:
    from .api_double import ApiDouble

__all__ = ["DOUBLE_HEADER", "answer_headers", "content_length", "handler_for"]

#: A header on every answer of the double, so a recording in another process (a lesson's
#: kernel) can label its tape "recorded against the toolcall-lab API double".
DOUBLE_HEADER = "x-toolcall-lab-double"


def handler_for(double: ApiDouble) -> type:
    """The request handler class for `double` (http.server is imported only when serving)."""
    from http.server import BaseHTTPRequestHandler

    return type("Handler", (_Handling, BaseHTTPRequestHandler), {"double": double})


if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler as _HandlerBase
else:
    _HandlerBase = object  # subtle: http.server is imported only when serving (`handler_for`)


class _Handling(_HandlerBase):
    """What the double's request handler does with each request, step by step.

    `handler_for` puts these steps on http.server's `BaseHTTPRequestHandler` for one
    double: read the request line, refuse what cannot be read (in JSON, never HTML),
    read the body, let the double answer (`ApiDouble.handle`), send it in one write.
    """

    double: ApiDouble
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs expect
    timeout = 60  # seconds a client may sit silent mid-request or between requests
    # subtle: a buffered writer, so the status line, headers and body leave in one send
    # (flushed after each request below); unbuffered, each is a packet of its own
    wbufsize = 1 << 16

    def handle_one_request(self) -> None:
        # subtle: http.server answers a method it has no do_X for with an HTML 501;
        # every method comes here instead, and the double answers in JSON.
        try:
            self.raw_requestline = self.rfile.readline(65537)
        except ConnectionError:
            # subtle: a client that stops reading a stream midway (an error event, a `break`)
            # resets the kept-alive connection, which arrives here as the next "request"
            self.close_connection = True
            return
        if len(self.raw_requestline) > 65536:
            # subtle: parse_request sets these; http.server's own handler sets them first too
            self.requestline, self.request_version, self.command = "", "", ""
            self.send_error(414)
            self.wfile.flush()
            return
        if not self.raw_requestline:
            self.close_connection = True
            return
        if self.parse_request():
            self._reply()
            try:
                self.wfile.flush()
            except ConnectionError:  # the client hung up first (a timeout of its own): nothing to tell
                self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the double logs one line per request itself, and never a header

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.double._connections_lock:
            self.double._connections.add(self.connection)

    def finish(self) -> None:
        with self.double._connections_lock:
            self.double._connections.discard(self.connection)
        try:
            super().finish()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up before its reply was flushed: nothing is left to send

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (bad request line, bad headers) in JSON, not HTML."""
        if self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.1"  # subtle: else no status line is written at all
        said = message or self.responses.get(code, ("Bad Request",))[0]
        detail = f"{code} {said}: the request line or headers could not be read."
        status, data, headers = self.double.refuse(self.command or "?", self.path if hasattr(self, "path")
                                                   else "/", "bad_header", detail=detail)
        self.close_connection = True
        self._send(code if code != 400 else status, data, headers)

    def _reply(self) -> None:
        sdk = self.double.sdk_of(self.headers.keys())
        length, refused = self._body_length(sdk)
        if refused is not None:
            self.close_connection = True  # subtle: the body is never read, so no more requests
            return self._send(*refused)
        raw = self.rfile.read(length)
        self._send(*self.double.handle(self.command, self.path, raw,
                                       fault_header=self.headers.get("x-double-fault"), sdk=sdk,
                                       headers=dict(self.headers.items())))

    def _body_length(self, sdk: str | None) -> tuple[int, tuple[int, bytes, dict[str, str]] | None]:
        """(the body's length in bytes, None), or (0, the refusal) when its end cannot be known
        or it is too large to read."""
        declared = self.headers.get_all("content-length") or []
        chunked = self.headers.get("transfer-encoding")
        refuse = functools.partial(self.double.refuse, self.command, self.path, sdk=sdk)
        if not declared and chunked:
            return 0, refuse("no_length")
        length = content_length(declared)
        if length is None or (declared and chunked):
            shown = ", ".join(declared) + (f" with Transfer-Encoding: {chunked}" if chunked else "")
            return 0, refuse("bad_header", detail=f"Content-Length must be one whole number of bytes, in "
                                                  f"digits; got {shown!r}.")
        if length > self.double.max_body:
            return 0, refuse("too_large", size=f"{length:,}", limit=f"{self.double.max_body:,}")
        return length, None

    def _send(self, status: int, data: bytes | Streamed, headers: dict[str, str]) -> None:
        if isinstance(data, Streamed):
            return self._stream(status, data, headers)
        try:
            self.send_response(status)
            for name, value in answer_headers(data, headers).items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except ConnectionError:
            pass  # subtle: a client that timed out (the "slow" fault) hung up before the answer

    def _stream(self, status: int, stream: Streamed, headers: dict[str, str]) -> None:
        """A streamed answer: the headers, then each frame a chunk of its own, flushed as written."""
        try:
            self.send_response(status)
            for name, value in answer_headers(stream, headers).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.flush()  # the status and headers go out before the first event
            for pause, frame in stream.paced():
                if pause:
                    time.sleep(pause)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
                self.wfile.flush()
            if stream.cut:
                # subtle: no last chunk, and the connection closed: what a dropped stream leaves
                self.close_connection = True
                return
            if stream.end:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(stream.end), stream.end))
            self.wfile.write(b"0\r\n\r\n")
        except ConnectionError:
            self.close_connection = True  # the client stopped reading (it closed the stream early)


def answer_headers(body: bytes | Streamed, headers: Mapping[str, str]) -> dict[str, str]:
    """The headers the double sends with `body` (the answer's own `headers` last): JSON with
    its length, or a stream's own headers, chunked; `DOUBLE_HEADER` on both. The socket
    (`_Handling`) and the in-process transport (`transport.py`) send the same."""
    if isinstance(body, Streamed):
        return {**body.headers, "transfer-encoding": "chunked", DOUBLE_HEADER: "1", **headers}
    return {"content-type": "application/json", "content-length": str(len(body)), DOUBLE_HEADER: "1",
            **headers}


def content_length(values: Sequence[str]) -> int | None:
    """A request's body length from its Content-Length headers, as HTTP reads it; None if invalid.

    RFC 9110 §8.6: `Content-Length = 1*DIGIT`, so "+45", "1_0", " 4 5" or "-5" are not
    lengths (Python's `int` would take the first two); a list of the same value
    repeated ("45, 45", or the header twice) is one length, different values are none
    (RFC 9112 §6.3). No header at all is a body of 0 bytes.

    >>> content_length(["45"]), content_length(["45, 45"]), content_length([])
    (45, 45, 0)
    >>> content_length(["+45"]), content_length(["1_0"]), content_length(["45", "46"])
    (None, None, None)
    """
    found = {part.strip(" \t") for value in values for part in value.split(",")}
    if not values:
        return 0
    if len(found) != 1 or not all(part.isascii() and part.isdigit() for part in found):
        return None
    return int(found.pop())
