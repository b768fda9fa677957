"""Ollama's client half: an `/api/chat` body out (`stream: false`), its reply in.

`encode_request` writes a transcript in Ollama's spelling (see the package's docstring,
`wire.ollama`, for the three differences from OpenAI Chat that bite), refusing what the
API cannot say (a forced tool call, parallel calls off); `decode_response` reads a whole
reply into a `Turn`, tool use read from `tool_calls` (Ollama has no stop reason for it);
`why_dropped` says which reasoning a request leaves out. The call and message readers
are this folder's (`_blocks.py`), shared with the server half.

Left out: streamed replies (a chunk with `done: false` is refused, not joined).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from ...blocks import ReasoningBlock, ServerToolCall, ServerToolResult, TextBlock, ToolCall, ToolResult
from ...errors import UsageError
from ...messages import Message
from ...output_format import OutputFormat
from ...tool import Tool
from ...tool_choice import check_tool_choice, forces_a_call
from ...transcript import Transcript
from ...turn import StopReason, Turn
from ...usage import Usage
from .._fields import COUNT, LIST, OBJECT, STRING, Field, check_reply
from .._shared import from_the_wire, made_elsewhere, result_text, sampling
from ._blocks import API_NAME, PROVIDER_NAME, read_call, reasoning_and_text

__all__ = ["REPLY_FIELDS", "decode_response", "encode_request", "why_dropped"]

_DONE_REASONS: dict[str, StopReason] = {
    "stop": StopReason.END_TURN,      # also stop sequences, and replies that call tools
    "length": StopReason.MAX_TOKENS,  # options.num_predict reached
    "load": StopReason.END_TURN,      # empty `messages`: the model was only loaded
    "unload": StopReason.END_TURN,    # empty `messages` with keep_alive 0: unloaded
}


# -- request out ---------------------------------------------------------------------------------
def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                   max_tokens: int = 1024, think: bool | str | None = None,
                   tool_choice: str | None = None, parallel_tool_calls: bool | None = None,
                   temperature: float | None = None, seed: int | None = None,
                   output_format: OutputFormat | None = None) -> dict[str, Any]:
    """The `/api/chat` body for this conversation.

    `max_tokens` becomes `options.num_predict`, and `temperature` and `seed` (when given)
    `options.temperature` and `options.seed`, where Ollama reads its sampling; `think`
    (True, False or a level such as "high") is sent only when given, since Ollama switches
    thinking on by itself for models that can think. `output_format` (structured output,
    `toolcall_lab.output_format`) goes out as `format`, the JSON schema itself: Ollama has
    no name and no strict switch (https://docs.ollama.com/capabilities/structured-outputs).

    Ollama's API has no `tool_choice` and no parallel switch (`toolcall_lab.tool_choice`).
    "none" is kept by offering no tools at all; "auto" is what Ollama does anyway; a forced
    call or `parallel_tool_calls=False` cannot be said, so they raise `UsageError`:

    >>> from toolcall_lab.tools import get_weather
    >>> encode_request(Transcript(messages=[Message.user("Hi")]), [get_weather], model="qwen3:4b",
    ...                tool_choice="required")
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: Ollama's /api/chat has no tool_choice, so it cannot force a tool call ...

    >>> from toolcall_lab import Message, Transcript
    >>> body = encode_request(Transcript("Be brief.", [Message.user("Hi")]), model="qwen3:4b")
    >>> body["messages"], body["options"]
    ([{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}], {'num_predict': 1024})
    """
    _refuse_unsayable(tool_choice, tools, parallel_tool_calls)
    if tool_choice == "none":
        tools = ()  # subtle: the one way to keep a model from calling tools it is not told about
    names = {call.id: call.name for call in transcript.tool_calls()}
    messages: list[dict[str, Any]] = []
    if transcript.system:
        messages.append({"role": "system", "content": transcript.system})
    for message in transcript:
        if message.role == "assistant":
            messages.append(_encode_assistant(message))
        else:
            messages.extend(_encode_user(message, names))
    # `tools` is sent even when empty, as the official client does; `stream` must be said:
    # Ollama streams unless told not to.
    options = {"num_predict": max_tokens, **sampling(temperature, seed)}
    body: dict[str, Any] = {"model": model, "messages": messages, "tools": [_encode_tool(t) for t in tools],
                            "stream": False, "options": options}
    if think is not None:
        body["think"] = think
    if output_format is not None:
        body["format"] = dict(output_format.schema)
    return body


def _refuse_unsayable(tool_choice: str | None, tools: Sequence[Tool],
                      parallel_tool_calls: bool | None) -> None:
    """`UsageError` for what Ollama's API cannot express: a forced call, parallel calls off."""
    check_tool_choice(tool_choice, tools, parallel_tool_calls)
    if forces_a_call(tool_choice):
        raise UsageError(f"Ollama's /api/chat has no tool_choice, so it cannot force a tool call "
                         f"(tool_choice={tool_choice!r}); leave tool_choice out (Ollama lets the model "
                         "choose), or use a provider whose API has it.")
    if parallel_tool_calls is False:
        raise UsageError("Ollama's /api/chat has no parallel_tool_calls switch, so it cannot hold a "
                         "model to one call per reply; leave parallel_tool_calls out.")


def _encode_tool(tool: Tool) -> dict[str, Any]:
    return {"type": "function", "function": {"name": tool.name, "description": tool.description,
                                             "parameters": dict(tool.input_schema)}}


def _encode_user(message: Message, names: Mapping[str, str]) -> list[dict[str, Any]]:
    """One wire message per tool result, and one per run of text blocks, in block order."""
    out: list[dict[str, Any]] = []
    texts: list[str] = []
    for block in message.blocks:
        match block:
            case TextBlock(text=text):
                texts.append(text)
            case ToolResult(call_id=call_id):
                if texts:
                    out.append({"role": "user", "content": "\n".join(texts)})
                    texts = []
                # subtle: Ollama has no error flag, so a failure says so in words; without
                # the prefix the model would read "no such city" as the tool's answer.
                tool_message = {"role": "tool", "content": result_text(block)}
                # Ollama's docs pair a result with its call by tool_name alone, which two
                # parallel calls of one tool make ambiguous; its Go Message also takes
                # tool_call_id (its /v1 layer fills it in), so both are sent.
                if call_id in names:
                    tool_message["tool_name"] = names[call_id]
                tool_message["tool_call_id"] = call_id
                out.append(tool_message)
            case ToolCall() | ReasoningBlock() | ServerToolCall() | ServerToolResult():
                raise UsageError(f"a user message cannot hold a {block.kind} block")
            case _:
                assert_never(block)
    if texts:
        out.append({"role": "user", "content": "\n".join(texts)})
    return out


def why_dropped(block: ReasoningBlock, **options: Any) -> str | None:
    """Why an Ollama request leaves `block` out, or None when its text goes back as `thinking`.

    >>> why_dropped(ReasoningBlock("", provider=PROVIDER_NAME))
    'no text: Ollama takes reasoning back as the text of `thinking` only'
    """
    elsewhere = made_elsewhere(block, PROVIDER_NAME)
    if elsewhere is not None:
        return elsewhere
    return None if block.text else "no text: Ollama takes reasoning back as the text of `thinking` only"


def _encode_assistant(message: Message) -> dict[str, Any]:
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in message.blocks:
        match block:
            case TextBlock(text=text):
                texts.append(text)
            case ReasoningBlock(text=text):
                if why_dropped(block) is None:
                    thinking.append(text)  # another provider's reasoning is dropped silently
            case ToolCall(id=call_id, name=name, args=args):
                # subtle: Ollama's Go server reads `arguments` into a map, so a malformed call
                # (raw_args) cannot be replayed as the text it was; it goes back as {} and the
                # error result that answered it explains what was wrong.
                call: dict[str, Any] = {"function": {"name": name, "arguments": dict(args)}}
                if call_id:
                    call = {"id": call_id, **call}
                calls.append(call)
            case ServerToolCall() | ServerToolResult():
                pass  # another provider's own tool: Ollama could not continue it
            case ToolResult():
                raise UsageError("an assistant message cannot hold a tool_result block")
            case _:
                assert_never(block)
    wire: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts)}
    if thinking:
        wire["thinking"] = "\n".join(thinking)
    if calls:
        wire["tool_calls"] = calls
    return wire


