"""A loopback HTTP server for provider tests: it answers what a test tells it to, on 127.0.0.1 only.

The shared API double (`toolcall_lab.double`) plays whole APIs; this stub is for the replies
a double does not give on request (an error body, half a body, a slow answer) and for tests
that put a codec's server half behind a provider themselves. A test passes either

- `answer(request) -> (status, body)`, called for every POST, or
- `reply=(status, body)`, the same answer every time (set `.reply` later to switch to it),

and may pin the one `path` the API serves (a POST anywhere else fails the test). A `str`
body is sent as it is (to send broken JSON), anything else as JSON. Every POST is kept in
`.requests` as a `Request(path, body, authorization)`, in order of arrival, before it is
answered. Typical use (the ollama client takes the root URL; the OpenAI SDK wants
`f"{server.url}/v1"`)::

    with StubServer(reply=(404, {"error": "model 'x' not found"})) as server:
        with pytest.raises(ModelNotFoundError):
            OllamaProvider("x", base_url=server.url).complete(transcript)
    assert server.requests[0].path == "/api/chat"

Left out: GET and streaming (no provider test needs them), and headers other than
Authorization (kept only so that tests can check the key was sent, or was not).
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple

__all__ = ["Request", "StubServer", "free_port", "post_json"]


def free_port() -> int:
    """A loopback port that was free a moment ago: nothing listens there (until someone binds it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def post_json(url: str, body: object, *, method: str = "POST") -> tuple[int, object]:
    """(status, parsed reply) of one request to a loopback server: `body` as JSON (bytes as they
    are), with the standard library, an error status read like any other."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.load(error)


class Request(NamedTuple):
    """One POST as the stub received it: its path (`/v1/messages`), JSON body and Authorization header."""

    path: str
    body: dict
    authorization: str


Answer = Callable[[Request], tuple[int, object]]


class StubServer:
    """A threaded HTTP server on a free port of 127.0.0.1; a context manager that stops it on exit.

    `url` is the server's root (`http://127.0.0.1:PORT`, no `/v1`: each SDK adds its own path).
    A set `reply` wins over `answer`; a stub with neither is a mistake and says so.
    """

    def __init__(self, answer: Answer | None = None, *, reply: tuple[int, object] | None = None,
                 path: str | None = None) -> None:
        if answer is None and reply is None:
            raise ValueError("StubServer needs answer=(request -> (status, body)) or reply=(status, body).")
        self.answer = answer
        self.reply = reply
        self.path = path
        self.requests: list[Request] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def _respond(self, request: Request) -> tuple[int, bytes]:
        self.requests.append(request)  # subtle: before answering, so answer() can count itself in
        # An assert here fails the handler, so the SDK sees a dropped connection and the test fails.
        assert self.path is None or request.path == self.path, f"POST {request.path}, expected {self.path}"
        status, body = self.reply or self.answer(request)
        return status, body.encode() if isinstance(body, str) else json.dumps(body).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, data = stub._respond(Request(self.path, body, self.headers.get("Authorization", "")))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass  # keep the test output quiet

        return Handler

    def __enter__(self) -> StubServer:
        # A short poll interval, so that leaving the `with` block does not wait half a second.
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
