"""Record once, replay for the class: a run against a real model, kept as a JSON *tape*.

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
provider's key redaction and a key-shaped pattern, `KEYLIKE`, as well); nor the host,
so a tape does not say where a private server lives. Each tape says how it was made
in `label` ("recorded against the real Anthropic Messages API on 2026-...", "recorded
against the toolcall-lab API double", ...) and `source`.

A request is matched *exactly* (`double.playback.first_difference`: same keys, same
values, list items in the same order; numbers compare as numbers): nothing an SDK sends
varies from run to run, so there is nothing to normalise, and a tape recorded with
another kit version that encodes differently says where, rather than replaying
something else.

Left out: streaming (the double does not stream), recording a provider built with a
client that is not an SDK's (the scripted provider sends nothing to record), and tool
results that were errors (`tools()` replays their text as a plain result).
"""

from __future__ import annotations

import datetime
import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from .errors import REDACTED, UsageError
from .wire import API_SPECS

if TYPE_CHECKING:
    from .providers.base import Provider
    from .tool import Tool
    from .transcript import Transcript

__all__ = ["FORMAT", "KEYLIKE", "Exchange", "Recorder", "Tape", "load", "record", "recording", "replay",
           "shipped"]

#: The tape format this module writes and reads.
FORMAT = 1
#: The provider options a recording keeps, so a replay sends the very same requests.
_SETTINGS = ("max_tokens", "thinking", "effort", "think", "reasoning_effort", "store", "temperature", "seed")
#: How the vendors' keys are spelled (Anthropic "sk-ant-...", OpenAI "sk-..." and "sk-proj-..."),
#: masked ones ("sk-proj-****abcd") too: never written to a tape.
KEYLIKE = re.compile(r"\bsk-[A-Za-z0-9*_-]{6,}")


@dataclass(frozen=True)
class Exchange:
    """One request and its answer, as they crossed the wire (bodies only, never headers).

    `latency_ms` is how long the answer took when it was recorded (None when the source did
    not say; a replay answers at once).
    """

    api: str
    path: str
    status: int
    model: str
    latency_ms: int | None
    request: Any
    response: Any

    def to_dict(self) -> dict[str, Any]:
        return {"api": self.api, "path": self.path, "status": self.status, "model": self.model,
                "latency_ms": self.latency_ms, "request": self.request, "response": self.response}


