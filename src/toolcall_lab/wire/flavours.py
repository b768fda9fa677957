"""The five local servers, one record each: where they listen, how to start them, how they bend the API.

"OpenAI-compatible" is a spectrum. Four local servers answer `POST /v1/chat/completions`
and Ollama also speaks its own `/api/chat`, and each reads a request its own way: one
honours `max_completion_tokens`, another drops it without a word; one forces the tool you
name, another quietly lets the model choose, a third answers 400 with an error that is a
plain string. A `Flavour` is one server's record: its URL, start commands and default
model (an id of the dated table, `models.DEFAULT_MODELS`), the API it speaks, and its
quirks as data (how it spells an error and a call's id, what it refuses, how it streams),
each fact with the public page it comes from (`Flavour.sources`). This module is only the
records; `wire.flavoured` plays them, reading fields and never a server's name, so a sixth
server is one more record (`tests/test_flavours.py` makes one). It is the one table of
local servers: the providers' presets (`providers.openai_chat.LOCAL_SERVERS`, the servers
that speak Chat), the registry's local names (`providers.registry.PROVIDERS`) and the
Ollama provider's URL are read from it, the API double plays it
(`ApiDouble(flavour="vllm")`), and `wire.check(..., server=...)` warns about what a server
would silently ignore.

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
    >>> FLAVOURS["vllm"].model, str(FLAVOURS["vllm"].ids)
    ('Qwen/Qwen3-0.6B', 'chatcmpl-tool- + 32 hex')

Tool-call ids are random on the real servers; the double spells them the server's way but
derives the random part from a counter (`flavoured.call_id`), so a notebook reruns identically.

Streaming (`Flavour.stream`, a `Streaming`): the double plays each Chat server's stream
from OpenAI's (`flavoured.restream`), bent by the server's quirks: Ollama /v1 sends each
call whole in one chunk, vLLM opens every call with only its name and puts the finish
reason on the last delta, llama.cpp opens with `content: null`; what is not known of a
server's stream is said in its notes. Ollama's own API streams whole calls unasked
(`wire/ollama/streaming.py`).

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

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, assert_never

from ..errors import UsageError
from ..models import default_model
from ..tool_choice import MODES

__all__ = ["FLAVOURS", "OLLAMA_OPENAI_INDEX_0", "ErrorShape", "Flavour", "Ids", "Refused", "Streaming",
           "flavour_of"]

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

_LOWER_DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789"
_LETTERS_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + _LOWER_DIGITS


@dataclass(frozen=True)
class Streaming:
    """How a server streams a reply: the `stream` group of its `Flavour`, each field a quirk.

    The defaults are OpenAI's own Chat Completions stream (`wire/chat/streaming.py`); a
    server's record says where it differs, each field with its source in `Flavour.sources`
    as "stream.<field>". `flavoured.restream` plays them.

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
class ErrorShape:
    """How a server writes an error as JSON: the `error_shape` of its `Flavour`.

    `fields`: the keys of the object under "error", in the server's order; none (the
    default) when the error is the bare text, `{"error": "<text>"}` (Ollama's own API).
    `types`: its `type` for each HTTP status, `other_type` for any other. `param`: whether
    it names the request field at fault (else it sends null). `code`: "status" (the HTTP
    status as an int), "word" (a word such as "model_not_found", else null) or "null".
    `flavoured.error_body` writes it.

        >>> print(FLAVOURS["ollama-openai"].error_shape)
        {"error": {"message", "type": "invalid_request_error" | "not_found_error" | "api_error", \
"param": null, "code": null}}
    """

    fields: tuple[str, ...] = ()
    types: Mapping[int, str] = field(default_factory=dict)
    other_type: str = ""
    param: bool = False
    code: Literal["status", "word", "null"] = "null"

    def __str__(self) -> str:
        if not self.fields:
            return '{"error": "<text>"}'
        kinds = " | ".join(f'"{kind}"' for kind in dict.fromkeys((*self.types.values(), self.other_type)))
        shown = {"message": '"message"', "type": f'"type": {kinds}',
                 "param": '"param"' if self.param else '"param": null',
                 "code": '"code": <int>' if self.code == "status" else
                         '"code"' if self.code == "word" else '"code": null'}
        return '{"error": {' + ", ".join(shown[name] for name in self.fields) + "}}"


