"""Record once, replay for the class: a run against a real model, kept as a JSON *tape*.

This module records and replays; the tape itself, as data, is `tape.format`.

A teacher runs a lesson once against a real API inside `record(provider, path)`; every
exchange the SDK makes (request body, response body, status, model, latency) lands on a
`Tape`. A learner then replays that exact run through the same real SDK, with no key, no
cost and no rate limit: `replay(tape)` is a provider pointed at an `ApiDouble` that answers
each request with its recorded response, and answers a request that differs with a 400 in
the API's own shape naming the first differing path, so a learner who changed a cell
learns why (`double.playback`).

    >>> from toolcall_lab import run_agent
    >>> tape = load("anthropic_weather")          # Claude Haiku 4.5, recorded live once
    >>> tape
    Tape('anthropic', model='claude-haiku-4-5', exchanges=2)
    >>> provider = replay(tape)                   # the real anthropic SDK, talking to the tape
    >>> run_agent(provider, tape.question, tools=tape.tools()).answer
    'The weather in SF is currently **20°C** (68°F) and **Sunny**!'

What a tape never holds: headers, so no key (recording reads the request's path and
body and the response's status and body, nothing else; and the bodies go through the
provider's key redaction and the common token shapes, `KEYLIKE`: the vendors' keys,
GitHub, AWS, Hugging Face, Google and Slack tokens, bearer tokens, pasted in a prompt or
returned by a tool; a stream's text is redacted as it assembles, however its pieces cut a
key: `tape.redaction`); nor the host, so a tape does not say where a private server lives.

A tape is saved the way every file of the kit is (`_files.save_atomically`: a temporary
file, then one rename), so recording after every exchange (`recording`) never leaves a
half-written or empty tape, whatever interrupts it; a save that fails raises `TapeError`
saying why, and the file keeps every exchange saved before. Text that cannot be UTF-8 (a
lone surrogate from a `"\\ud83d"` escape in a reply) becomes U+FFFD where it enters, as
in transcripts (`blocks.clean_text`). Loading checks every field and raises one
`TapeError` naming the JSON path that is wrong ("exchanges[1].status must be ...").

Each tape says how it was made in `label` ("recorded against the real Anthropic Messages
API on 2026-...", "recorded against the toolcall-lab API double", ...) and `source`.

A request is matched *exactly* (`double.playback.first_difference`: same keys, same
values, list items in the same order; numbers compare as numbers): nothing an SDK sends
varies from run to run, so there is nothing to normalise, and a tape recorded with
another kit version that encodes differently says where, rather than replaying
something else.

A streamed exchange (`"stream": true`, and Ollama's default) is recorded as its events, in
the order they arrived, while the SDK reads them (`Exchange.events`), and replayed as
those same events through the SDK's own stream call: a learner's `messages.stream(...)`
sees the recorded deltas, split where the API split them.

Left out: recording a provider built with a client that is not an SDK's (the scripted
provider sends nothing to record), tool results that were errors (`tools()` replays their
text as a plain result), and a stream's framing: the `data: [DONE]` and comments between
events are not kept, and a replay ends each stream as the API does.
"""

from __future__ import annotations

import datetime
import json
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from .._redact import TOKENLIKE
from ..errors import MalformedResponseError, TapeError, ToolcallLabError, UsageError
from ..wire import API_SPECS
from .format import _SETTINGS, Exchange, Tape, load
from .redaction import scrubbed

if TYPE_CHECKING:
    from ..providers.base import Provider
    from ..providers.sdk import WireProvider

__all__ = ["KEYLIKE", "Recorder", "record", "recording", "replay"]

#: Anything shaped like a key or a token (`_redact.TOKEN_SHAPES`, each with its source): never
#: written to a tape.
KEYLIKE: re.Pattern[str] = TOKENLIKE


