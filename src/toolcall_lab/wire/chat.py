"""OpenAI Chat Completions (`POST /v1/chat/completions`), the dialect most servers speak.

OpenAI's hosted API speaks it, and so do vLLM, llama.cpp's `llama-server`, LM Studio,
Ollama's `/v1` and most gateways. The kit's transcript maps onto it like this:

    kit                                   Chat Completions
    Transcript.system                     first message {"role": "system"}
    user TextBlock                        {"role": "user", "content": "..."}
    assistant text + ToolCalls            {"role": "assistant", "content": "..." | null,
                                           "tool_calls": [{"id", "type": "function",
                                           "function": {"name", "arguments": "<JSON string>"}}]}
    user ToolResults                      one {"role": "tool", "tool_call_id", "content"} each,
                                          in the order they appear; the message's text, if any,
                                          follows them as a {"role": "user"} message
    Tool                                  {"type": "function", "function": {"name",
                                           "description", "parameters"}}

Three things have no Chat field, so this module decides:

- `ToolResult.is_error`: the content is sent as "Error: <content>" (`ERROR_PREFIX`), and
  read back as an error when it starts so. A result whose own text begins with
  "Error: " therefore reads back as an error: the wire cannot tell them apart.
- Reasoning is never sent. OpenAI's own models return none in Chat (only a token
  count), and the `reasoning_content` / `reasoning` fields some local servers return
  are not part of the API, so no server promises to read them back.
- Order inside a message: Chat puts an assistant's text before its tool calls, and a
  user's tool results before its text, whatever order the kit's blocks were in.

Left out: streaming, images and audio, `n > 1`, the deprecated `functions` /
`function_call`, custom (grammar) tools and `tool_choice`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, assert_never

from ..messages import Block, Message, ReasoningBlock, TextBlock, ToolCall, ToolResult, Transcript
from ..tool import Tool
from ..turn import StopReason, Turn
from ..usage import Usage
from ._shared import (
    ERROR_PREFIX,
    arguments_json,
    chat_tools_effort,
    invalid_effort,
    parse_arguments,
    read_result_text,
    request_tool,
    result_text,
    strict_schema_problems,
    unsupported_reasoning,
)
from .problem import Problem

if TYPE_CHECKING:
    from . import API

__all__ = [
    "API_NAME",
    "ERROR_PREFIX",
    "MAX_TOKENS_FIELDS",
    "PROVIDER_NAME",
    "check_request",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "error_body",
]

#: The API's name, as `wire.API_SPECS` and every `Problem` of this API spell it.
API_NAME: API = "chat"
#: The name this codec stamps on the reasoning it decodes (`ReasoningBlock.provider`).
PROVIDER_NAME = "openai-chat"
#: The two spellings of the output limit: OpenAI's current one, and the older one that
#: local servers read (Ollama ignores `max_completion_tokens` without a word).
MAX_TOKENS_FIELDS = ("max_completion_tokens", "max_tokens")

_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
_NAME_MAX = 64
_THINK = re.compile(r"\A\s*<think>(.*?)</think>\s*", re.DOTALL)


# -- request: kit -> wire ---------------------------------------------------------------
def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                   max_tokens: int = 1024, reasoning_effort: str | None = None,
                   parallel_tool_calls: bool | None = None,
                   max_tokens_field: str = "max_completion_tokens") -> dict[str, Any]:
    """The Chat Completions request body for this conversation.

    >>> t = Transcript(system="Be brief.", messages=[Message.user("Hi")])
    >>> encode_request(t, model="gpt-6-luna", max_tokens=50, max_tokens_field="max_tokens")
    {'model': 'gpt-6-luna', 'messages': [{'role': 'system', 'content': 'Be brief.'}, \
{'role': 'user', 'content': 'Hi'}], 'max_tokens': 50}
    """
    if max_tokens_field not in MAX_TOKENS_FIELDS:
        raise ValueError(f"max_tokens_field must be one of {MAX_TOKENS_FIELDS}, got {max_tokens_field!r}")
    messages: list[dict[str, Any]] = []
    if transcript.system:
        messages.append({"role": "system", "content": transcript.system})
    for message in transcript:
        messages.extend(_encode_message(message))
    body: dict[str, Any] = {"model": model, "messages": messages}
    if tools:
        # subtle: no "tools": [] when there are none; the API refuses an empty array.
        body["tools"] = [{"type": "function", "function": {
            "name": t.name, "description": t.description, "parameters": dict(t.input_schema)}}
            for t in tools]
        if parallel_tool_calls is not None:
            # subtle: only beside tools; without them the API rejects the flag.
            body["parallel_tool_calls"] = parallel_tool_calls
    body[max_tokens_field] = max_tokens
    if reasoning_effort is not None:
        body["reasoning_effort"] = reasoning_effort
    return body


def _encode_message(message: Message) -> list[dict[str, Any]]:
    """One kit message as one or more Chat messages (results become `tool` messages)."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for block in message.blocks:
        match block:
            case TextBlock(text=text):
                texts.append(text)
            case ToolCall():
                calls.append({"id": block.id, "type": "function",
                              "function": {"name": block.name, "arguments": arguments_json(block)}})
            case ToolResult(call_id=call_id):
                results.append({"role": "tool", "tool_call_id": call_id, "content": result_text(block)})
            case ReasoningBlock():
                pass  # never replayed: see the module docstring
            case _:
                assert_never(block)
    if message.role == "assistant":
        # subtle: content may be null only beside tool_calls; an empty reply is "".
        assistant: dict[str, Any] = {"role": "assistant",
                                     "content": _content(texts) if texts else (None if calls else "")}
        if calls:
            assistant["tool_calls"] = calls
        return [assistant]
    if results and not texts:
        return results
    return [*results, {"role": "user", "content": _content(texts) if texts else ""}]


