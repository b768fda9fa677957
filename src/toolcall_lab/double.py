"""The loopback API double: a pretend model server on 127.0.0.1 that speaks all four APIs.

A *test double* stands in for the real thing in a test, the way a stunt double stands in
for an actor. The kit's real providers send requests through the official SDKs to
Anthropic, OpenAI and Ollama; to run that whole path offline (SDK, HTTP, JSON, retries,
error mapping) with no key, no network and no bill, tests and notebooks start this
server on the loopback interface and point the SDK at it. Per request, the double:

1. reads the body with the API's codec (`toolcall_lab.wire.<api>`, the server half):
   `check_request` first, answering what the real API would reject with a 400 in the
   API's own error shape and words; then `decode_request` gives a transcript and tools;
2. lets a `ScriptedProvider` play the model (the lessons' `weather_policy` by default);
3. answers with `encode_response`, a body the SDK parses with its own types.

    >>> from toolcall_lab import get_provider, run_agent
    >>> from toolcall_lab.tools import get_weather
    >>> with ApiDouble() as double:
    ...     provider = get_provider("openai-chat", base_url=double.base_url("chat"))
    ...     run_agent(provider, "What's the weather in Paris?", tools=[get_weather]).answer
    "It's 18°C and sunny in Paris."

It also misbehaves on request, which real servers do only when you are not looking:
`double.fail_next("rate_limit")` (or the header `X-Double-Fault: rate_limit`, for
`python -m toolcall_lab serve`) makes the next request, to any path, fail the way that
API fails (see `FAULTS`). It reasons the way each API's reasoning models do: Anthropic
when `thinking` is "enabled" (a budget) or "adaptive", Ollama when `think` is set, and
Responses unless `reasoning.effort` is "none" (OpenAI's reasoning models default to
medium effort) or the model does not reason (`models.rules_of`: gpt-4o). The trace is
short and deterministic, and sealed so that the codec's `check_request` notices if it
comes back edited. Per-model rules come with the codec's `check_request`: a thinking
budget sent to Claude Haiku 5.5 gets the same 400 the real API gives.

Choices a real server would make differently: Ollama streams when a request has no
`stream` key, so the double refuses such a request (with a 400 that says to send
`"stream": false`, as the kit's provider does) rather than pretend it would not stream;
Ollama thinks by default on models that can, the double only when `think` is set; the
newest Claude models think when `thinking` is left out, the double only when it is sent
(so a run without it shows no thinking blocks), and "between_tools" gets no thinking.

Left out: streaming (`stream: true` gets a 400 saying so), keys (any key is accepted;
of the headers only `X-Double-Fault` and the presence of `anthropic-version` are read,
and none is ever logged), real token counts (usage is the scripted 4-characters-per-token
estimate, plus, on the Anthropic side, the hidden tool-use system prompt Anthropic bills
whenever tools are offered: `models.tool_prompt_tokens`), and every endpoint but the four
chat endpoints and the two model lists.
"""

from __future__ import annotations

import collections
import itertools
import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from ._text import shorten
from .errors import ScriptExhaustedError
from .messages import ReasoningBlock, ToolCall, Transcript
from .models import default_model, rules_of, tool_prompt_tokens
from .providers.scripted import Policy, Reply, ScriptedProvider
from .tokens import estimate_tokens
from .tool import Tool
from .turn import Turn

__all__ = ["FAULTS", "ApiDouble", "RecordedRequest", "serve"]

ROUTES = {"/v1/messages": "anthropic", "/v1/responses": "responses",
          "/v1/chat/completions": "chat", "/api/chat": "ollama"}
#: The provider (registry name) that speaks each API: what `serve` tells you to use.
PROVIDER_FOR = {"anthropic": "anthropic", "responses": "openai", "chat": "openai-chat", "ollama": "ollama"}
FAULTS = ("rate_limit", "overloaded", "server_error", "unauthorized", "not_found", "slow", "malformed")

# What each failure says, in each API's words. Where wire_facts.md or a recording gives the
# text it is quoted; the rest is what these servers are commonly seen to answer.
_STATUS = {"rate_limit": 429, "overloaded": 503, "server_error": 500, "unauthorized": 401,
           "not_found": 404, "no_route": 404, "bad_json": 400, "stream": 400}
