"""Where each API answers: a request's path (and query) to its API, its model and its stream switch.

`Routes` reads every API's `ApiSpec` (its `wire.Route`s, `streams_by_default`, `sdk_header`,
`compatible`, `models_path`) as it stands when a double is made, so it names no API and
imports no API folder. A route is a plain path with the model and the stream switch in the
JSON body (`/v1/messages`), or a template that carries them in the URL, as Gemini's
`/v1beta/models/{model}:streamGenerateContent?alt=sse` does:

>>> from toolcall_lab.wire import ApiSpec, Route
>>> toy = ApiSpec("toy", "Toy", "/v1beta/models/{model}:generateContent", "", "toy", "toy-", routes=(
...     Route("/v1beta/models/{model}:generateContent", streams=False),
...     Route("/v1beta/models/{model}:streamGenerateContent", streams=True, query=(("alt", "sse"),))))
>>> routes = Routes([toy])
>>> found = routes.find("/v1beta/models/gem-1:streamGenerateContent?alt=sse")
>>> found.api, routes.as_read(found, {"contents": []}), routes.streamed(found, {})
('toy', {'contents': [], 'model': 'gem-1'}, True)
>>> routes.find("/v1beta/models/gem-1:streamGenerateContent") is None  # no alt=sse: not this route
True

Left out: a template part that spans a `/` or a `:` (no API the kit knows has one).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from ..wire import API_SPECS, ApiSpec
from ..wire._server_half import Route

__all__ = ["Routed", "Routes"]

#: How many request targets a `Routes` remembers the answer for.
_REMEMBERED = 1024


class Routed(NamedTuple):
    """A request placed: its API, the route it came in by, what the route's template read from the
    URL, and whether the API streams a request that does not say (`ApiSpec.streams_by_default`)."""

    api: str
    route: Route
    fields: dict[str, str]
    streams_by_default: bool = False


class Routes:
    """Every API's routes, model lists and SDK headers, as `API_SPECS` (or `specs`) stands now."""

    def __init__(self, specs: Iterable[ApiSpec] | None = None) -> None:
        listed = list(API_SPECS.values() if specs is None else specs)
        self._table = [(route, spec) for spec in listed for route in spec.routes]
        #: the paths of the model lists (GET), each once
        self.lists: tuple[str, ...] = tuple(dict.fromkeys(spec.models_path for spec in listed))
        #: a header only one SDK sends -> that API
        self.sdks = {spec.sdk_header: spec.name for spec in listed if spec.sdk_header}
        #: the API a request the double cannot place answers in (the dialect other servers copy)
        self.compatible = next((spec.name for spec in listed if spec.compatible), listed[0].name)
        # subtle: every request asks `find`, and a client sends the same few paths all day, so each
        # answer is remembered (the first `_REMEMBERED` targets: a client making up paths cannot
        # grow it); the table never changes after this, so neither does an answer
        self._found: dict[str, Routed | None] = {}

    def __iter__(self) -> Iterator[tuple[str, str]]:
        """(path, API) for each route, as `serve` lists them."""
        return ((route.path, spec.name) for route, spec in self._table)

    def find(self, target: str) -> Routed | None:
        """The route a request to `target` (a path, with its query string if any) came in by, or None.
        The same `Routed` for the same target each time: read its `fields`, never change them."""
        if target in self._found:
            return self._found[target]
        found = self._search(target)
        if len(self._found) < _REMEMBERED:
            self._found[target] = found
        return found

    def _search(self, target: str) -> Routed | None:
        path, _, query = target.partition("?")
        path = path.rstrip("/")
        for route, spec in self._table:
            fields = route.match(path, query)
            if fields is not None:
                return Routed(spec.name, route, fields, spec.streams_by_default)
        return None

    def shape(self, target: str, sdk: str | None) -> str:
        """Whose error shape a path answers in: its API's; else the one API served under the
        path's first segment (`/api/...`); else the API whose SDK sent it; else the dialect
        other servers copy (`ApiSpec.compatible`)."""
        found = self.find(target)
        if found is not None:
            return found.api
        segment = target.partition("?")[0].strip("/").split("/")[0]
        under = {spec.name for route, spec in self._table if route.first_segment == segment}
        if len(under) == 1:
            return under.pop()
        return sdk or self.compatible

    @staticmethod
    def as_read(routed: Routed, body: dict[str, Any]) -> dict[str, Any]:
        """The body as the API's server half reads it: with what the URL carried (`{model}`) in it."""
        return {**body, **routed.fields} if routed.fields else body

    @staticmethod
    def streamed(routed: Routed, body: Mapping[str, Any]) -> bool:
        """Whether the request streams: its route says, or its body's `stream` (the API's default
        when left out). subtle: only a true `true`; a wrongly typed "yes" is the shape's 400."""
        if routed.route.streams is not None:
            return routed.route.streams
        return body.get("stream", routed.streams_by_default) is True
