"""The double's HTTP side: the request handler, and how a request's body length is read.

Everything about sockets and bytes lives here; what a request *means* is decided in
`ApiDouble.handle` (bytes in, status and bytes out, no socket). The handler, for one
double (`handler_for`), does the same few steps for every request:

1. read the request line (one over 64 KiB is refused with a 414) and the headers, and
   refuse what cannot be read in JSON, never http.server's HTML; headers that are each one
   plain `Name: value` line (every SDK's) are read here (`read_headers`), any other by the
   email parser http.server uses, which alone cost more than the double's answer;
2. read the body, whose length is Content-Length as HTTP defines it (`content_length`);
   a body whose end cannot be known, or over `max_body`, is refused unread, and the
   connection closed;
3. let the double answer (`ApiDouble.handle`), telling it only which SDK sent the request
   (by a header's name, never a value);
4. send the status line, the headers (one of them `DOUBLE_HEADER`; http.server's own
   `Server` and `Date` first, made once a second) and the body in one write, with
   `TCP_NODELAY` set on the connection (without it each small reply waits on
   the client's delayed ACK, about 40 ms); or, for a streamed answer (`streams.Streamed`),
   the headers at once and then each event as a chunk of its own (`Transfer-Encoding:
   chunked`), flushed as it is written, with the stream's pause between events; a "cut"
   stream hangs up before the body's last chunk, as a dropped connection does.

Left out: HTTP/2, chunked request bodies (refused with a 411), and TLS.
"""

from __future__ import annotations

import functools
import io
import operator
import re
import socket
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from .streams import Streamed

if TYPE_CHECKING:
    from email.message import Message
    from http.client import HTTPMessage

    from .api_double import ApiDouble

__all__ = ["DOUBLE_HEADER", "Lowered", "RequestHeaders", "answer_headers", "content_length", "handler_for",
           "read_headers"]

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
    sent: RequestHeaders  # the request's headers as read (`parse_request`)
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

    def parse_request(self) -> bool:
        """http.server's `parse_request` (the same from Python 3.11 to 3.13) for the request line
        every SDK sends, `POST /v1/messages HTTP/1.1`, with the headers read by `read_headers`;
        any other line (HTTP/1.0, a path starting `//`, odd spacing) is left to http.server whole.
        Either way `self.headers` is the same `HTTPMessage` (made only if asked for), and
        `self.sent` the headers as read (`RequestHeaders`)."""
        line = str(self.raw_requestline, "iso-8859-1")
        plain = _REQUEST_LINE.fullmatch(line)
        if plain is None:
            return bool(super().parse_request())  # subtle: it sets `self.headers`, so `self.sent` too
        import http.client  # subtle: a plain import, so no `from` list is looked through each time

        self.command, self.path = plain[1], plain[2]
        self.request_version, self.requestline = "HTTP/1.1", line.rstrip("\r\n")
        self.close_connection = False  # HTTP/1.1 keeps the connection, unless it says close
        try:
            self.sent = read_headers(self.rfile, self.MessageClass)
        except http.client.LineTooLong as err:
            self.send_error(431, "Line too long", str(err))  # REQUEST_HEADER_FIELDS_TOO_LARGE
            return False
        except http.client.HTTPException as err:
            self.send_error(431, "Too many headers", str(err))
            return False
        if (self.sent.first("connection") or "").lower() == "close":
            self.close_connection = True
        if (self.sent.first("expect") or "").lower() == "100-continue":
            return bool(self.handle_expect_100())
        return True

    @property
    def headers(self) -> Message[str, str]:
        """The request's headers as http.server has them (an `http.client.HTTPMessage`)."""
        return self.sent.message

    @headers.setter
    def headers(self, message: Message[str, str]) -> None:  # http.server's own `parse_request` sets it
        self.sent = RequestHeaders(message.items(), message)

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
        sdk = self.double.sdk_of(self.sent.last)
        length, refused = self._body_length(sdk)
        if refused is not None:
            self.close_connection = True  # subtle: the body is never read, so no more requests
            return self._send(*refused)
        raw = self.rfile.read(length)
        self._send(*self.double.handle(self.command, self.path, raw,
                                       fault_header=self.sent.first("x-double-fault"), sdk=sdk,
                                       headers=self.sent.last))

    def _body_length(self, sdk: str | None) -> tuple[int, tuple[int, bytes, dict[str, str]] | None]:
        """(the body's length in bytes, None), or (0, the refusal) when its end cannot be known
        or it is too large to read."""
        declared = self.sent.every("content-length")
        chunked = self.sent.first("transfer-encoding")
        length = content_length(declared)
        if length is not None and not chunked and length <= self.double.max_body:
            return length, None  # every SDK's request
        refuse = functools.partial(self.double.refuse, self.command, self.path, sdk=sdk)
        if not declared and chunked:
            return 0, refuse("no_length")
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
            self._head(status, answer_headers(data, headers))
            if self.command != "HEAD":
                self.wfile.write(data)
        except ConnectionError:
            pass  # subtle: a client that timed out (the "slow" fault) hung up before the answer

    def _stream(self, status: int, stream: Streamed, headers: dict[str, str]) -> None:
        """A streamed answer: the headers, then each frame a chunk of its own, flushed as written."""
        try:
            self._head(status, answer_headers(stream, headers))
            write, flush = self.wfile.write, self.wfile.flush
            flush()  # the status and headers go out before the first event
            for pause, frame in stream.paced():
                if pause:
                    time.sleep(pause)
                write(b"%x\r\n%s\r\n" % (len(frame), frame))
                flush()
            if stream.cut:
                # subtle: no last chunk, and the connection closed: what a dropped stream leaves
                self.close_connection = True
                return
            if stream.end:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(stream.end), stream.end))
            self.wfile.write(b"0\r\n\r\n")
        except ConnectionError:
            self.close_connection = True  # the client stopped reading (it closed the stream early)

    def _head(self, status: int, headers: Mapping[str, str]) -> None:
        """What http.server's `send_response`, `send_header` for each of `headers` and
        `end_headers` write, as one piece: the status line, `Server`, `Date`, the headers, a blank
        line (nothing for an HTTP/0.9 request, which has no head). A `connection` header keeps or
        closes the connection, as `send_header` has it."""
        phrase = self.responses[status][0] if status in self.responses else ""
        head = [f"{self.protocol_version} {status:d} {phrase}\r\nServer: {self.version_string()}\r\n"
                f"Date: {_date()}\r\n"]
        for name, value in headers.items():
            head.append(f"{name}: {value}\r\n")
            if name.lower() == "connection":
                if value.lower() == "close":
                    self.close_connection = True
                elif value.lower() == "keep-alive":
                    self.close_connection = False
        if self.request_version != "HTTP/0.9":
            self.wfile.write("".join(head).encode("latin-1", "strict") + b"\r\n")


