"""`tool_choice`: may the model call a tool, must it, must it not? One vocabulary, four spellings.

Every API lets a request say how free the model is to call the tools it is offered, and
each spells it its own way. The kit has one vocabulary, and each codec translates it:

    kit tool_choice     Anthropic                         OpenAI Responses       OpenAI Chat
    None (not sent)     (left out: auto)                  (left out: auto)       (left out: auto)
    "auto"              {"type": "auto"}                  "auto"                 "auto"
    "none"              {"type": "none"}                  "none"                 "none"
    "required"          {"type": "any"}                   "required"             "required"
    "get_weather"       {"type": "tool",                  {"type": "function",   {"type": "function",
                         "name": "get_weather"}            "name": ...}           "function": {"name": ...}}

    parallel_tool_calls=False
                        "disable_parallel_tool_use": true  "parallel_tool_calls": false (both OpenAI APIs)
                        inside tool_choice (type "auto"
                        when no choice was given)

"auto" lets the model answer or call; "none" forbids calls (the tools are still sent, so
the model knows they exist); "required" demands at least one call of any tool; a tool's
name demands a call of that tool. `parallel_tool_calls=False` asks for at most one call
per reply. Sources: Anthropic's `ToolChoice*Param` types (anthropic SDK 2.14,
`types/tool_choice_*_param.py`), OpenAI's OpenAPI document (`ToolChoiceOptions`,
`ToolChoiceFunction`, `ChatCompletionToolChoiceOption`, `ChatCompletionNamedToolChoice`).

Ollama's native `/api/chat` has no `tool_choice` and no parallel switch (a field the
server does not read; asked for in github.com/ollama/ollama/issues/11171, and its Python
client has no such argument: ollama/ollama-python#663). Its codec therefore sends "none"
as no tools at all, and refuses what it cannot express (a forced call, parallel off) with
a `UsageError` instead of sending a request that would quietly be ignored.

A forced choice ("required" or a name) cannot be combined with Anthropic's extended
thinking: the API answers 400 "Thinking may not be enabled when tool_choice forces tool
use." (`wire.anthropic.rules`, and `models.Rules.forced_tools` per model).

Left out: OpenAI's `allowed_tools` (a subset of the tools), hosted and custom tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .errors import UsageError, UsageTypeError

if TYPE_CHECKING:
    from .tool import Tool

__all__ = ["MODES", "callable_tools", "check_tool_choice", "forces_a_call"]

#: The choices that are not a tool's name.
MODES = ("auto", "none", "required")


def check_tool_choice(tool_choice: object, tools: Sequence[Tool],
                      parallel_tool_calls: object = None) -> None:
    """Raise `UsageError` (one sentence, what would work) unless the choice fits the tools.

    >>> from toolcall_lab.tools import get_weather
    >>> check_tool_choice("get_weather", [get_weather])
    >>> check_tool_choice("get_wether", [get_weather])
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: tool_choice='get_wether' is neither 'auto', 'none' nor 'required', ...
    """
    if parallel_tool_calls is not None and not isinstance(parallel_tool_calls, bool):
        raise UsageTypeError(f"parallel_tool_calls must be True, False or None, got {parallel_tool_calls!r}.")
    if tool_choice is None:
        return
    if not isinstance(tool_choice, str):
        raise UsageTypeError(f"tool_choice must be 'auto', 'none', 'required' or a tool's name (a str), "
                             f"got {type(tool_choice).__name__}.")
    names = [t.name for t in tools]
    # subtle: a mode wins over a tool that happens to share its name ("auto" is a valid tool name).
    if tool_choice not in MODES and tool_choice not in names:
        offered = ", ".join(names) or "no tools"
        raise UsageError(f"tool_choice={tool_choice!r} is neither 'auto', 'none' nor 'required', nor the "
                         f"name of a tool on offer ({offered}); pass one of those.")
    if forces_a_call(tool_choice) and not tools:
        raise UsageError(f"tool_choice={tool_choice!r} forces a tool call, but no tools are offered; "
                         "pass tools=, or leave tool_choice out.")


def forces_a_call(tool_choice: str | None) -> bool:
    """Whether the model must call a tool: "required", or a tool's name.

    >>> forces_a_call("required"), forces_a_call("get_weather"), forces_a_call("auto"), forces_a_call(None)
    (True, True, False, False)
    """
    return tool_choice is not None and tool_choice not in ("auto", "none")


def callable_tools(tool_choice: str | None, tools: Sequence[Tool]) -> tuple[Tool, ...]:
    """The tools a reply may call under `tool_choice`: none for "none", the named one for a name.

    >>> from toolcall_lab.tools import calculator, get_weather
    >>> callable_tools("none", [get_weather])
    ()
    >>> [t.name for t in callable_tools("calculator", [get_weather, calculator])]
    ['calculator']
    """
    if tool_choice == "none":
        return ()
    if tool_choice is None or tool_choice in MODES:
        return tuple(tools)
    return tuple(t for t in tools if t.name == tool_choice)
