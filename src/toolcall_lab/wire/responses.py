"""The OpenAI Responses API (`POST /v1/responses`): the kit's transcript as input *items*.

Where the kit has messages made of blocks, Responses has one flat list of items, and
tool calls and their results are items of their own, not parts of a message:

    kit                                 Responses input item
    Transcript.system                   top-level "instructions"
    user TextBlocks (side by side)      {"type": "message", "role": "user",
                                         "content": [{"type": "input_text", "text": ...}, ...]}
    assistant TextBlock                 {"type": "message", "role": "assistant", "content": "..."}
    ToolCall                            {"type": "function_call", "call_id", "name",
                                         "arguments": "<JSON text>"}
    ToolResult                          {"type": "function_call_output", "call_id", "output"}
    ReasoningBlock (made by "openai")   the reasoning item it came from, verbatim

    >>> from toolcall_lab import Message, ToolCall, ToolResult, Transcript
    >>> t = Transcript(messages=[Message.user("Weather in Paris?"),
    ...                          Message.assistant(ToolCall("call_1", "get_weather", {"city": "Paris"})),
    ...                          Message.results([ToolResult("call_1", "18°C, sunny")])])
    >>> [item["type"] for item in encode_request(t, model="gpt-6-luna")["input"]]
    ['message', 'function_call', 'function_call_output']

Choices worth knowing:

- Assistant text goes back as *string* content. The spec's `EasyInputMessage` takes any
  role with a string; the other spelling, an output message with `output_text` parts, is
  the spec's `OutputMessage`, which requires the `msg_` id, a `status` and `logprobs`
  the kit does not keep. User text uses `input_text` parts, one per `TextBlock`, so a
  request decodes back into the same blocks.
- Function-call items carry no `fc_` id. On input the id is optional and `call_id`
  alone pairs a call with its output. Sending `fc_` ids would also tie each call to the
  reasoning item it came with (`Item 'fc_...' of type 'function_call' was provided
  without its required 'reasoning' item`), a rule the kit then could not keep when a
  transcript drops reasoning.
- A failed tool is signalled in words: there is no `is_error` on the wire, so the output
  starts with `ERROR_PREFIX` ("Error: "), which `decode_request` strips again. (A
  successful result that itself begins with "Error: " reads back as an error.)
- Reasoning is replayed as the whole item the model sent (`ReasoningBlock.opaque`),
  `encrypted_content` untouched; reasoning from other providers is dropped, and so is
  an OpenAI block without its item (nothing the API could verify). The provider asks
  for `store: false` by default, so with `reasoning_effort` it also asks for
  `include: ["reasoning.encrypted_content"]`: without it a stateless request cannot
  replay reasoning (`Item with id 'rs_...' not found`). It is not sent without
  `reasoning_effort`, because non-reasoning models reject it with a 400 ("Encrypted
  content is not supported with this model.").

The server side (`decode_request`, `encode_response`) lets the loopback API double play
OpenAI; the double mints `encrypted_content` with `seal_reasoning` (from `wire.signing`),
and `check_request` (the API's rules, in `wire/rules/responses.py`, re-exported here)
refuses a sealed value that was altered, as the real API does.

Left out: images and files, built-in tools (web search, ...), streaming, and
`previous_response_id` conversations (the pairing rules are then not checked, since the
earlier items live on OpenAI's servers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, assert_never

from ..errors import InvalidRequestError, ProviderError, RateLimitError, ServerError
from ..messages import Block, Message, ReasoningBlock, TextBlock, ToolCall, ToolResult, Transcript
from ..tool import Tool
from ..turn import StopReason, Turn
from ..usage import Usage
from ._shared import (
    ERROR_PREFIX,
    arguments_json,
    parse_arguments,
    plain_json,
    read_result_text,
    request_tool,
    result_text,
)
from .signing import seal_reasoning, unseal_reasoning

if TYPE_CHECKING:
    from . import API

__all__ = ["API_NAME", "ERROR_PREFIX", "PROVIDER_NAME", "check_request", "decode_request",
           "decode_response", "encode_request", "encode_response", "error_body", "seal_reasoning",
           "unseal_reasoning"]

#: The API's name, as `wire.API_SPECS` and every `Problem` of this API spell it.
API_NAME: API = "responses"
#: The name stamped on `ReasoningBlock.provider`: only blocks with it are replayed here.
PROVIDER_NAME = "openai"


# -- client side: request out, response in ------------------------------------------------
def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                   max_tokens: int = 1024, reasoning_effort: str | None = None,
                   store: bool = False) -> dict[str, Any]:
    """The `POST /v1/responses` body for this conversation.

    `reasoning_effort` ("low", "medium", "high", ...) sets `reasoning.effort`; `store`
    is whether OpenAI keeps the response (the kit sends everything each time, so False).

    >>> from toolcall_lab import Transcript, Message
    >>> body = encode_request(Transcript("Be brief.", [Message.user("Hi")]), model="gpt-6-luna")
    >>> body["instructions"], body["store"]
    ('Be brief.', False)
    >>> body["input"]
    [{'type': 'message', 'role': 'user', 'content': [{'type': 'input_text', 'text': 'Hi'}]}]
    """
    body: dict[str, Any] = {"model": model}
    if transcript.system is not None:
        body["instructions"] = transcript.system
    body["input"] = [item for message in transcript for item in _items(message)]
    body["tools"] = [_tool_spec(t) for t in tools]
    body["max_output_tokens"] = max_tokens
    body["store"] = store
    if reasoning_effort is not None:
        body["reasoning"] = {"effort": reasoning_effort}
        if not store:
            body["include"] = ["reasoning.encrypted_content"]
    return body


def _items(message: Message) -> list[dict[str, Any]]:
    """The input items of one message, in the order of its blocks."""
    items: list[dict[str, Any]] = []
    for block in message.blocks:
        match block:
            case TextBlock(text=text) if message.role == "assistant":
                items.append({"type": "message", "role": "assistant", "content": text})
            case TextBlock(text=text):
                part = {"type": "input_text", "text": text}
                if items and items[-1].get("role") == "user":
                    items[-1]["content"].append(part)  # text next to text: one message
                else:
                    items.append({"type": "message", "role": "user", "content": [part]})
            case ToolCall(id=call_id, name=name):
                items.append({"type": "function_call", "call_id": call_id, "name": name,
                              "arguments": arguments_json(block)})
            case ToolResult(call_id=call_id):
                items.append({"type": "function_call_output", "call_id": call_id,
                              "output": result_text(block)})
            case ReasoningBlock(opaque=opaque):
                if block.replayable_to(PROVIDER_NAME) and opaque:
                    items.append(plain_json(opaque))  # verbatim: encrypted_content is checked
            case _:
                assert_never(block)
    return items



def _tool_spec(tool: Tool) -> dict[str, Any]:
    # subtle: the Responses API treats a missing `strict` as TRUE (Chat Completions as false).
    # Strict mode demands every property in `required` and "additionalProperties": false,
    # so a tool with an optional parameter is refused ("Invalid schema for function ...").
    # The kit validates arguments itself, so it always says strict: false out loud.
    return {"type": "function", "name": tool.name, "description": tool.description,
            "parameters": plain_json(tool.input_schema), "strict": False}


def decode_response(body: Mapping[str, Any]) -> Turn:
    """The `Turn` in a Responses body: output items become blocks, in order.

    `status` "completed" with `function_call` items means tool_use; "incomplete" means
    max_tokens (or refusal, for `content_filter`); a refusal part means refusal. A
    "failed" response raises the kit's error for its `error.code` (server_error ->
    `ServerError`, rate_limit_exceeded -> `RateLimitError`, invalid_* ->
    `InvalidRequestError`). Output items of built-in tools are skipped.

    >>> turn = decode_response({"model": "gpt-6-luna", "status": "completed", "output": [
    ...     {"type": "function_call", "call_id": "call_1", "name": "get_weather",
    ...      "arguments": '{"city":"Paris"}'}],
    ...     "usage": {"input_tokens": 50, "output_tokens": 12}})
    >>> turn.tool_calls, turn.stop_reason
    ((ToolCall('call_1', 'get_weather', {'city': 'Paris'}),), StopReason.TOOL_USE)
    >>> turn.usage
    Usage(input_tokens=50, output_tokens=12)
    """
    status = body.get("status") or "completed"
    if status == "failed":
        raise _failure(body.get("error"))
    if status not in ("completed", "incomplete"):
        raise ValueError(f"the response is {status!r}, not finished; the kit sends no background "
                         "requests, so a finished response (completed or incomplete) was expected")
    model = body["model"]
    blocks: list[Block] = []
    refused = False
    for item in body["output"]:
        match item.get("type"):
            case "reasoning":
                blocks.append(ReasoningBlock(_summary(item), PROVIDER_NAME, model, plain_json(item)))
            case "message":
                for part in item["content"]:
                    refused = refused or part["type"] == "refusal"
                    blocks.append(TextBlock(_part_text(part)))
            case "function_call":
                blocks.append(_call(item["call_id"], item["name"], item["arguments"]))
            case _:
                continue  # built-in tool items (web_search_call, ...): not in the kit's vocabulary
    has_calls = any(isinstance(b, ToolCall) for b in blocks)
    stop = _stop_reason(status, body.get("incomplete_details"), has_calls=has_calls, refused=refused)
    return Turn(Message("assistant", tuple(blocks)), stop, _decode_usage(body.get("usage")), model)


def _stop_reason(status: str, details: Mapping[str, Any] | None, *, has_calls: bool,
                 refused: bool) -> StopReason:
    """Responses has no finish_reason: it is read off `status` and the output."""
    if refused:
        return StopReason.REFUSAL
    if status == "incomplete":
        reason = (details or {}).get("reason")
        if reason == "content_filter":
            return StopReason.REFUSAL
        # subtle: any other reason ("max_output_tokens", or one added later) means the
        # output was cut short, which is what max_tokens tells a loop.
        return StopReason.MAX_TOKENS
    return StopReason.TOOL_USE if has_calls else StopReason.END_TURN


def _decode_usage(usage: Mapping[str, Any] | None) -> Usage:
    """OpenAI already counts the kit's way: cached tokens inside input, reasoning inside output."""
    if not usage:
        return Usage()
    read_write = usage.get("input_tokens_details") or {}  # missing in older recordings
    output = usage.get("output_tokens_details") or {}
    return Usage(input_tokens=usage["input_tokens"], output_tokens=usage["output_tokens"],
                 cache_read_tokens=read_write.get("cached_tokens") or 0,
                 cache_write_tokens=read_write.get("cache_write_tokens") or 0,
                 reasoning_tokens=output.get("reasoning_tokens") or 0)


