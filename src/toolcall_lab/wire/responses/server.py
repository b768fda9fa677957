"""The OpenAI Responses API's server half: what the API double reads and answers.

`decode_request` reads a `/v1/responses` body back into a transcript and tools (the
inverse of `encode_request`), `encode_response` writes the body OpenAI would answer
with for a `Turn`, echoing the request the way the API does (OpenAI's error JSON, one
shape for both OpenAI APIs, is `_openai.server.openai_error_body`). Reasoning the double invents gets an
`encrypted_content` sealed with `seal_reasoning` (`wire.signing`), so the rules can tell
when it comes back altered.

The rest is what the double asks of this half (`wire.ServerHalf`) to play OpenAI: the
body's shape (`shape.py`), the failures and the automatic prompt cache both OpenAI APIs
share (`wire._openai`), the responses it keeps for `previous_response_id` and
`item_reference` (`store.py`),
tool-call ids spelled "call_...", reasoning where the real model reasons, at the
effort the live API echoes (`reasoning.py`), and the reply as server-sent events when a
request says `"stream": true` (`streaming.py`, `encode_stream`).

The item readers are this folder's (`_blocks.py`), shared with the client half.

Left out: background responses, `GET /v1/responses/{id}`, and reasoning summaries worth
reading (the double's trace is "Thinking about: <the question>").
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any, Literal, assert_never

from ...blocks import Block, ReasoningBlock, ServerToolCall, ServerToolResult, TextBlock, ToolCall, ToolResult
from ...errors import UsageError
from ...messages import Message
from ...output_format import OutputFormat
from ...tool import Tool
from ...transcript import Transcript
from ...turn import StopReason, Turn
from ...usage import Usage
from .._openai.client import arguments_json
from .._openai.server import OpenAIServer
from .._shared import from_the_wire, plain_json, read_result_text, request_tool
from ..problem import Problem
from ._blocks import API_NAME, PROVIDER_NAME, part_text, read_call, summary, web_search_call
from .reasoning import effort, reasoning_item, reasons
from .shape import SHAPE
from .store import keep, unknown_previous, unknown_reference, with_history
from .streaming import encode_stream, stream_error

__all__ = ["SERVER", "ResponsesServer", "decode_output_format", "decode_request", "decode_tool_choice",
           "encode_response"]

_ItemRole = Literal["user", "assistant", "system"]  # Message checks a role the body made up


@from_the_wire
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
    runs: list[tuple[Literal["user", "assistant"], list[Block]]] = []  # each message to be: role, blocks
    for index, item in enumerate(items):
        role, blocks = _read_item(item, index)
        if role == "system":
            system.extend(b.text for b in blocks if isinstance(b, TextBlock))
        elif runs and runs[-1][0] == role:
            runs[-1][1].extend(blocks)
        elif blocks:
            runs.append((role, list(blocks)))
    # subtle: each message is built once, when its run is complete; rebuilt at every item,
    # a turn of 12,000 parallel calls was checked 12,000 times over (benchmarks/wire_check_scale.py)
    messages = [Message(role, tuple(blocks)) for role, blocks in runs]
    tools = tuple(_read_tool(spec, index) for index, spec in enumerate(body.get("tools") or [])
                  if spec.get("type") not in _BUILT_IN)
    return Transcript("\n\n".join(system) if system else None, messages), tools


def _read_item(item: Mapping[str, Any], index: int) -> tuple[_ItemRole, tuple[Block, ...]]:
    """(role, blocks) of one input item; role "system" for system/developer messages."""
    match item.get("type", "message"):  # subtle: `type` is optional on an EasyInputMessage
        case "message":
            content = item["content"]
            texts = [content] if isinstance(content, str) else [part_text(p) for p in content]
            role: _ItemRole = "system" if item["role"] in ("system", "developer") else item["role"]
            return role, tuple(TextBlock(t) for t in texts)
        case "function_call":
            return "assistant", (read_call(item["call_id"], item["name"], item["arguments"]),)
        case "function_call_output":
            output = item["output"]
            if not isinstance(output, str):
                output = "".join(part_text(part) for part in output)
            content, is_error = read_result_text(output)
            # subtle: the spec lets call_id be left out or null (the pairing rule refuses it then)
            return "user", (ToolResult(str(item.get("call_id") or ""), content, is_error),)
        case "reasoning":
            return "assistant", (ReasoningBlock(summary(item), PROVIDER_NAME, None, plain_json(item)),)
        case "web_search_call":
            return "assistant", (web_search_call(item),)
        case other:
            raise UsageError(f"input item {index} has type {other!r}, which the kit does not "
                             "model; it reads messages, function calls, their outputs and reasoning")


#: Built-in tools OpenAI runs itself: offered to the model, but not tools of your code.
_BUILT_IN = ("web_search", "web_search_preview")


def _read_tool(spec: Mapping[str, Any], index: int) -> Tool:
    if spec.get("type") != "function":
        raise UsageError(f"tool {index} has type {spec.get('type')!r}; the kit reads function "
                         "tools only")
    schema = spec.get("parameters") or {"type": "object", "properties": {}}
    return request_tool(spec["name"], spec.get("description"), schema, strict=spec.get("strict") is True)


def decode_tool_choice(body: Mapping[str, Any]) -> tuple[str | None, bool | None]:
    """(tool_choice, parallel_tool_calls) in the kit's vocabulary; None for what is not sent.

    >>> decode_tool_choice({"tool_choice": {"type": "function", "name": "get_weather"},
    ...                     "parallel_tool_calls": False})
    ('get_weather', False)
    """
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping):
        choice = choice.get("name") if choice.get("type") == "function" else None
    parallel = body.get("parallel_tool_calls")
    return (choice if isinstance(choice, str) else None), (parallel if isinstance(parallel, bool) else None)


def decode_output_format(body: Mapping[str, Any]) -> OutputFormat | None:
    """The structured output a request asks for (`text.format` of type json_schema), or None.

    >>> decode_output_format({"text": {"format": {"type": "json_schema", "name": "city",
    ...                       "schema": {"type": "object"}, "strict": True}}})
    OutputFormat('city', strict=True)
    """
    spec = (body.get("text") or {}).get("format")
    if not isinstance(spec, Mapping) or spec.get("type") != "json_schema":
        return None
    return OutputFormat(str(spec.get("name") or ""), spec.get("schema") or {},
                        strict=spec.get("strict") is True)


def encode_response(turn: Turn, *, response_id: str, created_at: float = 0,
                    request: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A Responses body carrying `turn`, as OpenAI would answer it.

    Item ids are made from `response_id`; `request`, when given, is echoed the way the
    API echoes it (instructions, tools, max_output_tokens, reasoning, store). An OpenAI
    ReasoningBlock with its item is sent back as that item; any other reasoning gets a
    new item whose `encrypted_content` is `seal_reasoning(text)`. The stop reasons the
    API can say come back from `decode_response` unchanged: end_turn, tool_use,
    max_tokens, refusal. A reply cut off because the context window filled goes out as
    max_tokens does ("incomplete", reason "max_output_tokens": the only reasons OpenAI has
    are that one and "content_filter"); the others are sent as "completed".

    >>> from toolcall_lab import Message, StopReason, Turn, Usage
    >>> from toolcall_lab.wire.responses import decode_response
    >>> turn = Turn(Message.assistant("Hello!"), StopReason.END_TURN, Usage(5, 2), "gpt-6-luna")
    >>> body = encode_response(turn, response_id="resp_1")
    >>> body["status"], body["output"][0]["content"][0]["text"], decode_response(body).message.blocks
    ('completed', 'Hello!', (TextBlock('Hello!'),))
    """
    cut = turn.stop_reason in (StopReason.MAX_TOKENS, StopReason.CONTEXT_WINDOW_EXCEEDED)
    refusal = turn.stop_reason is StopReason.REFUSAL
    has_text = any(isinstance(b, TextBlock) for b in turn.message.blocks)
    incomplete = cut or (refusal and not has_text)
    output = _output(turn, response_id.removeprefix("resp_"), refusal=refusal,
                     status="incomplete" if incomplete else "completed")
    reason = "max_output_tokens" if cut else "content_filter"
    asked = request or {}
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
        **_echo(asked),
        "usage": _usage(turn.usage),
        "metadata": {},
    }