# -- recording -------------------------------------------------------------------------------
class Recorder:
    """Records every HTTP exchange of one provider's SDK client while the `with` block runs.

    It hooks the SDK's own httpx client (an event hook on each response), so it sees
    exactly what crossed the wire, retries and refusals included, and reads of each
    exchange only the request's path and body and the response's status and body.

    Nothing it does raises inside the SDK: an exception in a hook is, to the SDK, a
    connection that failed, so it would send the request again (billed again) and then
    report that nothing answers. A failure to record or to save is handed to the provider
    instead (`WireProvider._hold`), which raises it, as itself, when the SDK call returns.
    """

    def __init__(self, provider: Provider, path: str | Path | None = None, *, label: str | None = None,
                 source: str = "", keep_going: bool = False) -> None:
        self.provider, self.path, self.source = provider, path, source
        self._label = label
        self.exchanges: list[Exchange] = []
        # subtle: reentrant, since a save under it reads `tape`, which takes it too
        self._lock = threading.RLock()
        self._wire, self._http = _http_client(provider)
        self._double = False  # whether an answer came from an API double (its header says so)
        #: save after every exchange, onto what `path` already holds (`recording`)
        self.keep_going = keep_going
        if keep_going and path is not None and Path(path).is_file():
            earlier = Tape.load(path)
            if (earlier.provider, earlier.model) != (provider.name, provider.model):
                raise UsageError(f"{path} holds a tape of {earlier.provider} ({earlier.model}), and this "
                                 f"provider is {provider.name} ({provider.model}); record to another file.")
            self.exchanges = list(earlier.exchanges)
            self._label = self._label or earlier.label
            self.source = self.source or earlier.source

    def __enter__(self) -> Self:
        hooks = self._http.event_hooks
        hooks["response"] = [*hooks.get("response", []), self._on_response]
        self._http.event_hooks = hooks
        return self

    def __exit__(self, *exc_info: object) -> None:
        hooks = self._http.event_hooks
        hooks["response"] = [hook for hook in hooks.get("response", []) if hook != self._on_response]
        self._http.event_hooks = hooks
        if self.path is not None and self.exchanges:
            self.tape.save(self.path)

    def _on_response(self, response: Any) -> None:
        if _stream_kind(response) is not None:  # recorded as the SDK reads it, event by event
            self._tee(response)
            return
        response.read()  # subtle: a hook sees the response before its body is read (failing: the network's)
        self._guarded(response, self._record, response)

    def _guarded(self, response: Any, record: Callable[..., None], *args: Any) -> None:
        try:
            record(*args)
        except Exception as exc:  # subtle: never into the SDK (see the class docstring)
            self._wire._hold(exc if isinstance(exc, ToolcallLabError) else TapeError(
                f"could not record the exchange with {response.request.url.path} "
                f"({type(exc).__name__}: {exc}); the tape holds what was recorded before it."))

    def _tee(self, response: Any) -> None:
        """Record a streamed answer once the SDK has read it: every chunk it reads is kept, and
        when the stream ends (whole, cut, or left unread) the events in them are recorded.

        subtle: reading the body here, as for a JSON answer, would hold every event back until
        the last had arrived; the SDK reads `iter_bytes` (its `iter_lines` too), so that is
        wrapped instead, and the events reach the SDK as they arrive.
        """
        read = response.iter_bytes
        seen: list[bytes] = []

        def iter_bytes(*args: Any, **kwargs: Any) -> Iterator[bytes]:
            try:
                for chunk in read(*args, **kwargs):
                    seen.append(chunk)
                    yield chunk
            finally:
                self._guarded(response, self._record, response, b"".join(seen))

        response.iter_bytes = iter_bytes

    def _record(self, response: Any, streamed: bytes | None = None) -> None:
        from ..double.handler import DOUBLE_HEADER
        from ..wire._framing import events_of

        self._double = self._double or DOUBLE_HEADER in response.headers  # read, never kept
        request = response.request
        path = request.url.path
        api = next((spec.name for spec in API_SPECS.values() if path.endswith(spec.endpoint)),
                   getattr(self.provider, "api", "unknown"))
        body = _json_or_text(request.content)
        answer = None if streamed is not None else _json_or_text(response.content)
        try:
            events = None if streamed is None else events_of(streamed,
                                                             lines=_stream_kind(response) == "ndjson")
        except MalformedResponseError as exc:  # a stream read as no events: said, never kept as none
            raise TapeError(f"could not record the stream from {path}: {str(exc).rstrip('.')}; the tape "
                            "holds what was recorded before it.") from None
        said = answer if isinstance(answer, dict) else (events or [{}])[-1]
        model = said.get("model") or (body.get("model") if isinstance(body, dict) else None) or (
            self.provider.model)
        exchange = scrubbed({
            "api": api, "path": path, "status": response.status_code, "model": str(model),
            "latency_ms": _latency(response), "request": body, "response": answer, "events": events},
            getattr(self.provider, "_secrets", None))
        kept = exchange.pop("events")
        # subtle: the save under the lock too: calls in several threads each save the tape, and
        # a save of an older snapshot that lands last would rename a shorter tape over the file
        with self._lock:
            self.exchanges.append(Exchange(**exchange, events=None if kept is None else tuple(kept)))
            if self.keep_going and self.path is not None:
                self.tape.save(self.path)

    @property
    def tape(self) -> Tape:
        """The tape so far."""
        with self._lock:
            exchanges = tuple(self.exchanges)
        api = exchanges[0].api if exchanges else str(getattr(self.provider, "api", "unknown"))
        settings = {name: getattr(self.provider, name) for name in _SETTINGS
                    if getattr(self.provider, name, None) is not None}
        return Tape(api=api, provider=self.provider.name, model=self.provider.model,
                    label=self._label or _label(self.provider, api, double=self._double), exchanges=exchanges,
                    settings=settings, source=self.source)