_ANTHROPIC_429 = (  # tests/fixtures/anthropic_error_rate_limit_429.body.json, word for word
    "This request would exceed your organization's rate limit of 20,000,000 prompt bytes per hour "
    "(org: 5576611f-a1ee-427c-9800-298d9579899c, model: claude-sonnet-4-5-20250929). For details, "
    "refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for "
    "current usage. Please reduce the prompt length or the maximum tokens requested, or try again "
    "later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your "
    "options for a rate limit increase.")
_NO_STREAM = "The API double does not stream; send the request without `stream: true`."
_WORDS = {
    "anthropic": {"rate_limit": _ANTHROPIC_429, "overloaded": "Overloaded", "not_found": "model: {model}",
                  "server_error": "Internal server error", "unauthorized": "invalid x-api-key",
                  "no_route": "Not Found", "bad_json": "The request body is not valid JSON: {detail}",
                  "stream": _NO_STREAM},
    "openai": {  # Responses and Chat Completions fail alike
        "rate_limit": "Rate limit reached for {model} in organization org-double on requests per min "
                      "(RPM): Limit 3, Used 3, Requested 1.",
        "overloaded": "The engine is currently overloaded, please try again later.",
        "server_error": "The server had an error while processing your request. Sorry about that!",
        "unauthorized": "Incorrect API key provided. You can find your API key at "
                        "https://platform.openai.com/account/api-keys.",
        "not_found": "The model `{model}` does not exist or you do not have access to it.",
        "no_route": "Invalid URL ({method} {path})",
        "bad_json": "We could not parse the JSON body of your request.", "stream": _NO_STREAM},
    "ollama": {
        "rate_limit": "too many requests", "unauthorized": "unauthorized",
        "overloaded": "server busy, please try again.  maximum pending requests exceeded",
        "server_error": "llama runner process has terminated: exit status 2",
        "not_found": "model '{model}' not found", "no_route": "404 page not found", "bad_json": "{detail}",
        # subtle: Ollama streams unless told not to, so a request *without* "stream" is refused too.
        "stream": 'The API double does not stream, and Ollama streams unless the request says '
                  '"stream": false; add it.'},
}
#: OpenAI's error (type, code) where the codecs' defaults ("invalid_request_error" for a
#: 4xx, "server_error" for a 5xx, no code) are not what OpenAI says.
_OPENAI_KINDS = {"rate_limit": ("requests", "rate_limit_exceeded"), "unauthorized": (None, "invalid_api_key"),
                 "overloaded": ("service_unavailable_error", "server_is_overloaded"),
                 "not_found": (None, "model_not_found"), "stream": (None, "unsupported_value")}


class RecordedRequest(NamedTuple):
    """One request the double received: which API, the path, the JSON body, the status sent."""

    api: str
    path: str
    body: Any
    status: int


@dataclass(frozen=True)
class _Fault:
    kind: str
    retry_after: float | None = None
    delay: float | None = None


def _script(replies: Sequence[Reply]) -> Policy:
    """A policy that answers with `replies` in order, whichever API asks."""
    position = itertools.count()

    def next_reply(transcript: Transcript, tools: tuple[Tool, ...]) -> Reply:
        index = next(position)
        if index >= len(replies):
            raise ScriptExhaustedError(f"the double's script has {len(replies)} replies and request "
                                       f"{index + 1} asked for another; give it more replies.")
        return replies[index]

    return next_reply


