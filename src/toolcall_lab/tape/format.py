"""The tape as data: a recorded run, kept as JSON, read back with every field checked.

`Tape` is what a recording made (`tape.recorder` records and replays): where it came from
and its exchanges, oldest first, each one request and its answer. `load(name)` reads a
shipped tape (`data/tapes/`), `load(path)` a file; `Tape.save` writes one atomically.

    >>> tape = load("anthropic_weather")          # Claude Haiku 4.5, recorded live once
    >>> tape
    Tape('anthropic', model='claude-haiku-4-5', exchanges=2)
    >>> tape.question
    "What's the weather in SF in Celsius?"

A tape is saved the way every file of the kit is (`_files.save_atomically`: a temporary
file, then one rename); a save that fails raises `TapeError` saying why, and the file keeps
what it held. Text that cannot be UTF-8 (a lone surrogate from a `"\\ud83d"` escape in a
reply) becomes U+FFFD where it enters, as in transcripts (`blocks.clean_text`). Loading
checks every field and raises one `TapeError` naming the JSON path that is wrong
("exchanges[1].status must be ...").

Each tape says how it was made in `label` ("recorded against the real Anthropic Messages
API on 2026-...", "recorded against the toolcall-lab API double", ...) and `source`.

Left out: how a tape is made or played (`tape.recorder`), and tool results that were
errors (`tools()` replays their text as a plain result).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, cast

from .._checked import expect, read_field
from .._files import parse_json, read_file, save_atomically
from ..blocks import clean_text
from ..errors import TapeError
from ..wire import API_SPECS, decode_reply

if TYPE_CHECKING:
    from ..tool import Tool
    from ..transcript import Transcript
    from ..turn import Turn

__all__ = ["FORMAT", "Exchange", "Tape", "load", "shipped"]

#: The tape format this module writes and reads.
FORMAT = 1
#: The provider options a recording keeps, so a replay sends the very same requests, each with
#: the JSON it takes (a tape is a file anyone can edit, so `from_dict` checks them).
_SETTINGS: dict[str, tuple[Any, str]] = {
    "max_tokens": (int, "a whole number of tokens"),
    "thinking": (int | str, 'a budget in tokens or a string ("adaptive", "disabled")'),
    "effort": (str, 'a string ("low" to "max")'),
    "think": (bool | str, 'true/false or a string ("low", "medium", "high")'),
    "reasoning_effort": (str, 'a string ("low", "medium", "high")'),
    "store": (bool, "true/false"),
    "temperature": (int | float, "a number"),
    "seed": (int, "a whole number"),
}
#: What a recorded status must be: a final answer that carries a body. RFC 9110 section 15:
#: a status is three digits, 100-599; 1xx are interim (the real answer follows), and 204, 205
#: and 304 carry no content (sections 15.3.5, 15.3.6, 15.4.5), while every exchange has a body.
_STATUS = "a whole number from 200 to 599 (not 204, 205 or 304: a recorded answer has a body)"
_TAPE_KEYS = ("format", "label", "api", "provider", "model", "settings", "source", "exchanges")
_EXCHANGE_KEYS = ("api", "path", "status", "model", "latency_ms", "request", "response", "events")
#: What a codec raises on a body that is not what a client sends or an API answers (a
#: hand-edited tape is neither): `Tape.question`, `system`, `answer` and `tools()` turn it into
#: a `TapeError` (the kit's own errors among them are `ValueError`s).
_UNREADABLE = (LookupError, TypeError, ValueError, AttributeError, RecursionError)


@dataclass(frozen=True)
class Exchange:
    """One request and its answer, as they crossed the wire (bodies only, never headers).

    `latency_ms` is how long the answer took when it was recorded (None when the source did
    not say; a replay answers at once). A streamed answer is kept as its `events`, the raw
    events in the order they arrived (each server-sent event's `data` JSON, or each NDJSON
    line; `wire._framing.events_of`), and `response` is then None: a replay plays those
    events again, not a reply rebuilt from them.
    """

    api: str
    path: str
    status: int
    model: str
    latency_ms: int | None
    request: Any
    response: Any
    events: tuple[dict[str, Any], ...] | None = None

    @property
    def streamed(self) -> bool:
        """Whether the answer was a stream (`events`), not one JSON body."""
        return self.events is not None

    def to_dict(self) -> dict[str, Any]:
        written = {"api": self.api, "path": self.path, "status": self.status, "model": self.model,
                   "latency_ms": self.latency_ms, "request": self.request, "response": self.response}
        return written if self.events is None else {**written, "events": list(self.events)}

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Exchange:
        """The exchange `to_dict` wrote, each field checked; a `TapeError` naming `path.field` if not.

        >>> Exchange.from_dict({"api": "chat", "path": "/v1/chat/completions", "status": "200",
        ...     "model": "m", "latency_ms": None, "request": {}, "response": {}}, "exchanges[0]")
        Traceback (most recent call last):
        ...
        toolcall_lab.errors.TapeError: exchanges[0].status must be a whole number from 200 to 599 (...),
        got a string: '200'.
        """
        data = _fields(data, _EXCHANGE_KEYS, path, "a JSON object (one exchange)", optional=("events",))
        status = read_field(data, "status", int, path, _STATUS, error=TapeError)
        if not (200 <= status <= 599) or status in (204, 205, 304):
            raise TapeError(f"{path}.status must be {_STATUS}, got {status}.")
        latency = read_field(data, "latency_ms", int | None, path, "a whole number of milliseconds or null",
                             error=TapeError)
        if latency is not None and latency < 0:
            raise TapeError(f"{path}.latency_ms must be a whole number of milliseconds or null, "
                            f"got {latency}.")
        return cls(api=_api(data, path),
                   path=read_field(data, "path", str, path, "a string", error=TapeError),
                   status=status,
                   model=read_field(data, "model", str, path, "a string", error=TapeError),
                   latency_ms=latency,
                   request=read_field(data, "request", dict, path, "a JSON object (the request body)",
                                      error=TapeError),
                   response=data["response"], events=_events(data, path))


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
        """The tape in `data` (as `to_dict` writes it), every field checked.

        A wrong document raises one `TapeError` that names `where` and the JSON path at
        fault, e.g. "t.json is not a tape this kit can play: exchanges[0].status must be a
        whole number from 200 to 599 (...), got null; record it again ...".
        """
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
            raise TapeError(f"{where} is not a toolcall-lab tape of format {FORMAT} (format: {found!r}); "
                            "record it again with toolcall_lab.tape.record.")
        try:
            return cls._checked(data)
        except TapeError as exc:
            raise TapeError(f"{where} is not a tape this kit can play: {str(exc).rstrip('.')}; record it "
                            "again with toolcall_lab.tape.record, or mend that field.") from None

    @classmethod
    def _checked(cls, data: Mapping[str, Any]) -> Self:
        from ..providers.registry import PROVIDERS

        data = _fields(data, _TAPE_KEYS, "", "a JSON object (a tape)", optional=("settings", "source"))
        api = _api(data, "")
        provider = read_field(data, "provider", str, "", "a provider's name", error=TapeError)
        spec = PROVIDERS.get(provider)
        if spec is None or spec.api != api:
            speaking = [name for name, each in PROVIDERS.items() if each.api == api]
            raise TapeError(f"provider must name a provider that speaks the tape's api {api!r} "
                            f"({', '.join(speaking)}), got {provider!r}.")
        exchanges = read_field(data, "exchanges", list, "", "a list of exchanges", error=TapeError)
        if not exchanges:
            raise TapeError("exchanges is empty; a tape holds at least one exchange.")
        return cls(api=api, provider=provider,
                   model=read_field(data, "model", str, "", "a string (the model id)", error=TapeError),
                   label=read_field(data, "label", str, "", "a string", error=TapeError),
                   exchanges=tuple(Exchange.from_dict(exchange, f"exchanges[{index}]")
                                   for index, exchange in enumerate(exchanges)),
                   settings=_settings(data.get("settings", {})),
                   source=read_field(data, "source", str, "", "a string", default="", error=TapeError))

    def save(self, path: str | Path) -> Path:
        """Write the tape as JSON (UTF-8, two-space indents, a trailing newline); returns the path.

        The write is atomic (`_files.save_atomically`): if it fails (a full disk, a folder
        you may not write to, a Ctrl-C), the file at `path` is exactly as it was, and a
        `TapeError` says why.
        """
        try:
            text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as exc:  # a Tape built in code, with a non-JSON value
            raise TapeError(f"cannot save the tape: {exc}; a tape holds JSON values only.") from None
        # subtle: clean_text, so a lone surrogate in a tape built in code cannot fail the encoding
        return save_atomically(path, (clean_text(text) + "\n").encode("utf-8"), what="tape", error=TapeError)

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """The tape saved at `path`; a file that is not one raises a `TapeError` saying why."""
        path = Path(path)
        raw = read_file(path, what="tape", error=TapeError, missing=f"shipped tapes: {', '.join(shipped())}")
        data = parse_json(raw, where=path.name, what="tape", error=TapeError)
        return cls.from_dict(_cleaned(data), where=path.name)

    # -- what a lesson needs to run it again --------------------------------------------------
    def _transcript(self, index: int) -> tuple[Transcript, tuple[Tool, ...]]:
        """The conversation and tools exchange `index` sent (decoded by its API's server half)."""
        decoded: tuple[Transcript, tuple[Tool, ...]] = _codec(self.exchanges[index].api).decode_request(
            self.exchanges[index].request)
        return decoded

    @contextlib.contextmanager
    def _reading(self, what: str) -> Iterator[None]:
        """Read `what` from the recorded bodies; what the codecs raise on a body no client would
        send (a hand-edited tape is no client) becomes one `TapeError` naming `what`."""
        if not self.exchanges:
            raise TapeError(f"this tape has no exchanges, so it holds no {what}; record one first.")
        try:
            yield
        except TapeError:
            raise
        except _UNREADABLE as exc:
            raise TapeError(f"the {what} on this tape cannot be read ({type(exc).__name__}: {exc}); "
                            "record the tape again.") from None

    @property
    def question(self) -> str:
        """The user's question that started the run (the first request's last user text)."""
        with self._reading("question"):
            return self._transcript(0)[0].last_user_text()

    @property
    def system(self) -> str | None:
        """The system prompt the run was sent with (None when there was none)."""
        with self._reading("system prompt"):
            return self._transcript(0)[0].system

    @property
    def answer(self) -> str:
        """The text of the last recorded response: what the model finally said."""
        with self._reading("answer"):
            return str(_turn(self.exchanges[-1]).message.text)

    def tools(self) -> list[Tool]:
        """The run's tools, rebuilt from the first request, each answering as it did then.

        A tool's function looks its arguments up among the calls the run made and returns
        the result the run sent back; arguments the run never used raise, and the loop
        sends that as an error result, which the replay then refuses (naming the path).
        """
        with self._reading("tools"):
            return self._tools()

    def _tools(self) -> list[Tool]:
        from ..tool import Tool

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


def _fields(data: Any, keys: tuple[str, ...], path: str, what: str, *,
            optional: tuple[str, ...] = ()) -> Mapping[str, Any]:
    """`data` if it is a JSON object with exactly `keys` (those in `optional` may be left out)."""
    data = expect(data, dict, path or "the document", what, TapeError)
    where = f"{path}." if path else ""
    unknown = [key for key in data if key not in keys]
    if unknown:
        raise TapeError(f"{where}{unknown[0]} is not a field of a tape (the fields: {', '.join(keys)}).")
    for key in keys:
        if key not in data and key not in optional:
            raise TapeError(f"{where}{key} is missing.")
    return cast(Mapping[str, Any], data)


def _events(data: Mapping[str, Any], path: str) -> tuple[dict[str, Any], ...] | None:
    """A streamed exchange's events, each a JSON object; None when the answer was not streamed."""
    events = read_field(data, "events", list | None, path, "a list of events (JSON objects) or null",
                        default=None, error=TapeError)
    if events is None:
        return None
    for index, event in enumerate(events):
        expect(event, dict, f"{path}.events[{index}]", "a JSON object (one event)", TapeError)
    return tuple(events)


def _api(data: Mapping[str, Any], path: str) -> str:
    what = f"one of {', '.join(map(repr, API_SPECS))}"
    api: str = read_field(data, "api", str, path, what, error=TapeError)
    if api not in API_SPECS:
        raise TapeError(f"{path + '.' if path else ''}api must be {what}, got {api!r}.")
    return api


def _settings(settings: Any) -> dict[str, Any]:
    """The recorded provider options, each a known one (`_SETTINGS`) of the JSON type it takes."""
    settings = expect(settings, dict, "settings", "a JSON object (the provider's options)", TapeError)
    for name, value in settings.items():
        if name not in _SETTINGS:
            raise TapeError(f"settings.{name} is not an option a tape keeps (those: {', '.join(_SETTINGS)}).")
        expect(value, _SETTINGS[name][0], f"settings.{name}", _SETTINGS[name][1], TapeError)
    return dict(settings)


def _turn(exchange: Exchange) -> Turn:
    """The reply an exchange holds: its body decoded, or its stream's events (the same `Turn`)."""
    _codec(exchange.api)  # a tape's api the kit does not speak: said in the tape's words
    return decode_reply(api=exchange.api, response=exchange.response if exchange.events is None else None,
                        events=exchange.events)


def _codec(api: str) -> Any:
    if api not in API_SPECS:
        raise TapeError(f"the tape names the api {api!r}, which the kit does not speak "
                        f"({', '.join(API_SPECS)}); record the tape again.")
    return API_SPECS[api].codec


def _cleaned(document: Any) -> Any:
    """`document` with every lone surrogate (a `"\\ud83d"` escape) in its text replaced by U+FFFD."""
    text = json.dumps(document, ensure_ascii=False)
    cleaned = clean_text(text)
    return document if cleaned is text else json.loads(cleaned)


def shipped() -> list[str]:
    """The names of the tapes that come with the kit (`load(name)` reads one)."""
    from importlib.resources import files

    folder = files("toolcall_lab") / "data" / "tapes"
    return sorted(entry.name.removesuffix(".json") for entry in folder.iterdir()
                  if entry.name.endswith(".json"))


def load(tape: str | Path | Tape) -> Tape:
    """A shipped tape by name (`load("anthropic_weather")`), a tape file by path, or `tape` itself."""
    if isinstance(tape, Tape):
        return tape
    if isinstance(tape, str) and tape in shipped():
        from importlib.resources import as_file, files

        with as_file(files("toolcall_lab") / "data" / "tapes" / f"{tape}.json") as path:
            return Tape.load(path)
    return Tape.load(tape)
