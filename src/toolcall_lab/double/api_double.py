"""The double as a server: `ApiDouble`, what it answers each request, and `serve` for the command line.

What a request *means* is decided in `ApiDouble.handle` (bytes in, status and bytes out,
no socket), so it can be tested and read without a network; the socket side is the
request handler's (`handler.py`). The server is built for a classroom on one machine:

- it listens on loopback only (127.0.0.1 or ::1) unless told `allow_remote=True`, since
  it has no authentication, and then says so loudly on stderr;
- a queue of 1,024 waiting connections (`request_queue_size`), so a burst of a few
  hundred new connections is answered rather than dropped (http.server's default is 5);
- `TCP_NODELAY` on every accepted connection: without it each small reply waits on the
  client's delayed ACK (Nagle's algorithm), about 40 ms per request;
- a cap on the body (`max_body`, 413 in the API's shape), an answer in JSON for every
  method and every malformed header (Content-Length read as HTTP defines it, a request
  line over 64 KiB refused with a 414), and a timeout on a client that stops sending;
- every error a retry cannot fix (a refused body, a script that fails or stops) says
  `x-should-retry: false`, which both SDKs obey, so it is sent once; the transient
  faults (`fail_next("rate_limit")`, ...) leave the SDKs to retry as they would;
- `requests` keeps the last `keep` requests, and a body over `max_recorded` bytes is
  kept as a one-line note, so a long `serve` does not grow without bound;
- every answer carries a request id of its own, as the APIs' do (Anthropic's `request-id`,
  OpenAI's `x-request-id`: random, so unique across requests, doubles and runs), and each
  response's id is numbered after a token of this process (`msg_k3x9qz_0001`), so no other
  run repeats it.
"""

from __future__ import annotations

import collections
import ipaddress
import json
import math
import secrets
import socket
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from .._json import unicode_text
from ..errors import UsageError, UsageTypeError
from ..providers.scripted import Policy, Reply
from ..wire import API_SPECS, flavoured, flavours
from . import shape
from .background import BackgroundServer
from .cache import FakeClock, PromptCache, RealClock
from .faults import FAULTS, FINAL, Fault, error, retry_headers, should_retry
from .handler import Lowered, handler_for
from .play import Player, Unplayable, policy_of
from .routing import Routes
from .streams import ON_THE_STREAM, RecordedStream, Streamed, play, stream_of
from .transport import IN_PROCESS_URL, AsyncDoubleTransport, DoubleTransport

if TYPE_CHECKING:
    from ..tape.format import Tape
    from .playback import Playback

__all__ = ["ROUTES", "ApiDouble", "RecordedRequest", "RequestLog", "bind_warning", "serve"]



#: Where each API answers (`routing.Routes`), as `wire.API_SPECS` stood at import; an `ApiDouble`
#: reads `API_SPECS` when it is made, so an API registered before then is served too.
ROUTES = Routes()
MiB = 1024 * 1024
_SERVING: weakref.WeakSet[ApiDouble] = weakref.WeakSet()  # the doubles started in this process


class RecordedRequest(NamedTuple):
    """One request the double received: which API, the path, the JSON body, the status sent."""

    api: str
    path: str
    body: Any
    status: int


class RequestLog(collections.deque[RecordedRequest]):
    """The last `maxlen` requests, oldest first: a deque that also takes slices (`log[-2:]`)."""

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        return super().__getitem__(index)

    def __eq__(self, other: object) -> bool:
        # subtle: a deque never equals a list; `double.requests == []` should read as it says
        return list(self) == other if isinstance(other, list) else super().__eq__(other)

    __hash__ = None


def bind_warning(host: str) -> str | None:
    """The warning for listening on `host`, or None for a loopback address.

    >>> bind_warning("127.0.0.1") is None, bind_warning("0.0.0.0")[:42]
    (True, 'WARNING: the API double has no authenticat')
    """
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = host == "localhost"  # subtle: any other name is not looked up; it could be anything
    if loopback:
        return None
    return (f"WARNING: the API double has no authentication, and on {host} anyone who can reach this "
            "machine can use it and read what it records.")


