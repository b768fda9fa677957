"""OpenAI Chat Completions' rules: what `POST /v1/chat/completions` refuses, in its own words.

`check_request` lists what OpenAI's hosted API would refuse with a 400, each with the
`param` and `code` the API reports. The rules are the API reference's
(https://platform.openai.com/docs/api-reference/chat/create); the texts are OpenAI's,
word for word, typos included ("preceeding"), as recorded in live output (LangChain's
troubleshooting page for INVALID_TOOL_RESULTS, github.com/langchain-ai/langchain,
gpt-4o-mini) and in issue reports. Structured output (`response_format`) under `strict`
is held to the Structured Outputs guide's two rules
(https://platform.openai.com/docs/guides/structured-outputs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...models import rules_of
from .._openai.rules import invalid_effort, parameters_problems, strict_schema_problems, unsupported_reasoning
from ..problem import Problem
from ._blocks import API_NAME

__all__ = ["check_request"]

_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
_NAME_MAX = 64


def check_request(body: Mapping[str, Any]) -> list[Problem]:
    """What OpenAI's Chat Completions API would reject in `body`, in its own words.

    In the API's order, which is the order of the list: first the request's shape (an
    empty `messages`, a `tool` message without its `tool_call_id`, an empty
    `tool_calls`, tool names by pattern and length, strict tools with open schemas, a
    `reasoning_effort` that is no effort), then what this model takes
    (`reasoning_effort` only on a model that reasons, per `models.rules_of`; unknown and
    local models pass), then the conversation: every assistant `tool_calls` answered by
    `tool` messages right after it, one per id, and no `tool` message that answers
    nothing or answers twice. Not checked: empty text, which Chat accepts.

    >>> body = {"model": "m", "messages": [{"role": "user", "content": "Hi"},
    ...     {"role": "tool", "tool_call_id": "call_1", "content": "18°C"}]}
    >>> [(p.param, p.text[:49]) for p in check_request(body)]
    [('messages.[1].role', "Invalid parameter: messages with role 'tool' must")]
    """
    problems: list[Problem] = []
    messages = body.get("messages")
    if isinstance(messages, list) and not messages:
        problems.append(Problem(
            API_NAME, "messages", "Invalid 'messages': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.", param="messages", code="empty_array"))
    messages = messages if isinstance(messages, list) else []
    problems.extend(_check_message_shapes(messages))
    for index, spec in enumerate(body.get("tools") or []):
        function = spec.get("function") or {}
        name = function.get("name")
        if isinstance(name, str):
            problems.extend(_check_name(index, name))
        problems.extend(parameters_problems(API_NAME, name, function.get("parameters"),
                                            path=f"tools.{index}.function.parameters",
                                            param=f"tools[{index}].function.parameters"))
        if function.get("strict"):  # subtle: Chat's default is strict false (Responses': true)
            problems.extend(strict_schema_problems(
                API_NAME, name, function.get("parameters"), path=f"tools.{index}.function.parameters",
                param=f"tools[{index}].function.parameters"))
    problems.extend(_check_response_format(body.get("response_format")))
    effort = body.get("reasoning_effort")
    problems.extend(invalid_effort(API_NAME, effort, "reasoning_effort"))
    if effort is not None:
        problems.extend(unsupported_reasoning(API_NAME, str(body.get("model", "")), "reasoning_effort"))
    problems.extend(_check_tools_effort(str(body.get("model", "")), effort, bool(body.get("tools"))))
    problems.extend(_check_pairing(messages))
    return problems


def _check_response_format(spec: object) -> list[Problem]:
    """Structured output's strict rules: every object closed, every property required.

    Only under `strict: true` (Chat's default is false: the schema then guides the model and
    is not enforced). The words are the function rule's with "response_format" for
    "function", as reported from live traffic (e.g. "Invalid schema for response_format
    'schemaing': In context=(), 'additionalProperties' is required to be supplied and to be
    false."; "... 'required' is required to be supplied and to be an array including every
    key in properties. Missing 'artifacts'."), param "response_format"; no code is claimed.
    OpenAI's Structured Outputs guide states both rules ("additionalProperties: false must
    always be set in objects", "all fields must be required").

    >>> closed = {"type": "object", "properties": {"city": {"type": "string"}},
    ...           "additionalProperties": False}
    >>> [p.text.partition("properties. ")[2] for p in _check_response_format({
    ...     "type": "json_schema", "json_schema": {"name": "city", "schema": closed, "strict": True}})]
    ["Missing 'city'."]
    """
    if not isinstance(spec, Mapping) or spec.get("type") != "json_schema":
        return []
    inner = spec.get("json_schema") or {}
    if not isinstance(inner, Mapping) or inner.get("strict") is not True:
        return []
    return strict_schema_problems(API_NAME, inner.get("name"), inner.get("schema"),
                                  path="response_format.json_schema.schema", param="response_format",
                                  subject="response_format", code=None)


def _check_message_shapes(messages: Sequence[Mapping[str, Any]]) -> list[Problem]:
    """What the API's schema refuses in one message, before it looks at the conversation.

    A `tool` message without `tool_call_id` is refused with this error alone (the
    pairing rules are never reached), as reported in the issue that recorded it.
    """
    problems = []
    for index, message in enumerate(messages):
        if message.get("role") == "tool" and message.get("tool_call_id") is None:
            problems.append(Problem(
                API_NAME, f"messages.{index}.tool_call_id", "Missing parameter 'tool_call_id': messages "
                "with role 'tool' must have a 'tool_call_id'.", param=f"messages.[{index}].tool_call_id"))
        elif message.get("role") == "assistant" and message.get("tool_calls") == []:
            problems.append(Problem(
                API_NAME, f"messages.{index}.tool_calls", f"Invalid 'messages[{index}].tool_calls': empty "
                "array. Expected an array with minimum length 1, but got an empty array instead.",
                param=f"messages[{index}].tool_calls", code="empty_array"))
    return problems


def _check_name(index: int, name: str) -> list[Problem]:
    where, path = f"tools[{index}].function.name", f"tools.{index}.function.name"
    if not _NAME_PATTERN.match(name):
        return [Problem(API_NAME, path, f"Invalid '{where}': string does not match pattern. Expected a "
                        "string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                        param=where, code="invalid_value")]
    if len(name) > _NAME_MAX:
        return [Problem(API_NAME, path, f"Invalid '{where}': string too long. Expected a string with maximum "
                        f"length {_NAME_MAX}, but got a string with length {len(name)} instead.",
                        param=where, code="string_above_max_length")]
    return []


def _check_tools_effort(model: str, effort: object, has_tools: bool) -> list[Problem]:
    """The 400 for function tools on Chat Completions at a reasoning effort the model refuses.

    Some reasoning models take function tools on Chat Completions only at one effort
    (`models.Rules.chat_tools_effort`: gpt-6-luna, "none"; its default is "medium").
    The wording is paraphrased from the model page; no recorded error was found.

    >>> [p.path for p in _check_tools_effort("gpt-6-luna", None, True)]
    ['reasoning_effort']
    >>> _check_tools_effort("gpt-6-luna", "none", True), _check_tools_effort("gpt-4o", None, True)
    ([], [])
    """
    wanted = rules_of(model).chat_tools_effort
    if not has_tools or wanted is None or effort == wanted:
        return []
    said = "the default effort" if effort is None else f"'{effort}'"
    return [Problem(API_NAME, "reasoning_effort",
                    f"Function tools are not supported with reasoning_effort {said} for this model "
                    f"in Chat Completions. Set reasoning_effort to '{wanted}', or use the Responses "
                    "API.", param="reasoning_effort", code="unsupported_parameter")]


def _check_pairing(messages: Sequence[Mapping[str, Any]]) -> list[Problem]:
    """Every call answered right after its assistant message; every tool message an answer."""
    found: list[tuple[int, Problem]] = []
    owner: int | None = None          # index of the assistant message whose calls are open
    call_ids: list[str] = []          # its call ids, in order
    answered: set[str] = set()
    asked: set[str] = set()           # the same ids, to look up

    def close() -> None:
        missing = [i for i in call_ids if i not in answered]
        if owner is not None and missing:
            found.append((owner, Problem(
                API_NAME, f"messages.{owner}",
                "An assistant message with 'tool_calls' must be followed by tool messages responding "
                "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                + ", ".join(missing), param="messages")))

    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id is None:
                pass  # a shape problem (`_check_message_shapes`), not a pairing one
            elif owner is None or call_id in answered:
                # No assistant tool_calls right before this run, or a second answer to one id.
                found.append((index, Problem(
                    API_NAME, f"messages.{index}.role", "Invalid parameter: messages with role 'tool' must "
                    "be a response to a preceeding message with 'tool_calls'.",
                    param=f"messages.[{index}].role")))
            elif call_id not in asked:  # subtle: a set, so 3,000 parallel calls stay linear
                # subtle: the API's `param` for this one is not on record, so none is claimed.
                found.append((index, Problem(
                    API_NAME, f"messages.{index}.tool_call_id", f"Invalid parameter: 'tool_call_id' of "
                    f"'{call_id}' not found in 'tool_calls' of previous message.")))
            else:
                answered.add(call_id)
            continue
        close()
        owner, call_ids, answered = None, [], set()
        tool_calls = message.get("tool_calls")
        if role == "assistant" and tool_calls:
            owner, call_ids = index, [str(c.get("id")) for c in tool_calls]
        asked = set(call_ids)
    close()
    return [problem for _, problem in sorted(found, key=lambda pair: pair[0])]
