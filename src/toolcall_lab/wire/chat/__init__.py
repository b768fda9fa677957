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

- `ToolResult.is_error`: a failure's content is sent as "Error: <content>"
  (`ERROR_PREFIX`). A success whose own text begins with "Error: " is sent as
  "Output: Error: ..." (`OUTPUT_PREFIX`), so the wire can tell the two apart, and
  `decode_request` gives back the flag and the text exactly (`_shared.result_text`).
  That is also what the real API, and the model, reads.
- Reasoning is never sent. OpenAI's own models return none in Chat (only a token
  count), and the `reasoning_content` / `reasoning` fields some local servers return
  are not part of the API, so no server promises to read them back (`why_dropped`
  says so for each block).
- Order inside a message: Chat puts an assistant's text before its tool calls, and a
  user's tool results before its text, whatever order the kit's blocks were in.

This package is the API's codec, the one `wire.API_SPECS` names. One folder holds what
the kit knows about this API, a file per job:

    client.py     the client half: encode_request, decode_response, why_dropped
    server.py     the server half the API double plays: decode_request, decode_tool_choice,
                  encode_response, error_body
    rules.py      check_request: what the API refuses, in its own words
    stream.py     the stream half: decode_stream, a streamed reply read into the kit's events
    _blocks.py    the call and content readers both halves share, and the API's names

Left out: the double's streams (the kit reads streams, `stream.py`), images and audio,
`n > 1`, the deprecated `functions` / `function_call`, custom (grammar) tools and
`allowed_tools`.
"""


from .._openai.server import openai_error_body as error_body
from .._shared import ERROR_PREFIX
from ._blocks import API_NAME, ITEMS_KEY, PROVIDER_NAME, ended_by
from .client import MAX_TOKENS_FIELDS, decode_response, encode_request, why_dropped
from .rules import check_request
from .server import decode_request, decode_tool_choice, encode_response
from .stream import decode_stream

__all__ = [
    "API_NAME",
    "ERROR_PREFIX",
    "ITEMS_KEY",
    "MAX_TOKENS_FIELDS",
    "PROVIDER_NAME",
    "check_request",
    "decode_request",
    "decode_response",
    "decode_stream",
    "decode_tool_choice",
    "encode_request",
    "encode_response",
    "ended_by",
    "error_body",
    "why_dropped",
]