class ApiDouble(BackgroundServer):
    """A local HTTP server answering like Anthropic, OpenAI (Responses, Chat) and Ollama.

    `policy` plays the model (a policy function or a list of replies, as for
    `ScriptedProvider`; default `weather_policy`), and may be replaced at any time with
    `double.policy = ...`. Each API keeps one `ScriptedProvider` for the double's
    lifetime, so tool-call ids count up across requests, spelled the API's way
    (`toolu_01` for Anthropic, `call_01` for OpenAI; Ollama sends none).
    `double.requests` holds the last `keep` requests (`RecordedRequest`), oldest first;
    a body over `max_recorded` bytes is recorded as a note. A body over `max_body`
    bytes gets a 413. `host` must be loopback unless `allow_remote=True`.

    The double caches prompts the way the APIs do (`double/cache.py`): Anthropic where a
    request puts `cache_control` breakpoints, OpenAI by itself from 1,024 tokens; entries
    expire by `double.clock`, a `FakeClock` that moves only when told
    (`double.clock.advance(minutes=6)`; `clock="real"` for the machine's clock), and
    `double.cache.clear()` forgets them all.

    With `tape=` (a `toolcall_lab.tape.Tape`, a shipped tape's name or a path) the chat
    requests are answered from the tape instead, in order, and one that differs from the
    recording gets a 400 naming where (`double.playback`); `policy` is then not used. A
    streamed exchange replays its recorded events (`double.streams.play`), stream faults
    included.

    With `flavour=` ("ollama", "ollama-openai", "vllm", "llamacpp", "lmstudio"; see
    `toolcall_lab.wire.flavours`) the flavour's API is answered the way that local
    server answers: the output-limit field it reads, the `tool_choice` and parallel calls
    it honours, its tool-call ids, its error shapes, its answer to a model it does not have
    (it has one: `double.flavour.model`), and its stream (`Flavour.stream`: a call whole
    in one chunk, where the finish reason sits, ...); `double.held_to` is the (tool_choice,
    parallel_tool_calls) it last held the model to. Its other quirks are its own, not OpenAI's: the
    hosted API's conversation rules are not applied. The other APIs answer as without it.
    Without `flavour`, nothing changes.
    """

    def __init__(self, policy: Policy | Sequence[Reply] | None = None, *, host: str = "127.0.0.1",
                 port: int = 0, log: Callable[[str], object] | None = None, keep: int = 1000,
                 max_body: int = 32 * MiB, max_recorded: int = 1 * MiB, allow_remote: bool = False,
                 tape: Tape | str | Path | None = None,
                 flavour: str | flavours.Flavour | None = None,
                 clock: FakeClock | RealClock | str | None = None) -> None:
        if bind_warning(host) and not allow_remote:
            raise UsageError(f"the API double has no authentication, so it listens on loopback only "
                             f"(127.0.0.1 or ::1); {host!r} would let anyone on your network use it: "
                             "pass allow_remote=True (serve --allow-remote) if you mean it.")
        self.policy = policy
        self.host, self.port, self.log = host, port, log
        self.max_body, self.max_recorded, self.allow_remote = max_body, max_recorded, allow_remote
        self.requests: RequestLog = RequestLog(maxlen=keep)
        #: Where each API answers, as `wire.API_SPECS` stood when the double was made
        self.routes = Routes()
        if clock is None or clock == "fake":
            clock = FakeClock()
        elif clock == "real":
            clock = RealClock()
        elif not isinstance(clock, FakeClock | RealClock):
            raise UsageError(f"clock must be a FakeClock, 'fake' or 'real', got {clock!r}.")
        #: The time the prompt cache goes by: a `FakeClock` at 0 that moves only with
        #: `double.clock.advance(minutes=6)`, unless the double was made with clock="real".
        self.clock: FakeClock | RealClock = clock
        #: The prompts this double holds, per API and model (see `double.cache`'s module).
        self.cache = PromptCache(clock)
        self._player = Player(self._play, keep=keep, cache=self.cache)
        self._faults: collections.deque[Fault] = collections.deque()
        self._faults_lock = threading.Lock()
        self._connections: set[Any] = set()  # open client sockets, hung up by stop()
        self._connections_lock = threading.Lock()
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.playback: Playback | None = None
        self.flavour = None if flavour is None else flavours.flavour_of(flavour)
        #: (tool_choice, parallel_tool_calls) the flavoured server last held the model to
        self.held_to: tuple[str | None, bool | None] = (None, None)
        if tape is not None:
            from ..tape.format import load
            from .playback import Playback

            if policy is not None:
                raise UsageError("an ApiDouble plays either a tape or a policy, not both; drop one.")
            self.playback = Playback(load(tape))

    @property
    def policy(self) -> Policy:
        return self._policy

    @policy.setter
    def policy(self, policy: Policy | Sequence[Reply] | None) -> None:
        self._policy = policy_of(policy)

    def _play(self, transcript: Any, tools: Any) -> Reply:
        return self._policy(transcript, tools)

    # -- running -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The server's root, e.g. "http://127.0.0.1:50123" (the real port once started); for a
        double never started, reached only through its `transport()`, "http://double.invalid"
        (`transport.IN_PROCESS_URL`: a name no network resolves)."""
        if self not in _SERVING:
            return IN_PROCESS_URL
        host = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 address goes in brackets
        return f"http://{host}:{self.port}"

    def transport(self) -> DoubleTransport:
        """A transport for an SDK's HTTP client that answers from this double in-process, with no
        socket (`double/transport.py`): `httpx2.Client(transport=double.transport())` for the
        Anthropic and OpenAI SDKs' `http_client=`, `ollama.Client(host=..., transport=...)`."""
        return DoubleTransport(self)

    def async_transport(self) -> AsyncDoubleTransport:
        """The same for an async client (`httpx2.AsyncClient`, `ollama.AsyncClient`)."""
        return AsyncDoubleTransport(self)

    def base_url(self, api: str) -> str:
        """What to pass as a provider's `base_url` for `api` (the SDKs add the rest of the path)."""
        if api not in API_SPECS:
            raise UsageError(f"the double speaks {', '.join(API_SPECS)}, not {api!r}.")
        return self.url + API_SPECS[api].base_path

    def start(self) -> ApiDouble:
        """Start serving in a background (daemon) thread; returns the double."""
        from http.server import ThreadingHTTPServer

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        server_class = type("DoubleServer", (ThreadingHTTPServer,), {
            "address_family": family,
            "request_queue_size": 1024,  # http.server's 5 drops a classroom's burst of connections
            "daemon_threads": True})     # subtle: a "slow" request must not hold up stop()
        try:
            self._server = server_class((self.host, self.port), handler_for(self))
        except OSError as exc:
            raise OSError(f"the API double cannot listen on {self.host}:{self.port} "
                          f"({exc.strerror or exc}); pick another --port (0 picks a free one) or "
                          "another --host.") from None
        _SERVING.add(self)
        return self._serve(self._server, "api-double")

    @staticmethod
    def serving_at(url: str) -> bool:
        """Whether `url` (a base_url) points at a double running in this process."""
        from urllib.parse import urlsplit

        where = urlsplit(url).netloc
        return any(urlsplit(double.url).netloc == where for double in list(_SERVING)
                   if double._server is not None)

    def _hang_up(self) -> None:
        # subtle: the SDKs keep connections alive between calls, and each one has a thread
        # waiting on it for the next request; without this a stopped double still answers.
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the client

    def __repr__(self) -> str:
        shown = "" if self.flavour is None else f", flavour={self.flavour.name!r}"
        return f"ApiDouble(url={self.url!r}, requests={len(self.requests)}{shown})"

    # -- faults ----------------------------------------------------------------------------
    def fail_next(self, kind: str, *, times: int = 1, retry_after: float | None = None,
                  delay: float | None = None, after: int | None = None) -> None:
        """Make the next `times` requests (to any API) fail with `kind`, one of `FAULTS`.

        `retry_after` (seconds) is sent as `retry-after` (and `retry-after-ms` when it is
        not whole); `delay` is how long "slow" waits before answering in full (default 2 s),
        or the pause between the events of a "slow_stream" (default 0.1 s); `after` is how
        many events a "cut", "stream_error" or "stream_failed" stream sends first (default: half
        of them). A stream's fault (`streams.ON_THE_STREAM`) waits for the next streamed
        request (`double/streams.py`). A value it cannot use (NaN, a negative time, a string)
        raises `UsageError` (a `ValueError`; `UsageTypeError` for the wrong type) here, at the call.
        """
        if not isinstance(kind, str) or kind not in FAULTS:
            raise UsageError(f"no fault called {kind!r}; choose one of: {', '.join(FAULTS)}.")
        # subtle: checked here, at the call; a bad value met later, by the request it fails, would
        # end that request's thread and drop its connection, which reads as "the double is not running"
        _whole("times", times, least=1)
        if after is not None:
            _whole("after", after, least=0)
        _seconds("retry_after", retry_after)
        _seconds("delay", delay)
        with self._faults_lock:
            self._faults.extend(Fault(kind, retry_after, delay, after) for _ in range(times))

    def _next_fault(self, header: str | None, streamed: bool) -> Fault | None:
        if header:  # a fault asked for by header (unknown kinds are ignored) leaves the queue alone
            kind = header.strip()
            return Fault(kind) if kind in FAULTS and (streamed or kind not in ON_THE_STREAM) else None
        with self._faults_lock:
            if not self._faults or (self._faults[0].kind in ON_THE_STREAM and not streamed):
                return None  # a stream's fault waits for a stream
            return self._faults.popleft()

    # -- answering ---------------------------------------------------------------------------
    def sdk_of(self, names: Iterable[str]) -> str | None:
        """The API whose SDK sent a request with headers of these `names`, told by a header only
        that SDK sends (its `ApiSpec.sdk_header`); None when no header says. Only names
        are read, never values.

        >>> ApiDouble().sdk_of(["Content-Type", "Anthropic-Version"])
        'anthropic'
        """
        sent = names if isinstance(names, Lowered) else {name.lower() for name in names}
        return next((api for header, api in self.routes.sdks.items() if header in sent), None)

    def handle(self, method: str, path: str, raw: bytes, *, fault_header: str | None = None,
               sdk: str | None = None, headers: Mapping[str, str] | None = None
               ) -> tuple[int, bytes | Streamed, dict[str, str]]:
        """Everything the server does with one request but the socket: (status, body, headers).

        `sdk` is the API whose SDK sent it (`sdk_of`), which decides whose shape the shared
        paths (`/v1/models`, unknown `/v1/...`) answer in. A streamed request that succeeds
        gets a `Streamed` for its body, the reply played as the API's events (`bytes(it)`
        is what the client reads); any other gets the JSON bytes. `headers` (lower-case names)
        are the request's, for the server halves that read one (`with_headers`: Anthropic's
        `anthropic-beta`).
        """
        sent = headers if isinstance(headers, Lowered) else {
            name.lower(): value for name, value in (headers or {}).items()}
        target, path = path, path.split("?")[0].rstrip("/")
        try:
            # subtle: Python reads NaN and Infinity, which are not JSON; the APIs refuse them
            body: Any = _read_json(raw) if raw else None
            bad_json = None if body is None or isinstance(body, dict) else "expected a JSON object"
        except (ValueError, RecursionError) as exc:  # subtle: 100,000 "[" overflow the parser's stack
            body = raw[:200].decode("utf-8", "replace")
            bad_json = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        found = self.routes.find(target)  # its API, and what its route reads from the URL
        api = found.api if found else None
        if api and method == "POST" and body is None:
            bad_json = "the request has no body"
        streamed = bool(found and bad_json is None and method == "POST" and Routes.streamed(found, body))
        fault = self._next_fault(fault_header, streamed)
        sent_body, body = body, (Routes.as_read(found, body) if found and isinstance(body, dict) else body)
        model = body.get("model", "unknown") if isinstance(body, dict) else "unknown"
        shape_ = api or self.routes.shape(target, sdk)
        status, payload, headers = self._outcome(method, path, api, shape_, body, bad_json, fault, str(model),
                                                 streamed, sent)
        payload, headers = self._identified(shape_, payload, headers)
        kept = sent_body if len(raw) <= self.max_recorded else (
            f"<a body of {len(raw):,} bytes, not kept (max_recorded={self.max_recorded:,})>")
        self.requests.append(RecordedRequest(shape_, path, kept, status))
        if self.log:
            self.log(f"{method} {path} -> {status}" + (f" ({fault.kind})" if fault else ""))
        if isinstance(payload, RecordedStream) and api:  # a tape's stream: the events it recorded
            return status, play(api, None, list(payload.events), fault if streamed else None), headers
        if streamed and status == 200 and isinstance(payload, dict) and api:
            flavour = self.flavour if self.flavour is not None and self.flavour.api == api else None
            return status, stream_of(api, payload, body, fault, flavour=flavour), headers
        text = payload if isinstance(payload, str) else unicode_text(payload)
        return status, text.encode(), headers

    def refuse(self, method: str, path: str, kind: str, *, sdk: str | None = None,
               **fill: str) -> tuple[int, bytes, dict[str, str]]:
        """A refusal before the body is read (bad header, too large): recorded, in the API's shape."""
        shape_ = self.routes.shape(path or "/", sdk)
        path = (path or "/").split("?")[0].rstrip("/")
        status, payload = error(shape_, kind, method=method, path=path, **fill)
        payload, headers = self._identified(shape_, payload, {"connection": "close", **FINAL})
        self.requests.append(RecordedRequest(shape_, path, None, status))
        if self.log:
            self.log(f"{method} {path} -> {status} ({kind})")
        return status, json.dumps(payload).encode(), headers

    def _identified(self, api: str, payload: Any, headers: dict[str, str]) -> tuple[Any, dict[str, str]]:
        """The answer with a request id of its own, the API's way (`identify`: Anthropic's
        `request-id`, OpenAI's `x-request-id`), unique per request as the APIs' are.

        subtle: random, so no two requests (nor two doubles, nor two runs) share one; no lesson
        shows one, so the pages stay the same. A tape answers as recorded, and a local server's
        flavour as that server does: neither gets one.
        """
        if self.playback is not None or (self.flavour is not None and self.flavour.api == api):
            return payload, headers
        payload, more = API_SPECS[api].server.identify(payload, secrets.token_hex(16))
        return payload, {**more, **headers}

    def _outcome(self, method: str, path: str, api: str | None, shape_: str, body: Any, bad_json: str | None,
                 fault: Fault | None, model: str, streamed: bool, sent: Mapping[str, str]
                 ) -> tuple[int, Any, dict[str, str]]:
        """What a request gets: a fault, a model list, a refusal of its method, path or JSON,
        the tape's answer, a flavour's, or the API's (`_answer`); a streamed request's reply is
        played as a stream afterwards (`handle`), a reply finished first either way."""
        if fault and fault.kind == "slow":
            time.sleep(2.0 if fault.delay is None else fault.delay)  # then answer in full
        elif fault and fault.kind not in ("malformed", *ON_THE_STREAM):
            return error(shape_, fault.kind, model=model) + ({**retry_headers(fault), **should_retry(fault)},)
        if path in self.routes.lists and method in ("GET", "HEAD"):
            return 200, self._model_list(shape_), {}
        if (api or path in self.routes.lists) and method != ("POST" if api else "GET"):
            allow = "POST" if api else "GET, HEAD"
            return error(shape_, "method", method=method, path=path) + ({"allow": allow, **FINAL},)
        if api is None:
            return error(shape_, "no_route", method=method, path=path) + (FINAL,)
        if bad_json is not None:
            return error(shape_, "bad_json", detail=bad_json) + (FINAL,)
        if self.playback is not None:  # as recorded, so the SDK retries what it retried then
            return self.playback.answer(api, path, body) + ({},)
        if self.flavour is not None and api == self.flavour.api:
            return self._flavoured(self.flavour, api, body)
        return self._answer(api, body, None if streamed else fault, sent)

    def _answer(self, api: str, body: dict[str, Any], fault: Fault | None, sent: Mapping[str, str]
                ) -> tuple[int, Any, dict[str, str]]:
        """The API's answer to a request it can read: its shape and rules first, then the model;
        `sent` is the request's headers (lower-case names), for a server half that reads one."""
        server = API_SPECS[api].server
        # subtle: what an API reads from a header (Anthropic's betas) its server half puts in the
        # body its rules and model read; the body recorded and streamed stays the one sent
        body = dict(server.with_headers(body, sent))
        try:
            found = shape.refusal(api, body) or _first(API_SPECS[api].codec.check_request(body))
            found = found or self._player.problem(api, body)
            if found:
                status, problem = found if isinstance(found, tuple) else (server.status_of(found), found)
                return status, server.error_body(problem.text, status=status, param=problem.param,
                                                 code=problem.code), FINAL
            answer = self._player.answer(api, body)
        except Unplayable as exc:  # well shaped, but nothing the kit can hold: the double's own 400
            return 400, server.error_body(str(exc), status=400), FINAL
        except RecursionError:
            return error(api, "bad_json", detail="nested too deeply") + (FINAL,)
        except BaseException as exc:  # a policy (or codec) that fails is the server failing: a 500
            return 500, server.error_body(_failed(exc), status=500), FINAL
        if fault and fault.kind == "malformed":  # cut off halfway, as a dropped proxy leaves it
            text = json.dumps(answer)
            return 200, text[: len(text) // 2], {}
        return 200, answer, {}

    def _model_list(self, api: str) -> dict[str, Any]:
        """A one-model list in `api`'s shape, enough for a "test connection" button: with a
        flavour, its one model, in its own API's list and in the one other servers copy."""
        from ..models import default_model

        server = API_SPECS[api].server
        if self.flavour is not None and (api == self.flavour.api or API_SPECS[api].compatible):
            return server.model_list(self.flavour.model, self.flavour.name)
        return server.model_list(default_model(API_SPECS[api].provider), "double")

    def _flavoured(self, flavour: flavours.Flavour, api: str, body: dict[str, Any]
                   ) -> tuple[int, Any, dict[str, str]]:
        """A request to `api` answered the way the local server `flavour` answers it."""
        found = shape.refusal(api, body, hosted=False)
        server = API_SPECS[api].server
        if found is None and API_SPECS[api].local_rules:  # the API's rules are the local server's own
            problem = _first(API_SPECS[api].codec.check_request(body))
            found = None if problem is None else (server.status_of(problem), problem)
        if found is not None:
            status, problem = found
            return status, flavoured.error_body(flavour, problem.text, status=status, param=problem.param,
                                                code=problem.code), FINAL
        refused = flavoured.refusal(flavour, body)
        if refused is not None:
            return refused.status, refused.body, FINAL
        limit = flavoured.output_limit(flavour, body)
        ids: list[str] = []

        def adjust(turn: Any) -> Any:
            turn = flavoured.cut_to_limit(turn, limit)
            turn, minted = flavoured.spell_ids(flavour, turn)
            ids.extend(minted)
            return turn

        self.held_to = flavoured.held_to(flavour, body)
        try:
            answer = self._player.answer(api, body, held_to=self.held_to, adjust=adjust)
        except Unplayable as exc:
            return 400, flavoured.error_body(flavour, str(exc)), FINAL
        except BaseException as exc:  # a policy that fails is the server failing: a 500
            return 500, flavoured.error_body(flavour, _failed(exc), status=500), FINAL
        return 200, flavoured.finish(flavour, body, answer, ids), {}


def _failed(exc: BaseException) -> str:
    """What a 500 says when the script (or the double) failed: the exception, or that the script stopped.

    subtle: `sys.exit()` and `KeyboardInterrupt` in a policy are not `Exception`s; caught
    only as such they would end the request's thread and drop the connection, which the
    learner reads as "nothing answers ... check your network". A Ctrl-C typed while the
    double runs in the foreground arrives in the main thread, never here, and still stops it.
    """
    if isinstance(exc, KeyboardInterrupt) and threading.current_thread() is threading.main_thread():
        raise exc  # `handle` called directly, and the user pressed Ctrl-C: let it through
    if isinstance(exc, SystemExit | KeyboardInterrupt):
        raised = f"{type(exc).__name__}({', '.join(map(repr, exc.args))})"
        return (f"the API double's script stopped: the policy raised {raised}, which ends this request, "
                "not the double; make the policy return a reply (a str, call(...), or a list of them).")
    return f"the API double failed: {type(exc).__name__}: {exc}"


def _whole(name: str, value: object, *, least: int) -> None:
    """Refuse `value` unless it is a whole number of at least `least`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageTypeError(f"fail_next's {name} is a whole number, got {type(value).__name__} {value!r}; "
                             f"pass, for example, {name}={max(least, 1)}.")
    if value < least:
        raise UsageError(f"fail_next's {name} is a whole number of at least {least}, got {value!r}; "
                         f"pass, for example, {name}={max(least, 1)}.")


def _seconds(name: str, value: object) -> None:
    """Refuse `value` unless it is None or a finite, non-negative number of seconds."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageTypeError(f"fail_next's {name} is a number of seconds, got {type(value).__name__} "
                             f"{value!r}; pass, for example, {name}=0.5.")
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"fail_next's {name} is a number of seconds, 0 or more, got {value!r}; pass, "
                         f"for example, {name}=0.5.")


