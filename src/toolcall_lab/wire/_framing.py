"""How a finished reply travels as a stream: where it is cut, and how each event is framed.

What every API's streaming half (`wire/<api>/streaming.py`) shares. The double finishes
a reply first, the very body it would send unstreamed, and only then plays it as events
(one source of truth), so the pieces must join back to that body exactly:

- **the split rule** (`stream.pieces`, the one the kit's own `replay` uses): a text, a
  thought or a call's arguments (as JSON text) is cut every `stream.PIECE` characters, the
  kit's own "4 characters a token" (`tokens.py`), so a reply of n output tokens arrives in
  about n deltas, and the same reply is cut at the same places on every run:

    >>> from toolcall_lab.stream import pieces
    >>> pieces('{"city": "Paris"}')
    ['{"ci', 'ty":', ' "Pa', 'ris"', '}']

- **the framing**: server-sent events, with an `event:` line naming the event (Anthropic,
  OpenAI Responses: the data's `type`) or with `data:` lines only (Chat Completions,
  which ends with `data: [DONE]`); or one JSON object a line (Ollama's NDJSON). Each
  event's JSON is compact, as the APIs write it:

    >>> sse({"type": "message_stop"})
    b'event: message_stop\\ndata: {"type":"message_stop"}\\n\\n'
    >>> sse({"id": "c1"}, named=False), ndjson({"done": True})
    (b'data: {"id":"c1"}\\n\\n', b'{"done":true}\\n')

- **the headers** a stream goes out with (`SSE_HEADERS`, `NDJSON_HEADERS`), as recorded
  from the APIs (`tests/fixtures/*_stream_run.*.json`) and read in Ollama's server
  (`server/routes.go`, `streamResponse`); the double adds `Transfer-Encoding: chunked`.

Reading a stream back (`events_of`) follows the server-sent events standard (WHATWG HTML,
"Server-sent events", the event stream's grammar): a line ends with CRLF, LF or a bare CR,
so a server that frames with `\\r` loses nothing; one leading UTF-8 byte order mark is read
past. A stream that framed whole events and yielded none is an error, never an empty tape.

Left out: the padding the live Anthropic API puts after each `data:` JSON (trailing spaces;
any JSON parser reads past them), and OpenAI's `obfuscation` field (random characters on
each delta; no client reads it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .._json import compact
from ..errors import MalformedResponseError

__all__ = ["DONE", "NDJSON_HEADERS", "SSE_HEADERS", "events_of", "is_ndjson", "ndjson", "sse"]

#: What a server-sent event stream is sent with (Anthropic, OpenAI: recorded).
SSE_HEADERS: Mapping[str, str] = {"content-type": "text/event-stream; charset=utf-8",
                                  "cache-control": "no-cache"}
#: What Ollama's native stream is sent with (`server/routes.go`, `streamResponse`).
NDJSON_HEADERS: Mapping[str, str] = {"content-type": "application/x-ndjson"}
#: The last frame of a Chat Completions stream.
DONE = b"data: [DONE]\n\n"
#: Where a line of a stream ends: CRLF, LF or a bare CR (the SSE standard's `end-of-line`).
#: subtle: not `str.splitlines`, which also splits at U+2028, U+0085 and others that JSON text
#: may hold raw inside a string, cutting an event in two.
_LINE_END = re.compile(r"\r\n|\r|\n")


def sse(event: Mapping[str, Any], *, named: bool = True) -> bytes:
    """One server-sent event: `event: <its type>` (when `named`), its JSON, a blank line."""
    head = f"event: {event['type']}\n" if named else ""
    return f"{head}data: {compact(event)}\n\n".encode()


def ndjson(event: Mapping[str, Any]) -> bytes:
    """One line of newline-delimited JSON."""
    return f"{compact(event)}\n".encode()


def is_ndjson(headers: Mapping[str, str]) -> bool:
    """Whether a stream sent with `headers` is NDJSON, one JSON object a line (else server-sent
    events), as its content type says: what `events_of`'s `lines` is for a server half's
    `STREAM_HEADERS`, or a response's own.

    >>> is_ndjson(NDJSON_HEADERS), is_ndjson(SSE_HEADERS), is_ndjson({"content-type": "Application/X-NDJSON"})
    (True, False, True)
    """
    kind = str(headers.get("content-type", "")).split(";")[0].strip().lower()
    return kind == NDJSON_HEADERS["content-type"]


def events_of(raw: bytes, *, lines: bool = False) -> list[dict[str, Any]]:
    """The raw events in a stream's bytes, as the APIs' decoders take them: each server-sent
    event's `data` JSON (its `event:` name is the data's `type` on the APIs that send one), or,
    with `lines`, each line of NDJSON. The inverse of `sse` and `ndjson`. A line may end with
    CRLF, LF or CR, as the SSE standard allows.

    What carries no event is read past: comments (`:` keep-alives), `data: [DONE]`, a last
    event the stream never ended with its blank line (an SSE client drops it too), and data
    that is not a JSON object. A stream whose whole events (or ended lines) all read as
    nothing raises `MalformedResponseError`: an empty list would lose the stream unseen.

    >>> events_of(b'event: ping\\rdata: {"type":"ping"}\\r\\r: keep-alive\\n\\ndata: [DONE]\\r\\n\\r\\n')
    [{'type': 'ping'}]
    >>> events_of(b'{"done":false}\\n{"done":true}\\n', lines=True)
    [{'done': False}, {'done': True}]
    """
    text = raw.decode("utf-8", "replace").removeprefix("\ufeff")
    found, unread = _ndjson(text) if lines else _sse(text)
    if unread and not found:
        what = "line" if lines else "event"
        raise MalformedResponseError(
            f"the stream's {unread} whole {what}{'s' if unread != 1 else ''} ({len(raw)} bytes) held no JSON "
            "object to read, so none could be kept; check that the server streams "
            + ("one JSON object a line (NDJSON)." if lines else
               "server-sent events (`data: {...}` lines, each event ended by a blank line)."))
    return found


def _sse(text: str) -> tuple[list[dict[str, Any]], int]:
    """(the events of an SSE stream, how many whole events with data gave none)."""
    found: list[dict[str, Any]] = []
    data: list[str] = []
    unread = 0
    for line in _LINE_END.split(text):
        if not line:  # a blank line ends the event
            if data and data != ["[DONE]"]:
                event = _object("\n".join(data))
                if event is None:
                    unread += 1
                else:
                    found.append(event)
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line == "data":  # subtle: a field name with no colon is that field, empty
            data.append("")
    return found, unread


def _ndjson(text: str) -> tuple[list[dict[str, Any]], int]:
    """(the objects of an NDJSON stream, how many ended, non-blank lines gave none)."""
    found: list[dict[str, Any]] = []
    unread = 0
    *ended, last = _LINE_END.split(text)
    for number, line in enumerate([*ended, last]):
        if (event := _object(line)) is not None:
            found.append(event)
        elif line.strip() and number < len(ended):
            unread += 1
    return found, unread


def _object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
