"""How the OpenAI Responses API streams a reply: the server's side (`"stream": true`).

`encode_stream(reply)` plays a finished `/v1/responses` body (the very one the double
sends unstreamed) as the API's server-sent events, so the openai SDK's
`responses.stream(...).get_final_response()` returns exactly that body. Reading a stream
is the client's side (`stream.py`). The grammar, from OpenAI's spec (`ResponseStreamEvent`,
https://developers.openai.com/api/reference/resources/responses/streaming-events) in the
order of the recorded streams (`tests/fixtures/openai_responses_*_stream.dotnet_recorded.sse`),
every event with its `sequence_number`, counted from 0:

    response.created, response.in_progress     the response, `in_progress`, `output: []`,
                                               `usage: null`
    per output item, at its `output_index`:
      response.output_item.added               the item with its payload empty
      a message:   content_part.added, output_text.delta ..., output_text.done,
                   content_part.done (a refusal: refusal.delta ..., refusal.done)
      a call:      function_call_arguments.delta ..., function_call_arguments.done
                   (no `name`, as recorded, though the spec lists one)
      reasoning:   per summary part: reasoning_summary_part.added,
                   reasoning_summary_text.delta ..., .text.done, .part.done
      a search:    web_search_call.in_progress, .searching, .completed
      response.output_item.done                the item whole
    response.completed (or response.incomplete)  the whole response, usage and all

Each piece is `PIECE` characters (`wire._framing.pieces`); no `[DONE]` follows:

    >>> reply = {"id": "resp_1", "object": "response", "status": "completed", "usage": {},
    ...          "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
    ...                      "name": "f", "arguments": '{"a": 12}', "status": "completed"}]}
    >>> for event in encode_stream(reply):
    ...     print(event["sequence_number"], event["type"], *[event["delta"]] if "delta" in event else [])
    0 response.created
    1 response.in_progress
    2 response.output_item.added
    3 response.function_call_arguments.delta {"a"
    4 response.function_call_arguments.delta : 12
    5 response.function_call_arguments.delta }
    6 response.function_call_arguments.done
    7 response.output_item.done
    8 response.completed

An error mid-stream is an `error` event in the spec's shape (`stream_error`: `code` and
`message` at the top); the SDK's `get_final_response()` then says no
`response.completed` came. Proxies of other OpenAI backends are seen sending a nested
`error` object instead; which one api.openai.com sends is not on record.

Left out: `obfuscation` (random characters on each delta; no client reads them) and the
item's `reasoning_text` events (the double's reasoning has only a summary).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ...stream import pieces

__all__ = ["encode_stream", "stream_error"]


_Event = Callable[..., dict[str, Any]]


def encode_stream(reply: Mapping[str, Any], *, request: Mapping[str, Any] | None = None
                  ) -> Iterator[dict[str, Any]]:
    """The events of `reply` (a Responses body), one dict each, numbered from 0."""
    numbers = itertools.count()

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": f"response.{kind}", "sequence_number": next(numbers), **fields}

    opening = {**reply, "status": "in_progress", "completed_at": None, "incomplete_details": None,
               "output": [], "usage": None}
    yield event("created", response=opening)
    yield event("in_progress", response=dict(opening))
    for index, item in enumerate(reply.get("output") or []):
        yield from _item(event, index, item)
    yield event("completed" if reply.get("status") == "completed" else "incomplete", response=dict(reply))


def _item(event: _Event, index: int, item: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """One output item's events: added with its payload empty, its deltas, done whole."""
    kind, at = item.get("type"), {"item_id": item.get("id"), "output_index": index}
    if kind == "message":
        yield event("output_item.added", output_index=index,
                    item={**item, "status": "in_progress", "content": []})
        for number, part in enumerate(item.get("content") or []):
            yield from _part(event, {**at, "content_index": number}, part)
    elif kind == "function_call":
        yield event("output_item.added", output_index=index,
                    item={**item, "status": "in_progress", "arguments": ""})
        for piece in pieces(item.get("arguments", "")):
            yield event("function_call_arguments.delta", **at, delta=piece)
        yield event("function_call_arguments.done", **at, arguments=item.get("arguments", ""))
    elif kind == "reasoning":
        # [inference] the sealed `encrypted_content` is the item's end; the recorded added item has none
        added = {key: value for key, value in item.items() if key != "encrypted_content"}
        yield event("output_item.added", output_index=index, item={**added, "summary": []})
        for number, part in enumerate(item.get("summary") or []):
            where = {**at, "summary_index": number}
            yield event("reasoning_summary_part.added", **where, part={**part, "text": ""})
            for piece in pieces(part.get("text", "")):
                yield event("reasoning_summary_text.delta", **where, delta=piece)
            yield event("reasoning_summary_text.done", **where, text=part.get("text", ""))
            yield event("reasoning_summary_part.done", **where, part=dict(part))
    elif kind == "web_search_call":
        yield event("output_item.added", output_index=index, item={**item, "status": "in_progress"})
        for step in ("in_progress", "searching", "completed"):
            yield event(f"web_search_call.{step}", **at)
    else:
        yield event("output_item.added", output_index=index, item=dict(item))
    yield event("output_item.done", output_index=index, item=dict(item))


def _part(event: _Event, at: dict[str, Any], part: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """One content part of a message: added empty, its deltas, its text done, the part done."""
    field = "refusal" if part.get("type") == "refusal" else "text"
    yield event("content_part.added", **at, part={**part, field: ""})
    text = part.get(field, "")
    if field == "refusal":
        for piece in pieces(text):
            yield event("refusal.delta", **at, delta=piece)
        yield event("refusal.done", **at, refusal=text)
    else:
        for piece in pieces(text):
            yield event("output_text.delta", **at, delta=piece, logprobs=[])
        yield event("output_text.done", **at, text=text, logprobs=[])
    yield event("content_part.done", **at, part=dict(part))


def stream_error(sent: int, reply: Mapping[str, Any] | None = None, *, failed: bool = False
                 ) -> dict[str, Any]:
    """The event that breaks a stream off after `sent` events (numbered `sent`): an `error` in
    the spec's shape (`ResponseErrorEvent`), with OpenAI's words for an overload; or, when
    `failed`, the terminal `response.failed` carrying the response (`reply` as it stood when it
    opened) with `status: "failed"` and its `error` (`ResponseFailedEvent`).

    >>> stream_error(3)["sequence_number"], stream_error(3)["code"]
    (3, 'server_is_overloaded')
    >>> failed = stream_error(3, {"id": "resp_1", "output": []}, failed=True)
    >>> failed["type"], failed["response"]["status"], failed["response"]["error"]["code"]
    ('response.failed', 'failed', 'server_error')
    """
    if not failed:
        return {"type": "error", "code": "server_is_overloaded",
                "message": "The engine is currently overloaded, please try again later.", "param": None,
                "sequence_number": sent}
    # [inference] what the output holds on a failure is not recorded: the double sends none
    response = {**(reply or {}), "status": "failed", "output": [], "usage": None, "completed_at": None,
                "error": {"code": "server_error", "message": "The model failed to generate a response."}}
    return {"type": "response.failed", "sequence_number": sent, "response": response}
