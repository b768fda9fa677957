"""What several codecs do the same way, written once.

- Three of the four APIs have no `is_error` field (OpenAI Responses, OpenAI Chat,
  Ollama), so a failed tool says so in words: its content goes out as "Error: <text>",
  and the server side reads the prefix back. (A successful result that itself begins
  with "Error: " therefore reads back as a failure; the model would read it so too.)
- Both OpenAI APIs want arguments as a JSON *string*: compact, as OpenAI's models
  write it, or the model's own malformed text, verbatim.
- A server reads tools out of a request as `Tool`s that describe themselves to the
  model but have no code: the code lives with the client that sent them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..messages import ToolCall, ToolResult
from ..tool import Tool

__all__ = ["ERROR_PREFIX", "arguments_json", "read_result_text", "request_tool", "result_text"]

ERROR_PREFIX = "Error: "


def result_text(result: ToolResult) -> str:
    """What a result says on a wire without an error flag.

    >>> result_text(ToolResult("call_1", "no such city", is_error=True))
    'Error: no such city'
    """
    return ERROR_PREFIX + result.content if result.is_error else result.content


def read_result_text(text: str) -> tuple[str, bool]:
    """(content, is_error) from what `result_text` wrote.

    >>> read_result_text("Error: no such city")
    ('no such city', True)
    """
    if text.startswith(ERROR_PREFIX):
        return text[len(ERROR_PREFIX):], True
    return text, False


def arguments_json(call: ToolCall) -> str:
    """The arguments as OpenAI's APIs want them: a JSON string, or the model's own bad text.

    >>> arguments_json(ToolCall("call_1", "get_weather", {"city": "Paris"}))
    '{"city":"Paris"}'
    """
    if call.raw_args is not None:
        return call.raw_args
    return json.dumps(dict(call.args), ensure_ascii=False, separators=(",", ":"))


def _never_called(**_: Any) -> Any:
    raise RuntimeError("this tool was read from a request body; its code lives with the client "
                       "that sent it, so a server never runs it.")


def request_tool(name: str, description: str | None, schema: Mapping[str, Any] | None) -> Tool:
    """A tool as a server reads it from a request: name, description and schema, no code."""
    return Tool(name, description or "", schema or {"type": "object"}, _never_called)
