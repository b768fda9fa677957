"""How the OpenAI Responses API spells the kit's blocks as items: what this folder shares.

Both halves read items: the client half the output items of a reply (`client.py`), the
server half the input items of a request (`server.py`). The readers they share live here:

    read_call(call_id, name, arguments)  a function_call item's call; arguments that are not
                                         a JSON object are kept as `raw_args`
    part_text(part)                  a message content part's text (input_text, output_text,
                                     refusal)
    summary(item)                    a reasoning item's readable summary
    web_search_call(item)            a web search OpenAI ran, as a ServerToolCall

and the API's names (`API_NAME`, `PROVIDER_NAME`).

Left out: the items of built-in tools other than web search.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from ...blocks import ServerToolCall, ToolCall
from ...errors import UsageError
from .._shared import parse_arguments, plain_json

__all__ = ["API_NAME", "ITEMS_KEY", "PROVIDER_NAME", "ended_by", "part_text", "read_call", "summary",
           "web_search_call"]

#: The API's name, as `wire.API_SPECS` and every `Problem` of this API spell it.
API_NAME = "responses"
#: The name stamped on `ReasoningBlock.provider`: only blocks with it are replayed here.
PROVIDER_NAME = "openai"
#: The request body's key that carries the conversation, a list of items (messages, calls and
#: their outputs, reasoning).
ITEMS_KEY = "input"


def read_call(call_id: str, name: str, arguments: str) -> ToolCall:
    """A ToolCall; arguments that are not a JSON object are kept as `raw_args`.

    e.g. '[' * 5000 (too deep for Python's parser) -> ToolCall(args={}, raw_args='[[[...').
    """
    args = parse_arguments(arguments) if isinstance(arguments, str) else None
    if args is None:
        return ToolCall(call_id, name, {}, raw_args=arguments if isinstance(arguments, str) else "")
    return ToolCall(call_id, name, args)


def summary(item: Mapping[str, Any]) -> str:
    """The readable part of a reasoning item: its summary texts, one paragraph each."""
    return "\n\n".join(part.get("text", "") for part in item.get("summary") or [])


def part_text(part: Mapping[str, Any]) -> str:
    match part.get("type"):
        case "input_text" | "output_text":
            return cast(str, part["text"])
        case "refusal":
            return cast(str, part["refusal"])
        case other:
            raise UsageError(f"a message content part of type {other!r} is not text; the kit "
                             "reads input_text, output_text and refusal parts only")


# -- the server half and the API's rules, in modules of their own ------------------------------
# subtle: imported last, because both read this module's names (API_NAME, the item readers);
# re-exported, so this module stays the API's one codec (`wire.API_SPECS`).


def web_search_call(item: Mapping[str, Any]) -> ServerToolCall:
    """A `web_search_call` item as a ServerToolCall: its `action` as the arguments, the item kept.

    >>> web_search_call({"type": "web_search_call", "id": "ws_1", "status": "completed",
    ...                  "action": {"type": "search", "query": "weather Paris"}})
    ServerToolCall('ws_1', 'web_search', {'type': 'search', 'query': 'weather Paris'}, provider='openai')
    """
    action = item.get("action")
    return ServerToolCall(str(item.get("id", "")), "web_search", action if isinstance(action, dict) else {},
                          PROVIDER_NAME, plain_json(item))


def ended_by(body: Mapping[str, Any]) -> str:
    """What a response body says ended the reply, in the API's words: its `status`, and the
    `incomplete_details.reason` of one that stopped short.

    >>> ended_by({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}})
    'incomplete/max_output_tokens'
    """
    details = body.get("incomplete_details") or {}
    return f"{body['status']}/{details['reason']}" if details else str(body["status"])
