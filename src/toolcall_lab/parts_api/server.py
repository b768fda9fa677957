"""`PartsServer`: the made-up Parts API, served on 127.0.0.1 by a model your Python plays.

Per request, the server does what the API double does for the four real APIs:

1. checks the body against the rules (`rules.first_problem`), answering the first problem
   with a 400 in the Parts API's error shape, the JSON path at the head of its message;
2. reads the body into the kit's own shape (`decode_request`: a transcript and tools);
3. lets a `ScriptedProvider` play the model (`examples.weather_policy` by default);
4. writes its turn the Parts API's way (`encode_response`).

    >>> import json, urllib.request
    >>> with PartsServer() as server:
    ...     body = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
    ...     request = urllib.request.Request(server.url + "/v1/models/parts-1:generateContent",
    ...                                      data=json.dumps(body).encode(), method="POST")
    ...     with urllib.request.urlopen(request) as response:
    ...         json.load(response)["candidates"][0]["content"]
    {'role': 'model', 'parts': [{'text': 'Which city would you like the weather for?'}]}

`handle(method, path, raw)` is everything but the socket, so each answer can be tested and
shown without a network. The server speaks HTTP/1.0 (one request per connection, then it
hangs up), so `stop()` never waits on a client that keeps its connection open.

Left out: keys (there are none), streaming, limits on body size, and every path but one.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..blocks import Block, ReasoningBlock, ServerToolCall, ServerToolResult, TextBlock, ToolCall, ToolResult
from ..double.api_double import RecordedRequest, RequestLog
from ..double.background import BackgroundServer
from ..double.play import policy_of
from ..errors import UsageError
from ..messages import Message
from ..providers.scripted import Policy, Reply, ScriptedProvider
from ..tool import Tool
from ..transcript import Transcript
from ..turn import StopReason, Turn
from ..wire._shared import request_tool
from .rules import first_problem

__all__ = ["ENDPOINT", "FINISH_REASONS", "PartsServer", "decode_request", "encode_response", "error_body"]

#: The one endpoint; the model's name goes in the URL, not in the body.
ENDPOINT = "/v1/models/{model}:generateContent"
_ROUTE = re.compile(r"^/v1/models/(?P<model>[A-Za-z0-9._-]+):generateContent$")
#: Why a reply ended, the Parts API's way. STOP is also what a reply of function calls says.
FINISH_REASONS = {StopReason.END_TURN: "STOP", StopReason.TOOL_USE: "STOP", StopReason.STOP_SEQUENCE: "STOP",
                  StopReason.MAX_TOKENS: "MAX_TOKENS", StopReason.REFUSAL: "SAFETY"}
_STATUS = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 500: "INTERNAL"}


def error_body(message: str, *, code: int = 400) -> dict[str, Any]:
    """The Parts API's error JSON.

    >>> error_body("contents is missing; expected a list of contents.")
    {'error': {'code': 400, 'message': 'contents is missing; expected a list of contents.', \
'status': 'INVALID_ARGUMENT'}}
    """
    return {"error": {"code": code, "message": message, "status": _STATUS[code]}}


# -- the server's half of a codec: read a request, write a reply -----------------------------------
def decode_request(body: Mapping[str, Any]) -> tuple[Transcript, tuple[Tool, ...]]:
    """The transcript and tools in a request that keeps the rules (`rules.first_problem`).

    >>> decode_request({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})
    (Transcript(1 messages), ())
    """
    system = "\n".join(p["text"] for p in body.get("systemInstruction", {}).get("parts", [])) or None
    messages = [Message("user" if c["role"] == "user" else "assistant",
                        tuple(_block(part) for part in c["parts"])) for c in body["contents"]]
    tools = tuple(request_tool(d["name"], d.get("description"), d.get("parameters"))
                  for entry in body.get("tools", []) for d in entry["functionDeclarations"])
    return Transcript(system, messages), tools


def _block(part: Mapping[str, Any]) -> Block:
    if "text" in part:
        return TextBlock(part["text"])
    if "functionCall" in part:
        call = part["functionCall"]
        return ToolCall(call["id"], call["name"], call["args"])
    answer = part["functionResponse"]
    response = answer["response"]
    if "error" in response:
        return ToolResult(answer["id"], _text(response["error"]), is_error=True)
    # subtle: an object with neither "output" nor "error" is the output, whole
    return ToolResult(answer["id"], _text(response["output"] if "output" in response else response))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def encode_response(turn: Turn, *, response_id: str) -> dict[str, Any]:
    """The reply body for `turn`: one candidate, its finish reason and the usage.

    >>> from toolcall_lab import Usage
    >>> turn = Turn(Message.assistant("Hello!"), "end_turn", Usage(input_tokens=3, output_tokens=2), "m")
    >>> encode_response(turn, response_id="resp_0001")["candidates"]
    [{'content': {'role': 'model', 'parts': [{'text': 'Hello!'}]}, 'finishReason': 'STOP', 'index': 0}]
    """
    parts: list[dict[str, Any]] = []
    for block in turn.message.blocks:
        match block:
            case TextBlock(text=text):
                parts.append({"text": text})
            case ToolCall(id=call_id, name=name, args=args):
                parts.append({"functionCall": {"id": call_id, "name": name, "args": dict(args)}})
            case ReasoningBlock() | ServerToolCall() | ServerToolResult():
                pass  # the Parts API has no place for reasoning or server tools
            case ToolResult():
                raise UsageError("a model's reply cannot hold a tool result")
    usage = turn.usage
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": FINISH_REASONS.get(turn.stop_reason, "OTHER"), "index": 0}],
            "usageMetadata": {"promptTokenCount": usage.input_tokens,
                              "candidatesTokenCount": usage.output_tokens,
                              "totalTokenCount": usage.total_tokens},
            "modelVersion": turn.model, "responseId": response_id}


# -- the server --------------------------------------------------------------------------------------
class PartsServer(BackgroundServer):
    """The Parts API on 127.0.0.1, a free port, the model played by `policy`.

    `policy` is a policy function or a list of replies, as for `ScriptedProvider` (default
    `weather_policy`). One `ScriptedProvider` plays every request, so call ids count up
    (`fc_01`, `fc_02`, ...). `url` is the server's root once started; `requests` keeps the
    last `keep` requests (`RecordedRequest`, api "parts"), oldest first.
    """

    def __init__(self, policy: Policy | Sequence[Reply] | None = None, *, keep: int = 1000) -> None:
        script = policy if policy is None or callable(policy) else list(policy)
        self._model = ScriptedProvider(policy_of(script))
        self._lock = threading.Lock()  # a script is not thread-safe
        self._answered = 0
        self.requests: RequestLog = RequestLog(maxlen=keep)
        self.port = 0
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The server's root, e.g. "http://127.0.0.1:50123"; the endpoint is `url + ENDPOINT`."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PartsServer:
        """Listen on a free port of 127.0.0.1 and serve in a background thread."""
        from http.server import ThreadingHTTPServer

        server_class = type("PartsHTTPServer", (ThreadingHTTPServer,), {"daemon_threads": True})
        self._server = server_class(("127.0.0.1", 0), _handler_for(self))
        return self._serve(self._server, "parts-server")

    def __repr__(self) -> str:
        return f"PartsServer(running={self._server is not None}, requests={len(self.requests)})"

    def handle(self, method: str, path: str, raw: bytes) -> tuple[int, dict[str, Any]]:
        """(status, reply body) for one request: everything the server does but the socket."""
        try:
            body: Any = json.loads(raw) if raw else None
        except (ValueError, RecursionError):
            body = None
            status, reply = 400, error_body("the body is not JSON; send one JSON object.")
        else:
            status, reply = self._answer(method, path.split("?")[0], body)
        self.requests.append(RecordedRequest("parts", path, body, status))
        return status, reply

    def _answer(self, method: str, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        route = _ROUTE.match(path)
        if method != "POST" or route is None:
            return 404, error_body(f"nothing answers {method} {path}; the Parts API answers POST "
                                   f"{ENDPOINT}.", code=404)
        if body is None:
            return 400, error_body("the request has no body; send one JSON object.")
        problem = first_problem(body)
        if problem is not None:
            return 400, error_body(problem.text)
        transcript, tools = decode_request(body)
        try:
            with self._lock:
                turn = self._model.complete(transcript, tools=tools)
                self._answered += 1
                number = self._answered
        except Exception as exc:  # the policy failed: the server's fault, not the request's
            return 500, error_body(f"the scripted model failed: {type(exc).__name__}: {exc}", code=500)
        blocks = tuple(replace(b, id="fc_" + b.id.removeprefix("toolu_")) if isinstance(b, ToolCall) else b
                       for b in turn.message.blocks)
        turn = replace(turn, message=replace(turn.message, blocks=blocks), model=route["model"])
        return 200, encode_response(turn, response_id=f"resp_{number:04d}")


def _handler_for(server: PartsServer) -> type:
    """The request handler class for `server` (http.server is imported only when serving)."""
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        timeout = 30  # seconds a client may sit silent mid-request

        def _reply(self) -> None:
            try:
                length = int(self.headers.get("content-length") or 0)
            except ValueError:
                length = 0
            status, reply = server.handle(self.command, self.path, self.rfile.read(max(length, 0)))
            data = json.dumps(reply, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _reply

        def log_message(self, format: str, *args: Any) -> None:
            pass  # `server.requests` is the log

    return Handler