#: The request line every SDK sends: a method, a path (not starting `//`, which http.server
#: rewrites), HTTP/1.1; read by `_Handling.parse_request` exactly as http.server reads it.
_REQUEST_LINE = re.compile(r"([A-Z]+) (/(?!/)[!-~]*) HTTP/1\.1\r?\n")
#: A header that is one plain line: a name of the characters the email parser takes for one
#: (printable ASCII but the colon), a colon, the value, the line's end. The value's leading
#: spaces and tabs are not its own, its trailing ones are: as the email parser reads it.
_HEADER_LINE = re.compile(r"^([!-9;-~]+):[ \t]*([^\r\n]*)\r?\n", re.MULTILINE)
#: The same line, its name alone.
_HEADER_NAME = re.compile(r"^([!-9;-~]+):[ \t]*[^\r\n]*\r?\n", re.MULTILINE)
#: http.client's limits on a header block: the longest line, the most headers.
_MAX_LINE, _MAX_HEADERS = 65536, 100


class Lowered(dict[str, str]):
    """Headers by name, every name in lower case already (what `ApiDouble.handle` and `sdk_of` would
    make of them, so they need not make it again)."""


_VALUE = operator.itemgetter(1)  # a header's value, from its (name, value)


class RequestHeaders:
    """A request's headers as read: `pairs` (name, value) in the order sent, `last` each lower-case
    name's last value (what `dict(message.items())` keeps, lower-cased), `named` every value by
    lower-case name, and `message`, the `http.client.HTTPMessage` http.server would have made,
    made only when asked for (`message_class` is the handler's `MessageClass`)."""

    def __init__(self, pairs: Iterable[tuple[str, str]], message: Message[str, str] | None = None,
                 message_class: type[HTTPMessage] | None = None, *, lowered: Iterable[str] | None = None
                 ) -> None:
        self.pairs = list(pairs)
        # subtle: `lowered`, the names already in lower case (`read_headers` lowers a block at once)
        self.last = Lowered(zip(lowered, map(_VALUE, self.pairs), strict=True) if lowered is not None
                            else ((name.lower(), value) for name, value in self.pairs))
        # subtle: when no name comes twice (every SDK's headers) each name's first value is its last
        self._named = None if len(self.last) == len(self.pairs) else _by_name(self.pairs)
        self._message, self._class = message, message_class

    @property
    def named(self) -> dict[str, list[str]]:
        """Every value of each header, by lower-case name, in the order sent."""
        if self._named is None:
            self._named = {name: [value] for name, value in self.last.items()}
        return self._named

    def first(self, name: str) -> str | None:
        """The first value of the header `name` (lower case), as `message.get` gives it."""
        if self._named is None:
            return self.last.get(name)
        values = self._named.get(name)
        return values[0] if values else None

    def every(self, name: str) -> list[str]:
        """Every value of the header `name` (lower case), as `message.get_all` gives them (or [])."""
        if self._named is None:
            return [self.last[name]] if name in self.last else []
        return self._named.get(name, [])

    @property
    def message(self) -> Message[str, str]:
        if self._message is None:
            import http.client

            message = (self._class or http.client.HTTPMessage)()
            for name, value in self.pairs:
                message.set_raw(name, value)
            message.set_payload("")  # subtle: what the email parser leaves for a block with no body
            self._message = message
        return self._message


