"""The loopback API double: a pretend model server on 127.0.0.1 that speaks all four APIs.

A *test double* stands in for the real thing in a test, the way a stunt double stands in
for an actor. The kit's real providers send requests through the official SDKs to
Anthropic, OpenAI and Ollama; to run that whole path offline (SDK, HTTP, JSON, retries,
error mapping) with no key, no network and no bill, tests and notebooks start this
server on the loopback interface and point the SDK at it. Per request, the double:

1. checks the body's shape (`shape`: the API's types, in its words), then the API's rules
   with its codec's `check_request` (`toolcall_lab.wire.<api>`), answering what the real
   API would reject with a 400 in its own error shape and words; then the API's server
   half (`wire/<api>/server.py`) reads it into a transcript and tools, the way the API's
   model reads it;
2. lets a `ScriptedProvider` play the model (the lessons' `weather_policy` by default), held
   to the request's `tool_choice` and `parallel_tool_calls` as the API holds a real model;
3. answers with the server half's reply, a body the SDK parses with its own types.

    >>> from toolcall_lab import get_provider, run_agent
    >>> from toolcall_lab.tools import get_weather
    >>> with ApiDouble() as double:
    ...     provider = get_provider("openai-chat", base_url=double.base_url("chat"))
    ...     run_agent(provider, "What's the weather in Paris?", tools=[get_weather]).answer
    "It's 18°C and sunny in Paris."

It also misbehaves on request, which real servers do only when you are not looking:
`double.fail_next("rate_limit")` (or the header `X-Double-Fault: rate_limit`, for
`python -m toolcall_lab serve`) makes the next request, to any path, fail the way that
API fails (see `FAULTS`). It reasons the way each API's reasoning models do, as its
server half says (`reasons`: Anthropic's thinking, OpenAI's reasoning efforts, Ollama's
`think`). The trace is short and deterministic, and sealed so that the codec's
`check_request` notices if it comes back edited. Per-model rules come with the codec's
`check_request`: a thinking budget sent to Claude Haiku 5.5 gets the same 400 the real
API gives.

The double itself names no API: everything it does one API's way it asks of that API's
server half (a `wire.ServerHalf`: the shape, the words, the prompt cache, what the model
reads, what the reply says), and places a request by the routes the API's `ApiSpec`
declares (`routing`: a path, or a template that carries the model and the stream switch in
the URL), so an API added as a folder and one `ApiSpec` line is served too. Where the
double chooses differently from a real server (Ollama streams unless told not to, so the
double refuses a request that does not say `"stream": false`; the newest Claude models
think unasked, the double only when asked), the server half says so.

The double is a package of small modules, read in this order: `api_double`
(`ApiDouble`, sockets, limits, `serve`), `handler` (the socket side: bytes read, `handle`
asked, bytes sent), `transport` (the same without a socket: `double.transport()` for an
SDK's HTTP client, which `get_provider(..., double=double)` uses), `routing` (which API
a path and query are, and whether the request streams), `shape` (the type checks before
the rules, against each API's `SHAPE`), `play` (the model's reply, step by step through the API's
server half), `cache` (the prefixes the prompt cache holds, and its clock), `faults`
(failures, in each API's words), `background` (serving from a thread, shared with
`parts_api`) and `spectrum` (`flavour_table`: the same requests sent to every
local-server flavour).

`ApiDouble(flavour="vllm")` (or "ollama", "ollama-openai", "llamacpp", "lmstudio")
answers like that local server instead: its output-limit field, the `tool_choice` and
parallel calls it honours, its tool-call ids and error shapes, its answer to an unknown
model. The quirks are data, each with its source, in `toolcall_lab.wire.flavours`, played
by their fields in `toolcall_lab.wire.flavoured`.

A double never started is reached only through its transport, in the caller's thread
with no port (a hub that forbids listening, a browser's Python with no sockets); its `url`
is then `http://double.invalid`, a name no network resolves:

    >>> double = ApiDouble()
    >>> provider = get_provider("anthropic", double=double)
    >>> run_agent(provider, "What's the weather in Paris?", tools=[get_weather]).answer
    "It's 18°C and sunny in Paris."
    >>> double.url
    'http://double.invalid'

Left out: keys (any key is accepted;
of the headers only `X-Double-Fault` and the presence of a header only one SDK sends,
`anthropic-version`, are read, and none is ever logged), real token counts (usage is the
scripted 4-characters-per-token estimate, plus the hidden prompt an API bills, such as
Anthropic's tool-use system prompt whenever tools are offered: `models.tool_prompt_tokens`;
the cache reads and writes are worked out on those counts), and every endpoint but the
chat endpoints and the model lists.
"""

from __future__ import annotations

from .api_double import ROUTES, ApiDouble, RecordedRequest, RequestLog, bind_warning, serve
from .cache import FakeClock
from .faults import FAULTS
from .play import PROVIDER_FOR
from .spectrum import flavour_table, quirk_table

__all__ = ["FAULTS", "PROVIDER_FOR", "ROUTES", "ApiDouble", "FakeClock", "RecordedRequest", "RequestLog",
           "bind_warning", "flavour_table", "quirk_table", "serve"]
