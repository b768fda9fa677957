"""Streams the APIs really sent, kept as they came: what a lesson plays event by event.

Each recording is a response body byte for byte, copied from an official SDK's tests or a
vendor's documentation page (`data/streams/SOURCES.md` says where each came from), and
shipped with the package so a lesson reads it offline. `raw_events` turns a body into
what `wire.decode_stream` reads: one dict per event (an SSE event's `data` JSON, an
NDJSON line, as the API's server half frames its streams), in order, the end marker
`data: [DONE]` left out.

    >>> chat = RECORDINGS["chat"]
    >>> chat.api, len(raw_events(chat.body, chat.api))
    ('chat', 17)
    >>> raw_events(b'event: ping\\ndata: {"type": "ping"}   \\n\\ndata: [DONE]\\n\\n', "anthropic")
    [{'type': 'ping'}]

# subtle: an SSE event ends at a blank line, and an SDK drops a last event with none; the
recordings copied from docs pages and SDK fixtures often end without it, so the last event
is read all the same. The live Anthropic API pads each `data:` JSON with trailing spaces,
which `json.loads` reads past.

Left out: SSE `id:` and `retry:` fields (no API here sends them) and comment lines
(`:` keep-alives, which llama.cpp sends): both are read past, as the SDKs do.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import TYPE_CHECKING, Any

from .errors import ToolcallLabError, UsageError
from .wire import API_SPECS
from .wire._framing import events_of, is_ndjson

if TYPE_CHECKING:
    from .stream import StreamEvent

__all__ = ["RECORDINGS", "Recording", "Step", "raw_events", "timeline"]


@dataclass(frozen=True)
class Recording:
    """One recorded stream: its name (a key of `RECORDINGS`), which API sent it, what it shows,
    and where it was copied from."""

    name: str
    api: str
    file: str
    shows: str
    source: str

    @cached_property
    def body(self) -> bytes:
        """The response body, byte for byte as recorded."""
        return resources.files("toolcall_lab").joinpath("data", "streams", self.file).read_bytes()

    def events(self) -> list[dict[str, Any]]:
        """The body's raw events, for `wire.decode_stream(..., api=self.api)`."""
        return raw_events(self.body, self.api)


@dataclass(frozen=True)
class Step:
    """One wire event of a stream, the kit's events it gave, and, on the last, why it broke off."""

    event: Mapping[str, Any]
    said: tuple[StreamEvent, ...]
    problem: str = ""


def timeline(events: Sequence[Mapping[str, Any]], api: str) -> list[Step]:
    """Each wire event beside the kit's events `wire.decode_stream` gave when it arrived.

    A stream that breaks off keeps what arrived; its last step says why (the
    `IncompleteStreamError`'s sentence).

    >>> steps = timeline(RECORDINGS["ollama"].events(), "ollama")
    >>> [[event.kind for event in step.said] for step in steps]
    [['tool_call_started', 'arguments_delta'], ['block_finished', 'stream_finished']]
    """
    from .wire import decode_stream

    said: list[list[StreamEvent]] = [[] for _ in events]
    at = 0

    def feed() -> Iterator[Mapping[str, Any]]:
        nonlocal at
        for number, event in enumerate(events):
            at = number
            yield event

    problem = ""
    try:
        for kit_event in decode_stream(feed(), api=api):
            said[at].append(kit_event)
    except ToolcallLabError as error:  # a stream that broke off: said on its last step
        problem = str(error)
    last = len(events) - 1
    return [Step(event, tuple(said[n]), problem if n == last else "") for n, event in enumerate(events)]


_SDK_PY = "anthropic-sdk-python@009b0353, a live recording in its tests"
#: The recorded streams by name; each API's first is named for it.
RECORDINGS: dict[str, Recording] = {r.name: r for r in (
    Recording(
        "anthropic", "anthropic", "anthropic_messages_tool_use_stream.sdk_recorded.sse",
        "claude-haiku-4-5 calls get_weather", _SDK_PY),
    Recording(
        "responses", "responses", "openai_responses_function_call_stream.dotnet_recorded.sse",
        "gpt-4o-mini calls a function", "openai-dotnet@b3b4bbbc, a live recording in its tests"),
    Recording(
        "chat", "chat", "openai_chat_tool_call_stream.openai_python_recorded.sse",
        "gpt-4o calls a function", "openai-python@e43b4224, a live recording in its tests"),
    Recording(
        "ollama", "ollama", "ollama_chat_tool_calls_stream.docs.ndjson",
        "llama3.2 calls get_weather", "Ollama's API docs (docs/api.md), the streaming tools example"),
    Recording(
        "chat_parallel", "chat", "openai_chat_parallel_tool_calls_stream.openai_python_recorded.sse",
        "gpt-4o calls two functions", "openai-python@e43b4224, a live recording in its tests"),
    Recording(
        "anthropic_max_tokens", "anthropic",
        "anthropic_messages_max_tokens_partial_tool_use_stream.sdk_fixture.sse",
        "a reply that hits max_tokens inside a call's arguments",
        "anthropic-sdk-python@009b0353, a test fixture"),
)}


def raw_events(body: bytes, api: str) -> list[dict[str, Any]]:
    """The events of a stream's `body` as dicts, framed as `api`'s server half streams them: NDJSON
    lines where its stream's content type says so (Ollama's), else server-sent events' `data`."""
    if api not in API_SPECS:
        raise UsageError(f"unknown API {api!r}; recorded streams come from {', '.join(API_SPECS)}.")
    # subtle: the blank line ends a last event a recording was saved without (read as an SSE
    # client reads a whole body; `events_of` reads past an unended one, as a live stream must)
    return events_of(body + b"\n\n", lines=is_ndjson(API_SPECS[api].server.STREAM_HEADERS))
