"""Server flavours: how five local servers bend the API they claim to speak.

"OpenAI-compatible" is a spectrum. Four local servers answer `POST /v1/chat/completions`
and Ollama also speaks its own `/api/chat`, and each reads a request its own way: one
honours `max_completion_tokens`, another drops it without a word; one forces the tool you
name, another quietly lets the model choose, a third answers 400 with an error that is a
plain string. A `Flavour` is one server's quirks, as data, each with the public page it
comes from (`Flavour.sources`); the API double plays them (`ApiDouble(flavour="vllm")`),
and `wire.check(..., server=...)` warns about what a server would silently ignore.

    flavour         API     output limit read as                tool_choice             parallel calls
    ollama          ollama  options.num_predict                 no such field           model decides
    ollama-openai   chat    max_tokens (max_completion_... not)  ignored                 not a field
    vllm            chat    max_completion_tokens, max_tokens   all, named too          on unless false
    llamacpp        chat    max_completion_tokens, max_tokens   named falls back: auto  off unless true
    lmstudio        chat    max_tokens                          named object: 400       model decides

    >>> FLAVOURS["ollama-openai"].reads_limit("max_completion_tokens")
    False
    >>> [p.text[:60] for p in ignored(FLAVOURS["ollama-openai"], {"max_completion_tokens": 5})]
    ['Ollama /v1 ignores `max_completion_tokens` (it reads only `m']

Tool-call ids are random on the real servers; the double spells them the server's way but
derives the random part from a counter (`call_id`), so a notebook reruns identically.

Left out: streaming (the double does not stream; `Flavour.streamed_calls` says how each
server streams a call), reasoning fields (`Flavour.reasoning_field`), server flags (vLLM
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
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from ..errors import UsageError
from ..messages import Message, TextBlock, ToolCall
from ..models import default_model
from ..tool_choice import MODES
from ..turn import StopReason, Turn
from .problem import Problem

__all__ = ["FLAVOURS", "Flavour", "Refusal", "call_id", "cut_to_limit", "error_body", "finish", "flavour_of",
           "held_to", "ignored", "output_limit", "refusal", "spell_ids"]

# The public pages every fact below comes from (one name each, so a table can cite them).
_OLLAMA_OPENAI = "https://docs.ollama.com/api/openai-compatibility"
_OLLAMA_GO = "https://github.com/ollama/ollama/blob/main/openai/openai.go"
_OLLAMA_ROUTES = "https://github.com/ollama/ollama/blob/main/server/routes.go"
_OLLAMA_TOOLS = "https://docs.ollama.com/capabilities/tool-calling"
_OLLAMA_7125 = "https://github.com/ollama/ollama/issues/7125"
_OLLAMA_8421 = "https://github.com/ollama/ollama/issues/8421"
_OLLAMA_11171 = "https://github.com/ollama/ollama/issues/11171"
_OLLAMA_API = "https://github.com/ollama/ollama/blob/main/docs/api.md"
_OLLAMA_ERRORS = "https://docs.ollama.com/api/errors"
_OLLAMA_MIDDLEWARE = "https://github.com/ollama/ollama/blob/main/middleware/openai.go"
_VLLM_TOOLS = "https://docs.vllm.ai/en/latest/features/tool_calling/"
_VLLM_SERVER = "https://docs.vllm.ai/en/latest/serving/openai_compatible_server/"
_VLLM_PROTOCOL = ("https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/"
                  "chat_completion/protocol.py")
_VLLM_ENGINE = "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/engine/protocol.py"
_VLLM_IDS = "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/chat_utils.py"
_VLLM_25054 = "https://github.com/vllm-project/vllm/pull/25054"
_VLLM_12886 = "https://github.com/vllm-project/vllm/issues/12886"
_LLAMA_FC = "https://github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md"
_LLAMA_COMMON = "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-common.cpp"
_LLAMA_TASK = "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/server-task.cpp"
_LLAMA_README = "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md"
_LLAMA_26535 = "https://github.com/ggml-org/llama.cpp/issues/26535"
_LMS_CHAT = "https://lmstudio.ai/docs/developer/openai-compat/chat-completions"
_LMS_TOOLS = "https://lmstudio.ai/docs/developer/openai-compat/tools"
_LMS_CHANGELOG = "https://lmstudio.ai/docs/developer/api-changelog"
_LMS_670 = "https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/670"
_LMS_1556 = "https://github.com/assafelovic/gpt-researcher/issues/1556"


@dataclass(frozen=True)
class Flavour:
    """One local server's reading of the API it speaks, each quirk a field with its source.

    `limit_fields`: the request fields the server reads the output limit from, first
    found wins (Ollama native: `options.num_predict`); `tool_choice`: the modes it
    honours ("auto", "none", "required"); `named_choice`: what it does with a named tool
    ("honoured", "auto": treated as auto, "400": refused, "ignored"); `parallel`: what
    happens when `parallel_tool_calls` is not sent (None: the model decides, True/False),
    and `parallel_honoured` whether the field is read at all; `ids`: how its tool-call ids
    look; `arguments`: "string" (JSON text) or "object"; `unknown_model`: the status a
    model it does not have gets (None: the field is not read); `stream_default`: whether
    it streams when `stream` is not sent. `sources` maps each field to its public page.
    """

    name: str
    title: str
    api: str
    limit_fields: tuple[str, ...]
    tool_choice: tuple[str, ...]
    named_choice: str
    parallel: bool | None
    parallel_honoured: bool
    ids: str
    arguments: str
    unknown_model: int | None
    error_shape: str
    stream_default: bool = False
    streamed_calls: str = "incremental"
    reasoning_field: str = "reasoning_content"
    sources: Mapping[str, str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return f"Flavour({self.name!r}, api={self.api!r})"

    @property
    def model(self) -> str:
        """The one model this server has loaded in the double: the kit's default for it."""
        return default_model(self.name)

    def reads_limit(self, name: str) -> bool:
        """Whether the server reads the output limit from the request field `name`."""
        return name in self.limit_fields

    def honours(self, tool_choice: str) -> bool:
        """Whether a `tool_choice` (a mode, or a tool's name) holds the model on this server."""
        return tool_choice in self.tool_choice if tool_choice in MODES else self.named_choice == "honoured"