# -- reply in -----------------------------------------------------------------------------------
#: The fields `decode_response` reads, with the types the API sends (`wire._fields`).
REPLY_FIELDS = (
    Field("model", STRING), Field("done_reason", STRING), Field("message", OBJECT, required=True),
    Field("message.content", STRING), Field("message.thinking", STRING), Field("message.tool_calls", LIST),
    Field("message.tool_calls[]", OBJECT), Field("message.tool_calls[].id", STRING),
    Field("message.tool_calls[].function", OBJECT, required=True),
    Field("message.tool_calls[].function.name", STRING, required=True),
    Field("prompt_eval_count", COUNT), Field("prompt_eval_cached_count", COUNT), Field("eval_count", COUNT),
)


@from_the_wire
def decode_response(body: Mapping[str, Any]) -> Turn:
    """The `Turn` an `/api/chat` reply carries (`stream: false`).

    >>> turn = decode_response({"model": "llama3.2", "message": {"role": "assistant", "content": "Hi!"},
    ...                         "done": True, "done_reason": "stop", "prompt_eval_count": 9,
    ...                         "eval_count": 3})
    >>> turn.text, turn.stop_reason, turn.usage
    ('Hi!', StopReason.END_TURN, Usage(input_tokens=9, output_tokens=3))
    """
    if body.get("done") is False:
        # subtle: a streamed reply arrives as chunks, and the tool calls come in one with
        # done: false; reading that chunk as the turn would lose the rest and the usage.
        raise UsageError("this is one chunk of a streamed reply (done: false), not a finished one; "
                         "decode_response reads whole replies only, so send the request with stream: "
                         "false (encode_request does), or read the chunks with decode_stream.")
    check_reply(body, REPLY_FIELDS, api=API_NAME, provider=PROVIDER_NAME)
    model = str(body.get("model") or "")
    wire = body["message"]
    calls = [read_call(call, body, index) for index, call in enumerate(wire.get("tool_calls") or ())]
    message = Message("assistant", (*reasoning_and_text(wire, model), *calls))
    stop = _DONE_REASONS.get(str(body.get("done_reason") or "stop"), StopReason.END_TURN)
    if calls and stop is StopReason.END_TURN:
        stop = StopReason.TOOL_USE  # subtle: Ollama has no done reason for tool calls
    return Turn(message, stop, _decode_usage(body), model)


def _decode_usage(body: Mapping[str, Any]) -> Usage:
    # subtle: servers before mid-2024 left prompt_eval_count out when the prompt was served
    # from the KV cache (ollama#2068, #3427); missing counts read as 0, not as an error.
    input_tokens = int(body.get("prompt_eval_count") or 0)
    # Newer servers say how much of the prompt came from the cache; it is part of the count.
    cached = min(int(body.get("prompt_eval_cached_count") or 0), input_tokens)
    return Usage(input_tokens=input_tokens, output_tokens=int(body.get("eval_count") or 0),
                 cache_read_tokens=cached)


# -- the server half and the API's rules, in modules of their own ------------------------------
# subtle: imported last, because both read this module's names (API_NAME, the readers);
# re-exported, so this module stays the API's one codec (`wire.API_SPECS`).