def _content(texts: list[str]) -> str | list[dict[str, str]]:
    """One text as a string; several as text parts, so their boundaries survive."""
    if len(texts) == 1:
        return texts[0]
    return [{"type": "text", "text": text} for text in texts]



# -- response: wire -> kit --------------------------------------------------------------
def decode_response(body: Mapping[str, Any]) -> Turn:
    """The `Turn` in a Chat Completions response body (the first choice).

    Tool use is read from the presence of `tool_calls`, never from `finish_reason`
    alone: local servers answer `"stop"` beside tool calls.

    >>> turn = decode_response({"model": "qwen3:4b", "choices": [{"finish_reason": "stop",
    ...     "message": {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1",
    ...     "type": "function", "function": {"name": "get_weather",
    ...     "arguments": "{\\"city\\": \\"Paris\\"}"}}]}}]})
    >>> turn.message, turn.stop_reason
    (Message.assistant(ToolCall('call_1', 'get_weather', {'city': 'Paris'})), StopReason.TOOL_USE)
    """
    choices = body.get("choices") or []
    if not choices:
        raise ValueError("the response has no choices")
    choice = choices[0]
    message = choice.get("message") or {}
    model = str(body.get("model") or "")
    blocks: list[Block] = []
    content = message.get("content")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if not reasoning and isinstance(content, str) and (think := _THINK.match(content)):
        # subtle: without a reasoning parser, Qwen3-style models leave <think>...</think>
        # at the start of content; take it out so it is not replayed as the model's words.
        reasoning, content = think.group(1).strip(), content[think.end():]
    if reasoning:
        blocks.append(ReasoningBlock(str(reasoning), PROVIDER_NAME, model or None))
    text = _text_of(content)
    if text:
        blocks.append(TextBlock(text))
    refusal = message.get("refusal")
    if refusal:
        blocks.append(TextBlock(refusal))
    calls = [_decode_call(call) for call in message.get("tool_calls") or []]
    blocks.extend(calls)
    return Turn(Message("assistant", tuple(blocks)),
                _stop_reason(choice.get("finish_reason"), bool(refusal), bool(calls)),
                _decode_usage(body.get("usage")), model)


def _stop_reason(finish_reason: str | None, refused: bool, called: bool) -> StopReason:
    if finish_reason == "length":
        # subtle: before tool calls: a call cut off by the limit has incomplete arguments.
        return StopReason.MAX_TOKENS
    if refused or finish_reason == "content_filter":
        return StopReason.REFUSAL
    if called:
        return StopReason.TOOL_USE
    # "stop", and "tool_calls" with an empty list (vLLM's `required` can send that).
    return StopReason.END_TURN


