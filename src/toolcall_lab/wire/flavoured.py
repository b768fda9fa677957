"""A local server played from its record: how it reads a request, what it refuses, how it answers.

`wire.flavours` holds the records (one `Flavour` per server, each fact with its source);
this module is what the API double and `wire.check(..., server=...)` do with one. Every
function reads the record's fields and none asks a server's name, so a server that is
not in `FLAVOURS` plays as well as one that is, given its record:

    >>> from toolcall_lab.wire.flavours import ErrorShape, Ids
    >>> sixth = replace(FLAVOURS["vllm"], name="sixth", ids=Ids("letters", 6, prefix="tc-", alphabet="xyz"),
    ...                 error_shape=ErrorShape(("message",)))
    >>> call_id(sixth, 1), error_body(sixth, "no such model", status=404)
    ('tc-xxzxzz', {'error': {'message': 'no such model'}})

How it reads a request: `output_limit` (the output limit it applies), `held_to` (the
tool_choice and parallel_tool_calls it holds the model to). What it refuses (`refusal`,
each `Flavour.refuses` and the unknown model) and what it drops without a word
(`ignored`, warnings). How it answers: `error_body` (its `ErrorShape`), `call_id` and
`spell_ids` (its `Ids`), `cut_to_limit`, `finish` (the reply as it writes it). How it
streams: `restream` (OpenAI's Chat chunks bent by its `Streaming`), `stream_error`.

Left out: what each server does that no record field says (see `wire.flavours`); the
double plays only what a record holds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any, NamedTuple, assert_never

from ..blocks import TextBlock, ToolCall
from ..messages import Message
from ..tool_choice import MODES
from ..turn import StopReason, Turn
from .flavours import (
    FLAVOURS,  # noqa: F401 - the records the examples below play
    Flavour,
    Refusable,
    Refused,
    Streaming,
)
from .problem import Problem

__all__ = ["Refusal", "call_id", "cut_to_limit", "error_body", "finish", "held_to", "ignored", "output_limit",
           "refusal", "restream", "spell_ids", "stream_error"]


# -- what a request asks of the model, as the server reads it ------------------------------------
def _limit_value(body: Mapping[str, Any], name: str) -> Any:
    """The value at the dotted path `name` of `body` ("options.num_predict"), or None."""
    value: Any = body
    for part in name.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


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
    """The server's error JSON for `message`, in its own shape (`Flavour.error_shape`).

    >>> error_body(FLAVOURS["vllm"], "The model `x` does not exist.", status=404)
    {'error': {'message': 'The model `x` does not exist.', 'type': 'NotFoundError', 'param': None, \
'code': 404}}
    >>> error_body(FLAVOURS["ollama"], "model 'x' not found", status=404)
    {'error': "model 'x' not found"}
    """
    shape = flavour.error_shape
    if not shape.fields:
        return {"error": message}
    values = {"message": message, "type": shape.types.get(status, shape.other_type),
              "param": param if shape.param else None,
              "code": status if shape.code == "status" else code if shape.code == "word" else None}
    return {"error": {name: values[name] for name in shape.fields}}


def refusal(flavour: Flavour, body: Mapping[str, Any], *, model_check: bool = True) -> Refusal | None:
    """The first thing the server refuses in `body` (in its words and shape), or None.

    `model_check=False` leaves out what only the server knows: which models it has.

    >>> refused = refusal(FLAVOURS["lmstudio"], {"model": "qwen2.5-7b-instruct",
    ...                   "tool_choice": {"type": "function", "function": {"name": "f"}}})
    >>> refused.status, refused.body
    (400, {'error': "Invalid tool_choice type: 'object'. Supported string values: none, auto, required"})
    """
    checked = (flavour.unknown_model,) if model_check and flavour.unknown_model is not None else ()
    for rule in (*checked, *flavour.refuses):
        found = _breaks(rule.when, body, flavour.model)
        if found is not None:
            path, values = found
            return _refused(flavour, rule, path, rule.text.format(default=flavour.model, **values))
    return None


def _refused(flavour: Flavour, rule: Refused, path: str, text: str) -> Refusal:
    # subtle: the kit's Problem names the model field whatever the server's body names
    param = "model" if rule.when == "unknown model" else rule.param
    problem = Problem(flavour.api, path, text, param=param, code=rule.code)
    body = ({"error": text} if rule.bare else
            error_body(flavour, text, status=rule.status, param=rule.param, code=rule.code))
    return Refusal(rule.status, problem, body)


def _breaks(when: Refusable, body: Mapping[str, Any], model: str) -> tuple[str, dict[str, str]] | None:
    """(the path at fault, the values its text names) where `body` meets `when`, else None."""
    choice = body.get("tool_choice")
    match when:
        case "unknown model":
            asked = str(body.get("model", ""))
            return None if asked == model else ("model", {"model": asked})
        case "tool_choice an object":
            return ("tool_choice", {}) if isinstance(choice, Mapping) else None
        case "tool_choice not a mode":
            named = isinstance(choice, str) and choice not in MODES
            return ("tool_choice", {"choice": str(choice)}) if named else None
        case "stream_options without stream":
            unstreamed = body.get("stream_options") is not None and not body.get("stream")
            return ("stream_options", {}) if unstreamed else None
        case "call arguments not an object":
            for index, message in enumerate(body.get("messages") or ()):
                for call in (message.get("tool_calls") or ()) if isinstance(message, Mapping) else ():
                    if not _is_json_object(((call or {}).get("function") or {}).get("arguments")):
                        return f"messages.{index}.tool_calls", {}
            return None
        case _:
            assert_never(when)


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
    """The `number`th tool-call id, spelled the server's way (`Flavour.ids`; random there, derived here).

    >>> [call_id(FLAVOURS[name], 1)[:18] for name in ("ollama", "vllm", "llamacpp", "lmstudio")]
    ['call_s7kz31tn', 'chatcmpl-tool-3544', '5Q48aw2CbToZgGD67P', '721590252']
    """
    digest = hashlib.sha256(f"{flavour.name}:{number}".encode()).digest()
    ids = flavour.ids
    match ids.spelling:
        case "letters":
            drawn = _spell(digest, ids.alphabet, ids.length)
        case "hex":
            drawn = digest.hex()[: ids.length]
        case "number":  # `length` digits, the first not 0: LM Studio's "365174485"
            lowest = 10 ** (ids.length - 1)
            drawn = str(lowest + int.from_bytes(digest[: max(4, ids.length // 2)]) % (9 * lowest))
        case _:
            assert_never(ids.spelling)
    return ids.prefix + drawn


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

    Where `Flavour.ids.added`, the calls carry the ids it minted (Ollama's native reply: the
    API's docs show none; `toolCallId` in server/routes.go mints one per call); where
    `Flavour.named_finish` is set, a reply held to a named `tool_choice` ends with that
    finish reason (vLLM: "stop", as OpenAI does, vllm-project/vllm#25054).
    """
    if flavour.ids.added:
        for call, minted in zip((answer.get("message") or {}).get("tool_calls") or (), ids, strict=False):
            call["id"] = minted
    if flavour.named_finish is not None and (_sent_choice(body) or "auto") not in MODES:
        for choice in answer.get("choices") or ():
            if choice.get("finish_reason") == "tool_calls":
                choice["finish_reason"] = flavour.named_finish
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