class ApiDouble:
    """A local HTTP server answering like Anthropic, OpenAI (Responses, Chat) and Ollama.

    `policy` plays the model (a policy function or a list of replies, as for
    `ScriptedProvider`; default `weather_policy`), and may be replaced at any time with
    `double.policy = ...`. Each API keeps one `ScriptedProvider` for the double's
    lifetime, so tool-call ids count up across requests, spelled the API's way
    (`toolu_01` for Anthropic, `call_01` for OpenAI; Ollama sends none).
    `double.requests` lists what arrived (`RecordedRequest`), oldest first.
    """

    def __init__(self, policy: Policy | Sequence[Reply] | None = None, *, host: str = "127.0.0.1",
                 port: int = 0, log: Callable[[str], object] | None = None) -> None:
        self.policy = policy
        self.host, self.port, self.log = host, port, log
        self.requests: list[RecordedRequest] = []
        self._providers = {api: ScriptedProvider(self._play) for api in ROUTES.values()}
        self._ids = {api: itertools.count(1) for api in ROUTES.values()}
        self._faults: collections.deque[_Fault] = collections.deque()
        self._lock = threading.Lock()  # one model at a time: the script is not thread-safe
        self._connections: set[Any] = set()  # open client sockets, hung up by stop()
        self._connections_lock = threading.Lock()
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def policy(self) -> Policy:
        return self._policy

    @policy.setter
    def policy(self, policy: Policy | Sequence[Reply] | None) -> None:
        if policy is None:
            from .examples import weather_policy

            policy = weather_policy
        self._policy = policy if callable(policy) else _script(list(policy))

    def _play(self, transcript: Transcript, tools: tuple[Tool, ...]) -> Reply:
        return self._policy(transcript, tools)

    # -- running -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The server's root, e.g. "http://127.0.0.1:50123" (the real port once started)."""
        return f"http://{self.host}:{self.port}"

    def base_url(self, api: str) -> str:
        """What to pass as a provider's `base_url` for `api` (the SDKs add the rest of the path)."""
        if api not in PROVIDER_FOR:
            raise ValueError(f"the double speaks {', '.join(PROVIDER_FOR)}, not {api!r}.")
        return self.url + "/v1" if api in ("responses", "chat") else self.url

    def start(self) -> ApiDouble:
        """Start serving in a background (daemon) thread; returns the double."""
        from http.server import ThreadingHTTPServer

        self._server = ThreadingHTTPServer((self.host, self.port), _handler_for(self))
        self._server.daemon_threads = True  # subtle: a "slow" request must not hold up stop()
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="api-double", daemon=True)  # polls for stop() 20x a second
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, hang up on every open connection, and wait for the server thread."""
        if self._server is not None:
            import socket

            self._server.shutdown()
            # subtle: the SDKs keep connections alive between calls, and each one has a thread
            # waiting on it for the next request; without this a stopped double still answers.
            with self._connections_lock:
                connections = list(self._connections)
            for connection in connections:
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already closed by the client
            self._server.server_close()
            assert self._thread is not None
            self._thread.join()
            self._server = self._thread = None

    def __enter__(self) -> ApiDouble:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ApiDouble(url={self.url!r}, requests={len(self.requests)})"

    # -- faults ----------------------------------------------------------------------------
    def fail_next(self, kind: str, *, times: int = 1, retry_after: float | None = None,
                  delay: float | None = None) -> None:
        """Make the next `times` requests (to any API) fail with `kind`, one of `FAULTS`.

        `retry_after` (seconds) is sent as `retry-after` (and `retry-after-ms` when it is
        not whole); `delay` is how long "slow" waits before answering (default 2 s).
        """
        if kind not in FAULTS:
            raise ValueError(f"no fault called {kind!r}; choose one of: {', '.join(FAULTS)}.")
        self._faults.extend(_Fault(kind, retry_after, delay) for _ in range(times))

    def _next_fault(self, header: str | None) -> _Fault | None:
        if header:  # a fault asked for by header (unknown kinds are ignored) leaves the queue alone
            return _Fault(header.strip()) if header.strip() in FAULTS else None
        try:
            return self._faults.popleft()
        except IndexError:
            return None

    # -- answering ---------------------------------------------------------------------------
    def handle(self, method: str, path: str, raw: bytes, *, fault_header: str | None = None,
               anthropic_sdk: bool = False) -> tuple[int, bytes, dict[str, str]]:
        """Everything the server does with one request but the socket: (status, body, headers).

        `anthropic_sdk` says whether the request carried an `anthropic-version` header, which
        decides whose shape the shared paths (`/v1/models`, unknown `/v1/...`) answer in.
        """
        path = path.split("?")[0].rstrip("/")
        api = ROUTES.get(path) if method == "POST" else None
        shape = api or ("ollama" if path.startswith("/api") else "anthropic" if anthropic_sdk else "chat")
        try:
            body: Any = json.loads(raw) if raw else None
            bad_json = None if body is None or isinstance(body, dict) else "expected a JSON object"
        except ValueError as exc:
            body, bad_json = raw.decode("utf-8", "replace"), str(exc)
        if api and body is None:
            bad_json = "the request has no body"
        fault = self._next_fault(fault_header)
        model = body.get("model", "unknown") if isinstance(body, dict) else "unknown"
        status, payload, headers = self._outcome(method, path, api, shape, body, bad_json, fault, model)
        self.requests.append(RecordedRequest(shape, path, body, status))  # before the client hears back
        if self.log:
            self.log(f"{method} {path} -> {status}" + (f" ({fault.kind})" if fault else ""))
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        return status, text.encode(), headers

    def _outcome(self, method: str, path: str, api: str | None, shape: str, body: Any,
                 bad_json: str | None, fault: _Fault | None, model: str) -> tuple[int, Any, dict[str, str]]:
        from .wire import codec

        if fault and fault.kind == "slow":
            time.sleep(2.0 if fault.delay is None else fault.delay)
        elif fault and fault.kind != "malformed":
            headers = {}
            if fault.kind == "rate_limit" or fault.retry_after is not None:
                wait = 1.0 if fault.retry_after is None else fault.retry_after
                headers["retry-after"] = str(max(1, round(wait)))
                if wait != int(wait):  # subtle: retry-after holds whole seconds; the SDKs read -ms first
                    headers["retry-after-ms"] = str(round(wait * 1000))
            return _error(shape, fault.kind, model=model) + (headers,)
        if method == "GET" and path in ("/v1/models", "/api/tags"):
            return 200, _model_list(shape), {}
        if api is None:
            return _error(shape, "no_route", method=method, path=path) + ({},)
        if bad_json is not None:
            return _error(shape, "bad_json", detail=bad_json) + ({},)
        if body.get("stream", api == "ollama"):
            return _error(shape, "stream", param="stream") + ({},)
        wire = codec(api)
        try:
            problems = wire.check_request(body)
            if problems:  # real APIs report the first problem only
                first = problems[0]
                return 400, wire.error_body(first.text, status=400, param=first.param, code=first.code), {}
            answer = self.answer(api, body)
        except Exception as exc:  # a policy (or codec) that fails is the server failing: a 500
            return 500, wire.error_body(f"the API double failed: {type(exc).__name__}: {exc}",
                                        status=500), {}
        if fault:  # "malformed": a body cut off halfway, as a dropped proxy connection leaves it
            text = json.dumps(answer)
            return 200, text[: len(text) // 2], {}
        return 200, answer, {}

    def answer(self, api: str, body: dict[str, Any]) -> dict[str, Any]:
        """The response body for a valid request `body` to `api`: the model's next reply."""
        from .wire import codec

        wire = codec(api)
        transcript, tools = wire.decode_request(body)
        with self._lock:
            turn = self._providers[api].complete(transcript, tools=tools)
            number = next(self._ids[api])
        turn = _spell_ids(replace(turn, model=body.get("model") or turn.model), api)
        if api == "anthropic" and tools:
            # Like the real API, bill the hidden tool-use system prompt the kit cannot see.
            hidden = tool_prompt_tokens(turn.model)
            turn = replace(turn, usage=replace(turn.usage, input_tokens=turn.usage.input_tokens + hidden))
        if _wants_reasoning(api, body, transcript) and not turn.message.reasoning:
            turn = _with_reasoning(turn, api, transcript)
        response_id = {"anthropic": "msg_double_{:04d}", "responses": "resp_double_{:04d}",
                       "chat": "chatcmpl-double-{:04d}", "ollama": "ollama-double-{:04d}"}[api]
        echo = {"request": body} if api == "responses" else {}  # Responses echoes the request's settings
        return wire.encode_response(turn, response_id=response_id.format(number), **echo)