@dataclass(frozen=True)
class Ids:
    """How a server spells a tool call's id: the `ids` of its `Flavour`.

    `spelling`: "letters" (`length` characters drawn from `alphabet`), "hex" (`length` hex
    digits of a random UUID) or "number" (a `length`-digit decimal with no leading zero);
    `prefix` goes in front. `added`: whether the server writes the ids into a reply whose
    API shows calls without them (Ollama's /api/chat mints one per call). Random on the
    server; the double derives them from a counter (`flavoured.call_id`).

        >>> [str(FLAVOURS[name].ids) for name in ("ollama", "llamacpp", "lmstudio")]
        ['call_ + 8 [a-z0-9], added to the reply', '32 [A-Za-z0-9]', '9 digits']
    """

    spelling: Literal["letters", "hex", "number"]
    length: int
    prefix: str = ""
    alphabet: str = ""
    added: bool = False

    def __str__(self) -> str:
        match self.spelling:
            case "letters":
                drawn = f"{self.length} [{_ranges(self.alphabet)}]"
            case "hex":
                drawn = f"{self.length} hex"
            case "number":
                drawn = f"{self.length} digits"
            case _:
                assert_never(self.spelling)
        spelled = f"{self.prefix} + {drawn}" if self.prefix else drawn
        return spelled + (", added to the reply" if self.added else "")


def _ranges(alphabet: str) -> str:
    """`alphabet` as a regex class spells it: "abc...z0...9" -> "a-z0-9"."""
    runs: list[list[str]] = []
    for letter in alphabet:
        if runs and ord(letter) == ord(runs[-1][-1]) + 1:
            runs[-1].append(letter)
        else:
            runs.append([letter])
    return "".join(run[0] + ("-" + run[-1] if len(run) > 2 else "".join(run[1:])) for run in runs)


#: What a server can refuse beyond its API's own rules; `flavoured.refusal` knows each.
Refusable = Literal["unknown model", "tool_choice an object", "tool_choice not a mode",
                    "stream_options without stream", "call arguments not an object"]


@dataclass(frozen=True)
class Refused:
    """One request a server refuses: `when` (a `Refusable`) and how it answers.

    `text`: its words, with `{model}` (the model asked for), `{default}` (the one it has)
    or `{choice}` (the `tool_choice` sent) where the request's value goes; `status`;
    `param` and `code`: what the error names (the field, a word), where the server names
    any; `bare`: answered as the bare text, `{"error": "<text>"}`, not in the server's
    `error_shape` (LM Studio's tool_choice check).

        >>> print(FLAVOURS["llamacpp"].refuses[0])
        tool_choice not a mode: 400 'Invalid tool_choice: {choice}'
    """

    when: Refusable
    text: str
    status: int = 400
    param: str | None = None
    code: str | None = None
    bare: bool = False

    def __str__(self) -> str:
        return f"{self.when}: {self.status} {self.text!r}" + (" (bare text)" if self.bare else "")


@dataclass(frozen=True)
class Flavour:
    """One local server: where it listens, how to start it, and its reading of the API it speaks.

    Where it is: `base_url` (its default address, as an SDK's `base_url` takes it),
    `start` (the commands that get it serving, in order, with `{model}` where the model
    id goes), `model` (the one model it has loaded in the double, and the kit's default
    for it: the id is a row of the dated table, `models.DEFAULT_MODELS`, and the record's
    source says why that model), `label` (its name in the provider picker) and `notes`
    (what a learner should know that no field below says).

    How it reads a request: `limit_fields`: the request fields the server reads the
    output limit from, first found wins (a dotted path for a nested one: Ollama's
    `options.num_predict`), and `max_tokens_field`: the one the kit's preset sends;
    `tool_choice`: the modes it honours ("auto", "none", "required"); `named_choice`: what
    it does with a named tool ("honoured", "auto": treated as auto, "400": refused,
    "ignored"); `parallel`: what happens when `parallel_tool_calls` is not sent (None: the
    model decides, True/False), and `parallel_honoured` whether the field is read at all.
    What it refuses: `unknown_model` (a model it does not have; None: the field is not
    read) and `refuses`, each a `Refused`.

    How it answers: `ids` (`Ids`): how its tool-call ids look; `arguments`: "string" (JSON
    text) or "object"; `named_finish`: the finish reason of a reply held to a named tool,
    where it is not "tool_calls"; `error_shape` (`ErrorShape`); `reasoning_field`;
    `stream`: how it streams (`Streaming`). `sources` maps each field to its public page
    ("stream.default" for a field of the stream group); `named_finish` and `refuses` have
    one where they are set.
    """

    name: str
    title: str
    api: str
    label: str
    base_url: str
    start: tuple[str, ...]
    model: str
    max_tokens_field: str
    limit_fields: tuple[str, ...]
    tool_choice: tuple[str, ...]
    named_choice: str
    parallel: bool | None
    parallel_honoured: bool
    ids: Ids
    arguments: str
    unknown_model: Refused | None
    error_shape: ErrorShape
    refuses: tuple[Refused, ...] = ()
    named_finish: str | None = None
    reasoning_field: str = "reasoning_content"
    stream: Streaming = Streaming()
    notes: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return f"Flavour({self.name!r}, api={self.api!r})"

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


