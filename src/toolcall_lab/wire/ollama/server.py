"""Ollama's server half: what the API double reads and answers on `POST /api/chat`.

`decode_request` reads an `/api/chat` body back into a transcript and tools (the
inverse of `encode_request`, pairing each tool result with its call), `encode_response`
writes the reply Ollama would send for a `Turn` (the official client's `ChatResponse`
parses it), and `error_body` Ollama's error JSON.

The rest is what the double asks of this half (`wire.ServerHalf`) to play Ollama: the
body's shape (`shape.py`), Ollama's words for each failure (`fault`), and its reasoning:
the double's model thinks when `think` is set (Ollama also thinks by default on models
that can; the double only when asked). Ollama streams unless a request says
`"stream": false` (`ApiSpec.streams_by_default`), and so does the double: the finished
reply as Ollama's newline-delimited JSON (`streaming.py`, `encode_stream`).

The call and message readers are this folder's (`_blocks.py`), shared with the client half.

Left out: `/api/generate`, `/api/show`, pulling and loading models, and `keep_alive`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...blocks import ReasoningBlock, TextBlock, ToolCall, ToolResult
from ...errors import UsageError
from ...messages import Message
from ...output_format import OutputFormat
from ...tool import Tool
from ...transcript import Transcript
from ...turn import StopReason, Turn
from .._server_half import ServerHalf
from .._shared import TOO_LARGE, from_the_wire, read_result_text, request_tool
from ._blocks import read_call, reasoning_and_text
from .shape import SHAPE, shape_problem
from .streaming import STREAM_END, STREAM_HEADERS, encode_stream, frame, stream_error

__all__ = ["SERVER", "OllamaServer", "decode_output_format", "decode_request", "decode_tool_choice",
           "encode_response", "error_body", "fault", "model_list"]

#: `created_at` of the bodies `encode_response` writes: fixed, so reruns are identical.
_CREATED_AT = "2026-01-01T00:00:00Z"


@from_the_wire
def decode_request(body: Mapping[str, Any]) -> tuple[Transcript, tuple[Tool, ...]]:
    """The conversation and tools an `/api/chat` request carries (what a server reads).

    System messages become the transcript's system prompt (joined, if there are several);
    a run of `tool` messages becomes one user message of results. A result is paired with
    its call by `tool_call_id`, else with the first unanswered call of that `tool_name`,
    else with the next unanswered call; calls without ids get `mint_call_id` ids.
    A result whose content starts with `ERROR_PREFIX` is read back as an error, one that
    starts with "Output: Error: " as the success `result_text` escaped.
    """
    model = str(body.get("model") or "")
    system: list[str] = []
    messages: list[Message] = []
    results: list[ToolResult] = []
    pending: list[ToolCall] = []  # calls of the latest assistant message not yet answered
    minted = 0  # calls without an id so far, numbered across the whole body
    for position, wire in enumerate(body.get("messages") or ()):
        role = str(wire.get("role", "")).lower()  # Ollama lower-cases roles too
        if role != "tool" and results:
            messages.append(Message.results(results))
            results = []
        match role:
            case "system":
                system.append(wire.get("content") or "")
            case "user":  # subtle: the shape holds content to a string (or null), so one text block
                messages.append(Message("user", (TextBlock(wire.get("content") or ""),)))
            case "assistant":
                calls = []
                for call in wire.get("tool_calls") or ():
                    calls.append(read_call(call, body, minted))
                    minted += 0 if call.get("id") else 1
                messages.append(Message("assistant", (*reasoning_and_text(wire, model), *calls)))
                pending = list(calls)
            case "tool":
                results.append(_decode_result(wire, pending))
            case other:
                raise UsageError(f"message {position} has role {other!r}; Ollama knows system, user, "
                                 "assistant and tool.")
    if results:
        messages.append(Message.results(results))
    tools = tuple(request_tool(t["function"]["name"], t["function"].get("description"),
                               t["function"].get("parameters")) for t in body.get("tools") or ())
    return Transcript("\n\n".join(system) or None, messages), tools


def _decode_result(wire: Mapping[str, Any], pending: list[ToolCall]) -> ToolResult:
    content, is_error = read_result_text(str(wire.get("content") or ""))
    call_id = wire.get("tool_call_id")
    match = next((c for c in pending if c.id == call_id), None) if call_id else None
    if match is None and not call_id:
        name = wire.get("tool_name")
        match = next((c for c in pending if c.name == name), None) or (pending[0] if pending else None)
    if match is not None:
        pending.remove(match)
        call_id = match.id
    return ToolResult(str(call_id or ""), content, is_error)



def decode_tool_choice(body: Mapping[str, Any]) -> tuple[str | None, bool | None]:
    """(None, None): Ollama's API has no `tool_choice` or parallel switch for a server to read.

    >>> decode_tool_choice({"model": "qwen3:4b", "tool_choice": "required"})
    (None, None)
    """
    return None, None


def decode_output_format(body: Mapping[str, Any]) -> OutputFormat | None:
    """The structured output a request asks for (`format` holding a JSON schema), or None.

    `format: "json"` (any JSON at all) names no schema, so it is None here too.

    >>> decode_output_format({"format": {"type": "object"}})
    OutputFormat('format', strict=True)
    """
    spec = body.get("format")
    return OutputFormat("format", spec) if isinstance(spec, Mapping) else None


def encode_response(turn: Turn, *, response_id: str = "") -> dict[str, Any]:
    """An `/api/chat` reply carrying `turn`, the way Ollama writes one.

    Ollama replies have no id, so `response_id` is not used; tool calls carry no ids
    either (as in Ollama's docs), so `decode_response` mints new ones. Everything else
    comes back equal: blocks, stop reason (end_turn, tool_use or max_tokens: the only
    ones Ollama can say; a reply the context window cut off goes out as max_tokens does)
    and token counts. Durations are made up but deterministic, in
    nanoseconds; like Ollama, zero metrics are left out.
    """
    texts = [b.text for b in turn.message.blocks if isinstance(b, TextBlock)]
    thinking = [b.text for b in turn.message.blocks if isinstance(b, ReasoningBlock) and b.text]
    message: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts)}
    if thinking:
        message["thinking"] = "\n".join(thinking)
    if turn.tool_calls:
        message["tool_calls"] = [{"function": {"name": c.name, "arguments": dict(c.args)}}
                                 for c in turn.tool_calls]
    usage = turn.usage
    metrics = {
        "total_duration": 1_000_000 + usage.input_tokens * 100_000 + usage.output_tokens * 10_000_000,
        "load_duration": 1_000_000,
        "prompt_eval_count": usage.input_tokens,
        "prompt_eval_cached_count": usage.cache_read_tokens,
        "prompt_eval_duration": usage.input_tokens * 100_000,  # 0.1 ms per prompt token
        "eval_count": usage.output_tokens,
        "eval_duration": usage.output_tokens * 10_000_000,    # 10 ms per generated token
    }
    # subtle: "length" is Ollama's only word for a cut-off reply, whichever limit cut it
    cut = turn.stop_reason in (StopReason.MAX_TOKENS, StopReason.CONTEXT_WINDOW_EXCEEDED)
    done_reason = "length" if cut else "stop"
    return {"model": turn.model, "created_at": _CREATED_AT, "message": message, "done": True,
            "done_reason": done_reason, **{k: v for k, v in metrics.items() if v}}


def error_body(message: str, *, status: int = 400, param: str | None = None, code: str | None = None,
               error_type: str | None = None) -> dict[str, Any]:
    """Ollama's error JSON: just the message (the status is the HTTP status).

    >>> error_body("model 'x' not found", status=404)
    {'error': "model 'x' not found"}
    """
    return {"error": message}


# -- how the API fails: the faults the double injects, and what it refuses unread ----------------
#: Each failure in Ollama's words: its API docs' (github.com/ollama/ollama/blob/main/docs/api.md)
#: or its Go server's where they say, else what it is commonly seen to answer.
_FAULT_WORDS = {
    "rate_limit": "too many requests", "unauthorized": "unauthorized",
    "overloaded": "server busy, please try again.  maximum pending requests exceeded",
    "server_error": "llama runner process has terminated: exit status 2",
    "not_found": "model '{model}' not found", "no_route": "404 page not found", "bad_json": "{detail}",
    "bad_header": "{detail}", "method": "405 method not allowed", "too_large": TOO_LARGE,
    "no_length": "a request body needs a Content-Length header"}


def fault(kind: str, status: int, *, param: str | None = None, **fill: object) -> tuple[int, dict[str, Any]]:
    """(status, body) of the failure `kind` (`double.FAULTS`, or a refusal before a body is read)
    as Ollama answers it, `fill` completing the words.

    >>> fault("not_found", 404, model="qwen9")
    (404, {'error': "model 'qwen9' not found"})
    """
    return status, error_body(_FAULT_WORDS[kind].format(**fill), status=status)


def model_list(model: str, owner: str) -> dict[str, Any]:
    """A one-model list, as `GET /api/tags` answers, enough for a "test connection" button;
    Ollama names no owner."""
    return {"models": [{"name": model, "model": model, "modified_at": "2026-01-01T00:00:00Z",
                        "size": 0, "digest": "0" * 64, "details": {"format": "gguf"}}]}


class OllamaServer(ServerHalf):
    """Ollama as the API double plays it: the translators above, its words for each failure, and its
    stream of newline-delimited JSON (`streaming.py`). The defaults hold for the rest: Ollama keeps
    its KV cache to itself and bills nothing for it, keeps nothing between requests, sends no request
    id, and its replies carry no call ids (as Ollama's docs show) and a fixed `created_at` (so a
    reply's `created` is not used: lesson 4 shows it)."""

    SHAPE = SHAPE
    STREAM_END = STREAM_END
    STREAM_HEADERS = STREAM_HEADERS
    shape_problem = staticmethod(shape_problem)
    decode_request = staticmethod(decode_request)
    decode_tool_choice = staticmethod(decode_tool_choice)
    decode_output_format = staticmethod(decode_output_format)
    encode_response = staticmethod(encode_response)
    error_body = staticmethod(error_body)
    fault = staticmethod(fault)
    model_list = staticmethod(model_list)
    encode_stream = staticmethod(encode_stream)
    frame = staticmethod(frame)
    stream_error = staticmethod(stream_error)

    def reasons(self, body: Mapping[str, Any], transcript: Transcript, turn: Turn) -> bool:
        """Whether the model thinks before `turn`: when the request sets `think`."""
        return bool(body.get("think"))


#: The server half `API_SPECS["ollama"].server` names.
SERVER = OllamaServer()
