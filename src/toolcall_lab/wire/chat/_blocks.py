"""How OpenAI Chat Completions spells a tool call and a message's content: what this folder shares.

Both halves read the same two things, the client half in a reply (`client.py`) and the
server half in a request (`server.py`):

    read_call(call)     a `tool_calls` entry as a ToolCall; arguments that are not a JSON
                        object (or are an object, as a few servers send) are read the kit's way
    text_of(content)    a content field's text: a string, text parts, or null

and the API's names (`API_NAME`, `PROVIDER_NAME`).

Left out: the deprecated `function_call`, and custom (grammar) tool calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...blocks import ToolCall
from .._shared import object_call, parse_arguments

__all__ = ["API_NAME", "ITEMS_KEY", "PROVIDER_NAME", "ended_by", "read_call", "text_of"]

#: The API's name, as `wire.API_SPECS` and every `Problem` of this API spell it.
API_NAME = "chat"
#: The name this codec stamps on the reasoning it decodes (`ReasoningBlock.provider`).
PROVIDER_NAME = "openai-chat"
#: The request body's key that carries the conversation, a list of messages.
ITEMS_KEY = "messages"


def read_call(call: Mapping[str, Any]) -> ToolCall:
    function = call.get("function") or {}
    call_id, name = str(call.get("id") or ""), str(function.get("name") or "")
    arguments = function.get("arguments")
    if isinstance(arguments, Mapping):  # a few servers send an object instead of a string
        return object_call(call_id, name, arguments)
    text = "" if arguments is None else str(arguments)
    if not text.strip():
        # subtle: local servers send "" for a call without arguments; that is {}, not an error.
        return ToolCall(call_id, name, {})
    # subtle: text nested too deep ('[' * 5000), or holding NaN, is malformed too.
    args = parse_arguments(text)
    if args is None:
        return ToolCall(call_id, name, {}, raw_args=text)
    return ToolCall(call_id, name, args)


def text_of(content: Any) -> str:
    """The text of a content field: a string, text parts, or null."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text") or part.get("refusal") or "" for part in content
                   if isinstance(part, Mapping))


def ended_by(body: Mapping[str, Any]) -> str:
    """What a response body says ended the reply, in the API's words: its first choice's `finish_reason`.

    >>> ended_by({"choices": [{"finish_reason": "length"}]})
    'length'
    """
    return str(body["choices"][0]["finish_reason"])