FLAVOURS: dict[str, Flavour] = {f.name: f for f in (
    Flavour(
        "ollama", "Ollama /api/chat", "ollama", limit_fields=("options.num_predict",), tool_choice=(),
        named_choice="ignored", parallel=None, parallel_honoured=False, ids="call_ + 8 [a-z0-9]",
        arguments="object", unknown_model=404, error_shape='{"error": "<text>"}', stream_default=True,
        streamed_calls="whole call in one chunk", reasoning_field="thinking",
        sources={"limit_fields": _OLLAMA_API, "tool_choice": _OLLAMA_11171, "named_choice": _OLLAMA_11171,
                 "parallel": _OLLAMA_TOOLS, "parallel_honoured": _OLLAMA_11171, "ids": _OLLAMA_ROUTES,
                 "arguments": _OLLAMA_TOOLS, "unknown_model": _OLLAMA_ROUTES, "error_shape": _OLLAMA_ERRORS,
                 "stream_default": _OLLAMA_API, "streamed_calls": _OLLAMA_MIDDLEWARE,
                 "reasoning_field": _OLLAMA_API}),
    Flavour(
        "ollama-openai", "Ollama /v1", "chat", limit_fields=("max_tokens",), tool_choice=(),
        named_choice="ignored", parallel=None, parallel_honoured=False, ids="call_ + 8 [a-z0-9]",
        arguments="string", unknown_model=404,
        error_shape='{"error": {"message", "type": "invalid_request_error" | "not_found_error", ...}}',
        streamed_calls="whole call in one chunk", reasoning_field="reasoning",
        sources={"limit_fields": _OLLAMA_7125, "tool_choice": _OLLAMA_OPENAI, "named_choice": _OLLAMA_8421,
                 "parallel": _OLLAMA_TOOLS, "parallel_honoured": _OLLAMA_GO, "ids": _OLLAMA_GO,
                 "arguments": _OLLAMA_GO, "unknown_model": _OLLAMA_ROUTES, "error_shape": _OLLAMA_GO,
                 "stream_default": _OLLAMA_OPENAI, "streamed_calls": _OLLAMA_MIDDLEWARE,
                 "reasoning_field": _OLLAMA_GO}),
    Flavour(
        "vllm", "vLLM", "chat", limit_fields=("max_completion_tokens", "max_tokens"),
        tool_choice=("auto", "none", "required"), named_choice="honoured", parallel=True,
        parallel_honoured=True, ids="chatcmpl-tool- + 32 hex", arguments="string", unknown_model=404,
        error_shape='{"error": {"message", "type": "BadRequestError" | "NotFoundError", "param", '
                    '"code": <int>}}', reasoning_field="reasoning",
        sources={"limit_fields": _VLLM_PROTOCOL, "tool_choice": _VLLM_TOOLS, "named_choice": _VLLM_TOOLS,
                 "parallel": _VLLM_SERVER, "parallel_honoured": _VLLM_SERVER, "ids": _VLLM_IDS,
                 "arguments": _VLLM_TOOLS, "unknown_model": _VLLM_12886, "error_shape": _VLLM_ENGINE,
                 "stream_default": _VLLM_PROTOCOL, "streamed_calls": _VLLM_TOOLS,
                 "reasoning_field": "https://docs.vllm.ai/en/latest/features/reasoning_outputs/"}),
    Flavour(
        "llamacpp", "llama.cpp llama-server", "chat", limit_fields=("max_completion_tokens", "max_tokens"),
        tool_choice=("auto", "none", "required"), named_choice="auto", parallel=False,
        parallel_honoured=True, ids="32 [A-Za-z0-9]", arguments="string", unknown_model=None,
        error_shape='{"error": {"code": <int>, "message", "type": "invalid_request_error" | ...}}',
        sources={"limit_fields": _LLAMA_TASK, "tool_choice": _LLAMA_COMMON, "named_choice": _LLAMA_26535,
                 "parallel": _LLAMA_FC, "parallel_honoured": _LLAMA_FC, "ids": _LLAMA_COMMON,
                 "arguments": _LLAMA_FC, "unknown_model": _LLAMA_README, "error_shape": _LLAMA_COMMON,
                 "stream_default": _LLAMA_README, "streamed_calls": _LLAMA_FC,
                 "reasoning_field": _LLAMA_README}),
    Flavour(
        "lmstudio", "LM Studio", "chat", limit_fields=("max_tokens",),
        tool_choice=("auto", "none", "required"), named_choice="400", parallel=None, parallel_honoured=True,
        ids="9 digits", arguments="string", unknown_model=400,
        error_shape='{"error": {"message", "type", "param", "code"}} or {"error": "<text>"}',
        sources={"limit_fields": _LMS_CHAT, "tool_choice": _LMS_CHANGELOG, "named_choice": _LMS_670,
                 "parallel": _LMS_CHANGELOG,
                 "parallel_honoured": _LMS_CHANGELOG + " [not documented; the double honours it]",
                 "ids": _LMS_TOOLS,
                 "arguments": _LMS_TOOLS, "unknown_model": _LMS_1556, "error_shape": _LMS_670,
                 "stream_default": _LMS_CHAT, "streamed_calls": _LMS_TOOLS,
                 "reasoning_field": _LMS_CHANGELOG}),
)}


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
