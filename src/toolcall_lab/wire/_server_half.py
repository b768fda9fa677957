"""What the API double asks of an API's server half (`ServerHalf`), and where an API answers (`Route`).

The double (`toolcall_lab.double`) is the same for every API: it listens, finds the
route a request came in by, checks the body's shape, runs the codec's `check_request`,
plays the model and injects faults. What it does an API's own way it asks of that API's
server half, one `ServerHalf` subclass in each `wire/<api>/server.py` (its instance,
`SERVER`, is `ApiSpec.server`), so the double names no API. The class below states what
that is, once: the methods every API spells its own way (abstract), then those with a
default a half overrides only where its API differs.

`stored` is what the server half keeps between requests, one bounded mapping per API
and double (Responses keeps its stored responses there). A stream is played from the
finished reply, the body the double would send unstreamed (one source of truth), cut at
the same places on every run (`wire._framing.pieces`). What the double needs before it
reads a body (the API's routes, whether it streams unless told not to, the header only
its SDK sends, where it lists its models) is data in the API's `ApiSpec`, so routing a
request imports no API folder.

Left out: routes with other methods than POST (and GET for the model lists).
"""

from __future__ import annotations

import functools
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from ._framing import SSE_HEADERS, sse

if TYPE_CHECKING:
    from ..output_format import OutputFormat
    from ..tool import Tool
    from ..transcript import Transcript
    from ..turn import Turn
    from ..usage import Usage
    from ._layout import Prefixes
    from ._schema import Failure
    from .problem import Problem

__all__ = ["Route", "ServerHalf"]

_FIELD = re.compile(r"\{(\w+)\}")


class Route(NamedTuple):
    """One path an API answers POSTs at, and where a request there says its model and whether it streams.

    `path` is a path, or a template whose `{name}` parts the double reads from the URL and
    puts in the body as the server half reads it, under that name (Gemini's
    "/v1beta/models/{model}:generateContent": the model is the URL's, the body's `model` to
    the half); elsewhere the model is the body's `model`. `streams` is None where the body's
    `stream` field says (left out: `ApiSpec.streams_by_default`), else whether every request
    by this route streams (Gemini's ":streamGenerateContent"). `query` is what the query
    string must hold for the route to be taken ((("alt", "sse"),)); other parameters are ignored.

    >>> Route("/v1beta/models/{model}:streamGenerateContent", streams=True, query=(("alt", "sse"),)
    ...       ).match("/v1beta/models/gem-1:streamGenerateContent", "alt=sse&key=k")
    {'model': 'gem-1'}
    >>> Route("/v1/messages").match("/v1/messages", ""), Route("/v1/messages").match("/v1/other", "")
    ({}, None)
    """

    path: str
    streams: bool | None = None
    query: tuple[tuple[str, str], ...] = ()

    def match(self, path: str, query: str) -> dict[str, str] | None:
        """The template's parts in `path` (empty for a plain path), or None when this route is not it."""
        if "{" not in self.path:
            found: dict[str, str] | None = {} if path == self.path else None
        else:
            matched = _template(self.path).fullmatch(path)
            found = None if matched is None else matched.groupdict()
        if found is None or not self.query:
            return found
        from urllib.parse import parse_qsl

        given = set(parse_qsl(query))
        return found if set(self.query) <= given else None

    @property
    def first_segment(self) -> str:
        """The path's first segment ("v1", "api"), whose unknown paths answer in this API's shape."""
        return self.path.strip("/").split("/")[0]


@functools.cache
def _template(path: str) -> re.Pattern[str]:
    """A route template as a regular expression, each `{name}` a group of one segment; made once
    per template, not on each request."""
    return re.compile("".join(f"(?P<{part}>[^/:]+)" if index % 2 else re.escape(part)
                              for index, part in enumerate(_FIELD.split(path))))


