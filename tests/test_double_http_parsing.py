"""The double reads a request's line and headers itself, and writes its answer's head in one piece
(`double/handler.py`: http.server's email parser cost more than the double's whole answer, issue
30 §3). Every byte it answers is the one http.server's own `parse_request`, `send_response`,
`send_header` and `end_headers` gave, for what the SDKs send and for what no SDK sends: a folded
header, a line that is no header, HTTP/1.0 and 0.9, a `//` path, too many headers. Asserted on
bytes, never timed."""

from __future__ import annotations

import email.parser
import http.client
import io
import json
import re
from http.server import BaseHTTPRequestHandler

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from toolcall_lab.double import ApiDouble
from toolcall_lab.double.handler import handler_for, read_headers

BODY = json.dumps({"model": "claude-haiku-4-5", "max_tokens": 64,
                   "messages": [{"role": "user", "content": "Hi"}]}).encode()
SDK_HEADERS = (b"Host: 127.0.0.1:8765\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n"
               b"Accept: application/json\r\nX-Stainless-Lang: python\r\nAnthropic-Version: 2023-06-01\r\n"
               b"X-Api-Key: x\r\nContent-Type: application/json\r\nUser-Agent: Anthropic/Python 2.17.0\r\n")


def request(line: bytes = b"POST /v1/messages HTTP/1.1", headers: bytes = SDK_HEADERS, body: bytes = BODY,
            *, length: bool = True) -> bytes:
    sized = b"Content-Length: %d\r\n" % len(body) if length else b""
    return line + b"\r\n" + headers + sized + b"\r\n" + body


def served(cls: type, raw: bytes, requests: int = 1, buffer: int = 8192) -> bytes:
    """What a handler of `cls` writes for the bytes `raw` of one connection, `requests` requests on it."""
    handler = cls.__new__(cls)
    handler.client_address, handler.server, handler.close_connection = ("127.0.0.1", 1), None, False
    # subtle: a socket's reader is buffered (the double reads a whole header block from its buffer)
    handler.rfile, out = io.BufferedReader(io.BytesIO(raw), buffer_size=buffer), io.BytesIO()
    handler.wfile = out
    for _ in range(requests):
        handler.handle_one_request()
        if handler.close_connection:
            break
    # subtle: the Date is the second it was written, and each answer's request id is random
    text = re.sub(rb"Date: [^\r]*", b"Date: -", out.getvalue())
    return re.sub(rb"req_[0-9a-f]+", b"req_-", text)


def handlers() -> tuple[type, type]:
    """(the double's handler, the same with http.server's own request parsing and head writing)."""
    fast = handler_for(ApiDouble(["Hi!"] * 10))

    class Reference(handler_for(ApiDouble(["Hi!"] * 10))):  # type: ignore[misc]
        def parse_request(self) -> bool:
            return bool(BaseHTTPRequestHandler.parse_request(self))

        def _head(self, status, headers):
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()

    return fast, Reference


ODD = {
    "an SDK's request": request(),
    "two requests kept alive": request() * 2,
    "a folded header": request(headers=SDK_HEADERS + b"X-Folded: one\r\n  two\r\n"),
    "a line that is no header": request(headers=b"Host: x\r\nno colon here\r\nX-After: 1\r\n"),
    "a name with a space": request(headers=b"Host: x\r\nBad Name: 1\r\n"),
    "an empty name": request(headers=b"Host: x\r\n: empty\r\n"),
    "a continuation first": request(headers=b" continued\r\nHost: x\r\n"),
    "a bare CR in a value": request(headers=b"Host: x\r\nX-A: one\rtwo\r\n"),
    "bytes past ASCII in a value": request(headers=b"Host: x\r\nX-A: caf\xe9 \t\r\n"),
    "a name sent twice": request(headers=b"Host: x\r\nX-Double-Fault: overloaded\r\nx-double-fault: no\r\n"),
    "two content lengths": request(headers=b"Host: x\r\nContent-Length: 3\r\n"),
    "chunked": request(headers=b"Host: x\r\nTransfer-Encoding: chunked\r\n", length=False),
    "LF line ends": request().replace(b"\r\n", b"\n"),
    "HTTP/1.0": request(b"POST /v1/messages HTTP/1.0"),
    "HTTP/0.9": b"GET /v1/models\r\n",
    "HTTP/2": request(b"POST /v1/messages HTTP/2.0"),
    "a // path": request(b"POST //v1/messages HTTP/1.1"),
    "a query": request(b"POST /v1/messages?beta=true HTTP/1.1"),
    "a lower-case method": request(b"post /v1/messages HTTP/1.1"),
    "connection close": request(headers=b"Host: x\r\nConnection: close\r\n") * 2,
    "expect 100-continue": request(headers=b"Host: x\r\nExpect: 100-continue\r\n"),
    "a model list": b"GET /v1/models HTTP/1.1\r\nHost: x\r\nAnthropic-Version: 2023-06-01\r\n\r\n",
    "too many headers": request(headers=b"X-A: 1\r\n" * 101),
    "a header line over 64 KiB": request(headers=b"X-A: " + b"a" * 70_000 + b"\r\n"),
    "headers cut off": b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n",
}


