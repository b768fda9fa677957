"""OpenAI Chat Completions' client half: a `/v1/chat/completions` body out, its reply in.

`encode_request` writes a transcript as Chat messages (see the package's docstring,
`wire.chat`, for what maps to what and the three things Chat has no field for);
`decode_response` reads the first choice into a `Turn`, tool use read from the presence
of `tool_calls` (local servers answer "stop" beside them), and a Qwen3-style `<think>`
prefix taken out of the content as reasoning; `why_dropped` says why a request leaves
reasoning out (always). The call and content readers are this folder's (`_blocks.py`),
shared with the server half.

Left out: `n > 1` (only the first choice is read), logprobs, and audio.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from ...blocks import Block, ReasoningBlock, ServerToolCall, ServerToolResult, TextBlock, ToolCall, ToolResult
from ...errors import UsageError
from ...messages import Message
from ...output_format import OutputFormat
from ...tool import Tool
from ...tool_choice import MODES, check_tool_choice
from ...transcript import Transcript
from ...turn import StopReason, Turn
from ...usage import Usage
from .._fields import COUNT, LIST, OBJECT, STRING, TEXT, Field, check_reply
from .._openai.client import arguments_json, prompt_cache_fields
from .._shared import from_the_wire, made_elsewhere, result_text, sampling
from ._blocks import API_NAME, PROVIDER_NAME, read_call, text_of

__all__ = ["MAX_TOKENS_FIELDS", "REPLY_FIELDS", "decode_response", "encode_messages", "encode_request",
           "why_dropped"]

#: The two spellings of the output limit: OpenAI's current one, and the older one that
#: local servers read (Ollama ignores `max_completion_tokens` without a word).
MAX_TOKENS_FIELDS = ("max_completion_tokens", "max_tokens")

_THINK = re.compile(r"\A\s*<think>(.*?)</think>\s*", re.DOTALL)


# -- request out ---------------------------------------------------------------------------------
def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                   max_tokens: int = 1024, reasoning_effort: str | None = None,
                   parallel_tool_calls: bool | None = None,
                   max_tokens_field: str = "max_completion_tokens",
                   tool_choice: str | None = None, temperature: float | None = None,
                   seed: int | None = None, prompt_cache_key: str | None = None,
                   prompt_cache_retention: str | None = None,
                   output_format: OutputFormat | None = None) -> dict[str, Any]:
    """The Chat Completions request body for this conversation.

    `tool_choice` (the kit's vocabulary, `toolcall_lab.tool_choice`) and
    `parallel_tool_calls` are sent beside tools only; a tool's name becomes
    `{"type": "function", "function": {"name": ...}}`, and a strict tool carries `strict: true`.
    `temperature` and `seed` go out under those names, each only when given.
    `prompt_cache_key` and `prompt_cache_retention` go out as they are (OpenAI caches by itself).
    `output_format` (structured output, `toolcall_lab.output_format`) goes out as
    `response_format`, `{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}`
    (OpenAI's Structured Outputs guide; `ResponseFormatJsonSchema` in its OpenAPI document).

    >>> t = Transcript(system="Be brief.", messages=[Message.user("Hi")])
    >>> encode_request(t, model="gpt-6-luna", max_tokens=50, max_tokens_field="max_tokens")
    {'model': 'gpt-6-luna', 'messages': [{'role': 'system', 'content': 'Be brief.'}, \
{'role': 'user', 'content': 'Hi'}], 'max_tokens': 50}
    """
    if max_tokens_field not in MAX_TOKENS_FIELDS:
        raise UsageError(f"max_tokens_field must be one of {MAX_TOKENS_FIELDS}, got {max_tokens_field!r}")
    check_tool_choice(tool_choice, tools, parallel_tool_calls)
    body: dict[str, Any] = {"model": model, "messages": encode_messages(transcript)}
    if tools:
        # subtle: no "tools": [] when there are none; the API refuses an empty array.
        body["tools"] = [{"type": "function", "function": _function(t)} for t in tools]
        if tool_choice is not None:
            body["tool_choice"] = (tool_choice if tool_choice in MODES
                                   else {"type": "function", "function": {"name": tool_choice}})
        if parallel_tool_calls is not None:
            # subtle: only beside tools; without them the API rejects the flag.
            body["parallel_tool_calls"] = parallel_tool_calls
    body[max_tokens_field] = max_tokens
    body.update(sampling(temperature, seed))
    if reasoning_effort is not None:
        body["reasoning_effort"] = reasoning_effort
    body.update(prompt_cache_fields(prompt_cache_key, prompt_cache_retention))  # caching is automatic
    if output_format is not None:
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": output_format.name, "schema": dict(output_format.schema),
            "strict": output_format.strict}}
    return body


def encode_messages(transcript: Transcript) -> list[dict[str, Any]]:
    """The conversation as Chat's `messages`: the system prompt, then each message (a user's
    results become `tool` messages; reasoning and server tools are left out).

    >>> encode_messages(Transcript(system="Be brief.", messages=[Message.user("Hi")]))
    [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}]
    """
    messages: list[dict[str, Any]] = []
    if transcript.system:
        messages.append({"role": "system", "content": transcript.system})
    for message in transcript:
        messages.extend(_encode_message(message))
    return messages


def why_dropped(block: ReasoningBlock, **options: Any) -> str | None:
    """Why a Chat request leaves `block` out: it always does (the options change nothing).

    >>> why_dropped(ReasoningBlock("Paris: look it up.", provider=PROVIDER_NAME))
    'Chat Completions has no field to send reasoning back'
    """
    return made_elsewhere(block, PROVIDER_NAME) or "Chat Completions has no field to send reasoning back"


def _function(tool: Tool) -> dict[str, Any]:
    """A tool's `function` object; `strict` only when the tool asks (Chat's default is false)."""
    function: dict[str, Any] = {"name": tool.name, "description": tool.description,
                                "parameters": dict(tool.input_schema)}
    if tool.strict:
        function["strict"] = True
    return function


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
            case ReasoningBlock() | ServerToolCall() | ServerToolResult():
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


# -- reply in -----------------------------------------------------------------------------------
#: The fields `decode_response` reads, with the types the API sends (`wire._fields`).
REPLY_FIELDS = (
    Field("model", STRING), Field("choices", LIST), Field("choices[]", OBJECT),
    Field("choices[].finish_reason", STRING), Field("choices[].message", OBJECT),
    Field("choices[].message.content", TEXT), Field("choices[].message.content[].text", STRING),
    Field("choices[].message.content[].refusal", STRING),
    Field("choices[].message.reasoning_content", STRING), Field("choices[].message.reasoning", STRING),
    Field("choices[].message.refusal", STRING), Field("choices[].message.tool_calls", LIST),
    Field("choices[].message.tool_calls[]", OBJECT), Field("choices[].message.tool_calls[].id", STRING),
    Field("choices[].message.tool_calls[].function", OBJECT),
    Field("choices[].message.tool_calls[].function.name", STRING),
    Field("usage", OBJECT), Field("usage.prompt_tokens", COUNT), Field("usage.completion_tokens", COUNT),
    Field("usage.prompt_tokens_details", OBJECT), Field("usage.prompt_tokens_details.cached_tokens", COUNT),
    Field("usage.prompt_tokens_details.cache_write_tokens", COUNT),
    Field("usage.completion_tokens_details", OBJECT),
    Field("usage.completion_tokens_details.reasoning_tokens", COUNT),
)


@from_the_wire
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
    check_reply(body, REPLY_FIELDS, api=API_NAME, provider=PROVIDER_NAME)
    choices = body.get("choices") or []
    if not choices:
        raise UsageError("the response has no choices")
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
    text = text_of(content)
    if text:
        blocks.append(TextBlock(text))
    refusal = message.get("refusal")
    if refusal:
        blocks.append(TextBlock(refusal))
    calls = [read_call(call) for call in message.get("tool_calls") or []]
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