def _decode_call(call: Mapping[str, Any]) -> ToolCall:
    function = call.get("function") or {}
    call_id, name = str(call.get("id") or ""), str(function.get("name") or "")
    arguments = function.get("arguments")
    if isinstance(arguments, Mapping):  # a few servers send an object instead of a string
        return ToolCall(call_id, name, dict(arguments))
    text = "" if arguments is None else str(arguments)
    if not text.strip():
        # subtle: local servers send "" for a call without arguments; that is {}, not an error.
        return ToolCall(call_id, name, {})
    # subtle: text nested too deep ('[' * 5000) is malformed too, not a RecursionError.
    args = parse_arguments(text)
    if args is None:
        return ToolCall(call_id, name, {}, raw_args=text)
    return ToolCall(call_id, name, args)


def _decode_usage(usage: Mapping[str, Any] | None) -> Usage:
    """Chat's usage in the kit's convention, which is OpenAI's: cache and reasoning inside.

    Every field is optional: local servers leave out the details, and some the usage.
    """
    if not usage:
        return Usage()
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    input_tokens = int(usage.get("prompt_tokens") or 0)
    output_tokens = int(usage.get("completion_tokens") or 0)
    # subtle: parts are capped at their whole; a local server's odd count must not make
    # the whole reply unreadable (Usage refuses parts larger than the total).
    cache_read = min(int(prompt_details.get("cached_tokens") or 0), input_tokens)
    cache_write = min(int(prompt_details.get("cache_write_tokens") or 0), input_tokens - cache_read)
    reasoning = min(int(completion_details.get("reasoning_tokens") or 0), output_tokens)
    return Usage(input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cache_read,
                 cache_write_tokens=cache_write, reasoning_tokens=reasoning)


