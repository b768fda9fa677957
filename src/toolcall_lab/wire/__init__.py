"""The wire: the one internal transcript, spelled the way each API wants it.

Four APIs, one folder each (one `ls` answers "how does Anthropic work here?"), pure
translators inside (no I/O, so every translation can be tested offline and shown in a
notebook), and one `ApiSpec` each in `API_SPECS`, the record every table of APIs
elsewhere is derived from (`APIS`, `ENDPOINTS`, the double's routes, the widgets' titles):

    api          folder        endpoint                     spoken by
    "anthropic"  anthropic/    POST /v1/messages            Anthropic
    "responses"  responses/    POST /v1/responses           OpenAI
    "chat"       chat/         POST /v1/chat/completions    OpenAI, and vLLM, llama.cpp, LM Studio,
                                                            Ollama's /v1, gateways
    "ollama"     ollama/       POST /api/chat               Ollama (native)

Every codec (the package `wire.<api>`, what `API_SPECS` names) offers the same functions.
The first two are what a provider uses; the next three let the loopback API double
(`toolcall_lab.double`) play the server side; the last two are the API's rules and its
error shape:

    encode_request(transcript, tools=(), *, model, **options) -> dict   request body
    decode_response(body) -> Turn                                          reply, stop reason, usage
    decode_stream(raw_events) -> Iterator[StreamEvent]                     a streamed reply, piece by
                                                                           piece, ending in its Turn
    decode_request(body) -> tuple[Transcript, tuple[Tool, ...]]           what a server reads
    decode_tool_choice(body) -> tuple[str | None, bool | None]             ... and how free the model is
    encode_response(turn, *, response_id) -> dict                          what a server answers
    check_request(body) -> list[Problem]                                   what the API would reject
    error_body(message, *, status, param=None, code=None) -> dict          the API's error JSON

and `why_dropped(block, *, model=None, **options) -> str | None`: why a request to the API
leaves one `ReasoningBlock` out (None: it goes back), the rule `encode_request` follows and
`foreign_reasoning` reports.

`decode_response` and `decode_request` are the doors a body comes in by, so both read it
through `_shared.from_the_wire`: a lone surrogate anywhere in it (a `"\\ud83d"` escape in a
tool call's name, say) becomes U+FFFD before any of it reaches a transcript.

Each API's folder holds a file per job, and the package re-exports them as one codec:

    <api>/client.py     the client half: encode_request, decode_response, why_dropped
    <api>/server.py     the server half the API double plays: decode_request,
                        decode_tool_choice, encode_response, error_body, and `SERVER`, a
                        `ServerHalf` (`_server_half.py`: what else the double asks of it,
                        with defaults a half overrides only where its API differs)
    <api>/rules.py      the API's rules, in its own words: check_request (tool calls and
                        results paired, content, tool names and schemas, reasoning, and
                        what each model takes; Ollama checks little else than the model)
    <api>/shape.py      the request body's JSON Schema, and the API's words for a wrong type
    <api>/stream.py     the stream half: decode_stream, a streamed reply read into the kit's
                        events (`toolcall_lab.stream`) on the one assembler all four share
                        (`_stream.py`), ending in the Turn decode_response gives
    <api>/_blocks.py    the translators both halves share, and the API's names (`ITEMS_KEY`,
                        the request key of its conversation; `ended_by`, what a response
                        body says ended the reply)
    (anthropic/ also has thinking.py and caching.py: each concept's client, rules and
    double together)

and beside the folders: `_server_half.py` (`ServerHalf`, what the double asks of a server
half, and `Route`, where an API answers), `problem.py` (`Problem`, what check_request answers with),
`signing.py` (how the API double signs the reasoning it invents), `flavours.py` (how five
local servers bend the API they speak: one record each), `flavoured.py` (a record played),
`_shared.py` (what all four codecs do the same way), `_openai/` (what OpenAI's two APIs
share, client and server: a file per job, as in an API's folder), `_schema.py` (the shapes'
vocabulary) and `_layout.py` (a prompt block by block, for the prompt caches).

A rule's text is the API's own error message, word for word where one is on record,
with its source beside it; a text written here in the API's style says so. A provider
runs `check_request` before it sends (so a mistake is caught offline, with the API's
words), and the API double runs it on every request it receives. Left out of the rules:
limits only the server knows (context length, rate limits, a model that is not there),
and rules that depend on earlier requests (`previous_response_id`).

A provider names its codec as a class attribute, typed by the `Codec` protocol (what a
client needs); `ApiSpec.server` is a `ServerHalf` (what the double needs). Both are
imported on first use, so importing this package loads no API folder. To add an API: copy
a folder, rename what it spells, and add one `ApiSpec` line below (with its `Route`s when
the API carries its model or stream switch in the URL).

`check(transcript, api=...)` encodes a transcript and lists what the real API would
reject, each `Problem` with its path in the request and the API's own wording;
`foreign_reasoning(transcript, api, model=...)` lists the reasoning a request leaves out,
each with why.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

from ..errors import UsageError
from ._server_half import Route, ServerHalf
from .problem import Problem

if TYPE_CHECKING:
    from ..blocks import ReasoningBlock
    from ..output_format import OutputFormat
    from ..stream import StreamEvent
    from ..tool import Tool
    from ..transcript import Transcript
    from ..turn import Turn

__all__ = ["API", "APIS", "API_SPECS", "ENDPOINTS", "ApiSpec", "Codec", "Dropped", "Problem", "Route",
           "ServerHalf", "check", "check_request", "codec", "decode_reply", "decode_response",
           "decode_stream", "encode_request", "foreign_reasoning", "format_problems"]

#: An API's name, as `API_SPECS` spells it ("anthropic", "responses", "chat", "ollama", or one
#: added later): a plain string, so an API folder can name itself without importing this module.
API = str


class Codec(Protocol):
    """What a provider asks of its API's codec, the package `wire.<api>`: the functions the
    module docstring lists, and its names (`API_NAME`, as `API_SPECS` spells it;
    `PROVIDER_NAME`, stamped on the reasoning it decodes)."""

    @property
    def API_NAME(self) -> str: ...

    @property
    def PROVIDER_NAME(self) -> str: ...

    def encode_request(self, transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                       max_tokens: int = 1024) -> dict[str, Any]: ...

    def decode_response(self, body: Mapping[str, Any]) -> Turn: ...

    def decode_stream(self, raw_events: Iterable[Mapping[str, Any]]) -> Iterator[StreamEvent]: ...

    def check_request(self, body: Mapping[str, Any]) -> list[Problem]: ...

    def error_body(self, message: str, *, status: int = 400, param: str | None = None,
                   code: str | None = None, error_type: str | None = None) -> dict[str, Any]: ...

    def why_dropped(self, block: ReasoningBlock, *, model: str | None = None,
                    **options: Any) -> str | None: ...


@dataclass(frozen=True)
class ApiSpec:
    """Everything the kit knows about one API, in one record.

    `endpoint` is the path the API is served at, relative to the server's root;
    `base_path` is what follows the server's root in an SDK's `base_url` (the OpenAI SDK
    wants ".../v1" and adds the rest; the Anthropic and Ollama clients want the root);
    `provider` is the registry name of the provider that speaks it by default;
    `response_id` is how the API double numbers its responses (the prefix of each id);
    `limit_counts_cache_reads` says whether its per-minute input-token limit counts what a
    request reads from the prompt cache (Anthropic's ITPM does not, on current models:
    platform.claude.com/docs/en/api/rate-limits, as quoted in docs/sources.md §6; `python -m
    toolcall_lab budget` counts a class's burst that way).

    What the API double needs before it reads a body: `routes`, where the API answers and
    where a request there says its model and whether it streams (`Route`; default: one route,
    `endpoint`, with both in the body); `streams_by_default`, whether a request that does
    not say `"stream"` streams; `sdk_header`, a header only the API's SDK sends, by which a
    path every API shares (`/v1/models`, an unknown `/v1/...`) answers in its shape;
    `compatible`, whether it is the dialect other servers copy (the double answers in it a
    request it cannot place, and a local server's flavour lists its model there too);
    `models_path`, where it lists its models; `local_rules`, whether `check_request`'s rules
    are a local server's own (so a flavour of that API keeps them).

    `codec` (the package `wire.<api>`, what a provider speaks with) and `server` (its
    server half, `wire.<api>.server.SERVER`, what the double plays) are imported from
    `package` when first asked for, so `import toolcall_lab` loads no API folder.

    >>> API_SPECS["chat"].endpoint, API_SPECS["chat"].base_path, API_SPECS["chat"].provider
    ('/v1/chat/completions', '/v1', 'openai-chat')
    """

    name: str
    title: str
    endpoint: str
    base_path: str
    provider: str
    response_id: str
    limit_counts_cache_reads: bool = True
    routes: tuple[Route, ...] = ()
    streams_by_default: bool = False
    sdk_header: str | None = None
    compatible: bool = False
    models_path: str = "/v1/models"
    local_rules: bool = False
    package: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        # subtle: a frozen dataclass sets its derived defaults through object.__setattr__
        if not self.routes:
            object.__setattr__(self, "routes", (Route(self.endpoint),))
        if not self.package:
            object.__setattr__(self, "package", f"{__name__}.{self.name}")

    @cached_property
    def codec(self) -> Codec:
        """The API's codec, the package `wire.<api>` (imported on first use)."""
        return cast("Codec", importlib.import_module(self.package))

    @cached_property
    def server(self) -> ServerHalf:
        """The API's server half, `wire.<api>.server.SERVER` (imported on first use)."""
        half = importlib.import_module(f"{self.package}.server").SERVER
        assert isinstance(half, ServerHalf), f"{self.package}.server.SERVER is not a ServerHalf"
        return half


#: Every API the kit speaks, by name: the one record each, in the lessons' order.
API_SPECS: dict[str, ApiSpec] = {spec.name: spec for spec in (
    ApiSpec("anthropic", "Anthropic Messages", "/v1/messages", "", "anthropic", "msg_double_",
            limit_counts_cache_reads=False, sdk_header="anthropic-version"),
    ApiSpec("responses", "OpenAI Responses", "/v1/responses", "/v1", "openai", "resp_double_"),
    ApiSpec("chat", "OpenAI Chat", "/v1/chat/completions", "/v1", "openai-chat", "chatcmpl-double-",
            compatible=True),
    # Ollama streams unless a request says `"stream": false`, and its few rules are its own server's
    ApiSpec("ollama", "Ollama", "/api/chat", "", "ollama", "ollama-double-", streams_by_default=True,
            models_path="/api/tags", local_rules=True),
)}
APIS: tuple[API, ...] = tuple(API_SPECS)


def __getattr__(name: str) -> ModuleType:
    # `wire.chat` after a bare `import toolcall_lab.wire`: the API's folder, imported on first use
    if name in API_SPECS:
        return cast("ModuleType", API_SPECS[name].codec)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
#: The path each API is served at, relative to the server's root.
ENDPOINTS: dict[str, str] = {spec.name: spec.endpoint for spec in API_SPECS.values()}


def codec(api: str) -> Codec:
    """The codec for `api` ("anthropic", "responses", "chat" or "ollama"): the package
    `wire.<api>`, which also re-exports its server half (`codec("chat").encode_response`)."""
    try:
        return API_SPECS[api].codec
    except (KeyError, TypeError):
        raise UsageError(f"unknown API {api!r}; the kit speaks {', '.join(APIS)}.") from None


def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, api: str,
                   **options: Any) -> dict[str, Any]:
    """The request body `api` expects for this conversation (see the codec for options)."""
    return codec(api).encode_request(transcript, tools, **options)


def decode_response(body: Mapping[str, Any], *, api: str) -> Turn:
    """The `Turn` a response body of `api` carries."""
    return codec(api).decode_response(body)


def decode_stream(raw_events: Iterable[Mapping[str, Any]], *, api: str) -> Iterator[StreamEvent]:
    """The kit's events for a streamed reply of `api`, one wire event (a dict) at a time.

    The last is `StreamFinished(turn)`, the same `Turn` as `decode_response` of the reply
    unstreamed; see each API's `stream.py` for what a raw event is.
    """
    return codec(api).decode_stream(raw_events)


def decode_reply(*, api: str, response: Mapping[str, Any] | None = None,
                 events: Iterable[Mapping[str, Any]] | None = None) -> Turn:
    """The reply an answer of `api` holds: its JSON `response` decoded, or, for a streamed
    one, its raw `events` (the turn their `StreamFinished` carries: the same `Turn`).

    >>> decode_reply(api="chat", response={"choices": [{"message": {"role": "assistant",
    ...     "content": "Hi"}, "finish_reason": "stop"}], "model": "m"}).text
    'Hi'
    """
    from ..stream import StreamFinished

    if response is not None:
        return codec(api).decode_response(response)
    if events is None:
        raise UsageError("decode_reply needs the answer's response (a JSON body) or its stream's events.")
    # subtle: a stream that never finishes makes decode_stream raise before this list is read
    return [e.turn for e in codec(api).decode_stream(events) if isinstance(e, StreamFinished)][-1]


def format_problems(output_format: OutputFormat, question: str = "Fill in the schema."
                    ) -> dict[str, list[Problem]]:
    """What each API's rules say of `output_format` as structured output: a one-`question`
    request to its provider's default model, encoded and checked (empty: accepted).

    >>> from toolcall_lab.output_format import OutputFormat
    >>> found = format_problems(OutputFormat("answer", {"type": "object"}))
    >>> sorted(api for api, problems in found.items() if problems)
    ['anthropic', 'chat', 'responses']
    """
    from ..messages import Message
    from ..models import default_model
    from ..transcript import Transcript

    asked = Transcript(messages=[Message.user(question)])
    return {api: check_request(encode_request(asked, api=api, model=default_model(spec.provider),
                                              output_format=output_format), api=api)
            for api, spec in API_SPECS.items()}


def check_request(body: Mapping[str, Any], *, api: str) -> list[Problem]:
    """What the real `api` would reject in this request body (empty when it looks valid)."""
    return codec(api).check_request(body)


def check(transcript: Transcript, *, api: str, tools: Sequence[Tool] = (),
          model: str = "any-model", server: str | None = None, **options: Any) -> list[Problem]:
    """What the real `api` would reject if this transcript were sent to it now.

    Options are the codec's (`thinking=` for Anthropic, say, since a tool loop with
    thinking on has rules of its own). With `server` (a local server's flavour:
    "ollama", "ollama-openai", "vllm", "llamacpp", "lmstudio"; `wire.flavours`), the
    list is that server's instead: what it refuses, then warnings (`severity="warning"`)
    for what it silently ignores, such as `max_completion_tokens` on Ollama's /v1:

    >>> from toolcall_lab import Message, Transcript
    >>> [(p.severity, p.path) for p in check(Transcript(messages=[Message.user("Hi")]), api="chat",
    ...  server="ollama-openai", max_tokens_field="max_completion_tokens")]
    [('warning', 'max_completion_tokens')]

    >>> from toolcall_lab import Message, ToolResult, Transcript
    >>> t = Transcript(messages=[Message.user("Hi"), Message.assistant("Hello!"),
    ...                          Message.results([ToolResult("toolu_9", "18°C")])])
    >>> problems = check(t, api="anthropic")
    >>> [problem.path for problem in problems]
    ['messages.2.content.0']
    >>> print(problems[0].text[:86])
    messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9.
    """
    body = encode_request(transcript, tools, api=api, model=model, **options)
    if server is None:
        return check_request(body, api=api)
    from . import flavoured, flavours

    flavour = flavours.flavour_of(server)
    if flavour.api != api:
        raise UsageError(f"{flavour.title} speaks {flavour.api!r} in the double, not {api!r}; "
                         f"pass api={flavour.api!r}.")
    refused = flavoured.refusal(flavour, body, model_check=False)
    return ([refused.problem] if refused else []) + flavoured.ignored(flavour, body)


class Dropped(NamedTuple):
    """One reasoning block a request leaves out: the index of its message, the block, and why."""

    message: int
    block: ReasoningBlock
    why: str


def foreign_reasoning(transcript: Transcript, target: str, *, model: str | None = None,
                      **options: Any) -> list[Dropped]:
    """The reasoning blocks a request to `target` leaves out, each with its message and why.

    `target` is an API ("anthropic", "responses", "chat", "ollama") or the provider that
    speaks it by default ("openai" for Responses, "openai-chat" for Chat); `model` and
    `options` are the request's (`store=True` for Responses, say). Each codec's
    `why_dropped` decides, the same rule its `encode_request` follows:

    - every API: reasoning another provider made (only its maker can read it back);
    - Chat Completions: its own too, since the API has no field to send reasoning back;
    - Responses: an OpenAI block with no reasoning item, or, with `store: false`, an item
      without its `encrypted_content`;
    - Anthropic: thinking written by another model than `model` (none dropped for that
      when `model` is None);
    - Ollama: its own reasoning with no text.

    >>> from toolcall_lab import Message, ReasoningBlock, Transcript
    >>> thought = ReasoningBlock("hmm", provider="anthropic", model="claude-opus-5")
    >>> t = Transcript(messages=[Message.user("Hi"), Message.assistant(thought, "Hello")])
    >>> foreign_reasoning(t, "openai")
    [Dropped(message=1, block=ReasoningBlock('hmm', provider='anthropic', model='claude-opus-5'), \
why='made by anthropic: reasoning goes back only to the provider that made it')]
    >>> foreign_reasoning(t, "anthropic", model="claude-opus-5")
    []
    >>> [dropped.why for dropped in foreign_reasoning(t, "anthropic", model="claude-haiku-5-5")]
    ['written by claude-opus-5, not by claude-haiku-5-5: thinking goes back only to its model']
    """
    wire = codec(_API_OF.get(target, target))
    return [Dropped(index, block, why) for index, message in enumerate(transcript.messages)
            for block in message.reasoning
            if (why := wire.why_dropped(block, model=model, **options)) is not None]


#: The provider that speaks each API by default, as `foreign_reasoning` also takes it.
_API_OF = {spec.provider: spec.name for spec in API_SPECS.values()}