def _spell_ids(turn: Turn, api: str) -> Turn:
    """Tool-call ids the OpenAI way ("call_01") for OpenAI's APIs; Anthropic's stay "toolu_01"."""
    if api not in ("responses", "chat"):
        return turn
    blocks = tuple(replace(b, id="call_" + b.id.removeprefix("toolu_"))
                   if isinstance(b, ToolCall) and b.id.startswith("toolu_") else b
                   for b in turn.message.blocks)
    return replace(turn, message=replace(turn.message, blocks=blocks))


def _wants_reasoning(api: str, body: dict[str, Any], transcript: Transcript) -> bool:
    match api:
        case "anthropic":
            on = (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")
            # subtle: after a tool_result Anthropic sends no new thinking until the next question.
            last = transcript.messages[-1] if transcript.messages else None
            after_results = last is not None and last.role == "user" and all(
                b.kind == "tool_result" for b in last.blocks)
            return on and not after_results
        case "responses":
            if rules_of(str(body.get("model", ""))).reasons is False:
                return False  # gpt-4o and the like: no reasoning items, whatever is asked
            return (body.get("reasoning") or {}).get("effort", "medium") not in ("none", None)
        case "ollama":
            return bool(body.get("think"))
        case _:
            return False  # Chat Completions returns no reasoning, only its token count


def _with_reasoning(turn: Turn, api: str, transcript: Transcript) -> Turn:
    """`turn` with a short deterministic reasoning block first.

    The block has no opaque part, so the codec seals it the API's way when it encodes
    the reply: Anthropic's thinking gets a `signature` (`wire.anthropic.sign_thinking`),
    a Responses reasoning item an `encrypted_content` (`wire.responses.seal_reasoning`),
    so the codec's `check_request` can tell later whether it came back unchanged.
    """
    text = "Thinking about: " + shorten(transcript.last_user_text(), 60)
    block = ReasoningBlock(text, provider=PROVIDER_FOR[api], model=turn.model)
    spent = estimate_tokens(text)  # reasoning tokens are part of output tokens
    usage = replace(turn.usage, output_tokens=turn.usage.output_tokens + spent,
                    reasoning_tokens=turn.usage.reasoning_tokens + spent)
    message = replace(turn.message, blocks=(block, *turn.message.blocks))
    return replace(turn, message=message, usage=usage)


def _error(shape: str, kind: str, *, param: str | None = None, **fill: str) -> tuple[int, dict[str, Any]]:
    """(status, error body) for a failure `kind`, in the words and shape of `shape`'s API."""
    from .wire import codec

    family = "openai" if shape in ("responses", "chat") else shape
    status = 529 if (family, kind) == ("anthropic", "overloaded") else _STATUS[kind]
    error_type, code = _OPENAI_KINDS.get(kind, (None, None)) if family == "openai" else (None, None)
    return status, codec(shape).error_body(_WORDS[family][kind].format(**fill), status=status,
                                           param=param if family == "openai" else None,
                                           code=code, error_type=error_type)


def _handler_for(double: ApiDouble) -> type:
    """The request handler class for `double` (http.server is imported only when serving)."""
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs expect

        def do_GET(self) -> None:
            self._reply()

        def do_POST(self) -> None:
            self._reply()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the double logs one line per request itself, and never a header

        def setup(self) -> None:
            super().setup()
            with double._connections_lock:
                double._connections.add(self.connection)

        def finish(self) -> None:
            with double._connections_lock:
                double._connections.discard(self.connection)
            super().finish()

        def _reply(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            status, data, headers = double.handle(
                self.command, self.path, raw, fault_header=self.headers.get("x-double-fault"),
                anthropic_sdk="anthropic-version" in self.headers)  # whether it is there, no more
            try:
                self.send_response(status)
                for name, value in {"content-type": "application/json", "content-length": str(len(data)),
                                    **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except ConnectionError:
                pass  # subtle: a client that timed out (the "slow" fault) hung up before the answer

    return Handler


def _model_list(shape: str) -> dict[str, Any]:
    """A one-model list in the asker's shape, enough for a "test connection" button."""
    if shape == "anthropic":
        model = default_model("anthropic")
        return {"data": [{"type": "model", "id": model, "display_name": model, "lifecycle": "active",
                          "created_at": "2026-01-01T00:00:00Z"}],
                "has_more": False, "first_id": model, "last_id": model}
    if shape == "ollama":
        model = default_model("ollama")
        return {"models": [{"name": model, "model": model, "modified_at": "2026-01-01T00:00:00Z",
                            "size": 0, "digest": "0" * 64, "details": {"format": "gguf"}}]}
    model = default_model("openai")
    return {"object": "list", "data": [{"id": model, "object": "model", "created": 0, "owned_by": "double"}]}


def serve(*, host: str = "127.0.0.1", port: int = 8765, policy: Policy | Sequence[Reply] | None = None,
          out: Any = None) -> None:
    """Run the double in the foreground, print where each API answers, and serve until Ctrl-C."""
    out = out or sys.stdout
    write = lambda text="": print(text, file=out, flush=True)
    with ApiDouble(policy, host=host, port=port, log=lambda line: write("  " + line)) as double:
        write(f"API double listening on {double.url}  (Ctrl-C to stop)")
        for path, api in ROUTES.items():
            setting = f'get_provider("{PROVIDER_FOR[api]}", base_url="{double.base_url(api)}")'
            write(f"  {api:<10} {setting:<66} POST {path}")
        write(f"  model lists: GET {double.url}/v1/models and {double.url}/api/tags")
        write("  or set TOOLCALL_LAB_PROVIDER to the name above and TOOLCALL_LAB_BASE_URL to its base_url")
        write(f"  faults: send the header X-Double-Fault: {' | '.join(FAULTS)}")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            write("stopped.")
