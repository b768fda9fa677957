"""Each API's stream of a reply, derived from its non-streaming body by the APIs' own grammar.

Test-only, and on purpose independent of the kit: no encoder of the kit is used (the
double's `encode_stream` is written separately, so that both answer to the SDKs and the
recorded streams, not to each other). Each derivation follows the grammar the vendors'
docs, specs and recorded streams give (`tests/fixtures/*stream*`, their sources in
tests/fixtures/SOURCES.md, "Streams"):

- Anthropic: `message_start` (content [], the input usage), per block `content_block_start`
  (text "", tool_use input {}, thinking "" and signature "", or the whole block), deltas,
  `content_block_stop`; `message_delta` (stop reason, cumulative usage); `message_stop`;
  `ping`s anywhere after `message_start` (the recordings put one after the first block's start).
- Responses: `response.created` (output [], usage null), `response.in_progress`; per item
  `output_item.added` (skeleton), its parts and deltas and their `.done`s,
  `output_item.done` (the item whole); `response.completed` / `.incomplete` with the
  whole Response (or with `output` null, which the SDK then fills from the done items).
- Chat: a first chunk with `role`; content, refusal and reasoning deltas (the reasoning
  under `reasoning_content`, or under both it and `reasoning`, the same text); each call opened
  by a piece with `index`, `id`, `type` and `name`, its arguments in later pieces carrying only
  `index`; `finish_reason` on its own chunk with `delta: {}` (or on the last delta, as vLLM
  sends it); the usage chunk with `choices: []`.
- Ollama: `done: false` lines with thinking or content pieces, every call whole in one
  line; the final `done: true` line with `done_reason` and the counts.

Where the text is cut, and which of the grammar's options a stream takes, is a `Cuts`'s
choice (Hypothesis draws them in the property test). Nothing the grammar fixes is reordered.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from typing import Any, Protocol


class Cuts(Protocol):
    def pieces(self, text: str) -> list[str]:
        """`text` cut into pieces (joined, they are `text`; at least one piece)."""

    def flag(self) -> bool:
        """One of the grammar's free choices."""


class NoCuts:
    """Every text in one piece and every choice False: the plainest stream."""

    def pieces(self, text: str) -> list[str]:
        return [text]

    def flag(self) -> bool:
        return False


def arguments_text(args: Any, cuts: Cuts) -> str:
    """Arguments as the JSON text a model writes (ASCII-escaped or not, spaced or not)."""
    if cuts.flag():
        return json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(args)


# -- Anthropic ---------------------------------------------------------------------------------
_ANTHROPIC_INPUT_USAGE = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                          "cache_creation")


def anthropic_stream(body: Mapping[str, Any], cuts: Cuts) -> list[dict[str, Any]]:
    message = {k: copy.deepcopy(v) for k, v in body.items() if k not in ("content", "container")}
    usage = body.get("usage") or {}
    message.update(content=[], stop_reason=None, stop_sequence=None,
                   usage={**{k: usage[k] for k in _ANTHROPIC_INPUT_USAGE if k in usage}, "output_tokens": 1})
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    for index, block in enumerate(body["content"]):
        events += _anthropic_block(index, block, cuts)
        if cuts.flag():
            events.append({"type": "ping"})
    delta: dict[str, Any] = {"stop_reason": body.get("stop_reason"),
                             "stop_sequence": body.get("stop_sequence")}
    if body.get("container") is not None:
        delta["container"] = body["container"]
    final = {k: v for k, v in usage.items() if k not in _ANTHROPIC_INPUT_USAGE or cuts.flag()}
    events += [{"type": "message_delta", "delta": delta, "usage": final}, {"type": "message_stop"}]
    return events