def _failure(error: Mapping[str, Any] | None) -> ProviderError:
    """The kit's error for a response whose status is "failed"."""
    code = str((error or {}).get("code") or "server_error")
    said = str((error or {}).get("message") or "no message").rstrip(".")
    where = f"openai could not finish the response ({code}: {said})"
    if code == "rate_limit_exceeded":
        return RateLimitError(f"{where}; wait a little and call again.", provider=PROVIDER_NAME)
    if code.startswith("invalid_"):
        return InvalidRequestError(f"{where}; change what the request sends and try again.",
                                   provider=PROVIDER_NAME)
    return ServerError(f"{where}; the request may be fine, try again later.", provider=PROVIDER_NAME)


def _call(call_id: str, name: str, arguments: str) -> ToolCall:
    """A ToolCall; arguments that are not a JSON object are kept as `raw_args`.

    e.g. '[' * 5000 (too deep for Python's parser) -> ToolCall(args={}, raw_args='[[[...').
    """
    args = parse_arguments(arguments) if isinstance(arguments, str) else None
    if args is None:
        return ToolCall(call_id, name, {}, raw_args=arguments if isinstance(arguments, str) else "")
    return ToolCall(call_id, name, args)


def _summary(item: Mapping[str, Any]) -> str:
    """The readable part of a reasoning item: its summary texts, one paragraph each."""
    return "\n\n".join(part.get("text", "") for part in item.get("summary") or [])


