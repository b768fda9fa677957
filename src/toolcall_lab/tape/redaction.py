"""What a tape never keeps: a key, a token or a URL's password, wherever it sits in an exchange.

Every string of an exchange, and every key of its objects, is scrubbed on its own: the
provider's own secrets (its key, a password in its URL: `SealedKeys`) and anything shaped
like a token (`_redact.TOKEN_SHAPES`) become "[redacted]".

A streamed answer needs more. Its text arrives in pieces (4 characters each from the double,
a few tokens each from a real API), and no piece holds enough of a key for a pattern to see:
"sk-a", "nt-a", "pi03"... So a stream is scrubbed as its text assembles. Each block's pieces
(its text, its reasoning, a call's arguments) are joined, scrubbed as one text, and cut back
at the same places: "[redacted]" goes in the piece where a secret began, and the rest of the
secret's characters leave the pieces after it (which may then be empty). Joined again, the
pieces are the scrubbed text, so a replay gives the very `Turn` the same reply recorded
unstreamed gives, redacted alike, wherever the stream was cut:

    >>> events = [{"model": "m", "choices": [{"index": 0, "delta": {"content": "key sk-ab"}}]},
    ...           {"model": "m", "choices": [{"index": 0, "delta": {"content": "cdef12 ok"}}]},
    ...           {"model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    >>> [event["choices"][0]["delta"] for event in scrubbed_events(events, "chat")]
    [{'content': 'key [redacted]'}, {'content': ' ok'}, {}]

Which field of which wire event carried each piece is learned from the kit's own stream
decoder (`wire.decode_stream`: the pieces it said as each event arrived), so nothing here
names an API.

Left out: a secret the decoder does not say as pieces (an Ollama call's arguments arrive
whole, as an object, and are scrubbed value by value); and secrets with no shape that the
kit was not given (`_redact`'s "Left out").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from .._redact import REDACTED, cut_out, merged, token_spans
from ..blocks import clean_text
from ..errors import TapeError, ToolcallLabError
from ..stream import ArgumentsDelta, ReasoningDelta, StreamEvent, TextDelta
from ..wire import decode_stream

__all__ = ["Secrets", "scrubbed", "scrubbed_events"]

#: Where one value sits in a JSON document: its keys and list indices, from the top.
_Path = tuple[str | int, ...]
#: Where a text's secrets are: (start, end) of each.
_Finder = Callable[[str], list[tuple[int, int]]]
#: What a decoder raises on events it cannot read to the end (a cut stream, an error event,
#: events no API sends): the pieces said before it are still scrubbed as they assembled.
_UNREAD = (ToolcallLabError, LookupError, TypeError, ValueError, AttributeError)


class Secrets(Protocol):
    """What a tape is told to hide besides token shapes: `providers.sdk.SealedKeys`."""

    def spans(self, text: str) -> list[tuple[int, int]]: ...


def scrubbed(exchange: Mapping[str, Any], secrets: Secrets | None = None) -> dict[str, Any]:
    """`exchange` (api, request, response, events, ...) with every secret in it replaced by
    "[redacted]", its stream's `events` scrubbed as their text assembles (`scrubbed_events`).
    A lone surrogate (a "\\ud83d" escape in a reply) becomes U+FFFD here, where the text enters.

    >>> scrubbed({"api": "chat", "error": "Incorrect API key provided: sk-proj-****Ab12.",
    ...           "got": "\\ud83d", "events": None})
    {'api': 'chat', 'error': 'Incorrect API key provided: [redacted].', 'got': '�', 'events': None}
    """
    find = _finder(secrets)
    # subtle: clean_text on the JSON text, where a lone surrogate is a character of its own
    clean: dict[str, Any] = json.loads(clean_text(json.dumps(exchange, ensure_ascii=False)))
    events = clean.get("events")
    rest = _scrub({key: value for key, value in clean.items() if key != "events"}, find)
    if events is None:
        return {**rest, "events": None} if "events" in clean else rest
    return {**rest, "events": scrubbed_events(events, str(clean.get("api")), secrets, find=find)}


def scrubbed_events(events: Sequence[Mapping[str, Any]], api: str, secrets: Secrets | None = None, *,
                    find: _Finder | None = None) -> list[dict[str, Any]]:
    """A stream's `events` with every secret replaced, each block's pieces scrubbed as one text.

    A piece that no string field of its event holds as it is (an Ollama call's arguments,
    an object on the wire) is left to the scrubbing of its event's fields; the stream is
    then read again, and a block whose text still holds a secret raises `TapeError` rather
    than stay on the tape.
    """
    find = find or _finder(secrets)
    placed: dict[int, dict[_Path, str]] = {}  # event number -> its fields' scrubbed pieces
    unplaced = False
    for pieces in _pieces(events, api).values():
        texts = [text for _, _, text in pieces]
        if not (spans := find("".join(texts))):
            continue
        for (number, path, text), new in zip(pieces, _cut_back(texts, spans), strict=True):
            if path is not None:
                for twin in _twins(events[number], path, text):
                    placed.setdefault(number, {})[twin] = new
            unplaced = unplaced or (path is None and new != text)
    cleaned = [_scrub(event, find, placed=placed.get(number)) for number, event in enumerate(events)]
    if unplaced:
        _check(cleaned, api, find)
    return cleaned


def _check(events: list[dict[str, Any]], api: str, find: _Finder) -> None:
    """Raise `TapeError` if a block of the scrubbed stream `events` still holds a secret."""
    for (index, what), pieces in _pieces(events, api).items():
        if find("".join(text for _, _, text in pieces)):
            raise TapeError(f"a secret in the streamed {what} of block {index} arrived in pieces the tape "
                            "cannot place, so it cannot be redacted; record this call unstreamed "
                            "(stream=False) instead.")


# -- which event carried which piece ----------------------------------------------------------
def _pieces(events: Sequence[Mapping[str, Any]], api: str
            ) -> dict[tuple[int, str], list[tuple[int, _Path | None, str]]]:
    """Each block's pieces, (block index, "text" / "reasoning" / "arguments") -> [(the event
    that carried the piece, where in it (None: nowhere found), the piece)], in order."""
    at = 0

    def feed() -> Iterator[Mapping[str, Any]]:
        nonlocal at
        for at, event in enumerate(events):  # noqa: B007 - `at` is read as the decoder says each piece
            yield event

    pieces: dict[tuple[int, str], list[tuple[int, _Path | None, str]]] = {}
    claimed: dict[int, set[_Path]] = {}
    chosen: dict[tuple[int, str], _Path] = {}
    try:
        for said in decode_stream(feed(), api=api):
            if (piece := _piece(said)) is None:
                continue
            block, text = piece
            path = _place(events[at], text, claimed.setdefault(at, set()), chosen.get(block))
            if path is not None:
                claimed[at].add(path)
                chosen[block] = path
            pieces.setdefault(block, []).append((at, path, text))
    except _UNREAD:  # a stream that broke off: what it said before is scrubbed all the same
        pass
    return pieces


def _piece(said: StreamEvent) -> tuple[tuple[int, str], str] | None:
    """((block index, what), the text) of a piece of text, reasoning or arguments; else None."""
    match said:
        case TextDelta(index=index, text=text) if text:
            return (index, "text"), text
        case ReasoningDelta(index=index, text=text) if text:
            return (index, "reasoning"), text
        case ArgumentsDelta(index=index, json=text) if text:
            return (index, "arguments"), text
    return None


def _place(event: Mapping[str, Any], text: str, claimed: set[_Path], before: _Path | None) -> _Path | None:
    """Where in `event` the piece `text` sits: a string field equal to it, not `claimed` by
    another piece of the same event; the field the block's last piece came in if it is one
    of them, else the deepest, then the last (a delta's text is nested below an id or a type)."""
    found = [path for path, value in _strings(event) if value == text and path not in claimed]
    if before in found:
        return before
    deepest = max(enumerate(found), key=lambda numbered: (len(numbered[1]), numbered[0]), default=None)
    return None if deepest is None else deepest[1]


def _twins(event: Mapping[str, Any], path: _Path, text: str) -> list[_Path]:
    """`path` and each field beside it holding the same piece: a server may send one piece
    under two names (Chat's reasoning as `reasoning_content` and `reasoning`), which the
    decoder says once, and both must be cut alike or the other name keeps the secret."""
    return [where for where, value in _strings(event) if where[:-1] == path[:-1] and value == text]


def _strings(value: Any, path: _Path = ()) -> Iterator[tuple[_Path, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*path, index))


# -- cutting a text's secrets out -------------------------------------------------------------
def _finder(secrets: Secrets | None) -> _Finder:
    """Where a text holds one of `secrets` or a token shape."""
    if secrets is None:
        return token_spans
    return lambda text: [*secrets.spans(text), *token_spans(text)]


def _cut_back(texts: list[str], spans: list[tuple[int, int]]) -> list[str]:
    """`texts`, the pieces of one text, with each span of that text replaced by "[redacted]":
    the mark goes in the piece where the span starts, and the span leaves the pieces after.

    >>> _cut_back(["my sk-a", "bcdefg", "h ok"], [(3, 14)])
    ['my [redacted]', '', ' ok']
    """
    whole = "".join(texts)
    said = list(whole)  # what each character of the whole text becomes
    for start, end in merged(spans):
        said[start:end] = [REDACTED, *[""] * (end - start - 1)]
    cut, at = [], 0
    for text in texts:
        cut.append("".join(said[at:at + len(text)]))
        at += len(text)
    return cut


def _scrub(value: Any, find: _Finder, placed: Mapping[_Path, str] | None = None) -> Any:
    """`value` with each string (each object key too) scrubbed, those in `placed` (by their path
    in `value`) set as given.

    subtle: a loop, not a recursion: a body nested some 700 deep (which JSON reads) would
    otherwise overflow Python's stack while it is recorded.
    """
    placed = placed or {}

    def copied(item: Any, path: _Path) -> Any:
        if isinstance(item, str):
            return placed[path] if path in placed else _cut(item, find)
        if isinstance(item, dict | list):
            empty: dict[str, Any] | list[Any] = {} if isinstance(item, dict) else []
            todo.append((item, empty, path))
            return empty
        return item

    todo: list[tuple[Any, Any, _Path]] = []
    top = copied(value, ())
    while todo:
        given, made, path = todo.pop()
        if isinstance(given, dict):
            for key, item in given.items():
                made[_cut(key, find)] = copied(item, (*path, key))
        else:
            made.extend(copied(item, (*path, index)) for index, item in enumerate(given))
    return top


def _cut(text: str, find: _Finder) -> str:
    spans = find(text)
    return cut_out(text, spans) if spans else text