def _output(turn: Turn, suffix: str, *, refusal: bool, status: str) -> list[dict[str, Any]]:
    """The reply's output items, in the order of its blocks; item ids are made from `suffix`."""
    output: list[dict[str, Any]] = []
    for index, block in enumerate(turn.message.blocks):
        match block:
            case ReasoningBlock():
                output.append(reasoning_item(block, f"rs_{suffix}_{index}"))
            case TextBlock(text=text):
                part = ({"type": "refusal", "refusal": text} if refusal else
                        {"type": "output_text", "text": text, "annotations": [], "logprobs": []})
                if output and output[-1]["type"] == "message":
                    output[-1]["content"].append(part)  # text next to text: one message
                else:
                    output.append({"type": "message", "id": f"msg_{suffix}_{index}",
                                   "status": status, "role": "assistant", "content": [part]})
            case ToolCall(id=call_id, name=name):
                output.append({"type": "function_call", "id": f"fc_{suffix}_{index}",
                               "call_id": call_id, "name": name, "arguments": arguments_json(block),
                               "status": status})
            case ServerToolCall(opaque=opaque) if block.replayable_to(PROVIDER_NAME) and opaque:
                output.append(plain_json(opaque))
            case ServerToolCall(args=args):
                # a scripted search: one web_search_call item, as OpenAI reports a search it ran
                output.append({"type": "web_search_call", "id": f"ws_{suffix}_{index}", "status": "completed",
                               "action": {"type": "search", "query": str(args.get("query", ""))}})
            case ServerToolResult():
                pass  # Responses returns no item for a search's results
            case ToolResult():
                raise UsageError("a reply cannot hold a ToolResult")  # Message forbids it too
            case _:
                assert_never(block)
    return output