class ServerHalf(ABC):
    """An API's server half, as the API double plays it: see the module docstring for the whole
    interface. A subclass names its API's translators (most are module functions of its
    `server.py`, shared with the codec) and overrides a default only where its API differs.
    """

    #: The request body's JSON Schema (`<api>/shape.py`).
    SHAPE: ClassVar[Mapping[str, Any]]
    #: What ends a stream after its last event (Chat's `data: [DONE]`).
    STREAM_END: ClassVar[bytes] = b""
    #: A stream's headers.
    STREAM_HEADERS: ClassVar[Mapping[str, str]] = SSE_HEADERS

    # -- what every API does its own way ------------------------------------------------------
    @abstractmethod
    def shape_problem(self, failure: Failure) -> Problem:
        """The API's words for the first way a body breaks `SHAPE`."""

    @abstractmethod
    def decode_request(self, body: Mapping[str, Any], /) -> tuple[Transcript, tuple[Tool, ...]]:
        """The transcript and tools a request carries."""

    @abstractmethod
    def decode_tool_choice(self, body: Mapping[str, Any]) -> tuple[str | None, bool | None]:
        """How free the request leaves the model: (tool_choice, parallel_tool_calls), None if unsaid."""

    @abstractmethod
    def decode_output_format(self, body: Mapping[str, Any]) -> OutputFormat | None:
        """The schema a structured reply must match, or None."""

    @abstractmethod
    def encode_response(self, turn: Turn, *, response_id: str) -> dict[str, Any]:
        """The reply the API would send for `turn`."""

    @abstractmethod
    def error_body(self, message: str, *, status: int = 400, param: str | None = None,
                   code: str | None = None, error_type: str | None = None) -> dict[str, Any]:
        """The API's error JSON."""

    @abstractmethod
    def fault(self, kind: str, status: int, *, param: str | None = None,
              **fill: object) -> tuple[int, dict[str, Any]]:
        """(status, body) of a failure the double injects (`double.FAULTS`), or of a refusal before
        the body is read, as the API answers it, `fill` completing its words."""

    @abstractmethod
    def model_list(self, model: str, owner: str) -> dict[str, Any]:
        """A one-model list, as the API's model list (`ApiSpec.models_path`) answers."""

    @abstractmethod
    def encode_stream(self, reply: Mapping[str, Any], *, request: Mapping[str, Any] | None = None
                      ) -> Iterator[dict[str, Any]]:
        """The reply as the API streams it: its raw events, one dict each (`<api>/streaming.py`)."""

    @abstractmethod
    def stream_error(self, sent: int, reply: Mapping[str, Any] | None = None, *, failed: bool = False
                     ) -> dict[str, Any]:
        """The error event a stream breaks off with after `sent` events (`failed`: the API's failed
        end, Responses' `response.failed`)."""

    # -- the defaults: what most APIs do alike ------------------------------------------------
    def with_headers(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> Mapping[str, Any]:
        """The body as the rules read it: as sent (Anthropic reads its `anthropic-beta` header into it)."""
        return body

    def status_of(self, problem: Problem) -> int:
        """The status the API answers a broken rule with: 400."""
        return 400

    def refusal(self, body: Mapping[str, Any], stored: MutableMapping[str, Any]
                ) -> tuple[int, Problem] | None:
        """None: the API keeps nothing between requests that a request could name and miss."""
        return None

    def as_the_model_reads_it(self, body: Mapping[str, Any], stored: Mapping[str, Any]
                              ) -> tuple[Mapping[str, Any], list[dict[str, Any]]]:
        """The request as it came: the model reads every message it sends; the reply says nothing of it."""
        return body, []

    def cache_usage(self, cache: Prefixes, body: Mapping[str, Any], transcript: Transcript,
                    tools: Sequence[Tool], usage: Usage) -> Usage:
        """`usage` unchanged: the API keeps its cache to itself and bills nothing for it."""
        return usage

    def as_served(self, turn: Turn, tools: Sequence[Tool]) -> Turn:
        """`turn` as the double played it: its ids stand, and no hidden prompt is billed."""
        return turn

    def reasons(self, body: Mapping[str, Any], transcript: Transcript, turn: Turn) -> bool:
        """False: the model does not reason before its reply."""
        return False

    def reply(self, turn: Turn, *, response_id: str, request: Mapping[str, Any], read: Mapping[str, Any],
              notes: Sequence[dict[str, Any]], stored: MutableMapping[str, Any],
              created: int = 0) -> dict[str, Any]:
        """The reply the double sends, made at `created` (Unix seconds, by the double's clock):
        `encode_response`'s body (a body with no time in it, so `created` is not used)."""
        return self.encode_response(turn, response_id=response_id)

    def identify(self, body: Any, token: str) -> tuple[Any, dict[str, str]]:
        """An answer as sent, with no request id (`token` is not used)."""
        return body, {}

    def frame(self, event: Mapping[str, Any]) -> bytes:
        """One event as a named server-sent event (`event: <type>` and `data: <json>`)."""
        return sse(event)