def record(provider: Provider, path: str | Path | None = None, *, label: str | None = None,
           source: str = "") -> Recorder:
    """Record what `provider` exchanges with its API inside a `with` block; save to `path` at its end.

        with record(get_provider("anthropic"), "weather.tape.json") as recorder:
            run_agent(provider, "What's the weather in Paris?", tools=[get_weather])
        recorder.tape   # the same Tape, also saved to weather.tape.json

    `label` defaults to what answered and when ("recorded against the real Anthropic
    Messages API on 2026-11-30"); `source` is free text kept with the tape. Nothing is
    written when nothing was exchanged.
    """
    return Recorder(provider, path, label=label, source=source)


def recording(provider: Provider, path: str | Path, *, label: str | None = None,
              source: str = "") -> Provider:
    """`provider`, recording every exchange from now on onto the tape at `path`, saved after each.

    What `TOOLCALL_LAB_RECORD=PATH` does to the lessons' `provider_from_env` cell: a teacher
    runs lessons 1 to 16 once against a real model, each adding its exchanges to the one tape
    (a tape already at `path` is added to, when it was made by the same provider and model),
    and the class replays them all with `TOOLCALL_LAB_TAPE=PATH`, since a replay answers any
    request the tape holds. Calls made at once from several threads each land on the tape, in
    the order their answers arrived: adding an exchange and saving the tape share one lock.
    """
    Recorder(provider, path, label=label, source=source, keep_going=True).__enter__()
    return provider  # subtle: the SDK client's event hook keeps the recorder alive


def _http_client(provider: Provider) -> tuple[WireProvider, Any]:
    """(the provider, as the `WireProvider` it must be, and the httpx client inside its SDK)."""
    from ..providers.sdk import WireProvider

    sdk = getattr(provider, "_client", None)
    http = getattr(sdk, "_client", None)  # the httpx client inside the anthropic, openai and ollama SDKs
    if not isinstance(provider, WireProvider) or http is None or not hasattr(http, "event_hooks"):
        raise UsageError(f"record() records a real provider's SDK traffic, and {provider!r} sends none "
                         "through an SDK; record AnthropicProvider, OpenAIResponsesProvider, "
                         "OpenAIChatProvider or OllamaProvider.")
    return provider, http


def _stream_kind(response: Any) -> str | None:
    """"sse" or "ndjson" for a streamed answer (told by its content type, read and never kept)."""
    kind = str(response.headers.get("content-type", "")).split(";")[0].strip().lower()
    return {"text/event-stream": "sse", "application/x-ndjson": "ndjson"}.get(kind)


def _latency(response: Any) -> int | None:
    """How long the answer took, in ms (None for a stream the SDK left before its end: httpx
    knows the time only once the response is closed)."""
    try:
        elapsed: float = response.elapsed.total_seconds()
    except RuntimeError:
        return None
    return round(elapsed * 1000)  # ms = s * 1000


def _json_or_text(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except (ValueError, RecursionError):  # not JSON, or nested too deeply to read: kept as text
        return raw.decode("utf-8", "replace")


def _label(provider: Provider, api: str, *, double: bool = False) -> str:
    """What answered the recording, and when: the real API, the double, or a server of your own."""
    from ..double.api_double import ApiDouble
    from ..providers.sdk import is_loopback

    base_url = str(getattr(provider, "base_url", ""))
    title = API_SPECS[api].title if api in API_SPECS else api
    if base_url == str(getattr(provider, "default_base_url", "")).rstrip("/") and not is_loopback(base_url):
        what = f"the real {title} API"
    elif double or ApiDouble.serving_at(base_url):
        what = "the toolcall-lab API double"
    else:
        where = "on this machine" if is_loopback(base_url) else "remote"
        what = f"a server of your own speaking {title} ({where})"
    return f"recorded against {what} on {datetime.date.today().isoformat()}"


# -- replaying -------------------------------------------------------------------------------
def replay(tape: str | Path | Tape, **options: Any) -> Provider:
    """A provider, built as the recording's was, talking to a double that plays `tape`.

    `tape` is a shipped tape's name, a path or a `Tape`; `options` go to `get_provider`
    over the recorded settings. The double is reached in-process, through its transport
    (`get_provider(..., double=)`): no port, no thread, nothing to stop, so a replay runs
    where nothing may listen (a locked-down hub, a browser's Python).
    """
    from ..double.api_double import ApiDouble
    from ..providers.registry import get_provider

    tape = load(tape)
    options = {"model": tape.model, **tape.settings, **options}
    return get_provider(tape.provider, double=ApiDouble(tape=tape), **options)

