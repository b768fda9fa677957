"""The Anthropic Messages API (`POST /v1/messages`), spelled from and to the kit's transcript.

This package is the API's codec, the one `wire.API_SPECS` names: everything below is
importable from `toolcall_lab.wire.anthropic`. What maps to what:

    kit                                  Anthropic
    Transcript.system                    top-level "system" (a string)
    TextBlock                            {"type": "text", "text": ...}
    ToolCall (assistant)                 {"type": "tool_use", "id", "name", "input": {...}}
    ToolResult (user)                    {"type": "tool_result", "tool_use_id", "content", "is_error"?}
    ReasoningBlock, opaque {"signature"} {"type": "thinking", "thinking", "signature"}
    ReasoningBlock, opaque {"redacted"}  {"type": "redacted_thinking", "data"}
    ServerToolCall                       {"type": "server_tool_use", "id", "name", "input"}, verbatim
    ServerToolResult                     {"type": "web_search_tool_result" (or another server
                                         tool's result), "tool_use_id", "content"}, verbatim
    ReasoningBlock, opaque {"block"}     any other block of a reply the kit has no kind for,
                                         verbatim
    ReasoningBlock, opaque {"callers",   what a programmatic tool call needs to be replayed:
                            "container"} each tool_use's `caller`, the reply's `container`
    Usage.input_tokens                   input_tokens + cache_read_input_tokens
                                         + cache_creation_input_tokens
    Usage.web_search_requests            usage.server_tool_use.web_search_requests
    server_tools=[{...}] (an option)     appended to "tools" as given, e.g.
                                         {"type": "web_search_20250305", "name": "web_search"}

One folder holds what the kit knows about this API, a file per job:

    client.py     the client half: encode_request, decode_response, tool_choice_config
    server.py     the server half the API double plays: decode_request, decode_tool_choice,
                  encode_response, error_body
    rules.py      check_request: what the API refuses, in its own words
    stream.py     the stream half: decode_stream, a streamed reply read into the kit's events
    thinking.py   extended thinking: the request's `thinking`, and the rules about what
                  comes back
    caching.py    prompt caching: where the breakpoints go, and the rules about them
    _blocks.py    the block translators both halves share, and the API's names

Thinking goes back only to the model that wrote it. A thinking block is tied to its
model: each Claude model reads its own blocks and those of a fixed set of others, and
the API drops a block the requested model cannot read from the request, without an
error (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking). The
kit does not keep that list, so `encode_request` leaves out every `thinking` and
`redacted_thinking` block whose `ReasoningBlock.model` is another model than the
request's (a dated snapshot of the same model counts as the same, `models.same_model`;
a block with no model is sent). `why_dropped` says, for one block, why it is left out.

Left out: images, documents, citations, the double's streams (the kit reads streams,
`stream.py`), and strict tools.
"""

from ..signing import SIGNATURE_PREFIX, binding_of, sign_thinking, signature_is_ours, verify_thinking
from ._blocks import API_NAME, ITEMS_KEY, PROVIDER_NAME, ended_by, why_dropped
from .caching import CACHE_TTLS, CACHING, caching_strategies, place_breakpoints
from .client import decode_response, encode_request, tool_choice_config
from .rules import check_request
from .server import decode_request, decode_tool_choice, encode_response, error_body
from .stream import decode_stream
from .thinking import check_effort, thinking_config

__all__ = [
    "API_NAME",
    "CACHE_TTLS",
    "CACHING",
    "ITEMS_KEY",
    "PROVIDER_NAME",
    "SIGNATURE_PREFIX",
    "binding_of",
    "caching_strategies",
    "check_effort",
    "check_request",
    "decode_request",
    "decode_response",
    "decode_stream",
    "decode_tool_choice",
    "encode_request",
    "encode_response",
    "ended_by",
    "error_body",
    "place_breakpoints",
    "sign_thinking",
    "signature_is_ours",
    "thinking_config",
    "tool_choice_config",
    "verify_thinking",
    "why_dropped",
]
