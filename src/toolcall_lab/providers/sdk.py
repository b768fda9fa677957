"""What every real provider shares: encode, check, send with the SDK, decode, and errors.

A real provider is a thin shell around a pure codec module (`toolcall_lab.wire.<api>`),
which it names as a class attribute (`codec = wire.anthropic`). `WireProvider.complete`
is the whole route of one call, top to bottom:

    request = self.codec.encode_request(transcript, tools, model=..., **options)
    problems = self.codec.check_request(request)  # what the API would reject: raise now
    body = self._send(request)                    # the only line that touches the network
    turn = self.codec.decode_response(body)       # + the wire request and response kept
    self.requests.append(SentRequest.of(...))     # recorded last: all went well

`WireProvider.stream` is the same route with `"stream": true`: the SDK's own streaming
call (`_open_stream`), each event as the dict the wire carried into the codec's
`decode_stream`, and the kit's stream events out, the last `StreamFinished(turn)`.

Subclasses name their API, codec and SDK client class (`sdk_client = "openai.OpenAI"`),
and implement `_options` (the codec's options for this provider) and `_send` (the SDK
call, returning the response body as JSON); a client built with other arguments than
the Anthropic and OpenAI SDKs take also overrides `_client_options`. Everything that
can go wrong on the way becomes one of the kit's `ProviderError`s with one actionable
sentence, and the caller's transcript is never touched (the loop appends the reply, not
the provider).

Keys: surrounding whitespace is dropped where a key enters (`open("key").read()` ends in
a newline, which no HTTP header may carry), and a key with a control or non-ASCII
character inside is refused at once with `MissingKeyError`, naming the variable, never
the key. The key is handed to the SDK client and kept nowhere else readable: the copy
used to redact messages sits in a `SealedKeys`, whose repr hides it and which has no
`__dict__`, so `vars(provider)` in a notebook shows no key. Reprs, errors and saved
turns never show it (`Turn.request` / `Turn.response` are bodies, not headers). A user
name or password inside `base_url` (`http://user:PASSWORD@host/v1`) is kept for the SDK,
sealed for redacting like a key, and shown nowhere: every repr and message names the URL
as `shown_url` (`_redact.redact_url`: `http://[redacted]@host/v1`).
"""

from __future__ import annotations

import importlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast
from urllib.parse import urlsplit

from .._redact import redact, redact_url, secret_spans, url_secrets
from .._text import shorten
from ..errors import (
    AuthenticationError,
    IncompleteStreamError,
    InvalidRequestError,
    MalformedResponseError,
    MissingKeyError,
    ModelNotFoundError,
    OverloadedError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    RateLimitError,
    ServerError,
    ToolcallLabError,
    UsageError,
    UsageTypeError,
)
from ..models import default_model
from ..output_format import OutputFormat
from ..stream import StreamEvent, StreamFinished
from ..wire import API_SPECS
from ..wire._shared import sampling
from ._progress import Progress
from ._tls import sdk_http_client
from .base import BaseProvider, SentRequest

if TYPE_CHECKING:
    from ..tool import Tool
    from ..transcript import Transcript
    from ..turn import Turn
    from ..wire import Codec

__all__ = ["SealedKeys", "WireProvider", "is_loopback", "send_via_sdk", "stream_via_sdk"]

_T = TypeVar("_T")

#: The key sent to servers that need none (local servers, the API double). SDKs insist
#: on some key; this one says what it is if it ever shows up in a server's log.
NO_KEY_NEEDED = "no-key-needed"
#: The host of an API double reached in-process, through its transport (`double/transport.py`,
#: `IN_PROCESS_URL`): on this machine, though no network resolves it (`.invalid`: RFC 2606 §2).
IN_PROCESS_HOST = "double.invalid"


def is_loopback(url: str | None) -> bool:
    """Whether `url` points at this machine (a local server or the API double, on loopback or
    in-process: `IN_PROCESS_HOST`).

    >>> is_loopback("http://127.0.0.1:11434"), is_loopback("https://api.anthropic.com")
    (True, False)
    """
    if not url:
        return False
    host = urlsplit(url).hostname or ""
    return host in ("localhost", "::1", IN_PROCESS_HOST) or host.startswith("127.")