def _part_text(part: Mapping[str, Any]) -> str:
    match part.get("type"):
        case "input_text" | "output_text":
            return part["text"]
        case "refusal":
            return part["refusal"]
        case other:
            raise ValueError(f"a message content part of type {other!r} is not text; the kit "
                             "reads input_text, output_text and refusal parts only")


# -- server side: what the API double reads and answers ------------------------------------
def decode_request(body: Mapping[str, Any]) -> tuple[Transcript, tuple[Tool, ...]]:
    """The conversation and tools in a request body: the inverse of `encode_request`.

    Items of one side in a row make one message (a call with its reasoning, results with
    the question after them). `instructions` and any system/developer messages become
    the system prompt. A ReasoningBlock read back has no `model` (the request does not
    say which model made it).

    >>> body = {"model": "m", "input": [
    ...     {"type": "message", "role": "user", "content": "Hi"},
    ...     {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
    ...     {"type": "function_call_output", "call_id": "c1", "output": "Error: no such city"}]}
    >>> transcript, tools = decode_request(body)
    >>> for message in transcript:
    ...     print(message)
    Message.user(TextBlock('Hi'))
    Message.assistant(ToolCall('c1', 'get_weather', {}))
    Message.user(ToolResult('c1', 'no such city', is_error=True))
    """
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    system = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    messages: list[Message] = []
    for index, item in enumerate(items):
        role, blocks = _read_item(item, index)
        if role == "system":
            system.extend(b.text for b in blocks if isinstance(b, TextBlock))
        elif messages and messages[-1].role == role:
            messages[-1] = Message(role, messages[-1].blocks + blocks)
        elif blocks:
            messages.append(Message(role, blocks))
    tools = tuple(_read_tool(spec, index) for index, spec in enumerate(body.get("tools") or []))
    return Transcript("\n\n".join(system) if system else None, messages), tools