@dataclass(frozen=True, repr=False)
class Tape:
    """A recorded run: where it came from and its exchanges, oldest first.

    `provider` is the registry name that recorded it ("anthropic", "openai", ...) and
    `settings` the options it was built with (`max_tokens`, `thinking`, ...), so `replay`
    builds a provider that sends the same requests. `label` says what answered (the real
    API, or the double), `source` where the bodies come from.
    """

    api: str
    provider: str
    model: str
    label: str
    exchanges: tuple[Exchange, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    format: int = FORMAT

    def __repr__(self) -> str:
        return f"Tape({self.api!r}, model={self.model!r}, exchanges={len(self.exchanges)})"

    # -- the file ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "label": self.label, "api": self.api, "provider": self.provider,
                "model": self.model, "settings": dict(self.settings), "source": self.source,
                "exchanges": [exchange.to_dict() for exchange in self.exchanges]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "the tape") -> Self:
        """The tape in `data` (as `to_dict` writes it); a wrong file says what is wrong."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
            raise UsageError(f"{where} is not a toolcall-lab tape of format {FORMAT} (format: {found!r}); "
                             "record it again with toolcall_lab.tape.record.")
        try:
            exchanges = tuple(Exchange(**exchange) for exchange in data["exchanges"])
            return cls(api=data["api"], provider=data["provider"], model=data["model"], label=data["label"],
                       exchanges=exchanges, settings=dict(data.get("settings") or {}),
                       source=data.get("source", ""))
        except (KeyError, TypeError) as exc:
            raise UsageError(f"{where} is missing a field or has one too many ({exc}); "
                             "record it again with toolcall_lab.tape.record.") from None

    def save(self, path: str | Path) -> Path:
        """Write the tape as JSON (UTF-8, two-space indents, a trailing newline); returns the path."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """The tape saved at `path`."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(f"no tape at {str(path)!r}; shipped tapes: {', '.join(shipped())}.") from None
        except ValueError as exc:
            raise UsageError(f"{path.name} is not JSON ({exc}); is it a tape?") from None
        return cls.from_dict(data, where=path.name)

    # -- what a lesson needs to run it again --------------------------------------------------
    def _transcript(self, index: int) -> tuple[Transcript, tuple[Tool, ...]]:
        decoded: tuple[Transcript, tuple[Tool, ...]] = API_SPECS[self.api].codec.decode_request(
            self.exchanges[index].request)
        return decoded

    @property
    def question(self) -> str:
        """The user's question that started the run (the first request's last user text)."""
        return self._transcript(0)[0].last_user_text()

    @property
    def system(self) -> str | None:
        """The system prompt the run was sent with (None when there was none)."""
        return self._transcript(0)[0].system

    @property
    def answer(self) -> str:
        """The text of the last recorded response: what the model finally said."""
        return str(API_SPECS[self.api].codec.decode_response(self.exchanges[-1].response).message.text)

    def tools(self) -> list[Tool]:
        """The run's tools, rebuilt from the first request, each answering as it did then.

        A tool's function looks its arguments up among the calls the run made and returns
        the result the run sent back; arguments the run never used raise, and the loop
        sends that as an error result, which the replay then refuses (naming the path).
        """
        from .tool import Tool

        results: dict[str, list[tuple[Mapping[str, Any], str]]] = {}
        calls: dict[str, tuple[str, Mapping[str, Any]]] = {}
        for index in range(len(self.exchanges)):
            for message in self._transcript(index)[0].messages:
                for call in message.tool_calls:
                    calls[call.id] = (call.name, call.args)
                for result in message.tool_results:
                    name, args = calls.get(result.call_id, ("", {}))
                    if (args, result.content) not in results.get(name, []):
                        results.setdefault(name, []).append((args, result.content))
        return [Tool(spec.name, spec.description, spec.input_schema,
                     _answering(spec.name, results.get(spec.name, [])), strict=spec.strict)
                for spec in self._transcript(0)[1]]


def _answering(name: str, recorded: list[tuple[Mapping[str, Any], str]]) -> Callable[..., str]:
    def function(**args: Any) -> str:
        for known, content in recorded:
            if known == args:
                return content
        tried = ", ".join(f"{key}={value!r}" for key, value in args.items())
        raise LookupError(f"the tape has no result for {name}({tried}); it recorded "
                          f"{len(recorded)} call(s) of {name}")

    function.__name__ = name
    return function


def shipped() -> list[str]:
    """The names of the tapes that come with the kit (`load(name)` reads one)."""
    from importlib.resources import files

    return sorted(entry.name.removesuffix(".json") for entry in (files("toolcall_lab") / "tapes").iterdir()
                  if entry.name.endswith(".json"))


def load(tape: str | Path | Tape) -> Tape:
    """A shipped tape by name (`load("anthropic_weather")`), a tape file by path, or `tape` itself."""
    if isinstance(tape, Tape):
        return tape
    if isinstance(tape, str) and tape in shipped():
        from importlib.resources import as_file, files

        with as_file(files("toolcall_lab") / "tapes" / f"{tape}.json") as path:
            return Tape.load(path)
    return Tape.load(tape)