def _echo(asked: Mapping[str, Any]) -> dict[str, Any]:
    """The request's settings as the API echoes them in its reply (its defaults where none was sent)."""
    return {
        "parallel_tool_calls": asked.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "reasoning": {"effort": (asked.get("reasoning") or {}).get("effort"), "summary": None},
        "store": asked.get("store", True),
        "temperature": 1.0 if asked.get("temperature") is None else asked["temperature"],
        "text": {"format": {"type": "text"}},
        "tool_choice": asked.get("tool_choice", "auto"),
        "tools": [_echo_tool(spec) for spec in asked.get("tools") or []],
        "top_p": 1.0,
        "truncation": "disabled",
    }


def _usage(usage: Usage) -> dict[str, Any]:
    """The kit's usage in OpenAI's shape, which counts the same way (cached inside input)."""
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": usage.cache_read_tokens,
                                 "cache_write_tokens": usage.cache_write_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }


def _echo_tool(spec: Mapping[str, Any]) -> dict[str, Any]:
    echoed: dict[str, Any] = plain_json(spec)
    echoed.setdefault("strict", True)  # what the API reports when a request leaves it out
    echoed.setdefault("parameters", None)
    return echoed


# -- playing the model: what it reads, how its reply is written ----------------------------------
class ResponsesServer(OpenAIServer):
    """The OpenAI Responses API as the API double plays it: the translators above, on what both
    OpenAI APIs share (`wire._openai.OpenAIServer`: the failures, the validator's words, the ids,
    the automatic prompt cache), the responses it keeps for
    `previous_response_id` and `item_reference` (`store.py`), reasoning where the real model reasons
    (`reasoning.py`), and its stream of named server-sent events (`streaming.py`)."""

    API_NAME = API_NAME
    SHAPE = SHAPE
    decode_request = staticmethod(decode_request)
    decode_tool_choice = staticmethod(decode_tool_choice)
    decode_output_format = staticmethod(decode_output_format)
    encode_response = staticmethod(encode_response)
    encode_stream = staticmethod(encode_stream)
    stream_error = staticmethod(stream_error)
    reasons = staticmethod(reasons)

    def status_of(self, problem: Problem) -> int:
        """The status the API answers a broken rule with: 400, but a 404 for an item it looks up by
        id and does not have.

        subtle: OpenAI looks a replayed item up by id, and one it does not have is a 404
        (home-assistant/core#150251: "Item with id 'rs_...' not found. ..."), not a 400.
        """
        return 404 if problem.text.startswith("Item with id") else 400

    def refusal(self, body: Mapping[str, Any], stored: MutableMapping[str, Any]
                ) -> tuple[int, Problem] | None:
        """(status, problem) when `previous_response_id` names a response the double does not hold,
        or an `item_reference` an item it does not hold."""
        return unknown_previous(body, stored) or unknown_reference(body, stored)

    def as_the_model_reads_it(self, body: Mapping[str, Any], stored: Mapping[str, Any]
                              ) -> tuple[Mapping[str, Any], list[dict[str, Any]]]:
        """The request as the model reads it: the stored conversation it continues, then its input."""
        return with_history(body, stored), []

    def reply(self, turn: Turn, *, response_id: str, request: Mapping[str, Any], read: Mapping[str, Any],
              notes: Sequence[dict[str, Any]], stored: MutableMapping[str, Any],
              created: int = 0) -> dict[str, Any]:
        """The reply the double sends, echoing the effort it ran at and the response it continued,
        `created` at the double's clock (it finishes at once: `completed_at` is the same second);
        kept for a later `previous_response_id` unless the request said `store: false`."""
        reasoning = {**(request.get("reasoning") or {}), "effort": effort(request)}
        written = encode_response(turn, response_id=response_id, created_at=created,
                                  request={**request, "reasoning": reasoning})
        # subtle: encode_response always says None; the double knows which response this one continues
        written["previous_response_id"] = request.get("previous_response_id")
        if request.get("store", True):
            keep(stored, response_id, read, written)
        return written


#: The server half `API_SPECS["responses"].server` names.
SERVER = ResponsesServer()