def _read_item(item: Mapping[str, Any], index: int) -> tuple[str, tuple[Block, ...]]:
    """(role, blocks) of one input item; role "system" for system/developer messages."""
    match item.get("type", "message"):  # subtle: `type` is optional on an EasyInputMessage
        case "message":
            content = item["content"]
            texts = [content] if isinstance(content, str) else [_part_text(p) for p in content]
            role = "system" if item["role"] in ("system", "developer") else item["role"]
            return role, tuple(TextBlock(t) for t in texts)
        case "function_call":
            return "assistant", (_call(item["call_id"], item["name"], item["arguments"]),)
        case "function_call_output":
            output = item["output"]
            if not isinstance(output, str):
                output = "".join(_part_text(part) for part in output)
            content, is_error = read_result_text(output)
            return "user", (ToolResult(item["call_id"], content, is_error),)
        case "reasoning":
            return "assistant", (ReasoningBlock(_summary(item), PROVIDER_NAME, None, plain_json(item)),)
        case other:
            raise ValueError(f"input item {index} has type {other!r}, which the kit does not "
                             "model; it reads messages, function calls, their outputs and reasoning")


def _read_tool(spec: Mapping[str, Any], index: int) -> Tool:
    if spec.get("type") != "function":
        raise ValueError(f"tool {index} has type {spec.get('type')!r}; the kit reads function "
                         "tools only")
    schema = spec.get("parameters") or {"type": "object", "properties": {}}
    return request_tool(spec["name"], spec.get("description"), schema)