def _anthropic_block(index: int, block: Mapping[str, Any], cuts: Cuts) -> Iterator[dict[str, Any]]:
    def delta(kind: str, field: str, piece: str) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: piece}}

    kind = block["type"]
    if kind == "text":
        yield {"type": "content_block_start", "index": index, "content_block": {**block, "text": ""}}
        yield from (delta("text_delta", "text", p) for p in cuts.pieces(block["text"]) if p)
    elif kind in ("tool_use", "server_tool_use"):
        yield {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}}
        if cuts.flag():
            yield delta("input_json_delta", "partial_json", "")  # the recordings open with an empty piece
        for piece in cuts.pieces(arguments_text(block["input"], cuts)):
            yield delta("input_json_delta", "partial_json", piece)
    elif kind == "thinking":
        start = {**block, "thinking": "", "signature": ""}
        yield {"type": "content_block_start", "index": index, "content_block": start}
        yield from (delta("thinking_delta", "thinking", p) for p in cuts.pieces(block["thinking"]) if p)
        yield delta("signature_delta", "signature", block["signature"])
    else:  # redacted_thinking, a server tool's result: whole in its start
        yield {"type": "content_block_start", "index": index, "content_block": dict(block)}
    yield {"type": "content_block_stop", "index": index}


# -- OpenAI Responses ---------------------------------------------------------------------------
def responses_stream(body: Mapping[str, Any], cuts: Cuts) -> list[dict[str, Any]]:
    lifecycle = {**copy.deepcopy(dict(body)), "status": "in_progress", "output": [], "usage": None,
                 "incomplete_details": None}
    events: list[dict[str, Any]] = [{"type": "response.created", "response": lifecycle},
                                    {"type": "response.in_progress", "response": lifecycle}]
    for index, item in enumerate(body["output"]):
        events += _responses_item(index, item, cuts)
    terminal = copy.deepcopy(dict(body))
    if cuts.flag():
        terminal["output"] = None  # the SDK then takes the output_item.done items
    end = "response.incomplete" if body.get("status") == "incomplete" else "response.completed"
    events.append({"type": end, "response": terminal})
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


def _responses_item(index: int, item: Mapping[str, Any], cuts: Cuts) -> Iterator[dict[str, Any]]:
    where = {"item_id": item.get("id", ""), "output_index": index}
    kind = item["type"]
    skeleton: dict[str, Any] = {
        "message": lambda: {**item, "status": "in_progress", "content": []},
        "function_call": lambda: {**item, "status": "in_progress", "arguments": ""},
        "reasoning": lambda: {k: v for k, v in item.items() if k != "encrypted_content"} | {"summary": []},
    }.get(kind, lambda: {**item, "status": "in_progress"})()
    yield {"type": "response.output_item.added", "output_index": index, "item": skeleton}
    if kind == "message":
        for part_index, part in enumerate(item["content"]):
            field = "text" if part["type"] == "output_text" else "refusal"
            name = "output_text" if field == "text" else "refusal"
            at = {**where, "content_index": part_index}
            yield {"type": "response.content_part.added", **at, "part": {**part, field: ""}}
            for piece in cuts.pieces(part[field]):
                extra = {"logprobs": []} if field == "text" else {}
                yield {"type": f"response.{name}.delta", **at, "delta": piece, **extra}
            yield {"type": f"response.{name}.done", **at, field: part[field]}
            yield {"type": "response.content_part.done", **at, "part": part}
    elif kind == "function_call":
        for piece in cuts.pieces(item["arguments"]):
            yield {"type": "response.function_call_arguments.delta", **where, "delta": piece}
        yield {"type": "response.function_call_arguments.done", **where, "arguments": item["arguments"]}
    elif kind == "reasoning":
        for summary_index, part in enumerate(item.get("summary") or []):
            at = {**where, "summary_index": summary_index}
            yield {"type": "response.reasoning_summary_part.added", **at, "part": {**part, "text": ""}}
            for piece in cuts.pieces(part["text"]):
                yield {"type": "response.reasoning_summary_text.delta", **at, "delta": piece}
            yield {"type": "response.reasoning_summary_text.done", **at, "text": part["text"]}
            yield {"type": "response.reasoning_summary_part.done", **at, "part": part}
    elif kind == "web_search_call":
        for stage in ("in_progress", "searching", "completed"):
            yield {"type": f"response.web_search_call.{stage}", **where}
    yield {"type": "response.output_item.done", "output_index": index, "item": dict(item)}


