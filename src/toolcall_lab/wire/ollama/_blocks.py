"""How Ollama's /api/chat spells a tool call and an assistant's words: what this folder shares.

Both halves read assistant messages, the client half in a reply (`client.py`) and the
server half in a request (`server.py`):

    read_call(call, body, index)     a `tool_calls` entry as a ToolCall; a call without an
                                     id gets `mint_call_id(body, index)`
    reasoning_and_text(wire, model)  a message's `thinking` and `content` as kit blocks
    mint_call_id(body, index)        an id for a call the body sent without one, the same
                                     on every decode

and the API's names (`API_NAME`, `PROVIDER_NAME`).

Left out: images in a message, and logprobs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ...blocks import ReasoningBlock, TextBlock, ToolCall
from .._shared import json_text, object_call, parse_arguments

__all__ = ["API_NAME", "ITEMS_KEY", "PROVIDER_NAME", "ended_by", "mint_call_id", "read_call",
           "reasoning_and_text"]

#: The API's name, as `wire.API_SPECS` and every `Problem` of this API spell it.
API_NAME = "ollama"
#: The name stamped on `ReasoningBlock.provider` by this codec; only such blocks are replayed.
PROVIDER_NAME = "ollama"
#: The request body's key that carries the conversation, a list of messages.
ITEMS_KEY = "messages"


def read_call(call: Mapping[str, Any], body: Mapping[str, Any], index: int) -> ToolCall:
    function = call["function"]
    call_id = call.get("id") or mint_call_id(body, index)
    arguments = function.get("arguments")
    if arguments is None:
        return ToolCall(call_id, function["name"], {})
    if isinstance(arguments, Mapping):
        return object_call(call_id, function["name"], arguments)
    # Ollama itself always sends an object; a string (an OpenAI habit) is read if it parses.
    raw = arguments if isinstance(arguments, str) else json_text(arguments)
    parsed = parse_arguments(raw)  # subtle: '[' * 5000, or NaN, is malformed too
    if parsed is not None:
        return ToolCall(call_id, function["name"], parsed)
    return ToolCall(call_id, function["name"], {}, raw_args=raw)


def reasoning_and_text(wire: Mapping[str, Any], model: str | None) -> list[ReasoningBlock | TextBlock]:
    blocks: list[ReasoningBlock | TextBlock] = []
    if wire.get("thinking"):
        blocks.append(ReasoningBlock(wire["thinking"], PROVIDER_NAME, model or None))
    if wire.get("content"):
        blocks.append(TextBlock(wire["content"]))
    return blocks


def mint_call_id(body: Mapping[str, Any], index: int) -> str:
    """A tool-call id for call `index` of a body that carries none, the same on every decode.

    Ollama's docs show calls without ids (newer servers add `call_` + 8 random
    characters), but the kit pairs calls and results by id. The id is a hash of the whole
    body and the call's position, so decoding one body twice gives the same ids, and
    two different bodies (Ollama stamps each with its time, to the microsecond) differ.

    >>> mint_call_id({"model": "m"}, 0) == mint_call_id({"model": "m"}, 0)
    True
    >>> mint_call_id({"model": "m"}, 0) != mint_call_id({"model": "m"}, 1)
    True
    """
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return "call_" + hashlib.sha256(f"{canonical}#{index}".encode()).hexdigest()[:24]


def ended_by(body: Mapping[str, Any]) -> str:
    """What a response body says ended the reply, in the API's words: its `done_reason`.

    >>> ended_by({"done": True, "done_reason": "length"})
    'length'
    """
    return str(body.get("done_reason"))