def encode_response(turn: Turn, *, response_id: str, created_at: float = 0,
                    request: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A Responses body carrying `turn`, as OpenAI would answer it.

    Item ids are made from `response_id`; `request`, when given, is echoed the way the
    API echoes it (instructions, tools, max_output_tokens, reasoning, store). An OpenAI
    ReasoningBlock with its item is sent back as that item; any other reasoning gets a
    new item whose `encrypted_content` is `seal_reasoning(text)`. The stop reasons the
    API can say come back from `decode_response` unchanged: end_turn, tool_use,
    max_tokens, refusal (others are sent as "completed").

    >>> from toolcall_lab import Message, StopReason, Turn, Usage
    >>> turn = Turn(Message.assistant("Hello!"), StopReason.END_TURN, Usage(5, 2), "gpt-6-luna")
    >>> body = encode_response(turn, response_id="resp_1")
    >>> body["status"], body["output"][0]["content"][0]["text"], decode_response(body).message.blocks
    ('completed', 'Hello!', (TextBlock('Hello!'),))
    """
    suffix = response_id.removeprefix("resp_")
    refusal = turn.stop_reason is StopReason.REFUSAL
    has_text = any(isinstance(b, TextBlock) for b in turn.message.blocks)
    incomplete = turn.stop_reason is StopReason.MAX_TOKENS or (refusal and not has_text)
    item_status = "incomplete" if incomplete else "completed"
    output: list[dict[str, Any]] = []
    for index, block in enumerate(turn.message.blocks):
        match block:
            case ReasoningBlock():
                output.append(_reasoning_item(block, f"rs_{suffix}_{index}"))
            case TextBlock(text=text):
                part = ({"type": "refusal", "refusal": text} if refusal else
                        {"type": "output_text", "text": text, "annotations": [], "logprobs": []})
                if output and output[-1]["type"] == "message":
                    output[-1]["content"].append(part)
                else:
                    output.append({"type": "message", "id": f"msg_{suffix}_{index}",
                                   "status": item_status, "role": "assistant", "content": [part]})
            case ToolCall(id=call_id, name=name):
                output.append({"type": "function_call", "id": f"fc_{suffix}_{index}",
                               "call_id": call_id, "name": name, "arguments": arguments_json(block),
                               "status": item_status})
            case ToolResult():
                raise ValueError("a reply cannot hold a ToolResult")  # Message forbids it too
            case _:
                assert_never(block)
    reason = "max_output_tokens" if turn.stop_reason is StopReason.MAX_TOKENS else "content_filter"
    asked = request or {}
    usage = turn.usage
    return {
        "id": response_id, "object": "response", "created_at": created_at,
        "status": "incomplete" if incomplete else "completed",
        "completed_at": None if incomplete else created_at,
        "error": None,
        "incomplete_details": {"reason": reason} if incomplete else None,
        "instructions": asked.get("instructions"),
        "max_output_tokens": asked.get("max_output_tokens"),
        "model": turn.model,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": (asked.get("reasoning") or {}).get("effort"), "summary": None},
        "store": asked.get("store", True),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [_echo_tool(spec) for spec in asked.get("tools") or []],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": usage.input_tokens,
            "input_tokens_details": {"cached_tokens": usage.cache_read_tokens,
                                     "cache_write_tokens": usage.cache_write_tokens},
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
            "total_tokens": usage.total_tokens,
        },
        "metadata": {},
    }


def _reasoning_item(block: ReasoningBlock, item_id: str) -> dict[str, Any]:
    if block.replayable_to(PROVIDER_NAME) and block.opaque.get("type") == "reasoning":
        return plain_json(block.opaque)
    summary = [{"type": "summary_text", "text": block.text}] if block.text else []
    return {"type": "reasoning", "id": item_id, "summary": summary,
            "encrypted_content": seal_reasoning(block.text)}


def _echo_tool(spec: Mapping[str, Any]) -> dict[str, Any]:
    echoed = plain_json(spec)
    echoed.setdefault("strict", True)  # what the API reports when a request leaves it out
    echoed.setdefault("parameters", None)
    return echoed


# -- the API's error shape ------------------------------------------------------------------
def error_body(message: str, *, status: int = 400, param: str | None = None,
               code: str | None = None, error_type: str | None = None) -> dict[str, Any]:
    """An OpenAI error body: `{"error": {"message", "type", "param", "code"}}`.

    The type follows the status as OpenAI sends it: 4xx "invalid_request_error" (a
    refused key too, with code "invalid_api_key"), 429 "requests" (the limit that was
    hit; OpenAI also says "tokens"), 5xx "server_error".

    >>> error = error_body("No tool output found for function call call_1.", param="input")["error"]
    >>> error["type"], error["param"], error["code"]
    ('invalid_request_error', 'input', None)
    >>> error_body("Rate limit reached for requests", status=429)["error"]["type"]
    'requests'
    """
    if error_type is None:
        error_type = ("requests" if status == 429 else
                      "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


# -- the API's rules, in a module of their own ------------------------------------------------
# subtle: imported last, because the rules read this module's API_NAME; re-exported, so
# this module stays the API's one codec (`wire.API_SPECS`).
from .rules.responses import check_request  # noqa: E402
