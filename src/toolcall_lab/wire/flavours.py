"""The five local servers, one record each: where they listen, how to start them, how they bend the API.

"OpenAI-compatible" is a spectrum. Four local servers answer `POST /v1/chat/completions`
and Ollama also speaks its own `/api/chat`, and each reads a request its own way: one
honours `max_completion_tokens`, another drops it without a word; one forces the tool you
name, another quietly lets the model choose, a third answers 400 with an error that is a
plain string. A `Flavour` is one server's record: its URL and start commands, the API it
speaks, and its quirks as data, each fact with the public page it comes from
(`Flavour.sources`). It is the one table of local servers: the providers' presets
(`providers.openai_chat.LOCAL_SERVERS`, the servers that speak Chat), the registry's
local names (`providers.registry.PROVIDERS`) and the Ollama provider's URL are read from
it, the API double plays it (`ApiDouble(flavour="vllm")`), and `wire.check(..., server=...)`
warns about what a server would silently ignore. Each server's default model is a model
id, so it lives with the others in `models.DEFAULT_MODELS` (`Flavour.model` reads it).

    flavour         API     output limit read as                tool_choice             parallel calls
    ollama          ollama  options.num_predict                 no such field           model decides
    ollama-openai   chat    max_tokens (max_completion_... not)  ignored                 not a field
    vllm            chat    max_completion_tokens, max_tokens   all, named too          on unless false
    llamacpp        chat    max_completion_tokens, max_tokens   named falls back: auto  off unless true
    lmstudio        chat    max_tokens                          named object: 400       model decides

    >>> for f in FLAVOURS.values():
    ...     print(f"{f.name:<14} {f.base_url:<26} {' && '.join(f.start)[:56]}")
    ollama         http://localhost:11434     ollama serve && ollama pull {model}
    ollama-openai  http://localhost:11434/v1  ollama serve && ollama pull {model}
    vllm           http://localhost:8000/v1   vllm serve {model} --enable-auto-tool-choice --tool-call
    llamacpp       http://localhost:8080/v1   llama-server -hf {model} --jinja --port 8080
    lmstudio       http://localhost:1234/v1   lms load {model} && lms server start --port 1234
    >>> FLAVOURS["ollama-openai"].reads_limit("max_completion_tokens")
    False
    >>> [p.text[:60] for p in ignored(FLAVOURS["ollama-openai"], {"max_completion_tokens": 5})]
    ['Ollama /v1 ignores `max_completion_tokens` (it reads only `m']

Tool-call ids are random on the real servers; the double spells them the server's way but
derives the random part from a counter (`call_id`), so a notebook reruns identically.

Streaming (`Flavour.stream`, a `Streaming`): the double plays each Chat server's stream
from OpenAI's (`restream`), bent by the server's quirks: Ollama /v1 sends each call whole
in one chunk, vLLM opens every call with only its name and puts the finish reason on the
last delta, llama.cpp opens with `content: null`; what is not known of a server's stream
is said in its notes. Ollama's own API streams whole calls unasked (`wire/ollama/streaming.py`).

Left out: reasoning fields (`Flavour.reasoning_field`), server flags (vLLM
needs `--enable-auto-tool-choice`: the double plays a server started with the documented
command), Ollama's "does not support tools" for a model without tools, and llama.cpp's
router mode (several models; the double plays the single-model server, which ignores `model`).
A misshapen body (`messages: 5`) gets a 400 in the server's error shape but OpenAI's words
(each server's own validator words it differently; none is on record here), and the hosted
API's conversation rules (every call answered, ...) are not applied: the local servers render
whatever they are sent into the model's chat template [inference: no such check appears in
their request handling].
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from ..blocks import TextBlock, ToolCall
from ..errors import UsageError
from ..messages import Message
from ..models import default_model
from ..tool_choice import MODES
from ..turn import StopReason, Turn
from .problem import Problem

__all__ = ["FLAVOURS", "OLLAMA_OPENAI_INDEX_0", "Flavour", "Refusal", "Streaming", "call_id", "cut_to_limit",
           "error_body", "finish", "flavour_of", "held_to", "ignored", "output_limit", "refusal", "restream",
           "spell_ids", "stream_error"]

# The public pages every fact below comes from (one name each, so a table can cite them).
_OLLAMA_OPENAI = "https://docs.ollama.com/api/openai-compatibility"
_OLLAMA_FAQ = "https://docs.ollama.com/faq"
_OLLAMA_CLI = "https://docs.ollama.com/cli"
_OLLAMA_GO = "https://github.com/ollama/ollama/blob/main/openai/openai.go"
_OLLAMA_ROUTES = "https://github.com/ollama/ollama/blob/main/server/routes.go"
_OLLAMA_TOOLS = "https://docs.ollama.com/capabilities/tool-calling"
_OLLAMA_7125 = "https://github.com/ollama/ollama/issues/7125"
_OLLAMA_8421 = "https://github.com/ollama/ollama/issues/8421"
_OLLAMA_11171 = "https://github.com/ollama/ollama/issues/11171"
_OLLAMA_API = "https://github.com/ollama/ollama/blob/main/docs/api.md"
_OLLAMA_ERRORS = "https://docs.ollama.com/api/errors"
_OLLAMA_MIDDLEWARE = "https://github.com/ollama/ollama/blob/main/middleware/openai.go"
_OLLAMA_7888 = "https://github.com/ollama/ollama/pull/7888"
_OLLAMA_17485 = "https://github.com/ollama/ollama/pull/17485"
_VLLM_TOOLS = "https://docs.vllm.ai/en/latest/features/tool_calling/"
_VLLM_SERVING = ("https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/"
                 "chat_completion/serving.py")
_VLLM_HERMES = "https://github.com/vllm-project/vllm/blob/main/vllm/tool_parsers/hermes_tool_parser.py"
_VLLM_SERVER = "https://docs.vllm.ai/en/latest/serving/openai_compatible_server/"
_VLLM_PROTOCOL = ("https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/"
                  "chat_completion/protocol.py")
_VLLM_ENGINE = "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/engine/protocol.py"
_VLLM_IDS = "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/chat_utils.py"
_VLLM_25054 = "https://github.com/vllm-project/vllm/pull/25054"
_VLLM_REASONING = "https://docs.vllm.ai/en/latest/features/reasoning_outputs/"
_VLLM_12886 = "https://github.com/vllm-project/vllm/issues/12886"
_LLAMA_FC = "https://github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md"
_LLAMA_COMMON = "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-common.cpp"
_LLAMA_TASK = "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-task.cpp"
_LLAMA_README = "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md"
_LLAMA_26535 = "https://github.com/ggml-org/llama.cpp/issues/26535"
_LLAMA_CHAT = "https://github.com/ggml-org/llama.cpp/blob/master/common/chat.cpp"
_LLAMA_13800 = "https://github.com/ggml-org/llama.cpp/pull/13800"
_LLAMA_16109 = "https://github.com/ggml-org/llama.cpp/pull/16109"
_LMS_OPENAI = "https://lmstudio.ai/docs/developer/openai-compat"
_LMS_SERVE = "https://lmstudio.ai/docs/cli/serve/server-start"
_LMS_CHAT = "https://lmstudio.ai/docs/developer/openai-compat/chat-completions"
_LMS_TOOLS = "https://lmstudio.ai/docs/developer/openai-compat/tools"
_LMS_CHANGELOG = "https://lmstudio.ai/docs/developer/api-changelog"
_LMS_670 = "https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/670"
_LMS_1556 = "https://github.com/assafelovic/gpt-researcher/issues/1556"


@dataclass(frozen=True)
class Streaming:
    """How a server streams a reply: the `stream` group of its `Flavour`, each field a quirk.

    The defaults are OpenAI's own Chat Completions stream (`wire/chat/streaming.py`); a
    server's record says where it differs, each field with its source in `Flavour.sources`
    as "stream.<field>". `restream` plays them.

    `default`: whether it streams when `stream` is not sent. `calls`: how a tool call
    arrives ("incremental": the arguments in pieces; "whole call in one chunk").
    `opening`: the first chunk's delta (None: OpenAI's, `{"role": "assistant", "content":
    ""}` and `"refusal": null`; "with the first piece": no chunk of its own, the role rides
    on the first chunk that carries something). `empty_arguments`: whether the delta that
    opens a call carries `"arguments": ""` (OpenAI) or only the name (vLLM). `index`:
    "every delta", "omitted" (Ollama /v1 before v0.4.7), or "0 on every call" (Ollama's own
    /v1 on some versions: "all tool call chunks have `index: 0` instead of incrementing
    indices", ollama/ollama#15457, seen on 0.20.2 and 0.20.4 by vercel/ai#14277; play it with
    `OLLAMA_OPENAI_INDEX_0`). `resent`: the call's fields
    every later delta of it sends again ("id", "type", "name"; llama.cpp before PR #13800
    resent the name). `finish`: the finish reason on a chunk of its "own chunk" with
    `delta: {}`, or "with the last delta" (vLLM). `error`: what an error mid-stream is
    followed by ("nothing", or "[DONE]" as vLLM sends it).

        >>> FLAVOURS["vllm"].stream.finish, FLAVOURS["ollama-openai"].stream.calls
        ('with the last delta', 'whole call in one chunk')
    """

    default: bool = False
    calls: str = "incremental"
    opening: Mapping[str, Any] | str | None = None
    empty_arguments: bool = True
    index: str = "every delta"
    resent: tuple[str, ...] = ()
    finish: str = "own chunk"
    error: str = "nothing"


@dataclass(frozen=True)
class Flavour:
    """One local server: where it listens, how to start it, and its reading of the API it speaks.

    Where it is: `base_url` (its default address, as an SDK's `base_url` takes it),
    `start` (the commands that get it serving, in order, with `{model}` where the model
    id goes), `label` (its name in the provider picker) and `notes` (what a learner
    should know that no field below says).

    How it reads a request: `limit_fields`: the request fields the server reads the
    output limit from, first found wins (Ollama native: `options.num_predict`), and
    `max_tokens_field`: the one the kit's preset sends; `tool_choice`: the modes it
    honours ("auto", "none", "required"); `named_choice`: what it does with a named tool
    ("honoured", "auto": treated as auto, "400": refused, "ignored"); `parallel`: what
    happens when `parallel_tool_calls` is not sent (None: the model decides, True/False),
    and `parallel_honoured` whether the field is read at all.

    How it answers: `ids`: how its tool-call ids look; `arguments`: "string" (JSON text)
    or "object"; `unknown_model`: the status a model it does not have gets (None: the
    field is not read); `error_shape`; `reasoning_field`; `stream`: how it streams
    (`Streaming`). `sources` maps each field to its public page ("stream.default" for a
    field of the stream group).
    """

    name: str
    title: str
    api: str
    label: str
    base_url: str
    start: tuple[str, ...]
    max_tokens_field: str
    limit_fields: tuple[str, ...]
    tool_choice: tuple[str, ...]
    named_choice: str
    parallel: bool | None
    parallel_honoured: bool
    ids: str
    arguments: str
    unknown_model: int | None
    error_shape: str
    reasoning_field: str = "reasoning_content"
    stream: Streaming = Streaming()
    notes: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return f"Flavour({self.name!r}, api={self.api!r})"

    @property
    def model(self) -> str:
        """The one model this server has loaded in the double: the kit's default for it."""
        return default_model(self.name)

    @property
    def bends_chat_stream(self) -> bool:
        """Whether `restream` and `stream_error` apply: this server speaks Chat Completions, whose
        stream its `stream` record bends. Ollama's own API streams its own way (its server half),
        so there is nothing for the record to bend."""
        return self.api == "chat"

    @property
    def parallel_tool_calls(self) -> bool | None:
        """What the kit's preset sends as `parallel_tool_calls`: True where the server makes one
        call per reply unless asked for more (llama.cpp), else nothing (None)."""
        return True if self.parallel is False else None

    def start_hint(self, model: str) -> str:
        """One sentence on how to get this server answering at its URL.

        >>> FLAVOURS["vllm"].start_hint("Qwen/Qwen3-0.6B")[:56]
        'start the server with `vllm serve Qwen/Qwen3-0.6B --enab'
        """
        steps = " then ".join(f"`{command.format(model=model)}`" for command in self.start)
        return f"start the server with {steps} and try again."

    def fact(self, name: str) -> Any:
        """The value of the field `name` ("stream.default" for one of the stream group), as
        `sources` names it."""
        value: Any = self
        for part in name.split("."):
            value = getattr(value, part)
        return value

    def reads_limit(self, name: str) -> bool:
        """Whether the server reads the output limit from the request field `name`."""
        return name in self.limit_fields

    def honours(self, tool_choice: str) -> bool:
        """Whether a `tool_choice` (a mode, or a tool's name) holds the model on this server."""
        return tool_choice in self.tool_choice if tool_choice in MODES else self.named_choice == "honoured"


FLAVOURS: dict[str, Flavour] = {f.name: f for f in (
    Flavour(
        "ollama", "Ollama /api/chat", "ollama", label="Ollama (local)", base_url="http://localhost:11434",
        start=("ollama serve", "ollama pull {model}"), max_tokens_field="options.num_predict",
        limit_fields=("options.num_predict",), tool_choice=(),
        named_choice="ignored", parallel=None, parallel_honoured=False, ids="call_ + 8 [a-z0-9]",
        arguments="object", unknown_model=404, error_shape='{"error": "<text>"}',
        reasoning_field="thinking", stream=Streaming(default=True, calls="whole call in one chunk"),
        notes=("the model's template must support tools (`ollama show <model>`)",),
        sources={"limit_fields": _OLLAMA_API, "tool_choice": _OLLAMA_11171, "named_choice": _OLLAMA_11171,
                 "parallel": _OLLAMA_TOOLS, "parallel_honoured": _OLLAMA_11171, "ids": _OLLAMA_ROUTES,
                 "arguments": _OLLAMA_TOOLS, "unknown_model": _OLLAMA_ROUTES, "error_shape": _OLLAMA_ERRORS,
                 "reasoning_field": _OLLAMA_API, "stream.default": _OLLAMA_API,
                 "stream.calls": _OLLAMA_ROUTES,
                 **{f"stream.{name}": _OLLAMA_API + " [a Chat Completions quirk: /api/chat streams NDJSON]"
                    for name in ("opening", "empty_arguments", "index", "resent", "finish", "error")},
                 "base_url": _OLLAMA_FAQ, "start": _OLLAMA_CLI, "max_tokens_field": _OLLAMA_API}),
    Flavour(
        "ollama-openai", "Ollama /v1", "chat", label="Ollama /v1 (local)", base_url="http://localhost:11434/v1",
        start=("ollama serve", "ollama pull {model}"), max_tokens_field="max_tokens",
        limit_fields=("max_tokens",), tool_choice=(),
        named_choice="ignored", parallel=None, parallel_honoured=False, ids="call_ + 8 [a-z0-9]",
        arguments="string", unknown_model=404,
        error_shape='{"error": {"message", "type": "invalid_request_error" | "not_found_error", ...}}',
        reasoning_field="reasoning",
        stream=Streaming(calls="whole call in one chunk", opening="with the first piece"),
        notes=("the model's template must support tools (`ollama show <model>`)",
               "streams as v0.32.6 and later do: the role only on the first chunk, the finish reason on "
               "a chunk of its own; before v0.4.7 a streamed call had no `index`, which breaks the "
               "openai SDK's stream helper (ollama#7881); some later versions (0.20.2, 0.20.4) gave "
               "every call of a reply `index` 0 (ollama#15457; `OLLAMA_OPENAI_INDEX_0` plays it)",
               "an error mid-stream on /v1 is not documented: the double sends the error object and "
               "stops [inference from middleware/openai.go; no report confirms it]"),
        sources={"limit_fields": _OLLAMA_7125, "tool_choice": _OLLAMA_OPENAI, "named_choice": _OLLAMA_8421,
                 "parallel": _OLLAMA_TOOLS, "parallel_honoured": _OLLAMA_GO, "ids": _OLLAMA_GO,
                 "arguments": _OLLAMA_GO, "unknown_model": _OLLAMA_ROUTES, "error_shape": _OLLAMA_GO,
                 "reasoning_field": _OLLAMA_GO, "stream.default": _OLLAMA_OPENAI,
                 "stream.calls": _OLLAMA_GO, "stream.opening": _OLLAMA_17485,
                 "stream.empty_arguments": _OLLAMA_GO, "stream.index": _OLLAMA_7888,
                 "stream.resent": _OLLAMA_GO, "stream.finish": _OLLAMA_17485,
                 "stream.error": _OLLAMA_MIDDLEWARE + " [inference from code, unverified]",
                 "base_url": _OLLAMA_OPENAI, "start": _OLLAMA_CLI, "max_tokens_field": _OLLAMA_7125}),
    Flavour(
        "vllm", "vLLM", "chat", label="vLLM (local)", base_url="http://localhost:8000/v1",
        start=("vllm serve {model} --enable-auto-tool-choice --tool-call-parser hermes",),
        max_tokens_field="max_completion_tokens", limit_fields=("max_completion_tokens", "max_tokens"),
        tool_choice=("auto", "none", "required"), named_choice="honoured", parallel=True,
        parallel_honoured=True, ids="chatcmpl-tool- + 32 hex", arguments="string", unknown_model=404,
        error_shape='{"error": {"message", "type": "BadRequestError" | "NotFoundError", "param", '
                    '"code": <int>}}', reasoning_field="reasoning",
        stream=Streaming(opening={"role": "assistant", "content": ""}, empty_arguments=False,
                         finish="with the last delta", error="[DONE]"),
        notes=("tool calls need --enable-auto-tool-choice and a --tool-call-parser, else 400",
               "reasoning comes apart from the text only with --reasoning-parser",
               "a stream's deltas are the tool parser's (the double plays hermes'); a reply that opens "
               "with a call still streams `content: \"\"` first, so the SDK's rebuilt message has "
               "content '' where the unstreamed one has null; vLLM also sends `stop_reason` on the "
               "finishing choice, which the double leaves out; its parallel calls' wire bytes are "
               "not recorded anywhere found"),
        sources={"limit_fields": _VLLM_PROTOCOL, "tool_choice": _VLLM_TOOLS, "named_choice": _VLLM_TOOLS,
                 "parallel": _VLLM_SERVER, "parallel_honoured": _VLLM_SERVER, "ids": _VLLM_IDS,
                 "arguments": _VLLM_TOOLS, "unknown_model": _VLLM_12886, "error_shape": _VLLM_ENGINE,
                 "reasoning_field": _VLLM_REASONING, "stream.default": _VLLM_PROTOCOL,
                 "stream.calls": _VLLM_HERMES, "stream.opening": _VLLM_SERVING,
                 "stream.empty_arguments": _VLLM_HERMES, "stream.index": _VLLM_HERMES,
                 "stream.resent": _VLLM_HERMES, "stream.finish": _VLLM_SERVING, "stream.error": _VLLM_SERVING,
                 "base_url": _VLLM_SERVER, "start": _VLLM_TOOLS, "max_tokens_field": _VLLM_PROTOCOL}),
    Flavour(
        "llamacpp", "llama.cpp llama-server", "chat", label="llama.cpp (local)",
        base_url="http://localhost:8080/v1", start=("llama-server -hf {model} --jinja --port 8080",),
        max_tokens_field="max_tokens", limit_fields=("max_completion_tokens", "max_tokens"),
        tool_choice=("auto", "none", "required"), named_choice="auto", parallel=False,
        parallel_honoured=True, ids="32 [A-Za-z0-9]", arguments="string", unknown_model=None,
        error_shape='{"error": {"code": <int>, "message", "type": "invalid_request_error" | ...}}',
        stream=Streaming(opening={"role": "assistant", "content": None}),
        notes=("older builds read only max_tokens, so the preset sends that",
               "streams as common_chat_msg_diff_to_json_oaicompat writes each diff (id and type once, "
               "`arguments` always); before PR #13800 (May 2025) every delta resent the name, which "
               "the openai SDK joins into `get_weatherget_weather...`; when the parsed name grows, "
               "the diff may send the id and name again [inference from common/chat.cpp, no report "
               "found]; before PR #16109 an error mid-stream was an `error:` SSE field clients "
               "ignore; whether `[DONE]` follows an error now is not known",
               "tool calls need --jinja on builds before Nov 2025 (llama.cpp#17524); the default port "
               "may move to 9931 (llama.cpp#26508), so the command names 8080"),
        sources={"limit_fields": _LLAMA_TASK, "tool_choice": _LLAMA_COMMON, "named_choice": _LLAMA_26535,
                 "parallel": _LLAMA_FC, "parallel_honoured": _LLAMA_FC, "ids": _LLAMA_COMMON,
                 "arguments": _LLAMA_FC, "unknown_model": _LLAMA_README, "error_shape": _LLAMA_COMMON,
                 "reasoning_field": _LLAMA_README, "stream.default": _LLAMA_README,
                 "stream.calls": _LLAMA_CHAT, "stream.opening": _LLAMA_TASK,
                 "stream.empty_arguments": _LLAMA_CHAT, "stream.index": _LLAMA_CHAT,
                 "stream.resent": _LLAMA_13800, "stream.finish": _LLAMA_TASK, "stream.error": _LLAMA_16109,
                 "base_url": _LLAMA_README, "start": _LLAMA_FC, "max_tokens_field": _LLAMA_README}),
    Flavour(
        "lmstudio", "LM Studio", "chat", label="LM Studio (local)", base_url="http://localhost:1234/v1",
        start=("lms load {model}", "lms server start --port 1234"), max_tokens_field="max_tokens",
        limit_fields=("max_tokens",),
        tool_choice=("auto", "none", "required"), named_choice="400", parallel=None, parallel_honoured=True,
        ids="9 digits", arguments="string", unknown_model=400,
        error_shape='{"error": {"message", "type", "param", "code"}} or {"error": "<text>"}',
        notes=("errors may be a plain string rather than an object",
               "its docs show a streamed call as the openai SDK prints it (id, name and type once, "
               "then argument pieces), not its wire bytes: whether later deltas omit id, name and "
               "type or send them as null, what the first chunk holds, and how parallel calls "
               "arrive (broken in 0.3.17-0.3.18, lmstudio-bug-tracker#723) are not known; the "
               "double streams them OpenAI's way"),
        sources={"limit_fields": _LMS_CHAT, "tool_choice": _LMS_CHANGELOG, "named_choice": _LMS_670,
                 "parallel": _LMS_CHANGELOG,
                 "parallel_honoured": _LMS_CHANGELOG + " [not documented; the double honours it]",
                 "ids": _LMS_TOOLS,
                 "arguments": _LMS_TOOLS, "unknown_model": _LMS_1556, "error_shape": _LMS_670,
                 "reasoning_field": _LMS_CHANGELOG, "stream.default": _LMS_CHAT,
                 "stream.calls": _LMS_TOOLS, "stream.opening": _LMS_TOOLS + " [not documented]",
                 "stream.empty_arguments": _LMS_TOOLS, "stream.index": _LMS_TOOLS,
                 "stream.resent": _LMS_TOOLS,
                 "stream.finish": _LMS_CHANGELOG + " [where it sits: not documented]",
                 "stream.error": _LMS_CHANGELOG + " [what follows it: not documented]",
                 "base_url": _LMS_OPENAI, "start": _LMS_SERVE, "max_tokens_field": _LMS_CHAT}),
)}


#: Ollama's /v1 as some versions streamed a reply of several calls: every call at `index` 0,
#: told apart only by its id (ollama/ollama#15457). Not in `FLAVOURS`: a version's bug, not the
#: server's documented way; pass it where a flavour goes (`restream`, the double's flavours).
OLLAMA_OPENAI_INDEX_0 = replace(FLAVOURS["ollama-openai"],
                                stream=replace(FLAVOURS["ollama-openai"].stream, index="0 on every call"))


def flavour_of(flavour: str | Flavour) -> Flavour:
    """The `Flavour` called `flavour` (a `Flavour` is returned as it is).

    >>> flavour_of("vllm")
    Flavour('vllm', api='chat')
    """
    if isinstance(flavour, Flavour):
        return flavour
    if flavour not in FLAVOURS:
        raise UsageError(f"no server flavour called {flavour!r}; choose one of: {', '.join(FLAVOURS)}.")
    return FLAVOURS[flavour]


# -- what a request asks of the model, as the server reads it ------------------------------------
def _limit_value(body: Mapping[str, Any], name: str) -> Any:
    if name == "options.num_predict":
        return (body.get("options") or {}).get("num_predict")
    return body.get(name)


def output_limit(flavour: Flavour, body: Mapping[str, Any]) -> int | None:
    """The output limit (tokens) the server applies to `body`; None when it reads none.

    >>> output_limit(FLAVOURS["vllm"], {"max_completion_tokens": 5})
    5
    >>> output_limit(FLAVOURS["ollama-openai"], {"max_completion_tokens": 5}) is None
    True
    """
    for name in flavour.limit_fields:
        value = _limit_value(body, name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def _sent_choice(body: Mapping[str, Any]) -> str | None:
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        return str((choice.get("function") or {}).get("name") or "") or None
    return choice if isinstance(choice, str) else None


def held_to(flavour: Flavour, body: Mapping[str, Any]) -> tuple[str | None, bool | None]:
    """(tool_choice, parallel_tool_calls) the server actually holds the model to.

    >>> held_to(FLAVOURS["llamacpp"], {"tool_choice": {"type": "function", "function": {"name": "f"}}})
    ('auto', False)
    >>> held_to(FLAVOURS["ollama-openai"], {"tool_choice": "none", "parallel_tool_calls": False})
    (None, None)
    """
    sent = _sent_choice(body)
    choice: str | None = None
    if sent is not None and flavour.honours(sent):
        choice = sent
    elif sent is not None and sent not in MODES and flavour.named_choice == "auto":
        choice = "auto"  # subtle: llama.cpp reads tool_choice as a string; an object becomes the default
    parallel = body.get("parallel_tool_calls") if flavour.parallel_honoured else None
    if not isinstance(parallel, bool):
        parallel = flavour.parallel
    return choice, parallel


# -- what the server refuses, and what it ignores --------------------------------------------------
class Refusal(NamedTuple):
    """A request the server refuses: the status, the `Problem`, and the body it answers with."""

    status: int
    problem: Problem
    body: Any


def error_body(flavour: Flavour, message: str, *, status: int = 400, param: str | None = None,
               code: str | None = None) -> dict[str, Any]:
    """The server's error JSON for `message`, in its own shape.

    >>> error_body(FLAVOURS["vllm"], "The model `x` does not exist.", status=404)
    {'error': {'message': 'The model `x` does not exist.', 'type': 'NotFoundError', 'param': None, \
'code': 404}}
    """
    match flavour.name:
        case "ollama":
            return {"error": message}
        case "ollama-openai":  # openai.go NewError: the type follows the status, no code
            kind = {400: "invalid_request_error", 404: "not_found_error"}.get(status, "api_error")
            return {"error": {"message": message, "type": kind, "param": None, "code": None}}
        case "vllm":  # since v0.10.1 nested, with the exception's name as the type and an int code
            kind = {400: "BadRequestError", 404: "NotFoundError"}.get(status, "InternalServerError")
            return {"error": {"message": message, "type": kind, "param": param, "code": status}}
        case "llamacpp":  # format_error_response: code, message, type
            kind = {400: "invalid_request_error", 404: "not_found_error"}.get(status, "server_error")
            return {"error": {"code": status, "message": message, "type": kind}}
        case _:
            return {"error": {"message": message, "type": "invalid_request_error", "param": param,
                              "code": code}}


def refusal(flavour: Flavour, body: Mapping[str, Any], *, model_check: bool = True) -> Refusal | None:
    """The first thing the server refuses in `body` (in its words and shape), or None.

    `model_check=False` leaves out what only the server knows: which models it has.

    >>> refused = refusal(FLAVOURS["lmstudio"], {"model": "qwen2.5-7b-instruct",
    ...                   "tool_choice": {"type": "function", "function": {"name": "f"}}})
    >>> refused.status, refused.body
    (400, {'error': "Invalid tool_choice type: 'object'. Supported string values: none, auto, required"})
    """
    name = flavour.name
    api = flavour.api
    model = str(body.get("model", ""))
    if model_check and flavour.unknown_model is not None and model != flavour.model:
        status = flavour.unknown_model
        if name in ("ollama", "ollama-openai"):
            text = f"model '{model}' not found"  # server/routes.go at HEAD
        elif name == "vllm":
            text = f"The model `{model}` does not exist."
        else:  # LM Studio, newer builds: 400 naming a model it has
            text = (f'Invalid model identifier "{model}". Please specify a valid downloaded model '
                    f"(e.g., {flavour.model}).")
        code = "model_not_found" if name == "lmstudio" else None
        problem = Problem(api, "model", text, param="model", code=code)
        param = "model" if name == "lmstudio" else None  # only LM Studio is seen to name it
        return Refusal(status, problem, error_body(flavour, text, status=status, param=param, code=code))
    choice = body.get("tool_choice")
    if name == "lmstudio" and isinstance(choice, Mapping):
        text = "Invalid tool_choice type: 'object'. Supported string values: none, auto, required"
        return Refusal(400, Problem(api, "tool_choice", text, param="tool_choice"), {"error": text})
    if name == "llamacpp" and isinstance(choice, str) and choice not in MODES:
        text = f"Invalid tool_choice: {choice}"  # common_chat_tool_choice_parse_oaicompat
        return Refusal(400, Problem(api, "tool_choice", text), error_body(flavour, text))
    if name == "vllm" and body.get("stream_options") is not None and not body.get("stream"):
        text = "Stream options can only be defined when `stream=True`."
        return Refusal(400, Problem(api, "stream_options", text), error_body(flavour, text))
    if name == "ollama-openai":
        for index, message in enumerate(body.get("messages") or ()):
            for call in (message.get("tool_calls") or ()) if isinstance(message, Mapping) else ():
                if not _is_json_object(((call or {}).get("function") or {}).get("arguments")):
                    text = "invalid tool call arguments"  # openai.go FromCompletionToolCall
                    return Refusal(400, Problem(api, f"messages.{index}.tool_calls", text), error_body(
                        flavour, text))
    return None


def _is_json_object(arguments: Any) -> bool:
    import json

    try:
        return isinstance(json.loads(arguments), dict)
    except (TypeError, ValueError, RecursionError):
        return False


def ignored(flavour: Flavour, body: Mapping[str, Any]) -> list[Problem]:
    """Warnings: what `body` asks that the server drops without a word (no error comes back).

    >>> [p.path for p in ignored(FLAVOURS["llamacpp"],
    ...  {"tool_choice": {"type": "function", "function": {"name": "f"}}})]
    ['tool_choice']
    """
    found: list[Problem] = []

    def warn(path: str, text: str) -> None:
        found.append(Problem(flavour.api, path, f"{flavour.title} ignores {text}", param=path,
                             severity="warning"))

    read = [name for name in flavour.limit_fields if name in body]
    for name in ("max_completion_tokens", "max_tokens"):
        if name in body and not flavour.reads_limit(name):
            warn(name, f"`{name}` (it reads only `{flavour.limit_fields[0]}`): the output is not limited"
                 + ("" if not read else f"; `{read[0]}` is"))
    sent = _sent_choice(body)
    if sent is not None and not flavour.honours(sent) and not (flavour.named_choice == "400"
                                                               and sent not in MODES):
        held = ("the model is held to auto" if flavour.named_choice == "auto" and sent not in MODES
                else "the model calls tools or not as it likes")
        warn("tool_choice", f"tool_choice {sent!r}: {held}")
    if "parallel_tool_calls" in body and not flavour.parallel_honoured:
        warn("parallel_tool_calls", "`parallel_tool_calls`: the model makes as many calls as it likes")
    return found


# -- how the server writes its reply ----------------------------------------------------------------
def call_id(flavour: Flavour, number: int) -> str:
    """The `number`th tool-call id, spelled the server's way (random there; derived here).

    >>> [call_id(FLAVOURS[name], 1)[:18] for name in ("ollama", "vllm", "llamacpp", "lmstudio")]
    ['call_s7kz31tn', 'chatcmpl-tool-3544', '5Q48aw2CbToZgGD67P', '721590252']
    """
    digest = hashlib.sha256(f"{flavour.name}:{number}".encode()).digest()
    if flavour.name in ("ollama", "ollama-openai"):
        return "call_" + _spell(digest, "abcdefghijklmnopqrstuvwxyz0123456789", 8)  # routes.go toolCallId
    if flavour.name == "vllm":
        return "chatcmpl-tool-" + digest.hex()[:32]  # f"chatcmpl-tool-{random_uuid()}"
    if flavour.name == "llamacpp":
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return _spell(digest, alphabet, 32)  # gen_tool_call_id: 32 random alphanumerics
    return str(100_000_000 + int.from_bytes(digest[:4]) % 900_000_000)  # LM Studio: "365174485"


def _spell(digest: bytes, alphabet: str, length: int) -> str:
    number = int.from_bytes(digest)
    letters = []
    for _ in range(length):
        number, index = divmod(number, len(alphabet))
        letters.append(alphabet[index])
    return "".join(letters)


def cut_to_limit(turn: Turn, limit: int | None) -> Turn:
    """`turn` as a server stops it at `limit` output tokens: text cut, stop reason max_tokens.

    A reply that would run past the limit is cut at 4 characters a token; a tool call cut
    halfway is no call at all, so what was written of it comes back as text.

    >>> from toolcall_lab import Usage
    >>> turn = Turn(Message.assistant("It is 18°C and sunny in Paris today."), "end_turn", Usage(9, 10), "m")
    >>> cut = cut_to_limit(turn, 3)
    >>> cut.text, cut.stop_reason.value, cut.usage.output_tokens
    ('It is 18°C a', 'max_tokens', 3)
    """
    if limit is None or turn.usage.output_tokens <= limit:
        return turn
    import json

    written = "\n".join(b.text if isinstance(b, TextBlock) else
                        json.dumps({"name": b.name, "arguments": dict(b.args)}, ensure_ascii=False)
                        for b in turn.message.blocks if isinstance(b, TextBlock | ToolCall))
    text = written[: limit * 4]  # the kit's 4-characters-per-token estimate (tokens.py)
    message = Message("assistant", (TextBlock(text),) if text else ())
    # subtle: a server stopped by the limit reports exactly the limit as completion tokens
    return replace(turn, message=message, stop_reason=StopReason.MAX_TOKENS,
                   usage=replace(turn.usage, output_tokens=limit))


def spell_ids(flavour: Flavour, turn: Turn) -> tuple[Turn, list[str]]:
    """`turn` with its tool-call ids spelled the server's way, and those ids in order.

    The double numbers calls as it goes ("call_01", "toolu_02"); the number picks the id.

    >>> from toolcall_lab import Usage
    >>> turn = Turn(Message.assistant(ToolCall("call_01", "get_weather", {"city": "Paris"})), "tool_use",
    ...             Usage(9, 10), "m")
    >>> spell_ids(FLAVOURS["lmstudio"], turn)[1]
    ['721590252']
    """
    ids: list[str] = []
    blocks = []
    for block in turn.message.blocks:
        if isinstance(block, ToolCall):
            digits = "".join(c for c in block.id.rsplit("_", 1)[-1] if c.isdigit())
            block = replace(block, id=call_id(flavour, int(digits or 0)))
            ids.append(block.id)
        blocks.append(block)
    return replace(turn, message=replace(turn.message, blocks=tuple(blocks))), ids


def finish(flavour: Flavour, body: Mapping[str, Any], answer: dict[str, Any],
           ids: list[str]) -> dict[str, Any]:
    """The reply body as the server writes it, from the one the API's codec wrote.

    Ollama's native reply carries ids on its calls (the API's docs show none; `toolCallId`
    in server/routes.go mints one per call); vLLM ends a named `tool_choice` with
    finish_reason "stop", as OpenAI does (vllm-project/vllm#25054).
    """
    if flavour.name == "ollama":
        for call, minted in zip(answer["message"].get("tool_calls") or (), ids, strict=False):
            call["id"] = minted
    if flavour.name == "vllm" and (_sent_choice(body) or "auto") not in MODES:
        for choice in answer.get("choices") or ():
            if choice.get("finish_reason") == "tool_calls":
                choice["finish_reason"] = "stop"
    return answer


# -- how the server streams it ----------------------------------------------------------------------
def restream(flavour: Flavour, chunks: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """The Chat Completions `chunks` (OpenAI's way, `wire/chat/streaming.py`) as `flavour` streams them.

    One reply, the same text and calls; only where each piece sits changes, as the
    server's `Streaming` record says:

        >>> from toolcall_lab.wire.chat.streaming import encode_stream
        >>> reply = {"id": "c", "created": 0, "model": "m", "choices": [{"index": 0,
        ...   "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None,
        ...   "tool_calls": [{"id": "call_1", "type": "function",
        ...                   "function": {"name": "f", "arguments": '{"a": 1}'}}]}}]}
        >>> for chunk in restream(FLAVOURS["vllm"], encode_stream(reply)):
        ...     print(chunk["choices"][0]["delta"], chunk["choices"][0]["finish_reason"])
        {'role': 'assistant', 'content': ''} None
        {'tool_calls': [{'index': 0, 'id': 'call_1', 'type': 'function', 'function': {'name': 'f'}}]} None
        {'tool_calls': [{'index': 0, 'function': {'arguments': '{"a"'}}]} None
        {'tool_calls': [{'index': 0, 'function': {'arguments': ': 1}'}}]} tool_calls
        >>> [c["choices"][0]["delta"] for c in restream(FLAVOURS["ollama-openai"], encode_stream(reply))][0]
        {'role': 'assistant', 'content': None, 'tool_calls': [{'index': 0, 'id': 'call_1', \
'type': 'function', 'function': {'name': 'f', 'arguments': '{"a": 1}'}}]}
    """
    import copy

    style = flavour.stream
    out = [copy.deepcopy(dict(chunk)) for chunk in chunks]
    if style.calls == "whole call in one chunk":
        out = _whole_calls(out)
    opened: dict[int, dict[str, Any]] = {}
    for chunk in out:
        for choice in chunk.get("choices") or ():
            for call in choice["delta"].get("tool_calls") or ():
                _bend_call(style, call, opened)
    if style.opening == "with the first piece" and len(out) > 1 and out[0].get("choices"):
        first, out = out[0]["choices"][0]["delta"], out[1:]
        if out[0].get("choices"):
            delta = out[0]["choices"][0]["delta"]
            opening = {key: value for key, value in first.items() if key != "refusal"}
            out[0]["choices"][0]["delta"] = {**opening, **delta}
    elif isinstance(style.opening, Mapping) and out and out[0].get("choices"):
        out[0]["choices"][0]["delta"] = dict(style.opening)
    if style.finish == "with the last delta":
        out = _finish_on_last(out)
    yield from out


def _bend_call(style: Streaming, call: dict[str, Any], opened: dict[int, dict[str, Any]]) -> None:
    """One tool-call delta as the server writes it: what it resends, leaves out, numbers."""
    index = call["index"]
    function = call.setdefault("function", {})
    if "id" in call:  # the delta that opens the call
        opened[index] = {"id": call["id"], "type": call.get("type"), "name": function.get("name")}
        if not style.empty_arguments and function.get("arguments") == "":
            del function["arguments"]
    elif index in opened:
        first = opened[index]
        for name in style.resent:  # subtle: a client that joins strings doubles these
            if name == "name":
                call["function"] = {"name": first["name"], **function}
            else:
                call[name] = first[name]
    if style.index == "omitted":
        del call["index"]
    elif style.index == "0 on every call":  # subtle: only a new id says a new call began
        call["index"] = 0


def _whole_calls(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`chunks` with each call's argument pieces joined into the chunk that opens it."""
    out: list[dict[str, Any]] = []
    opening: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        calls = [call for choice in chunk.get("choices") or ()
                 for call in choice["delta"].get("tool_calls") or ()]
        if calls and all("id" not in call and call["index"] in opening for call in calls):
            for call in calls:  # a piece of a call already opened: onto its opening
                function = opening[call["index"]]["function"]
                function["arguments"] = function.get("arguments", "") + call["function"].get("arguments", "")
            continue
        for call in calls:
            opening[call["index"]] = call
        out.append(chunk)
    return out


def _finish_on_last(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`chunks` with the finish reason moved onto the last chunk that carries something."""
    finishing = next((at for at, chunk in enumerate(chunks) if chunk.get("choices")
                      and chunk["choices"][0].get("finish_reason") is not None), None)
    if finishing is None or finishing == 0 or chunks[finishing]["choices"][0]["delta"]:
        return chunks
    reason = chunks[finishing]["choices"][0]["finish_reason"]
    chunks[finishing - 1]["choices"][0]["finish_reason"] = reason
    return chunks[:finishing] + chunks[finishing + 1:]


def stream_error(flavour: Flavour) -> tuple[dict[str, Any], bytes]:
    """(the error a stream of `flavour` breaks off with, and what follows it): the server's error
    body for a failure while generating, then `data: [DONE]` where it sends one (vLLM).

    >>> stream_error(FLAVOURS["vllm"])[1]
    b'data: [DONE]\\n\\n'
    """
    from ._framing import DONE

    body = error_body(flavour, "an error was encountered while running the model", status=500)
    return body, DONE if flavour.stream.error == "[DONE]" else b""
