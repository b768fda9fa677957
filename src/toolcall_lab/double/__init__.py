"""The loopback API double: a pretend model server on 127.0.0.1 that speaks all four APIs.

A *test double* stands in for the real thing in a test, the way a stunt double stands in
for an actor. The kit's real providers send requests through the official SDKs to
Anthropic, OpenAI and Ollama; to run that whole path offline (SDK, HTTP, JSON, retries,
error mapping) with no key, no network and no bill, tests and notebooks start this
server on the loopback interface and point the SDK at it. Per request, the double:

1. checks the body's shape (`shape`: the API's types, in its words), then the API's rules
   with its codec's `check_request` (`toolcall_lab.wire.<api>`), answering what the real
   API would reject with a 400 in its own error shape and words; then the codec's
   `decode_request` gives a transcript and tools;
2. lets a `ScriptedProvider` play the model (the lessons' `weather_policy` by default), held
   to the request's `tool_choice` and `parallel_tool_calls` as the API holds a real model;
3. answers with `encode_response`, a body the SDK parses with its own types.

    >>> from toolcall_lab import get_provider, run_agent
    >>> from toolcall_lab.tools import get_weather
    >>> with ApiDouble() as double:
    ...     provider = get_provider("openai-chat", base_url=double.base_url("chat"))
    ...     run_agent(provider, "What's the weather in Paris?", tools=[get_weather]).answer
    "It's 18°C and sunny in Paris."

It also misbehaves on request, which real servers do only when you are not looking:
`double.fail_next("rate_limit")` (or the header `X-Double-Fault: rate_limit`, for
`python -m toolcall_lab serve`) makes the next request, to any path, fail the way that
API fails (see `FAULTS`). It reasons the way each API's reasoning models do: Anthropic
when `thinking` is "enabled" (a budget) or "adaptive", Ollama when `think` is set, and
Responses for a model that reasons (`models.rules_of`), unless `reasoning.effort` is
"none" (OpenAI's reasoning models default to medium effort; gpt-4o does not reason). The trace is
short and deterministic, and sealed so that the codec's `check_request` notices if it
comes back edited. Per-model rules come with the codec's `check_request`: a thinking
budget sent to Claude Haiku 5.5 gets the same 400 the real API gives.

Choices a real server would make differently: Ollama streams when a request has no
`stream` key, so the double refuses such a request (with a 400 that says to send
`"stream": false`, as the kit's provider does) rather than pretend it would not stream;
Ollama thinks by default on models that can, the double only when `think` is set; the
newest Claude models think when `thinking` is left out, the double only when it is sent
(so a run without it shows no thinking blocks), and "between_tools" gets no thinking.

The double is a package of small modules, read in this order: `server`
(`ApiDouble`, sockets, limits, `serve`), `shape` (the type checks before the rules, against
each API's `SHAPE`: one JSON Schema per API of the fields the double reads),
`play` (the model's reply, reasoning, stored Responses), `cache` (the prompt cache and
its clock), `faults` (failures in each
API's words), `background` (serving from a thread, shared with `parts_api`) and
`spectrum` (`flavour_table`: the same requests sent to every local-server flavour).

`ApiDouble(flavour="vllm")` (or "ollama", "ollama-openai", "llamacpp", "lmstudio")
answers like that local server instead: its output-limit field, the `tool_choice` and
parallel calls it honours, its tool-call ids and error shapes, its answer to an unknown
model. The quirks are data, each with its source, in `toolcall_lab.wire.flavours`.

Left out: streaming (`stream: true` gets a 400 saying so), keys (any key is accepted;
of the headers only `X-Double-Fault` and the presence of `anthropic-version` are read,
and none is ever logged), real token counts (usage is the scripted 4-characters-per-token
estimate, plus, on the Anthropic side, the hidden tool-use system prompt Anthropic bills
whenever tools are offered: `models.tool_prompt_tokens`; the cache reads and writes are
worked out on those counts, `double/cache.py`), and every endpoint but the four
chat endpoints and the two model lists.
"""

from __future__ import annotations

from .cache import FakeClock
from .faults import FAULTS
from .play import PROVIDER_FOR
from .server import ROUTES, ApiDouble, RecordedRequest, RequestLog, bind_warning, serve
from .spectrum import flavour_table, quirk_table

__all__ = ["FAULTS", "PROVIDER_FOR", "ROUTES", "ApiDouble", "FakeClock", "RecordedRequest", "RequestLog",
           "bind_warning", "flavour_table", "quirk_table", "serve"]
