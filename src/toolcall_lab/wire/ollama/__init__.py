"""Ollama's native chat API, `POST /api/chat`: the kit's transcript in Ollama's spelling.

Ollama spells a conversation much like OpenAI Chat, with three differences that bite:

- tool-call `arguments` are a JSON **object**, not a string holding JSON;
- a tool result is `{"role": "tool", "content": ..., "tool_name": ...}`: it names the
  *tool*, where other APIs name the *call*;
- there is no stop reason for tool calls: a reply that calls tools still ends with
  `done_reason: "stop"`, so the codec looks at `tool_calls` to say `tool_use`.

Ollama has no `is_error` either: a failed tool's content goes out as "Error: <text>", and
a success whose text begins with "Error: " as "Output: Error: ..." (what the model then
reads), so `decode_request` gets both the flag and the text back exactly
(`_shared.result_text`).

One turn, both ways (the shape of Ollama's own docs example):

    assistant: ToolCall("call_1", "get_weather", {"city": "Tokyo"})
      -> {"role": "assistant", "content": "",
          "tool_calls": [{"id": "call_1", "function": {"name": "get_weather",
                                                       "arguments": {"city": "Tokyo"}}}]}
    user:      ToolResult("call_1", "11 degrees celsius")
      -> {"role": "tool", "content": "11 degrees celsius", "tool_name": "get_weather",
          "tool_call_id": "call_1"}

Ollama validates almost nothing. It renders the messages into the model's chat template
and lets the model make of them what it can, so a badly shaped conversation does not
fail: it quietly confuses the model. That is why `check_request` finds so little.

This package is the API's codec, the one `wire.API_SPECS` names. One folder holds what
the kit knows about this API, a file per job:

    client.py     the client half: encode_request, decode_response, why_dropped
    server.py     the server half the API double plays: decode_request, decode_tool_choice,
                  encode_response, error_body
    rules.py      check_request: what the API refuses, which is very little
    stream.py     the stream half: decode_stream, a streamed reply read into the kit's events
    _blocks.py    the call and message readers both halves share, and the API's names

Left out: the double's streams (the kit sends `stream: false`, and reads a stream with
`stream.py`), images, `format` (structured output), `keep_alive` and logprobs. Sources: Ollama's API docs
(https://github.com/ollama/ollama/blob/main/docs/api.md) and its Go server
(github.com/ollama/ollama: `api/types.go`, `server/routes.go`).
"""


from .._shared import ERROR_PREFIX
from ._blocks import API_NAME, ITEMS_KEY, PROVIDER_NAME, ended_by, mint_call_id
from .client import decode_response, encode_request, why_dropped
from .rules import check_request
from .server import decode_request, decode_tool_choice, encode_response, error_body
from .stream import decode_stream

__all__ = ["API_NAME", "ERROR_PREFIX", "ITEMS_KEY", "PROVIDER_NAME", "check_request", "decode_request",
           "decode_response", "decode_stream", "decode_tool_choice", "encode_request", "encode_response",
           "ended_by", "error_body", "mint_call_id", "why_dropped"]