def _not_json(constant: str) -> Any:
    raise UsageError(f"{constant} is not a JSON value")  # a ValueError too: `handle` says it is bad JSON


_DECODER = json.JSONDecoder(parse_constant=_not_json)


def _read_json(raw: bytes) -> Any:
    """`json.loads(raw, parse_constant=_not_json)`, with its decoder made once: `json.loads` makes
    one on every call that passes an option (it has no state between calls, so one serves every
    thread). The bytes are decoded as `json.loads` decodes them (UTF-8, -16 or -32)."""
    # subtle: an object in UTF-8 starts with "{" and no zero byte after it (UTF-16 or -32 would
    # have one, a BOM another first byte): what `json.detect_encoding` would find
    plain = raw[:1] == b"{" and raw[1:2] != b"\0"
    return _DECODER.decode(raw.decode("utf-8" if plain else json.detect_encoding(raw), "surrogatepass"))


def _first(problems: list[Any]) -> Any:
    return problems[0] if problems else None  # real APIs report the first problem only


def serve(*, host: str = "127.0.0.1", port: int = 8765, policy: Policy | Sequence[Reply] | None = None,
          out: TextIO | None = None, keep: int = 100, allow_remote: bool = False,
          tape: Tape | str | Path | None = None, flavour: str | None = None) -> None:
    """Run the double in the foreground, print where each API answers, and serve until Ctrl-C.

    Raises ValueError for a non-loopback `host` without `allow_remote`, and OSError (one
    sentence) for an address that cannot be bound. With `tape`, it plays that tape; with
    `flavour`, its API answers the way that local server does.
    """
    out = out or sys.stdout
    write: Callable[..., None] = lambda text="": print(text, file=out, flush=True)
    double = ApiDouble(policy, host=host, port=port, keep=keep, allow_remote=allow_remote,
                       log=lambda line: write("  " + line), tape=tape, flavour=flavour)
    warning = bind_warning(host)
    if warning:
        print(f"{warning} Stop it with Ctrl-C when you are done.", file=sys.stderr, flush=True)
    with double:
        write(f"API double listening on {double.url}  (Ctrl-C to stop)")
        for path, api in double.routes:
            setting = f'get_provider("{API_SPECS[api].provider}", base_url="{double.base_url(api)}")'
            write(f"  {api:<10} {setting:<66} POST {path}")
        write(f"  model lists: GET {' and '.join(double.url + path for path in double.routes.lists)}")
        write("  or set TOOLCALL_LAB_PROVIDER to the name above and TOOLCALL_LAB_BASE_URL to its base_url")
        write(f"  faults: send the header X-Double-Fault: {' | '.join(FAULTS)}")
        write(f"  keeping the last {keep} requests in memory")
        if double.flavour is not None:
            server_ = double.flavour
            write(f"  {API_SPECS[server_.api].endpoint} answers like {server_.title}, which has one model: "
                  f"{server_.model}")
        if double.playback is not None:
            played = double.playback.tape
            options = "".join(f", {name}={value!r}" for name, value in played.settings.items())
            write(f"  playing a tape of {len(played.exchanges)} {API_SPECS[played.api].title} exchanges, "
                  f"{played.label}")
            write(f"  replay it with get_provider(\"{played.provider}\", "
                  f"base_url=\"{double.base_url(played.api)}\", model=\"{played.model}\"{options})")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            write("stopped.")