_CHAT_ERROR = ("message", "type", "param", "code")  # the order OpenAI's error object has

FLAVOURS: dict[str, Flavour] = {f.name: f for f in (
    Flavour(
        "ollama", "Ollama /api/chat", "ollama", label="Ollama (local)", base_url="http://localhost:11434",
        start=("ollama serve", "ollama pull {model}"), model=default_model("ollama"),
        max_tokens_field="options.num_predict", limit_fields=("options.num_predict",), tool_choice=(),
        named_choice="ignored", parallel=None, parallel_honoured=False,
        ids=Ids("letters", 8, prefix="call_", alphabet=_LOWER_DIGITS, added=True),  # routes.go toolCallId
        arguments="object",
        unknown_model=Refused("unknown model", "model '{model}' not found", status=404),  # routes.go at HEAD
        error_shape=ErrorShape(),
        reasoning_field="thinking", stream=Streaming(default=True, calls="whole call in one chunk"),
        notes=("the model's template must support tools (`ollama show <model>`)",),
        sources={"limit_fields": _OLLAMA_API, "tool_choice": _OLLAMA_11171, "named_choice": _OLLAMA_11171,
                 "parallel": _OLLAMA_TOOLS, "parallel_honoured": _OLLAMA_11171, "ids": _OLLAMA_ROUTES,
                 "arguments": _OLLAMA_TOOLS, "unknown_model": _OLLAMA_ROUTES, "error_shape": _OLLAMA_ERRORS,
                 "reasoning_field": _OLLAMA_API, "stream.default": _OLLAMA_API,
                 "stream.calls": _OLLAMA_ROUTES,
                 **{f"stream.{name}": _OLLAMA_API + " [a Chat Completions quirk: /api/chat streams NDJSON]"
                    for name in ("opening", "empty_arguments", "index", "resent", "finish", "error")},
                 "base_url": _OLLAMA_FAQ, "start": _OLLAMA_CLI, "max_tokens_field": _OLLAMA_API,
                 "model": _OLLAMA_TOOLS + " [its examples call qwen3; the kit's default is its 4b size]"}),
    Flavour(
        "ollama-openai", "Ollama /v1", "chat", label="Ollama /v1 (local)", base_url="http://localhost:11434/v1",
        start=("ollama serve", "ollama pull {model}"), model=default_model("ollama-openai"),
        max_tokens_field="max_tokens",
        limit_fields=("max_tokens",), tool_choice=(),
        named_choice="ignored", parallel=None, parallel_honoured=False,
        ids=Ids("letters", 8, prefix="call_", alphabet=_LOWER_DIGITS), arguments="string",
        unknown_model=Refused("unknown model", "model '{model}' not found", status=404),
        # openai.go NewError: the type follows the status, no code
        error_shape=ErrorShape(_CHAT_ERROR, {400: "invalid_request_error", 404: "not_found_error"},
                               "api_error"),
        # openai.go FromCompletionToolCall
        refuses=(Refused("call arguments not an object", "invalid tool call arguments"),),
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
                 "refuses": _OLLAMA_GO, "reasoning_field": _OLLAMA_GO, "stream.default": _OLLAMA_OPENAI,
                 "stream.calls": _OLLAMA_GO, "stream.opening": _OLLAMA_17485,
                 "stream.empty_arguments": _OLLAMA_GO, "stream.index": _OLLAMA_7888,
                 "stream.resent": _OLLAMA_GO, "stream.finish": _OLLAMA_17485,
                 "stream.error": _OLLAMA_MIDDLEWARE + " [inference from code, unverified]",
                 "base_url": _OLLAMA_OPENAI, "start": _OLLAMA_CLI, "max_tokens_field": _OLLAMA_7125,
                 "model": _OLLAMA_TOOLS + " [its examples call qwen3; the kit's default is its 4b size]"}),
    Flavour(
        "vllm", "vLLM", "chat", label="vLLM (local)", base_url="http://localhost:8000/v1",
        start=("vllm serve {model} --enable-auto-tool-choice --tool-call-parser hermes",),
        model=default_model("vllm"),
        max_tokens_field="max_completion_tokens", limit_fields=("max_completion_tokens", "max_tokens"),
        tool_choice=("auto", "none", "required"), named_choice="honoured", parallel=True,
        parallel_honoured=True,
        ids=Ids("hex", 32, prefix="chatcmpl-tool-"),  # f"chatcmpl-tool-{random_uuid()}"
        arguments="string",
        unknown_model=Refused("unknown model", "The model `{model}` does not exist.", status=404),
        # since v0.10.1 nested, with the exception's name as the type and an int code
        error_shape=ErrorShape(_CHAT_ERROR, {400: "BadRequestError", 404: "NotFoundError"},
                               "InternalServerError", param=True, code="status"),
        refuses=(Refused("stream_options without stream",
                         "Stream options can only be defined when `stream=True`."),),
        named_finish="stop", reasoning_field="reasoning",
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
                 "refuses": _VLLM_PROTOCOL, "named_finish": _VLLM_25054,
                 "reasoning_field": _VLLM_REASONING, "stream.default": _VLLM_PROTOCOL,
                 "stream.calls": _VLLM_HERMES, "stream.opening": _VLLM_SERVING,
                 "stream.empty_arguments": _VLLM_HERMES, "stream.index": _VLLM_HERMES,
                 "stream.resent": _VLLM_HERMES, "stream.finish": _VLLM_SERVING, "stream.error": _VLLM_SERVING,
                 "base_url": _VLLM_SERVER, "start": _VLLM_TOOLS, "max_tokens_field": _VLLM_PROTOCOL,
                 "model": _VLLM_TOOLS + " [a Qwen model, whose calls the hermes parser reads; the size is "
                                        "the kit's choice]"}),
    Flavour(
        "llamacpp", "llama.cpp llama-server", "chat", label="llama.cpp (local)",
        base_url="http://localhost:8080/v1", start=("llama-server -hf {model} --jinja --port 8080",),
        model=default_model("llamacpp"),
        max_tokens_field="max_tokens", limit_fields=("max_completion_tokens", "max_tokens"),
        tool_choice=("auto", "none", "required"), named_choice="auto", parallel=False,
        parallel_honoured=True,
        ids=Ids("letters", 32, alphabet=_LETTERS_DIGITS),  # gen_tool_call_id: 32 random alphanumerics
        arguments="string", unknown_model=None,
        # format_error_response: code, message, type
        error_shape=ErrorShape(("code", "message", "type"), {400: "invalid_request_error",
                                                             404: "not_found_error"}, "server_error",
                               code="status"),
        # common_chat_tool_choice_parse_oaicompat
        refuses=(Refused("tool_choice not a mode", "Invalid tool_choice: {choice}"),),
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
                 "refuses": _LLAMA_COMMON, "reasoning_field": _LLAMA_README, "stream.default": _LLAMA_README,
                 "stream.calls": _LLAMA_CHAT, "stream.opening": _LLAMA_TASK,
                 "stream.empty_arguments": _LLAMA_CHAT, "stream.index": _LLAMA_CHAT,
                 "stream.resent": _LLAMA_13800, "stream.finish": _LLAMA_TASK, "stream.error": _LLAMA_16109,
                 "base_url": _LLAMA_README, "start": _LLAMA_FC, "max_tokens_field": _LLAMA_README,
                 "model": _LLAMA_FC + " [Qwen is one of its native call formats; the model and quantisation "
                                      "are the kit's choice]"}),
    Flavour(
        "lmstudio", "LM Studio", "chat", label="LM Studio (local)", base_url="http://localhost:1234/v1",
        start=("lms load {model}", "lms server start --port 1234"), model=default_model("lmstudio"),
        max_tokens_field="max_tokens", limit_fields=("max_tokens",),
        tool_choice=("auto", "none", "required"), named_choice="400", parallel=None, parallel_honoured=True,
        ids=Ids("number", 9), arguments="string",  # "365174485"
        # newer builds: 400 naming a model it has
        unknown_model=Refused("unknown model", 'Invalid model identifier "{model}". Please specify a valid '
                                               "downloaded model (e.g., {default}).",
                              param="model", code="model_not_found"),
        error_shape=ErrorShape(_CHAT_ERROR, other_type="invalid_request_error", param=True, code="word"),
        refuses=(Refused("tool_choice an object", "Invalid tool_choice type: 'object'. Supported string "
                                                  "values: none, auto, required", param="tool_choice",
                         bare=True),),
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
                 "refuses": _LMS_670, "reasoning_field": _LMS_CHANGELOG, "stream.default": _LMS_CHAT,
                 "stream.calls": _LMS_TOOLS, "stream.opening": _LMS_TOOLS + " [not documented]",
                 "stream.empty_arguments": _LMS_TOOLS, "stream.index": _LMS_TOOLS,
                 "stream.resent": _LMS_TOOLS,
                 "stream.finish": _LMS_CHANGELOG + " [where it sits: not documented]",
                 "stream.error": _LMS_CHANGELOG + " [what follows it: not documented]",
                 "base_url": _LMS_OPENAI, "start": _LMS_SERVE, "max_tokens_field": _LMS_CHAT,
                 "model": _LMS_TOOLS + " [its example prompt is Qwen2.5-Instruct's]"}),
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
