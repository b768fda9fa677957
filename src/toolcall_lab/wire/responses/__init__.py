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
    ServerToolCall (made by "openai")   the web_search_call item it came from, verbatim
    Usage.web_search_requests           the number of web_search_call items in a reply
    server_tools=[{...}] (an option)    appended to "tools" as given, e.g. {"type": "web_search"}

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
  starts with `ERROR_PREFIX` ("Error: "), which `decode_request` strips again. A
  successful output that itself begins with "Error: " goes out as "Output: Error: ..."
  (`OUTPUT_PREFIX`), which the real API and the model read as it stands, and
  `decode_request` reads back as the success it was (`_shared.result_text`).
- Reasoning is replayed as the whole item the model sent (`ReasoningBlock.opaque`),
  `encrypted_content` untouched; reasoning from other providers is dropped, and so is
  an OpenAI block without its item (nothing the API could verify). The provider asks
  for `store: false` by default, so with `reasoning_effort` it also asks for
  `include: ["reasoning.encrypted_content"]`: without it a stateless request cannot
  replay reasoning (`Item with id 'rs_...' not found`). It is not sent without
  `reasoning_effort`, because non-reasoning models reject it with a 400 ("Encrypted
  content is not supported with this model."). With `store: false`, an item that came
  back without `encrypted_content` is dropped too: the API could only look it up by
  its id, and `check_request` says what it answers then (that 404). `why_dropped`
  says, for one block, why a request leaves it out.

This package is the API's codec, the one `wire.API_SPECS` names. The server half
(`server.py`) lets the loopback API double play OpenAI; the double mints
`encrypted_content` with `seal_reasoning` (from `wire.signing`), and `check_request`
(the API's rules, `rules.py`) refuses a sealed value that was altered, as the real API
does.

A web search OpenAI ran inside the reply comes back as a `web_search_call` item (its
`action` says what was searched; the results themselves are not an item, only the
answer's citations). It becomes a `ServerToolCall` (see `toolcall_lab.server_tools`),
replayed as the item it was, to OpenAI only; the loop never runs it.

One folder holds what the kit knows about this API, a file per job:

    client.py     the client half: encode_request, decode_response, why_dropped
    server.py     the server half the API double plays: decode_request, decode_tool_choice,
                  encode_response, error_body
    rules.py      check_request: what the API refuses, in its own words
    stream.py     the stream half: decode_stream, a streamed reply read into the kit's events
    _blocks.py    the item readers both halves share, and the API's names

Left out: images and files, built-in tools other than web search, the double's streams
(the kit reads streams, `stream.py`), and `previous_response_id` conversations (the
pairing rules are then not checked, since the earlier items live on OpenAI's servers).
"""


from .._openai.server import openai_error_body as error_body
from .._shared import ERROR_PREFIX
from ..signing import seal_reasoning, unseal_reasoning
from ._blocks import API_NAME, ITEMS_KEY, PROVIDER_NAME, ended_by, web_search_call
from .client import decode_response, encode_request, why_dropped
from .rules import check_request
from .server import decode_request, decode_tool_choice, encode_response
from .stream import decode_stream

__all__ = ["API_NAME", "ERROR_PREFIX", "ITEMS_KEY", "PROVIDER_NAME", "check_request", "decode_request",
           "decode_response", "decode_stream", "decode_tool_choice", "encode_request", "encode_response",
           "ended_by", "error_body", "seal_reasoning", "unseal_reasoning", "web_search_call", "why_dropped"]