@pytest.mark.parametrize("buffer", [8192, 64])  # the header block whole in the buffer, or not
@pytest.mark.parametrize("raw", ODD.values(), ids=ODD.keys())
def test_the_double_answers_every_request_byte_for_byte_as_with_http_servers_own_parsing(raw, buffer):
    fast, reference = handlers()
    assert served(fast, raw, requests=2, buffer=buffer) == served(reference, raw, requests=2)


def seen(message: http.client.HTTPMessage) -> dict[str, object]:
    """Everything a message holds, its defects by kind (a defect equals only itself)."""
    return {**vars(message), "defects": [type(defect) for defect in message.defects]}


HEADER_LINES = st.lists(st.one_of(
    st.from_regex(rb"\A[!-9;-~]{1,12}:[ \t]{0,2}[ -~\x80-\xff]{0,20}\r?\n\Z"),  # a plain line
    st.from_regex(rb"\A[ \t][ -~]{0,10}\r\n\Z"),  # a continuation
    st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"") + b"\r\n"),  # anything, one line
), max_size=8)


@settings(max_examples=examples(400))
@given(lines=HEADER_LINES, end=st.sampled_from([b"\r\n", b"\n", b""]), after=st.sampled_from([b"", b"{}"]),
       buffered=st.booleans())
def test_headers_read_as_http_client_reads_them(lines, end, after, buffered):
    block = b"".join(lines) + end
    read_by_http_client = io.BytesIO(block + after)
    expected = http.client.parse_headers(read_by_http_client)
    reader = io.BufferedReader(io.BytesIO(block + after)) if buffered else io.BytesIO(block + after)
    sent = read_headers(reader, http.client.HTTPMessage)
    assert seen(sent.message) == seen(expected) and type(sent.message) is http.client.HTTPMessage
    assert sent.pairs == expected.items() and sent.last == {k.lower(): v for k, v in expected.items()}
    for name in [*expected, "absent"]:
        assert sent.first(name.lower()) == expected.get(name)
        assert sent.every(name.lower()) == (expected.get_all(name) or [])
    assert sent.named == {name.lower(): expected.get_all(name) for name in expected}
    assert reader.read() == read_by_http_client.read()  # what follows is left to read, as by http.client


def test_a_block_of_plain_lines_is_not_given_to_the_email_parser(monkeypatch):
    def parsed(*args: object, **kwargs: object) -> None:
        raise AssertionError("the email parser read plain headers")

    monkeypatch.setattr(email.parser.Parser, "parsestr", parsed)
    sent = read_headers(io.BufferedReader(io.BytesIO(SDK_HEADERS + b"\r\n" + BODY)), http.client.HTTPMessage)
    assert sent.message["anthropic-version"] == "2023-06-01" and sent.named["connection"] == ["keep-alive"]


def test_the_message_is_made_only_when_asked_for_and_then_once():
    sent = read_headers(io.BytesIO(SDK_HEADERS + b"\r\n"))
    assert sent._message is None
    assert sent.message is sent.message and sent.message.get_all("x-api-key") == ["x"]