# -- Chat Completions ----------------------------------------------------------------------------
def chat_stream(body: Mapping[str, Any], cuts: Cuts) -> list[dict[str, Any]]:
    choice = body["choices"][0]
    message = choice["message"]
    # with stream_options.include_usage every chunk has "usage": null, and the usage chunk comes
    usage_null = body.get("usage") is not None and cuts.flag()

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        head = {k: body[k] for k in ("id", "created", "model") if k in body}
        return {**head, "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            **({"usage": None} if usage_null else {})}

    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": "" if cuts.flag() else None}]
    both = cuts.flag()  # the reasoning under both of its names, the same text twice
    for field in ("reasoning_content", "content", "refusal"):
        if message.get(field):
            again = field == "reasoning_content" and both
            deltas += [{field: piece, **({"reasoning": piece} if again else {})}
                       for piece in cuts.pieces(message[field])]
    calls = message.get("tool_calls") or []
    opened = [[{"index": k, "id": c["id"], "type": "function",
                "function": {"name": c["function"]["name"], "arguments": ""}}]
              + [{"index": k, "function": {"arguments": p}} for p in cuts.pieces(c["function"]["arguments"])]
              for k, c in enumerate(calls)]
    deltas += [{"tool_calls": [piece]} for piece in _chat_call_order(opened, cuts)]
    chunks = [chunk(delta) for delta in deltas]
    if cuts.flag() and len(chunks) > 1:  # vLLM: the finish rides on the last delta
        chunks[-1]["choices"][0]["finish_reason"] = choice["finish_reason"]
    else:
        chunks.append(chunk({}, choice["finish_reason"]))
    if body.get("usage") is not None:
        head = {k: body[k] for k in ("id", "created", "model") if k in body}
        chunks.append({**head, "object": "chat.completion.chunk", "choices": [], "usage": body["usage"]})
    return chunks


def _chat_call_order(calls: list[list[dict[str, Any]]], cuts: Cuts) -> list[dict[str, Any]]:
    """The calls' pieces, one call after another (as OpenAI sends them) or interleaved.

    Interleaving keeps what the grammar fixes: calls open in index order, and each call's
    pieces stay in order after its opening piece.
    """
    if not cuts.flag():
        return [piece for call in calls for piece in call]
    queues = [list(call) for call in calls]
    order: list[dict[str, Any]] = []
    opened = 0
    while any(queues):
        live = [k for k in range(opened) if queues[k]]
        if opened < len(queues) and (not live or cuts.flag()):
            live = [opened]
            opened += 1
        order.append(queues[live[-1] if cuts.flag() else live[0]].pop(0))
    return order


# -- Ollama ----------------------------------------------------------------------------------------
def ollama_stream(body: Mapping[str, Any], cuts: Cuts) -> list[dict[str, Any]]:
    message = body["message"]
    lines: list[dict[str, Any]] = []

    def line(**fields: Any) -> None:
        wire = {"role": message.get("role", "assistant"), "content": "", **fields}
        stamp = f"2026-12-01T10:00:{len(lines):02d}.000000Z"
        lines.append({"model": body["model"], "created_at": stamp, "message": wire, "done": False})

    for piece in cuts.pieces(message.get("thinking") or ""):
        if piece:
            line(thinking=piece)
    pieces = cuts.pieces(message.get("content") or "")
    last = pieces.pop() if cuts.flag() else ""  # the done line may carry the last piece
    for piece in pieces:
        line(content=piece)
    calls = message.get("tool_calls") or []
    if calls and cuts.flag():
        line(tool_calls=list(calls))  # several calls in one line
    else:
        for call in calls:
            line(tool_calls=[call])
    final = {k: v for k, v in body.items() if k != "message"}
    lines.append({**final, "message": {"role": message.get("role", "assistant"), "content": last}})
    return lines


STREAMS = {"anthropic": anthropic_stream, "responses": responses_stream, "chat": chat_stream,
           "ollama": ollama_stream}