# -- recording -------------------------------------------------------------------------------
class Recorder:
    """Records every HTTP exchange of one provider's SDK client while the `with` block runs.

    It hooks the SDK's own httpx client (an event hook on each response), so it sees
    exactly what crossed the wire, retries and refusals included, and reads of each
    exchange only the request's path and body and the response's status and body.
    """

    def __init__(self, provider: Provider, path: str | Path | None = None, *, label: str | None = None,
                 source: str = "", keep_going: bool = False) -> None:
        self.provider, self.path, self.source = provider, path, source
        self._label = label
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._http = _http_client(provider)
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
        from .double.server import DOUBLE_HEADER

        response.read()  # subtle: a hook sees the response before its body is read
        self._double = self._double or DOUBLE_HEADER in response.headers  # read, never kept
        request = response.request
        path = request.url.path
        api = next((spec.name for spec in API_SPECS.values() if path.endswith(spec.endpoint)),
                   getattr(self.provider, "api", "unknown"))
        body = _json_or_text(request.content)
        answer = _json_or_text(response.content)
        model = (answer.get("model") if isinstance(answer, dict) else None) or (
            body.get("model") if isinstance(body, dict) else None) or self.provider.model
        exchange = _redacted(self.provider, {
            "api": api, "path": path, "status": response.status_code, "model": str(model),
            "latency_ms": round(response.elapsed.total_seconds() * 1000),  # ms = s * 1000
            "request": body, "response": answer})
        with self._lock:
            self.exchanges.append(Exchange(**exchange))
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
    runs lessons 1 to 8 once against a real model, each adding its exchanges to the one tape
    (a tape already at `path` is added to, when it was made by the same provider and model),
    and the class replays them all with `TOOLCALL_LAB_TAPE=PATH`, since a replay answers any
    request the tape holds.
    """
    Recorder(provider, path, label=label, source=source, keep_going=True).__enter__()
    return provider  # subtle: the SDK client's event hook keeps the recorder alive


def _http_client(provider: Provider) -> Any:
    sdk = getattr(provider, "_client", None)
    http = getattr(sdk, "_client", None)  # the httpx client inside the anthropic, openai and ollama SDKs
    if http is None or not hasattr(http, "event_hooks"):
        raise UsageError(f"record() records a real provider's SDK traffic, and {provider!r} sends none "
                         "through an SDK; record AnthropicProvider, OpenAIResponsesProvider, "
                         "OpenAIChatProvider or OllamaProvider.")
    return http


def _json_or_text(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return raw.decode("utf-8", "replace")


def _redacted(provider: Provider, exchange: dict[str, Any]) -> dict[str, Any]:
    """`exchange` with the provider's key, and anything spelled like a key, replaced by "[redacted]".

    subtle: a body can hold a key's *masked* form: OpenAI's 401 says "Incorrect API key provided:
    sk-proj-****abcd", the last characters of the real key; the pattern catches that too.

    >>> _redacted(None, {"error": "Incorrect API key provided: sk-proj-****Ab12."})
    {'error': 'Incorrect API key provided: [redacted].'}
    """
    text = json.dumps(exchange, ensure_ascii=False)
    redact = getattr(getattr(provider, "_secrets", None), "redact", None)
    if redact is not None:
        text = redact(text)
    redacted: dict[str, Any] = json.loads(KEYLIKE.sub(REDACTED, text))
    return redacted


def _label(provider: Provider, api: str, *, double: bool = False) -> str:
    """What answered the recording, and when: the real API, the double, or a server of your own."""
    from .double import ApiDouble
    from .providers.sdk import is_loopback

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
    """A provider, built as the recording's was, pointed at a double that plays `tape`.

    `tape` is a shipped tape's name, a path or a `Tape`; `options` go to `get_provider`
    over the recorded settings. The double runs until the provider is garbage collected
    (or the program ends).
    """
    import weakref

    from .double import ApiDouble
    from .providers.registry import get_provider

    tape = load(tape)
    double = ApiDouble(tape=tape).start()
    options = {"model": tape.model, **tape.settings, **options}
    provider = get_provider(tape.provider, base_url=double.base_url(tape.api), **options)
    # subtle: the collector may run in any thread, the double's own included, where stop() would
    # wait for itself; so the stop runs in a thread of its own.
    weakref.finalize(provider, lambda: threading.Thread(target=double.stop, daemon=True).start())
    return provider