class SealedKeys:
    """Secrets kept for redacting, which neither their repr nor `vars()` reveals.

    >>> sealed = SealedKeys(["sk-example-123"])
    >>> sealed, sealed.redact("key sk-example-123 refused")
    (SealedKeys(1 hidden), 'key [redacted] refused')
    """

    __slots__ = ("_values",)  # subtle: no __dict__, so vars() and pretty printers cannot list it

    def __init__(self, values: Sequence[str | None] = ()) -> None:
        self._values = tuple(v for v in values if v)

    def __repr__(self) -> str:
        return f"SealedKeys({len(self._values)} hidden)"

    def redact(self, text: str) -> str:
        """`text` with every kept secret replaced by `[redacted]` (`_redact.redact`)."""
        return redact(text, self._values)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where `text` holds a kept secret: (start, end) of each (`_redact.secret_spans`)."""
        return secret_spans(text, self._values)


def clean_key(key: str, source: str, *, provider: str = "") -> str:
    """`key` without surrounding whitespace; a key with a control or non-ASCII character inside
    raises `MissingKeyError` that names `source` (the variable, or "api_key=") and not the key.

    >>> clean_key(" sk-example-123\\n", "ANTHROPIC_API_KEY")
    'sk-example-123'
    """
    key = key.strip()
    if key.isascii() and key.isprintable():
        return key
    # subtle: never say which character or where: the position and its neighbours are the key
    raise MissingKeyError(
        f"the key in {source} is malformed: it holds a line break, another control character "
        "or a non-ASCII character (a curly quote from a document, say); copy the key again as "
        "plain text.", provider=provider)


class WireProvider(BaseProvider):
    """Base class of the real providers (not used directly).

    Options every provider takes, besides its own:

    - `model`: the model id (default: `toolcall_lab.models.DEFAULT_MODELS[name]`);
    - `client`: an SDK client you built yourself (then `api_key`/`base_url` are unused);
    - `double`: an `ApiDouble` to talk to in-process, through its transport (no socket:
      `double.transport()`, `double/transport.py`); `base_url` defaults to its own, and no key
      is needed (one passed as `api_key` is sent, the environment's never);
    - `api_key`, `base_url`: for the client the provider builds;
    - `max_tokens`: the output limit sent with every request;
    - `timeout` (seconds) and `max_retries`: passed to the SDK, whose own retries (with
      backoff, honouring retry-after) are kept; the SDK's HTTP client waits at most
      `timeout` for the next bytes, and a stream (`stream`) at most `timeout` for its next
      event: keep-alives (Anthropic's pings, SSE comments) are bytes, not progress
      (`_progress.py`);
    - `check`: run the codec's `check_request` before sending and raise
      `InvalidRequestError` with the API's wording instead of spending a call (default on);
    - `temperature`: the sampling temperature sent with every request (0: always the
      likeliest token); None (the default) sends none, so the API's own default applies.
      Some models take only their default (Claude Haiku 5.5): `check` refuses 0 for them
      before sending, in the API's words;
    - `seed`: a sampling seed, on the APIs that have one (`takes_seed`: Chat Completions
      and Ollama); None sends none. Neither setting promises the same reply twice.

    `requests` lists a `SentRequest` for every call that succeeded, as on the scripted
    provider, with `body` the exact dict that crossed the wire.
    """

    # subtle: `name`, `key_env` and `start_hint` are the class's, and an instance's own where a
    # preset is for one local server (`OpenAIChatProvider(preset="vllm")`: its name, no key)
    name: str                            # "anthropic", "openai", ...: also ReasoningBlock.provider
    api: ClassVar[str]                   # the API: "anthropic", "responses", "chat", "ollama"
    codec: ClassVar[Codec]               # its codec module: toolcall_lab.wire.<api>
    key_env: str | None = None           # the variable that holds the key, None if no key is needed
    default_base_url: ClassVar[str] = ""
    #: The SDK's client class, "module.Class"; the module is also the kit's extra that installs it.
    sdk_client: ClassVar[str]            # "anthropic.Anthropic", "openai.OpenAI", "ollama.Client"
    #: How to start the local server this provider is made for, for "nothing answers at <url>"
    #: (None for a hosted API: see `_unreachable`).
    start_hint: str | None = None
    #: Whether the API takes a sampling `seed` (Chat Completions, Ollama); Messages and Responses have none.
    takes_seed: ClassVar[bool] = False

    def __init__(self, model: str | None = None, *, client: Any = None, api_key: str | None = None,
                 base_url: str | None = None, max_tokens: int = 1024, timeout: float = 60.0,
                 max_retries: int = 2, check: bool = True, temperature: float | None = None,
                 seed: int | None = None, output_format: OutputFormat | None = None,
                 double: Any = None) -> None:
        if seed is not None and not self.takes_seed:
            raise UsageError(f"the {API_SPECS[self.api].title} API has no seed, so {type(self).__name__} "
                             f"cannot send seed={seed!r}; leave seed out (temperature=0 is the closest it "
                             "has), or use a provider whose API has one (openai-chat, ollama).")
        sampling(temperature, seed)  # a bad value fails now, not at the first call
        self.temperature = temperature
        self.seed = seed
        if output_format is not None and not isinstance(output_format, OutputFormat):
            raise UsageTypeError(f"output_format is an OutputFormat (toolcall_lab.output_format), got "
                                 f"{type(output_format).__name__}; build one with "
                                 "OutputFormat(name, schema).")
        #: Structured output: every reply held to this schema (the codec spells it its API's way).
        self.output_format = output_format
        self.model = model or default_model(self.name)
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.max_retries = max_retries
        self.check = check
        self.requests: list[SentRequest] = []
        self._held: list[ToolcallLabError] = []
        self._double = double  # subtle: the SDK's HTTP client answers from it (`_client_options`)
        if double is not None and not base_url:
            base_url = double.base_url(self.api)
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self._secrets = SealedKeys(url_secrets(self.base_url))
        if client is not None:
            self._client = client
            self.base_url = str(getattr(client, "base_url", self.base_url)).rstrip("/")
            self._secrets = SealedKeys(url_secrets(self.base_url))
        else:
            # subtle: an in-process double needs no key, and is never sent the environment's
            key = self._resolve_key(api_key) if double is None or api_key else NO_KEY_NEEDED
            self._secrets = SealedKeys([key if key != NO_KEY_NEEDED else None, *url_secrets(self.base_url)])
            self._client = self._make_client(key)

    # -- the SDK client -----------------------------------------------------------------
    def _make_client(self, api_key: str) -> Any:
        """Build the `sdk_client` with `_client_options`, importing its SDK only now."""
        module_name, _, class_name = self.sdk_client.rpartition(".")
        # subtle: a name and importlib, not an import at the top: `import toolcall_lab` must not
        # load three SDKs (tests/test_import_light.py)
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            raise ImportError(f"the {self.name} provider needs the `{module_name}` package; install it "
                              f"with pip install 'toolcall-lab[{module_name}]'.") from None
        return getattr(module, class_name)(**self._client_options(api_key))

    def _client_options(self, api_key: str) -> dict[str, Any]:
        """The client's constructor arguments: those the Anthropic and OpenAI SDKs both take.

        `http_client` is the one the SDK would build itself, with the process's one TLS
        context (`_tls.py`): building a context per client costs 35 ms of CPU each; with
        `double=`, with the double's transport instead (no socket, no TLS).
        """
        sdk = self.sdk_client.partition(".")[0]
        transport = None if self._double is None else self._double.transport()
        return {"api_key": api_key, "base_url": self.base_url, "timeout": self.timeout,
                "max_retries": self.max_retries,
                "http_client": sdk_http_client(sdk, base_url=self.base_url, timeout=self.timeout,
                                               transport=transport)}

    # -- what subclasses provide --------------------------------------------------------
    def _options(self, tools: tuple[Tool, ...]) -> dict[str, Any]:
        """The codec's `encode_request` options besides `model` and `max_tokens`."""
        return {}

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send `request` with the SDK and return the response body as JSON."""
        raise NotImplementedError

    def _stream_fields(self) -> dict[str, Any]:
        """What a streamed request adds to the body (Chat adds `stream_options` for the usage)."""
        return {"stream": True}

    def _open_stream(self, request: dict[str, Any]) -> Iterable[Any]:
        """Send `request` with the SDK's own streaming call; its stream of events (to iterate)."""
        raise NotImplementedError

    def _event_dict(self, event: Any) -> dict[str, Any]:
        """One event of the SDK's stream as the JSON the wire carried (the SDKs' `to_dict()`).

        `warnings=False`: a field of the wrong type is the codec's to name, in the kit's words
        (`MalformedResponseError`), not pydantic's serializer warning about the SDK's model.
        """
        try:
            return cast(dict[str, Any], event.to_dict(warnings=False))
        except TypeError:  # subtle: an event that takes no `warnings` (a stand-in's): its JSON all the same
            return cast(dict[str, Any], event.to_dict())

    def _error_event(self, exc: Exception) -> dict[str, Any] | None:
        """The error event an SDK raised `exc` for, mid-stream, as the wire carried it; None if
        `exc` is not one. The Anthropic and OpenAI SDKs raise an `APIError` (anthropic's with
        status 200: the stream had begun) whose `body` is the event (anthropic) or its `error`
        (openai)."""
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "APIError" not in names or "APIConnectionError" in names:
            return None
        body = getattr(exc, "body", None)
        if isinstance(body, Mapping) and body.get("type") == "error":
            return dict(body)
        said = body if isinstance(body, Mapping) else {"message": str(getattr(exc, "message", exc))}
        return {"type": "error", "error": dict(said)}

    # -- the seam -------------------------------------------------------------------------
    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = (), tool_choice: str | None = None,
                 parallel_tool_calls: bool | None = None) -> Turn:
        """Send the conversation and the tools; return the reply with its wire bodies.

        `tool_choice` and `parallel_tool_calls` are the kit's vocabulary
        (`toolcall_lab.tool_choice`); the codec spells them the API's way.
        """
        tools = tuple(tools)
        request, options = self._request(transcript, tools, tool_choice, parallel_tool_calls)
        started = time.perf_counter()
        body = self._through_sdk(self._send, request)
        latency = time.perf_counter() - started
        try:
            turn = self.codec.decode_response(body)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise MalformedResponseError(
                f"{self.name} answered with a body the {self.api} API does not produce "
                f"({type(exc).__name__}: {self._redact(str(exc))}); is {self.shown_url} really "
                f"a {self.api} server?", provider=self.name) from None
        # subtle: recorded last, so a call that failed anywhere above records nothing.
        self._record(transcript, tools, request, tool_choice, options)
        return replace(turn, latency_s=latency, request=request, response=body)

    def _through_sdk(self, call: Callable[[dict[str, Any]], _T], request: dict[str, Any]) -> _T:
        """`call(request)` (the SDK's call, streamed or not), any failure as the kit's error.

        A `ProviderError` raised on the way passes as it is; anything else the SDK raises is
        translated (`_translate`); an error the HTTP client held back is raised either way.
        """
        try:
            return call(request)
        except ProviderError:
            raise
        except Exception as exc:
            raise self._translate(exc) from None
        finally:
            self._raise_held()

    def stream(self, transcript: Transcript, *, tools: Sequence[Tool] = (), tool_choice: str | None = None,
               parallel_tool_calls: bool | None = None) -> Iterator[StreamEvent]:
        """The reply as it arrives: the kit's stream events, the last `StreamFinished(turn)`.

        The same request as `complete`, sent with `"stream": true` through the SDK's own
        streaming call (`_open_stream`); each raw event, as a dict, goes through the codec's
        `decode_stream`. The final turn is the one `complete` would return for the same
        reply, with its latency, the request sent and, as `response`, `{"events": [...]}`:
        the raw events in order (a streamed reply has no one body).

        A stream that breaks off after it began (the connection drops, the server sends an
        error event, the body stops before the API's end of reply) raises
        `IncompleteStreamError`, whose one sentence says what had arrived and what had not;
        nothing is recorded in `requests`, and no `StreamFinished` (so no call to run) was
        yielded; a dropped connection is its `__cause__`. Its `events` counts the events the
        SDK handed over (the anthropic SDK keeps `ping`s to itself). A stream that goes
        `timeout` seconds with nothing but keep-alives is closed, and raises the same error,
        saying so. A failure before the stream began is the same error `complete` raises.

            for event in provider.stream(transcript, tools=[get_weather]):
                print(event)          # [0] text += 'Chec' ... done [tool_use]: 2 blocks, ...
            turn = event.turn         # the last event is StreamFinished
        """
        tools = tuple(tools)
        request, options = self._request(transcript, tools, tool_choice, parallel_tool_calls, stream=True)
        started = time.perf_counter()
        sdk_stream = self._through_sdk(self._open_stream, request)
        clock = Progress(self.timeout)
        clock.watch(sdk_stream)
        raw: list[dict[str, Any]] = []
        broken: list[BaseException] = []  # what the HTTP client raised when the stream stopped
        try:
            for event in self.codec.decode_stream(self._raw_events(sdk_stream, raw, broken, clock)):
                if isinstance(event, StreamFinished):
                    turn = replace(event.turn, latency_s=time.perf_counter() - started, request=request,
                                   response={"events": raw})
                    self._raise_held()
                    self._record(transcript, tools, request, tool_choice, options)
                    yield StreamFinished(turn)
                    return
                yield event
        except IncompleteStreamError as exc:
            self._raise_held()
            if clock.stalled:
                raise self._stalled(exc) from (broken[0] if broken else None)
            if broken:
                raise exc from broken[0]  # subtle: the sentence is the kit's; the traceback keeps why
            raise
        except ToolcallLabError:
            raise
        except Exception as exc:
            self._raise_held()
            raise self._translate(exc) from None
        finally:
            close = getattr(sdk_stream, "close", None)
            if callable(close):
                close()  # subtle: a stream left early (Ctrl-C, a raising on_event) frees its connection

    def _stalled(self, cut: IncompleteStreamError) -> IncompleteStreamError:
        """The kit's error for a stream closed after `timeout` seconds of keep-alives alone."""
        events = f"{cut.events} event{'' if cut.events == 1 else 's'}"
        return IncompleteStreamError(
            f"{self.name} sent only keep-alives for {self.timeout:g} s (timeout={self.timeout:g}) after "
            f"{events}, so the stream was closed: {cut.arrived}; nothing was added to the transcript and "
            "no tool ran: call again, or pass a larger timeout=.", provider=self.name, events=cut.events,
            arrived=cut.arrived)

    def _raw_events(self, sdk_stream: Iterable[Any], raw: list[dict[str, Any]],
                    broken: list[BaseException], clock: Progress) -> Iterator[dict[str, Any]]:
        """Each event of the SDK's stream as the dict the wire carried, kept in `raw` too.

        The SDKs raise on an error event (anthropic: `APIStatusError` with status 200; openai:
        `APIError`; ollama: `ResponseError` with status -1); it is handed on as the event it
        was, so the codec's decoder says the server's words and what had arrived. A
        connection that drops or goes silent ends the events, kept in `broken`; the decoder
        then says the stream stopped before the API's end of reply, in the same words
        whatever the SDK raised (`_broke_off`). So does a stream that goes `timeout` seconds
        without an event but keep-alives (`clock`), which is then closed.
        """
        iterator = iter(sdk_stream)
        while True:
            try:
                event = next(iterator)
            except StopIteration:
                return
            except Exception as exc:
                if clock.stalled:  # subtle: whatever the SDK wrapped the clock's Stalled in
                    broken.append(exc)
                    return
                error = self._error_event(exc)
                if error is not None:
                    raw.append(error)
                    yield error
                    return
                if isinstance(exc, ToolcallLabError) or not _broke_off(exc, began=bool(raw)):
                    raise
                broken.append(exc)
                return
            as_dict = self._event_dict(event)
            raw.append(as_dict)
            yield as_dict
            if as_dict.get("type") != "ping":
                clock.moved()  # subtle: after the yield, so the caller's own time is not the server's

    def _request(self, transcript: Transcript, tools: tuple[Tool, ...], tool_choice: str | None,
                 parallel_tool_calls: bool | None, *, stream: bool = False) -> tuple[dict[str, Any],
                                                                                    dict[str, Any]]:
        """(the request body, the codec options it was encoded with), checked if `check` is on."""
        options = {**sampling(self.temperature, self.seed), **self._options(tools)}
        if self.output_format is not None:
            options["output_format"] = self.output_format
        if tool_choice is not None:
            options["tool_choice"] = tool_choice
        if parallel_tool_calls is not None:  # subtle: a per-call choice wins over the provider's own
            options["parallel_tool_calls"] = parallel_tool_calls
        request = self.codec.encode_request(transcript, tools, model=self.model,
                                            max_tokens=self.max_tokens, **options)
        if stream:
            request = {**request, **self._stream_fields()}
        if self.check:
            self._refuse_if_invalid(request)
        return request, options

    def _record(self, transcript: Transcript, tools: tuple[Tool, ...], request: dict[str, Any],
                tool_choice: str | None, options: Mapping[str, Any]) -> None:
        self.requests.append(SentRequest.of(transcript, tools, body=request,
                                            previous=self.requests[-1] if self.requests else None,
                                            tool_choice=tool_choice,
                                            parallel_tool_calls=options.get("parallel_tool_calls")))

    def _refuse_if_invalid(self, request: dict[str, Any]) -> None:
        """Raise `InvalidRequestError`, in the API's words, if the API would reject `request`."""
        problems = self.codec.check_request(request)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InvalidRequestError(
                f"{self.name} would reject this request, so it was not sent: "
                f"{str(problems[0]).rstrip('.')}{more}. Fix the transcript (see error.problems), or pass "
                "check=False to send it anyway and see the API's own answer.",
                problems=problems, provider=self.name, status=400)

    def _hold(self, error: ToolcallLabError) -> None:
        """Keep `error` to raise, as itself, when the SDK call under way returns.

        For code that runs *inside* the SDK's call, such as a tape recorder's hook on the
        SDK's HTTP client (`tape.Recorder`): what it raises there, the SDK takes for a
        connection that failed, so it would send the request again and then report that
        nothing answers.
        """
        self._held.append(error)

    def _raise_held(self) -> None:
        if self._held:
            error, self._held[:] = self._held[0], []
            raise error

    @property
    def shown_url(self) -> str:
        """`base_url` as every repr and message shows it: a user name or password in it hidden."""
        return redact_url(self.base_url)

    def __repr__(self) -> str:
        shown = f"model={self.model!r}"
        if self.base_url and self.base_url != self.default_base_url.rstrip("/"):
            shown += f", base_url={self.shown_url!r}"
        return f"{type(self).__name__}({shown}{self._shown_sampling()})"

    def _shown_sampling(self) -> str:
        """", temperature=0, seed=42" for what is set, "" when both are left to the API."""
        return "".join(f", {name}={value!r}" for name, value in sampling(self.temperature, self.seed).items())

    # -- keys -------------------------------------------------------------------------------
    def _resolve_key(self, api_key: str | None) -> str:
        if api_key and api_key.strip():
            return clean_key(api_key, "api_key=", provider=self.name)
        if self.key_env and os.environ.get(self.key_env, "").strip():
            return clean_key(os.environ[self.key_env], self.key_env, provider=self.name)
        if self.key_env is None or is_loopback(self.base_url):
            return NO_KEY_NEEDED  # local servers and the API double ignore keys
        raise MissingKeyError(
            f"{self.key_env} is not set, so the {self.name} provider has no key to call "
            f"{self.shown_url} with; set it (export {self.key_env}=...), pass api_key=..., or "
            "stay offline with get_provider('scripted').", provider=self.name)

    def _redact(self, text: str) -> str:
        return self._secrets.redact(text)

    # -- errors: every SDK failure becomes one sentence ------------------------------------
    def _translate(self, exc: Exception) -> ProviderError:
        """Map an exception from the SDK onto the kit's error tree.

        The Anthropic and OpenAI SDKs are generated by the same tool and share their
        exception names, so they are matched by name (no SDK import needed here).
        """
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "APITimeoutError" in names or isinstance(exc, TimeoutError):
            return ProviderTimeoutError(
                f"{self.name} did not answer within {self.timeout:g} s at {self.shown_url} "
                f"(after {self.max_retries} retries); try again, or pass a larger timeout=.",
                provider=self.name)
        if "APIConnectionError" in names or isinstance(exc, ConnectionError):
            return self._unreachable(exc)
        status = getattr(exc, "status_code", None)
        if isinstance(status, int):
            response = getattr(exc, "response", None)
            headers = getattr(response, "headers", None) or {}
            return self._status_error(status, _api_message(getattr(exc, "body", None), exc), headers)
        if isinstance(exc, json.JSONDecodeError) or "APIResponseValidationError" in names:
            return MalformedResponseError(
                f"{self.name} answered with a body that is not the {self.api} API's JSON "
                f"({self._redact(str(exc))[:200]}); is {self.shown_url} really a {self.api} server?",
                provider=self.name)
        return ProviderError(f"{self.name} call failed: {type(exc).__name__}: "
                             f"{self._redact(str(exc))}", provider=self.name)

    def _unreachable(self, exc: BaseException | None = None) -> ProviderUnreachableError:
        """"nothing answers at <url>", and what is true of it: a remote host is the network's
        business; on this machine, the server there is not running (the API double a lesson
        stopped, or a local server not started yet), and the message says how to start it."""
        if urlsplit(self.base_url).hostname == IN_PROCESS_HOST:  # an unstarted double's address
            hint = ("only an API double's transport answers there, in-process: pass the double itself, "
                    "get_provider(..., double=double), or start it (`with ApiDouble(...) as double:`) and "
                    "pass its base_url.")
        elif not is_loopback(self.base_url):
            hint = "check your network connection and the base_url."
        else:
            double = ("if it was the API double, it was stopped or never started: run the cell that "
                      "starts it again (`with ApiDouble(...) as double:`) or start one with "
                      "`python -m toolcall_lab serve`")
            hint = f"{(self.start_hint or 'no server runs there').rstrip('.')}; {double}."
        return ProviderUnreachableError(f"nothing answers at {self.shown_url}: {hint}", provider=self.name)

    def _where(self) -> str:
        """Who answered, for a message about an answer: the provider, and its URL unless it is
        the vendor's own or on this machine (a server that answered needs no address to find,
        and a loopback port changes with every run)."""
        if self.base_url == self.default_base_url.rstrip("/"):
            return self.name
        if is_loopback(self.base_url):
            return f"{self.name} (a server on this machine)"
        return f"{self.name} ({self.shown_url})"

    def _status_error(self, status: int, message: str, headers: Mapping[str, str]) -> ProviderError:
        """The kit's error for an HTTP error `status` with the API's `message`.

        A 400 quotes the API's message whole (it names the ids and paths at fault); the
        others quote its first sentence, because a rate-limit text can run to a paragraph.
        """
        said = self._redact(message)  # subtle: before cutting, or a key cut in two would show half
        said = (said if status == 400 else _first_sentence(said)).rstrip(".")
        where = self._where()
        if status in (401, 403):
            fix = (f"check {self.key_env} (or api_key=)" if self.key_env
                   else "check the server's key settings")
            return AuthenticationError(f"{where} refused the key ({status}: {said}); {fix}.",
                                       provider=self.name, status=status)
        if status == 404:
            return ModelNotFoundError(
                f"{where} does not know model {self.model!r} or this API ({status}: {said}); "
                f"pass model= one the server lists (default for {self.name}: "
                f"{default_model(self.name)!r}).", provider=self.name, status=status)
        if status == 429:
            wait = retry_after(headers)
            later = f"wait {wait:g} s" if wait is not None else "wait a little"
            retried = (f"the SDK already retried {self.max_retries} times" if self.max_retries
                       else "retries are off (max_retries=0)")
            return RateLimitError(
                f"{where} is rate limiting you (429: {said}); {retried}, so {later} and call again.",
                provider=self.name, status=status, retry_after=wait)
        if status in (503, 529):
            return OverloadedError(
                f"{where} is overloaded ({status}: {said}); nothing is wrong with your request, "
                "try again in a minute.", provider=self.name, status=status,
                retry_after=retry_after(headers))
        if status >= 500:
            # subtle: `x-should-retry: false` is the server saying a retry cannot help (the API
            # double's script stopped, say); both SDKs obey it, so nothing was retried
            if str(headers.get("x-should-retry", "")).lower() == "false":
                return ServerError(
                    f"{where} failed with {status} ({said}); the server says a retry cannot help, "
                    "so the SDK did not retry: read its message above.", provider=self.name, status=status)
            return ServerError(
                f"{where} failed with {status} ({said}) after {self.max_retries} retries; "
                "the request may be fine, try again later.", provider=self.name, status=status)
        return InvalidRequestError(f"{where} rejected the request ({status}: {said}).",
                                   provider=self.name, status=status)


def send_via_sdk(resource: Any, request: Mapping[str, Any]) -> dict[str, Any]:
    """Send `request` with a resource of the Anthropic or OpenAI SDK; the reply's JSON as it came.

    `resource` is the SDK object whose `create` makes the call (`client.messages`,
    `client.responses`, `client.chat.completions`). Keys `create` does not name (a local
    server's own options, say) travel in `extra_body`, so the body sent is the codec's.
    The SDK's own type then reads the reply too, so a body it would reject fails here.
    """
    raw = resource.with_raw_response.create(**_create_arguments(resource, request))
    body: dict[str, Any] = raw.http_response.json()  # the JSON exactly as it crossed the wire
    raw.parse()
    return body


def stream_via_sdk(resource: Any, request: Mapping[str, Any]) -> Any:
    """Send `request` (it says `"stream": true`) with `resource.create`; the SDK's `Stream`.

    As `send_via_sdk`: keys `create` does not name travel in `extra_body`. The SDK's
    `Stream` yields its event objects (`event.to_dict()` is the wire's JSON) and is closed
    with `close()`.
    """
    return resource.create(**_create_arguments(resource, request))


def _create_arguments(resource: Any, request: Mapping[str, Any]) -> dict[str, Any]:
    """`request` as `resource.create` takes it: the keys it names, and the rest in `extra_body`."""
    accepted = _parameters(resource)
    known = {key: value for key, value in request.items() if key in accepted}
    extra = {key: value for key, value in request.items() if key not in accepted}
    return {**known, **({"extra_body": extra} if extra else {})}


_PARAMETERS: dict[type, frozenset[str]] = {}


def _parameters(resource: Any) -> frozenset[str]:
    """The names `resource.create` takes, read once per SDK resource class (not per request:
    `inspect.signature` of a `create` with forty parameters is not free)."""
    kind = type(resource)
    if kind not in _PARAMETERS:
        import inspect

        _PARAMETERS[kind] = frozenset(inspect.signature(resource.create).parameters)
    return _PARAMETERS[kind]


#: What the HTTP clients raise when a stream that had begun stops: the connection dropped
#: (httpx's RemoteProtocolError, "peer closed connection without sending complete message
#: body"), failed or went silent; the openai and anthropic SDKs may wrap them in APIConnectionError.
_BROKE_OFF = frozenset({"RemoteProtocolError", "ReadError", "ReadTimeout", "APIConnectionError",
                        "TimeoutException", "IncompleteRead"})
#: What says a body is not the API's JSON: a garbled stream, not a cut one (`MalformedResponseError`).
_NOT_JSON = frozenset({"JSONDecodeError", "APIResponseValidationError"})


def _broke_off(exc: BaseException, *, began: bool) -> bool:
    """Whether `exc`, raised while a stream was being read, means the stream broke off.

    Once an event has arrived (`began`), the server had answered, so anything but a body that
    is not JSON means the reply was cut, whatever the SDK calls it: which class a dropped
    connection surfaces as changes between an SDK's releases (the anthropic SDK's move from
    httpx to httpx2 changed it), and the kit's sentence must not. Before the first event only
    a connection that broke off counts, by its names: a refused one is `ConnectError` (the
    ollama client sends its request only when the first line is asked for), and an HTTP
    error is the error `complete` raises.
    """
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & {"ConnectError", "ConnectTimeout"}:
        return False
    if began:
        return not names & _NOT_JSON
    return bool(names & _BROKE_OFF) or isinstance(exc, ConnectionResetError | TimeoutError)


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait, from `retry-after-ms` or `retry-after` (seconds), if present."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return float(value) / scale
            except ValueError:
                continue  # subtle: retry-after may also be an HTTP date; ignore that form
    return None


def _first_sentence(text: str, limit: int = 240) -> str:
    """`text` up to the end of its first sentence (and at most `limit` characters).

    >>> _first_sentence("Rate limited (org: x). See the docs. Or call sales.")
    'Rate limited (org: x).'
    """
    end = text.find(". ")
    return shorten(text if end < 0 else text[:end + 1], limit)


def _api_message(body: object, exc: BaseException) -> str:
    """The API's own error message from an error body of any of the four shapes."""
    if isinstance(body, str) and body.strip():
        return body  # subtle: the openai SDK unwraps {"error": "..."} to the bare string
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return cast(str, error["message"])
        if isinstance(error, str):
            return error  # Ollama: {"error": "..."}
        if isinstance(body.get("message"), str):
            return cast(str, body["message"])
    return str(getattr(exc, "message", None) or exc)