def read_headers(rfile: IO[bytes] | io.BufferedIOBase, message_class: type[HTTPMessage] | None = None
                 ) -> RequestHeaders:
    """A request's headers, read as `http.client.parse_headers` reads them.

    Lines are read with http.client's limits and its errors (`LineTooLong`, more than 100
    headers): in one piece when the block sits whole in the reader's buffer, else line by line.
    When every line is one plain `Name: value` and the block ends with a blank line, as every
    SDK sends it, they are read here, and the message is what the email parser would make of
    them; any other block (a folded line, a line that is no header, a block cut off) goes to
    that parser, which reads it as http.server always has.

    >>> import io
    >>> sent = read_headers(io.BytesIO(b"Host: x\\r\\nX-A:  1 \\r\\nx-a: 2\\r\\n\\r\\n"))
    >>> sent.message.items(), sent.named, sent.first("x-a"), sent.last["x-a"]
    ([('Host', 'x'), ('X-A', '1 '), ('x-a', '2')], {'host': ['x'], 'x-a': ['1 ', '2']}, '1 ', '2')
    """
    block = _whole_block(rfile)
    if block is not None:
        lines, ended = block.count(b"\n"), True
    else:
        read = _lines(rfile)
        block, lines, ended = b"".join(read), len(read), read[-1] != b""
    text = block.decode("iso-8859-1")
    pairs: list[tuple[str, str]] = _HEADER_LINE.findall(text)
    if len(pairs) == lines - 1 and ended:  # each line a plain header, then the blank one
        # subtle: the names are ASCII, and lowering Latin-1 text keeps its length, so the lowered
        # block's lines match as the block's do, one name each
        return RequestHeaders(pairs, message_class=message_class, lowered=_HEADER_NAME.findall(text.lower()))
    import email.parser
    import http.client

    parsed = email.parser.Parser(_class=message_class or http.client.HTTPMessage).parsestr(text)
    return RequestHeaders(parsed.items(), parsed)


def _by_name(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Header values by lower-case name, in the order sent."""
    found: dict[str, list[str]] = {}
    for name, value in pairs:
        found.setdefault(name.lower(), []).append(value)
    return found


def _whole_block(rfile: Any) -> bytes | None:
    """The header block, its blank line included, read in one piece, when the reader's buffer holds
    it whole with no earlier line ending it (a blank line of a bare LF), no more than 100 lines
    and no line over the limit; else None, and nothing is read."""
    peek = getattr(rfile, "peek", None)
    if peek is None:
        return None
    buffered = peek(_MAX_LINE)
    end = buffered.find(b"\n\r\n") + 3
    if (end < 3 or end > _MAX_LINE or buffered.startswith((b"\r\n", b"\n")) or b"\n\n" in buffered[:end - 2]
            or buffered.count(b"\n", 0, end) > _MAX_HEADERS):
        return None
    block: bytes = rfile.read(end)
    return block


def _lines(rfile: Any) -> list[bytes]:
    """The header block's lines, read as `http.client._read_headers` reads them."""
    import http.client

    lines = []
    while True:
        line = rfile.readline(_MAX_LINE + 1)
        if len(line) > _MAX_LINE:
            raise http.client.LineTooLong("header line")
        lines.append(line)
        if len(lines) > _MAX_HEADERS:
            raise http.client.HTTPException(f"got more than {_MAX_HEADERS} headers")
        if line in (b"\r\n", b"\n", b""):
            return lines


_DATE: list[tuple[int, str]] = [(-1, "")]


def _date() -> str:
    """The `Date` header http.server sends (`date_time_string`), made once a second."""
    second = int(time.time())
    made, text = _DATE[0]
    if made != second:
        import email.utils

        made, text = second, email.utils.formatdate(second, usegmt=True)
        _DATE[0] = (made, text)  # subtle: one tuple, so another thread reads a whole pair
    return text


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
    if len(values) == 1 and values[0].isascii() and values[0].isdigit():
        return int(values[0])  # one header of digits alone: every SDK's
    found = {part.strip(" \t") for value in values for part in value.split(",")}
    if not values:
        return 0
    if len(found) != 1 or not all(part.isascii() and part.isdigit() for part in found):
        return None
    return int(found.pop())