def _text_of(content: Any) -> str:
    """The text of a content field: a string, text parts, or null."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text") or part.get("refusal") or "" for part in content
                   if isinstance(part, Mapping))


# -- the server side (for the loopback API double) ---------------------------------------
def decode_request(body: Mapping[str, Any]) -> tuple[Transcript, tuple[Tool, ...]]:
    """The conversation and tools a Chat request carries: `encode_request` reversed.

    A run of `tool` messages becomes one user message of results; `system` and
    `developer` messages become the transcript's system prompt (joined by a blank line
    if there are several); images and other non-text parts are skipped.

    >>> t, tools = decode_request({"model": "m", "messages": [
    ...     {"role": "user", "content": "Hi"},
    ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
    ...      "function": {"name": "f", "arguments": "{}"}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "Error: no such city"}]})
    >>> t.messages
    [Message.user(TextBlock('Hi')), Message.assistant(ToolCall('c1', 'f', {})), \
Message.user(ToolResult('c1', 'no such city', is_error=True))]
    """
    system: list[str] = []
    messages: list[Message] = []
    results: list[ToolResult] = []
    for item in body.get("messages") or []:
        role = item.get("role")
        if role == "tool":
            results.append(_decode_result(item))
            continue
        if results:
            messages.append(Message.results(results))
            results = []
        match role:
            case "system" | "developer":
                system.append(_text_of(item.get("content")))
            case "user":
                messages.append(Message("user", _text_blocks(item.get("content"))))
            case "assistant":
                calls = tuple(_decode_call(c) for c in item.get("tool_calls") or [])
                messages.append(Message("assistant", _text_blocks(item.get("content")) + calls))
            case _:
                pass  # the deprecated "function" role: the kit never sends it
    if results:
        messages.append(Message.results(results))
    tools = tuple(_decode_tool(t["function"]) for t in body.get("tools") or []
                  if t.get("type", "function") == "function")
    return Transcript("\n\n".join(system) or None, messages), tools


def _text_blocks(content: Any) -> tuple[Block, ...]:
    if content is None or content == "":
        return ()
    if isinstance(content, str):
        return (TextBlock(content),)
    return tuple(TextBlock(part.get("text") or part.get("refusal") or "") for part in content
                 if isinstance(part, Mapping) and part.get("type") in ("text", "refusal"))


def _decode_result(item: Mapping[str, Any]) -> ToolResult:
    content, is_error = read_result_text(_text_of(item.get("content")))
    return ToolResult(str(item.get("tool_call_id") or ""), content, is_error)


def _decode_tool(function: Mapping[str, Any]) -> Tool:
    schema = dict(function.get("parameters") or {"type": "object", "properties": {}})
    schema.setdefault("type", "object")
    return request_tool(function["name"], function.get("description"), schema)



def encode_response(turn: Turn, *, response_id: str, created: int = 0) -> dict[str, Any]:
    """A Chat Completions response body for `turn`, as the API would send it.

    `created` is the Unix time a real server stamps (0 keeps test output stable).
    Lossy where Chat has no word for it: `stop_sequence` becomes "stop" (read back as
    end_turn), `pause_turn` and `context_window_exceeded` become "stop" and "length",
    several text blocks are joined by a newline, and reasoning goes out as the
    `reasoning_content` field local servers use.

    >>> from toolcall_lab import Message, Usage
    >>> body = encode_response(Turn(Message.assistant("Hi!"), "end_turn", Usage(12, 3), "m"),
    ...                        response_id="chatcmpl-1")
    >>> body["choices"][0]["message"]["content"], body["choices"][0]["finish_reason"]
    ('Hi!', 'stop')
    """
    texts = [b.text for b in turn.message.blocks if isinstance(b, TextBlock)]
    text = "\n".join(texts) if texts else None
    refused = turn.stop_reason is StopReason.REFUSAL
    message: dict[str, Any] = {"role": "assistant", "content": None if refused else text,
                               "refusal": text if refused else None, "annotations": []}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments_json(c)}}
            for c in turn.tool_calls]
    reasoning = [b.text for b in turn.message.blocks if isinstance(b, ReasoningBlock)]
    if reasoning:
        message["reasoning_content"] = "\n".join(reasoning)
    usage = turn.usage
    details: dict[str, int] = {"cached_tokens": usage.cache_read_tokens}
    if usage.cache_write_tokens:
        details["cache_write_tokens"] = usage.cache_write_tokens
    return {
        "id": response_id,
        "object": "chat.completion",
        "created": created,
        "model": turn.model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": _finish_reason(turn.stop_reason, refused_with_text=bool(text))}],
        "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
                  "total_tokens": usage.total_tokens, "prompt_tokens_details": details,
                  "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens}},
    }


def _finish_reason(stop_reason: StopReason, *, refused_with_text: bool) -> str:
    match stop_reason:
        case StopReason.TOOL_USE:
            return "tool_calls"
        case StopReason.MAX_TOKENS | StopReason.CONTEXT_WINDOW_EXCEEDED:
            return "length"
        case StopReason.REFUSAL:
            # A refusal with words travels in `refusal`; one without needs the filter reason.
            return "stop" if refused_with_text else "content_filter"
        case StopReason.END_TURN | StopReason.STOP_SEQUENCE | StopReason.PAUSE_TURN:
            return "stop"
        case _:
            assert_never(stop_reason)


# -- the API's rules ------------------------------------------------------------------------
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
        if function.get("strict"):  # subtle: Chat's default is strict false (Responses': true)
            problems.extend(strict_schema_problems(
                API_NAME, name, function.get("parameters"), path=f"tools.{index}.function.parameters",
                param=f"tools[{index}].function.parameters"))
    effort = body.get("reasoning_effort")
    problems.extend(invalid_effort(API_NAME, effort, "reasoning_effort"))
    if effort is not None:
        problems.extend(unsupported_reasoning(API_NAME, str(body.get("model", "")), "reasoning_effort"))
    problems.extend(chat_tools_effort(str(body.get("model", "")), effort, bool(body.get("tools"))))
    problems.extend(_check_pairing(messages))
    return problems


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


def _check_pairing(messages: Sequence[Mapping[str, Any]]) -> list[Problem]:
    """Every call answered right after its assistant message; every tool message an answer."""
    found: list[tuple[int, Problem]] = []
    owner: int | None = None          # index of the assistant message whose calls are open
    call_ids: list[str] = []          # its call ids, in order
    answered: set[str] = set()

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
            elif call_id not in call_ids:
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
    close()
    return [problem for _, problem in sorted(found, key=lambda pair: pair[0])]


def error_body(message: str, *, status: int = 400, param: str | None = None, code: str | None = None,
               error_type: str | None = None) -> dict[str, Any]:
    """The API's error JSON: `{"error": {"message", "type", "param", "code"}}`.

    The same shape as the Responses API's (`responses.error_body`): `status` picks the
    type ("invalid_request_error" for a 4xx, "requests" for a 429, "server_error" for a 5xx).

    >>> error_body("Invalid 'messages': empty array. ...", code="empty_array")["error"]["type"]
    'invalid_request_error'
    """
    from . import responses  # subtle: one OpenAI error shape serves both APIs; one copy of it

    return responses.error_body(message, status=status, param=param, code=code, error_type=error_type)
