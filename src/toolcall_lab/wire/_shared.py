"""What several codecs do the same way, written once.

- Three of the four APIs have no `is_error` field (OpenAI Responses, OpenAI Chat,
  Ollama), so a failed tool says so in words: its content goes out as "Error: <text>",
  and the server side reads the prefix back. (A successful result that itself begins
  with "Error: " therefore reads back as a failure; the model would read it so too.)
- Both OpenAI APIs want arguments as a JSON *string*: compact, as OpenAI's models
  write it, or the model's own malformed text, verbatim.
- A server reads tools out of a request as `Tool`s that describe themselves to the
  model but have no code: the code lives with the client that sent them.
- Both OpenAI APIs refuse a reasoning effort on a model that does not reason (gpt-4o):
  `unsupported_reasoning` says so in OpenAI's words (`models.rules_of` knows which do).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..messages import ToolCall, ToolResult
from ..models import rules_of
from ..tool import Tool
from . import Problem

__all__ = ["ERROR_PREFIX", "arguments_json", "read_result_text", "request_tool", "result_text",
           "unsupported_reasoning"]

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


def unsupported_reasoning(api: str, model: str, param: str) -> list[Problem]:
    """OpenAI's 400 for a reasoning effort (`param`) sent to a model that does not reason.

    The Responses text is recorded (RageAgainstThePixel/OpenAI-DotNet#500, gpt-4o, with
    param "reasoning.effort" and code "unsupported_parameter"); the Chat one is the same
    sentence with Chat's parameter name, paraphrased. Models not in `models.RULES` pass.

    >>> [p.text for p in unsupported_reasoning("responses", "gpt-4o-2024-08-06", "reasoning.effort")]
    ["Unsupported parameter: 'reasoning.effort' is not supported with this model."]
    >>> unsupported_reasoning("responses", "gpt-6-luna", "reasoning.effort")
    []
    """
    if rules_of(model).reasons is not False:
        return []
    return [Problem(api, param, f"Unsupported parameter: '{param}' is not supported with this model.",
                    param=param, code="unsupported_parameter")]


def chat_tools_effort(model: str, effort: object, has_tools: bool) -> list[Problem]:
    """The 400 for function tools on Chat Completions at a reasoning effort the model refuses.

    Some reasoning models take function tools on Chat Completions only at one effort
    (`models.Rules.chat_tools_effort`: gpt-6-luna, "none"; its default is "medium").
    The wording is paraphrased from the model page; no recorded error was found.

    >>> [p.path for p in chat_tools_effort("gpt-6-luna", None, True)]
    ['reasoning_effort']
    >>> chat_tools_effort("gpt-6-luna", "none", True), chat_tools_effort("gpt-4o", None, True)
    ([], [])
    """
    wanted = rules_of(model).chat_tools_effort
    if not has_tools or wanted is None or effort == wanted:
        return []
    said = "the default effort" if effort is None else f"'{effort}'"
    return [Problem("chat", "reasoning_effort",
                    f"Function tools are not supported with reasoning_effort {said} for this model "
                    f"in Chat Completions. Set reasoning_effort to '{wanted}', or use the Responses "
                    "API.", param="reasoning_effort", code="unsupported_parameter")]
