"""Is a request body the right *shape*? The type checks each API runs before its rules.

A real API validates a body against its schema before anything else, and answers a
wrong shape with a 400 in its own error format: `messages: 5`, `messages: [null]`, a
content block without a `type`, an object where the model name goes, Chat tool-call
`arguments` sent as an object instead of a string of JSON. The codecs'
`check_request` assumes the shape is right and checks the *rules* (pairing, thinking,
models); this module runs first, so a misshapen body gets the API's 400 instead of
crashing the double into a 500, which the SDKs would retry.

    >>> first_problem("chat", {"model": "m", "messages": 5})
    Problem(api='chat', path='messages', text="Invalid type for 'messages': expected an array, \
but got an integer instead.", param='messages', code='invalid_type')
    >>> first_problem("anthropic", {"model": "m", "max_tokens": 8, "messages": [None]}).text
    'messages.0: Input should be a valid dictionary'

Each API in its own words: Anthropic's validator speaks pydantic ("Field required",
"Input should be a valid list"), OpenAI's says "Invalid type for 'messages[0]': expected
an object, but got null instead." with `code` "invalid_type" or
"missing_required_parameter", and Ollama's Go server "json: cannot unmarshal number into
Go struct field ChatRequest.messages of type []api.Message". These are the patterns the
APIs are seen to use; the exact text of each case is inferred from them, not recorded.

Left out: value ranges, enum values other than roles and item types, every field the
kit does not read (a real API checks those too; here they pass).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..wire import Problem

__all__ = ["first_problem"]

_OPENAI_NAMES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
                 int: "an integer", float: "a number", type(None): "null"}
_GO_NAMES = {dict: "object", list: "array", str: "string", bool: "bool", int: "number",
             float: "number", type(None): "null"}
_PYDANTIC = {dict: "a valid dictionary", list: "a valid list", str: "a valid string", int: "a valid integer"}


def first_problem(api: str, body: dict[str, Any]) -> Problem | None:
    """The first thing in `body` that has the wrong shape for `api`, or None."""
    return {"anthropic": _anthropic, "responses": _responses, "chat": _chat, "ollama": _ollama}[api](body)


def _is(value: object, *kinds: type) -> bool:
    # subtle: True is an int in Python, never in JSON; so a bool is only ever a bool.
    return isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))


# -- Anthropic: pydantic's words, paths with dots -----------------------------------------------
def _anthropic(body: dict[str, Any]) -> Problem | None:
    def bad(path: str, text: str) -> Problem:
        return Problem("anthropic", path, f"{path}: {text}")

    def need(container: dict[str, Any], key: str, kind: type, path: str) -> Problem | None:
        if key not in container:
            return bad(path, "Field required")
        return None if _is(container[key], kind) else bad(path, f"Input should be {_PYDANTIC[kind]}")

    kind: type
    for key, kind in (("model", str), ("max_tokens", int), ("messages", list)):
        if problem := need(body, key, kind, key):
            return problem
    for i, message in enumerate(body["messages"]):
        if not _is(message, dict):
            return bad(f"messages.{i}", "Input should be a valid dictionary")
        if message.get("role") not in ("user", "assistant", "system"):
            return bad(f"messages.{i}.role", "Input should be 'user' or 'assistant'")
        content = message.get("content")
        if _is(content, str):
            continue
        if problem := need(message, "content", list, f"messages.{i}.content"):
            return problem
        for j, block in enumerate(content):
            if problem := _anthropic_block(block, f"messages.{i}.content.{j}", bad, need):
                return problem
    for i, tool in enumerate(body.get("tools") or []):
        if not _is(tool, dict):
            return bad(f"tools.{i}", "Input should be a valid dictionary")
        if tool.get("type", "custom") == "custom":
            for key, kind in (("name", str), ("input_schema", dict)):
                if problem := need(tool, key, kind, f"tools.{i}.custom.{key}"):
                    return problem
    return None


_ANTHROPIC_BLOCKS = {"text": (("text", str),), "tool_use": (("id", str), ("name", str), ("input", dict)),
                     "tool_result": (("tool_use_id", str),), "redacted_thinking": (("data", str),),
                     "thinking": (("thinking", str), ("signature", str)), "image": (), "document": (),
                     "search_result": (), "server_tool_use": (("id", str), ("name", str), ("input", dict)),
                     # the results of Anthropic's own tools, replayed as they came (SDK 2.14)
                     "web_search_tool_result": (("tool_use_id", str),),
                     "web_fetch_tool_result": (("tool_use_id", str),),
                     "code_execution_tool_result": (("tool_use_id", str),),
                     "bash_code_execution_tool_result": (("tool_use_id", str),),
                     "text_editor_code_execution_tool_result": (("tool_use_id", str),),
                     "tool_search_tool_result": (("tool_use_id", str),), "container_upload": ()}


def _anthropic_block(block: Any, path: str, bad: Callable[..., Problem],
                     need: Callable[..., Problem | None]) -> Problem | None:
    if not _is(block, dict):
        return bad(path, "Input should be a valid dictionary")
    kind = block.get("type")
    if kind is None:
        return bad(path, "Unable to extract tag using discriminator 'type'")
    if kind not in _ANTHROPIC_BLOCKS:
        tags = ", ".join(f"'{t}'" for t in _ANTHROPIC_BLOCKS)
        return bad(path, f"Input tag '{kind}' found using 'type' does not match any of the expected "
                         f"tags: {tags}")
    for key, value_kind in _ANTHROPIC_BLOCKS[kind]:
        if problem := need(block, key, value_kind, f"{path}.{kind}.{key}"):
            return problem
    return None


# -- OpenAI (Responses and Chat): "Invalid type for 'x[0]'", "Missing required parameter" -------
def _openai(api: str) -> tuple[Callable[..., Problem | None], Callable[..., Problem | None],
                               Callable[..., Problem]]:
    def need(container: dict[str, Any], key: str, kinds: tuple[type, ...], param: str,
             expected: str) -> Problem | None:
        if key not in container or container[key] is None and type(None) not in kinds:
            return Problem(api, param, f"Missing required parameter: '{param}'.", param=param,
                           code="missing_required_parameter")
        return typed(container[key], kinds, param, expected)

    def typed(value: object, kinds: tuple[type, ...], param: str, expected: str) -> Problem | None:
        if _is(value, *kinds):
            return None
        got = _OPENAI_NAMES.get(type(value), "a value")
        return Problem(api, param, f"Invalid type for '{param}': expected {expected}, but got {got} instead.",
                       param=param, code="invalid_type")

    def invalid_value(param: str, value: object, allowed: tuple[str, ...]) -> Problem:
        listed = ", ".join(f"'{a}'" for a in allowed[:-1]) + f", and '{allowed[-1]}'"
        return Problem(api, param, f"Invalid value: '{value}'. Supported values are: {listed}.",
                       param=param, code="invalid_value")

    return need, typed, invalid_value


_ITEM_FIELDS = {"function_call": (("call_id", str), ("name", str), ("arguments", str)),
                "function_call_output": (("call_id", str),), "reasoning": (("id", str), ("summary", list)),
                "web_search_call": (("id", str),)}


def _responses(body: dict[str, Any]) -> Problem | None:
    need, typed, invalid_value = _openai("responses")
    if problem := (need(body, "model", (str,), "model", "a string")
                   or need(body, "input", (str, list), "input", "a string or an array of input items")):
        return problem
    if isinstance(body.get("instructions"), dict | list | int | float):
        return need(body, "instructions", (str,), "instructions", "a string")
    for i, item in enumerate(body["input"] if isinstance(body["input"], list) else []):
        if problem := typed(item, (dict,), f"input[{i}]", "an object"):
            return problem
        kind = item.get("type", "message")
        if kind == "message":
            problem = (need(item, "role", (str,), f"input[{i}].role", "a string")
                       or need(item, "content", (str, list), f"input[{i}].content", "a string or an array"))
            if problem:
                return problem
            if item["role"] not in ("user", "assistant", "system", "developer"):
                roles = ("user", "assistant", "system", "developer")
                return invalid_value(f"input[{i}].role", item["role"], roles)
            for j, part in enumerate(item["content"] if isinstance(item["content"], list) else []):
                where = f"input[{i}].content[{j}]"
                if problem := (typed(part, (dict,), where, "an object")
                               or need(part, "type", (str,), f"{where}.type", "a string")):
                    return problem
        elif kind in _ITEM_FIELDS:
            for key, value_kind in _ITEM_FIELDS[kind]:
                if problem := need(item, key, (value_kind,), f"input[{i}].{key}", "a string"
                                   if value_kind is str else "an array"):
                    return problem
            if kind == "function_call_output" and (problem := need(
                    item, "output", (str, list), f"input[{i}].output", "a string or an array")):
                return problem
        else:
            return invalid_value(f"input[{i}].type", kind, ("message", *_ITEM_FIELDS))
    return _openai_tools(body, "responses", lambda tool: tool)


def _chat(body: dict[str, Any]) -> Problem | None:
    need, typed, invalid_value = _openai("chat")
    if problem := (need(body, "model", (str,), "model", "a string")
                   or need(body, "messages", (list,), "messages", "an array")):
        return problem
    roles = ("system", "developer", "user", "assistant", "tool", "function")
    for i, message in enumerate(body["messages"]):
        where = f"messages[{i}]"
        if problem := (typed(message, (dict,), where, "an object")
                       or need(message, "role", (str,), f"{where}.role", "a string")):
            return problem
        if message["role"] not in roles:
            return invalid_value(f"{where}.role", message["role"], roles)
        optional = message["role"] == "assistant"  # an assistant with tool_calls may have no content
        if not (optional and message.get("content") is None) and (problem := need(
                message, "content", (str, list), f"{where}.content", "a string or an array")):
            return problem
        for j, part in enumerate(message.get("content") if isinstance(message.get("content"), list) else []):
            if problem := (typed(part, (dict,), f"{where}.content[{j}]", "an object")
                           or need(part, "type", (str,), f"{where}.content[{j}].type", "a string")):
                return problem
        for j, call in enumerate(message.get("tool_calls") or [] if optional else []):
            at = f"{where}.tool_calls[{j}]"
            if problem := (typed(call, (dict,), at, "an object")
                           or need(call, "id", (str,), f"{at}.id", "a string")
                           or need(call, "function", (dict,), f"{at}.function", "an object")
                           or need(call["function"], "name", (str,), f"{at}.function.name", "a string")
                           # subtle: Chat's arguments are a JSON *string*; an object is refused
                           or need(call["function"], "arguments", (str,), f"{at}.function.arguments",
                                   "a string")):
                return problem
    return _openai_tools(body, "chat", lambda tool: tool.get("function"))


def _openai_tools(body: dict[str, Any], api: str,
                  function_of: Callable[[dict[str, Any]], Any]) -> Problem | None:
    need, typed, _ = _openai(api)
    if problem := need({"tools": body.get("tools") or []}, "tools", (list,), "tools", "an array"):
        return problem
    for i, tool in enumerate(body.get("tools") or []):
        if problem := typed(tool, (dict,), f"tools[{i}]", "an object"):
            return problem
        if tool.get("type", "function") != "function":
            continue
        spec = function_of(tool)
        where = f"tools[{i}]" if api == "responses" else f"tools[{i}].function"
        if problem := (typed(spec, (dict,), where, "an object")
                       or need(spec, "name", (str,), f"{where}.name", "a string")):
            return problem
    return None


# -- Ollama: Go's encoding/json ---------------------------------------------------------------
def _ollama(body: dict[str, Any]) -> Problem | None:
    def wrong(value: object, field: str, go_type: str) -> Problem:
        got = _GO_NAMES.get(type(value), "value")
        return Problem("ollama", field.lower(),
                       f"json: cannot unmarshal {got} into Go struct field {field} of type {go_type}")

    for key, kind, go_type in (("model", str, "string"), ("messages", list, "[]api.Message"),
                               ("tools", list, "api.Tools")):
        value = body.get(key)
        if value is not None and not _is(value, kind):
            return wrong(value, f"ChatRequest.{key}", go_type)
    for i, message in enumerate(body.get("messages") or []):
        if message is None:
            # subtle: Go reads null into an empty message and Ollama would go on with it;
            # the double has nothing to play, so it says so rather than guess.
            return Problem("ollama", f"messages.{i}", f"messages[{i}] is null; send an object with a "
                           "role and content")
        if not _is(message, dict):
            return wrong(message, "ChatRequest.messages", "api.Message")
        for key in ("role", "content"):
            if key in message and not _is(message[key], str):
                return wrong(message[key], f"ChatRequest.messages.{key}", "string")
    for tool in body.get("tools") or []:
        if not _is(tool, dict):
            return wrong(tool, "ChatRequest.tools", "api.Tool")
        if not _is(tool.get("function"), dict) or not _is(tool["function"].get("name"), str):
            return Problem("ollama", "tools", "json: a tool needs a function with a name")
    return None
