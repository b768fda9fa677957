"""The Anthropic Messages API (`POST /v1/messages`), spelled from and to the kit's transcript.

What maps to what:

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

This module is the client half. The server half the API double plays
(`decode_request`, `encode_response`, `error_body`) is in `wire/server/anthropic.py`,
and the API's rules (`check_request`, its own validator in its own words) are in
`wire/rules/anthropic.py`; both are re-exported here. The double signs the thinking it
invents (`sign_thinking`, from `wire.signing`), so the rules can catch a thinking block
someone edited.

Server tools (web search, code execution) run on Anthropic's side inside the reply: a
`server_tool_use` block and its `..._tool_result` become a `ServerToolCall` and a
`ServerToolResult` (see `toolcall_lab.server_tools`), each keeping the wire block
verbatim in `opaque` and replayed as it came, to Anthropic only.

Programmatic tool calls (Claude's code, run in a container, calls your tools) come
back as a `server_tool_use` block, `tool_use` blocks whose `caller` names that code, and
a top-level `container`. The callers and the container have no block of their own, so
they ride in the one provider-scoped home the transcript has, `ReasoningBlock.opaque`
(text "", provider "anthropic"), in a block of their own at the end of the message.
`encode_request` puts them back: the blocks as they came, each `caller` on its
tool_use, and the latest container's id as the request's `container`. Other APIs drop
them, as they drop Anthropic's thinking.

Thinking goes back only to the model that wrote it. A thinking block is tied to its
model: each Claude model reads its own blocks and those of a fixed set of others, and
the API drops a block the requested model cannot read from the request, without an
error (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking). The
kit does not keep that list, so `encode_request` leaves out every `thinking` and
`redacted_thinking` block whose `ReasoningBlock.model` is another model than the
request's (a dated snapshot of the same model counts as the same, `models.same_model`;
a block with no model is sent). `why_dropped` says, for one block, why it is left out.

`tool_choice` and `parallel_tool_calls` are the kit's vocabulary (`toolcall_lab.tool_choice`),
spelled Anthropic's way by `tool_choice_config`: "required" is `{"type": "any"}`, a tool's
name `{"type": "tool", "name": ...}`, and parallel off is `disable_parallel_tool_use` inside
the same object. A tool's `strict` is not sent: Anthropic's own strict tool use is left out.

Prompt caching is asked for with `caching=` ("tools", "system", "moving", "auto", or
several) and `cache_ttl=` ("5m", "1h"): `place_breakpoints` puts the `cache_control`
breakpoints in the body, and `check_request` refuses more than four. Server tools are asked
for by passing their definitions as given (`server_tools=`).

Left out: images, documents, citations, streaming, and strict tools.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, assert_never, cast

from ..blocks import arguments_problem
from ..errors import UsageError
from ..messages import (
    Block,
    Message,
    ReasoningBlock,
    ServerToolCall,
    ServerToolResult,
    TextBlock,
    ToolCall,
    ToolResult,
    Transcript,
)
from ..models import EFFORTS, same_model
from ..server_tools import results_of, search_digest
from ..tool import Tool
from ..tool_choice import check_tool_choice
from ..turn import StopReason, Turn
from ..usage import Usage
from ._shared import (
    from_the_wire,
    json_text,
    made_elsewhere,
    object_call,
    parse_arguments,
    plain_json,
    sampling,
)
from .signing import SIGNATURE_PREFIX, binding_of, sign_thinking, signature_is_ours, verify_thinking

if TYPE_CHECKING:
    from collections.abc import Iterator

    from . import API

__all__ = [
    "API_NAME",
    "CACHE_TTLS",
    "CACHING",
    "PROVIDER_NAME",
    "SIGNATURE_PREFIX",
    "binding_of",
    "caching_strategies",
    "check_effort",
    "check_request",
    "decode_request",
    "decode_response",
    "decode_tool_choice",
    "encode_request",
    "encode_response",
    "error_body",
    "place_breakpoints",
    "sign_thinking",
    "signature_is_ours",
    "thinking_config",
    "tool_choice_config",
    "verify_thinking",
    "why_dropped",
]

#: The API's name, as `wire.API_SPECS` and every `Problem` of this API spell it.
API_NAME: API = "anthropic"
#: The name stamped on `ReasoningBlock.provider`: only blocks with it are sent back here.
PROVIDER_NAME = "anthropic"

_MIN_BUDGET = 1024

_STOP_IN: dict[str, StopReason] = {
    "end_turn": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
    "pause_turn": StopReason.PAUSE_TURN,
    "model_context_window_exceeded": StopReason.CONTEXT_WINDOW_EXCEEDED,
}


# -- the client side: request out, response in -----------------------------------------------

def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                   max_tokens: int = 1024, thinking: int | str | None = None,
                   effort: str | None = None,
                   stop_sequences: Sequence[str] | None = None,
                   tool_choice: str | None = None,
                   parallel_tool_calls: bool | None = None,
                   server_tools: Sequence[Mapping[str, Any]] = (),
                   temperature: float | None = None,
                   caching: str | Sequence[str] | None = None,
                   cache_ttl: str = "5m") -> dict[str, Any]:
    """The `/v1/messages` request body for this conversation, exactly as it stands.

    `thinking` is None (left out), a budget in tokens (manual extended thinking: at least
    1024, below `max_tokens`, and only on models that take it, such as Claude Haiku 4.5),
    "adaptive" (Claude decides how much to think: Haiku 5.5, Opus 5 and later) or
    "disabled". `effort` ("low", "medium", "high", "xhigh", "max") goes out as
    `output_config.effort`, which is how adaptive thinking is tuned. Every message is
    sent as a list of blocks, and same-role neighbours are *not* merged (the API merges
    them; `check_request` does too). `tool_choice` and `parallel_tool_calls` go out as
    `tool_choice` (see `tool_choice_config`), and only beside tools. `server_tools` are
    definitions of Anthropic's own tools, sent after yours as given (e.g.
    `{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}`). `temperature`
    goes out as `temperature` when given (the API has no seed); models that take only the
    default sampling refuse any other value (`check_request` says so before sending).
    `caching` and `cache_ttl` place prompt-cache breakpoints (see `place_breakpoints`; None
    sends none).

    >>> t = Transcript(system="Be brief.", messages=[Message.user("Hi")])
    >>> encode_request(t, model="claude-haiku-5-5", max_tokens=256)
    {'model': 'claude-haiku-5-5', 'max_tokens': 256, 'system': 'Be brief.',
     'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]}]}
    """
    check_tool_choice(tool_choice, tools, parallel_tool_calls)
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    if transcript.system is not None:
        body["system"] = transcript.system
    body["messages"] = [{"role": m.role, "content": _encode_content(m.blocks, model=model)}
                        for m in transcript.messages]
    if tools or server_tools:
        body["tools"] = [{"name": t.name, "description": t.description,
                          "input_schema": dict(t.input_schema)} for t in tools]
        body["tools"] += [plain_json(spec) for spec in server_tools]
    if tools:
        choice = tool_choice_config(tool_choice, parallel_tool_calls)
        if choice is not None:
            body["tool_choice"] = choice
    if thinking is not None:
        body["thinking"] = thinking_config(thinking)
    if effort is not None:
        body["output_config"] = {"effort": check_effort(effort)}
    if stop_sequences:
        body["stop_sequences"] = list(stop_sequences)
    body.update(sampling(temperature))
    container = _latest_container(transcript.messages)
    if container is not None:
        body["container"] = container
    return place_breakpoints(body, caching, ttl=cache_ttl)


# -- prompt caching: where the breakpoints go ------------------------------------------------
#: The kit's caching strategies, each a place for a `cache_control` breakpoint.
CACHING = ("auto", "tools", "system", "moving")
#: How long a cache entry lives after its last use: Anthropic's two lifetimes.
CACHE_TTLS = ("5m", "1h")


def caching_strategies(caching: str | Sequence[str] | None) -> tuple[str, ...]:
    """`caching` as a tuple of strategies from `CACHING`; () for None or "off".

    >>> caching_strategies("moving"), caching_strategies(["moving", "tools"]), caching_strategies("off")
    (('moving',), ('tools', 'moving'), ())
    """
    if caching is None or caching == "off":
        return ()
    asked = (caching,) if isinstance(caching, str) else tuple(caching)
    unknown = [name for name in asked if name not in CACHING]
    if unknown or not all(isinstance(name, str) for name in asked):
        raise UsageError(f"caching must be None, 'off', or one or more of {', '.join(map(repr, CACHING))} "
                         f"(say ('tools', 'system', 'moving')), got {caching!r}.")
    return tuple(name for name in CACHING if name in asked)  # in the order of the prompt


def place_breakpoints(body: dict[str, Any], caching: str | Sequence[str] | None, *,
                      ttl: str = "5m") -> dict[str, Any]:
    """`body` with `cache_control` breakpoints where `caching` says; the same dict, changed.

    A breakpoint caches the prompt up to and including its block, and the prompt is read
    in the order tools -> system -> messages. The strategies, any of which combine:

    - "tools": on the last tool (the tool definitions are cached);
    - "system": on the system prompt, which goes out as one text block to carry it;
    - "moving": on the last block of the last message, so each call of a loop caches the
      whole conversation and the next one reads it back (thinking blocks cannot carry one);
    - "auto": Anthropic's automatic caching, one top-level `cache_control` that the API
      puts on the last cacheable block itself (the same place as "moving").

    `ttl` is "5m" (the API's default, refreshed by every read) or "1h" (writes cost 2x
    input instead of 1.25x). A prompt shorter than the model's minimum (`models.Rules.
    min_cache_tokens`) is not cached, and the API says nothing: both cache counts read 0.

    >>> body = {"model": "m", "max_tokens": 64, "system": "Be brief.",
    ...         "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]}
    >>> place_breakpoints(body, ("system", "moving"), ttl="1h")
    {'model': 'm', 'max_tokens': 64,
     'system': [{'type': 'text', 'text': 'Be brief.', 'cache_control': {'type': 'ephemeral', 'ttl': '1h'}}],
     'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi',
                   'cache_control': {'type': 'ephemeral', 'ttl': '1h'}}]}]}
    """
    strategies = caching_strategies(caching)
    if ttl not in CACHE_TTLS:
        raise UsageError(f"cache_ttl must be '5m' or '1h', got {ttl!r}.")

    def mark() -> dict[str, str]:
        return {"type": "ephemeral", "ttl": ttl}

    if "tools" in strategies and body.get("tools"):
        body["tools"][-1]["cache_control"] = mark()
    if "system" in strategies and isinstance(body.get("system"), str) and body["system"]:
        body["system"] = [{"type": "text", "text": body["system"], "cache_control": mark()}]
    if "moving" in strategies:
        block = _last_cacheable(body.get("messages") or [])
        if block is not None:
            block["cache_control"] = mark()
    if "auto" in strategies:
        body["cache_control"] = mark()
    return body


def _last_cacheable(messages: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The last content block of the last message that can carry a breakpoint, if any."""
    content = messages[-1].get("content") if messages else None
    for block in reversed(content if isinstance(content, list) else []):
        if block.get("type") not in ("thinking", "redacted_thinking"):  # these take no cache_control
            return cast(dict[str, Any], block)
    return None


def _encode_content(blocks: Sequence[Block], *, sign: bool = False,
                    model: str | None = None) -> list[dict[str, Any]]:
    """A message's content blocks, with each programmatic call's `caller` put back.

    e.g. [ToolCall("toolu_1", ...), ReasoningBlock("", opaque={"callers": {"toolu_1": c}})]
    -> [{"type": "tool_use", "id": "toolu_1", ..., "caller": c}].
    A request (`sign` False) to `model` leaves out the reasoning `why_dropped` names; a
    reply the double writes (`sign` True) keeps all of it, signing what has no signature.
    """
    callers: dict[str, Any] = {}
    for block in blocks:
        if isinstance(block, ReasoningBlock) and block.replayable_to(PROVIDER_NAME):
            callers.update(block.opaque.get("callers") or {})
    content = []
    for block in blocks:
        if isinstance(block, ReasoningBlock):
            dropped = not sign and why_dropped(block, model=model) is not None
            wire = None if dropped else _encode_reasoning(block, sign=sign)
        elif isinstance(block, ServerToolCall | ServerToolResult) and sign and block.provider is None:
            wire = _spell_server_block(block)  # a scripted search, spelled Anthropic's way
        else:
            wire = _encode_block(block)
        if wire is None:
            continue
        if wire.get("type") == "tool_use" and wire.get("id") in callers:
            wire["caller"] = plain_json(callers[wire["id"]])
        content.append(wire)
    return content


def _latest_container(messages: Sequence[Message]) -> str | None:
    """The id of the code-execution container the latest reply ran in, if any."""
    for message in reversed(messages):
        for block in reversed(message.reasoning):
            container = block.opaque.get("container") if block.replayable_to(PROVIDER_NAME) else None
            if isinstance(container, Mapping) and container.get("id"):
                return str(container["id"])
    return None


def tool_choice_config(tool_choice: str | None,
                       parallel_tool_calls: bool | None = None) -> dict[str, Any] | None:
    """The request's `tool_choice` object for the kit's choice; None when nothing needs saying.

    >>> tool_choice_config("required"), tool_choice_config("get_weather")
    ({'type': 'any'}, {'type': 'tool', 'name': 'get_weather'})
    >>> tool_choice_config(None, parallel_tool_calls=False)  # parallel off needs an object to sit in
    {'type': 'auto', 'disable_parallel_tool_use': True}
    """
    if tool_choice is None and parallel_tool_calls is not False:
        return None
    kind = _CHOICE_TYPES.get(tool_choice, "tool")
    config: dict[str, Any] = {"type": kind}
    if kind == "tool":
        config["name"] = tool_choice
    if parallel_tool_calls is False and kind != "none":  # subtle: {"type": "none"} takes no such flag
        config["disable_parallel_tool_use"] = True
    return config


_CHOICE_TYPES: dict[str | None, str] = {None: "auto", "auto": "auto", "none": "none", "required": "any"}


def thinking_config(thinking: int | str) -> dict[str, Any]:
    """The request's `thinking` object for a budget, "adaptive" or "disabled".

    >>> thinking_config(2048), thinking_config("adaptive")
    ({'type': 'enabled', 'budget_tokens': 2048}, {'type': 'adaptive'})
    """
    # subtle: bool is an int; thinking=True would become a budget of 1 token.
    if isinstance(thinking, int) and not isinstance(thinking, bool):
        # Faithful, not repairing: a budget below 1024 is sent, and check_request flags it.
        return {"type": "enabled", "budget_tokens": thinking}
    if thinking in ("adaptive", "disabled"):
        return {"type": thinking}
    raise UsageError(f"thinking must be None, 'adaptive', 'disabled' or a token budget (an int of at "
                     f"least {_MIN_BUDGET}, for models with manual extended thinking), got {thinking!r}.")


def check_effort(effort: str) -> str:
    """`effort` if it is one of the API's effort levels; a ValueError naming them if not."""
    if effort not in EFFORTS:
        raise UsageError(f"effort must be one of {', '.join(EFFORTS)}, got {effort!r}.")
    return effort


def _encode_block(block: Block) -> dict[str, Any] | None:
    """One kit block as an Anthropic content block; None for reasoning it may not see."""
    match block:
        case TextBlock(text=text):
            return {"type": "text", "text": text}
        case ToolCall(id=id_, name=name, args=args):
            # subtle: Anthropic wants `input` as an object, never a string, so a malformed
            # call (raw_args set) is replayed with its empty args: the text cannot be sent.
            return {"type": "tool_use", "id": id_, "name": name, "input": dict(args)}
        case ToolResult(call_id=call_id, content=content, is_error=is_error):
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
            if is_error:
                result["is_error"] = True
            return result
        case ReasoningBlock():
            if why_dropped(block) is not None:
                return None  # another provider's reasoning: Anthropic could not verify it
            return _encode_reasoning(block, sign=False)
        case ServerToolCall() | ServerToolResult():
            # Only Anthropic's own: it cannot continue a search another provider ran.
            if not block.replayable_to(PROVIDER_NAME):
                return None
            if not block.opaque:
                # subtle: built by hand, as ServerToolCall's docstring shows, it has no wire
                # block to replay; it is spelled from its fields instead (not an empty {}).
                return _spell_server_block(block)
            return cast(dict[str, Any], plain_json(block.opaque))
        case _:
            assert_never(block)


def _spell_server_block(block: ServerToolCall | ServerToolResult) -> dict[str, Any]:
    """A server block with no wire block of its own, spelled as Anthropic would send it.

    Scripted blocks (`server_tools.web_search`) and blocks built by hand without `opaque`:
    e.g. ServerToolCall("srvtoolu_01", "web_search", {"query": "q"}) ->
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "q"}},
    which is the block exactly. A failed result becomes the API's error object
    ({"type": "web_search_tool_result_error", "error_code": <its content>}); a scripted
    result lists its results, each `encrypted_content` the double's stand-in for the page
    text. A result built by hand lists none: the page text it stood for is not in the
    block, so it cannot be sent back (what the real API answers to a result spelled so,
    without the encrypted text it sent, is not on record).
    """
    if isinstance(block, ServerToolCall):
        return {"type": "server_tool_use", "id": block.id, "name": block.name, "input": dict(block.args)}
    if block.is_error:
        return {"type": "web_search_tool_result", "tool_use_id": block.call_id,
                "content": {"type": "web_search_tool_result_error", "error_code": block.content}}
    content = [{"type": "web_search_result", "title": item["title"], "url": item["url"],
                "encrypted_content": sign_thinking(item["url"]), "page_age": None}
               for item in results_of(block)]
    return {"type": "web_search_tool_result", "tool_use_id": block.call_id, "content": content}


def why_dropped(block: ReasoningBlock, *, model: str | None = None, **options: Any) -> str | None:
    """Why a request to `model` leaves `block` out, or None when it sends it back.

    Another provider's reasoning is left out, and so is thinking another Claude model
    wrote (see the module docstring); with no `model` given, only the provider is judged.
    `options` (the request's other options) change nothing here.

    >>> opus = ReasoningBlock("Paris: call get_weather.", "anthropic", "claude-opus-5", {"signature": "s"})
    >>> why_dropped(opus, model="claude-opus-5") is None
    True
    >>> why_dropped(opus, model="claude-haiku-5-5")
    'written by claude-opus-5, not by claude-haiku-5-5: thinking goes back only to its model'
    """
    elsewhere = made_elsewhere(block, PROVIDER_NAME)
    if elsewhere is not None:
        return elsewhere
    carrier = any(key in block.opaque for key in ("block", "callers", "container"))
    # subtle: a block that carries a programmatic call's server block is part of the reply's
    # tool use, not thinking; it goes back whichever model continues the conversation.
    if model and block.model and not carrier and not same_model(block.model, model):
        return f"written by {block.model}, not by {model}: thinking goes back only to its model"
    return None


def _encode_reasoning(block: ReasoningBlock, *, sign: bool) -> dict[str, Any] | None:
    """A thinking block, replayed byte for byte (the double signs blocks that have no signature).

    A block that carries a server block sends it verbatim; one that carries only callers
    and a container sends nothing itself (`_encode_content` and `encode_request` use them).
    """
    if "block" in block.opaque:
        return cast(dict[str, Any], plain_json(block.opaque["block"]))
    if "callers" in block.opaque or "container" in block.opaque:
        return None
    if "redacted" in block.opaque:
        return {"type": "redacted_thinking", "data": block.opaque["redacted"]}
    signature = block.opaque.get("signature")
    if signature is None and sign:
        signature = sign_thinking(block.text)
    return {"type": "thinking", "thinking": block.text, "signature": signature or ""}


@from_the_wire
def decode_response(body: Mapping[str, Any]) -> Turn:
    """The `Turn` in a `/v1/messages` response body.

    >>> turn = decode_response({"model": "claude-haiku-5-5", "stop_reason": "end_turn",
    ...     "content": [{"type": "text", "text": "Hello!"}],
    ...     "usage": {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 300}})
    >>> turn.message, turn.stop_reason, turn.usage
    (Message.assistant(TextBlock('Hello!')), StopReason.END_TURN,
     Usage(input_tokens=310, output_tokens=3, cache_read_tokens=300))
    """
    if body.get("type", "message") != "message" or not isinstance(body.get("content"), list):
        # subtle: the SDK parses responses leniently (no validation by default, so newer
        # fields never break it); this is the one shape check that catches a wrong server.
        raise UsageError(f"expected a Messages API reply ({{\"type\": \"message\", \"content\": [...]}}), "
                         f"got keys {sorted(body)}")
    model = str(body.get("model", ""))
    blocks = tuple(_decode_blocks(body["content"], model=model, keep_others=True))
    extras = _programmatic_extras(body)
    if extras:
        blocks += (ReasoningBlock("", PROVIDER_NAME, model, extras),)
    stop = body.get("stop_reason")
    if stop in _STOP_IN:
        stop_reason = _STOP_IN[stop]
    else:
        # subtle: never null outside streaming; a value newer than this kit is read from
        # the content instead of failing the whole call.
        has_calls = any(isinstance(b, ToolCall) for b in blocks)
        stop_reason = StopReason.TOOL_USE if has_calls else StopReason.END_TURN
    return Turn(Message("assistant", blocks), stop_reason, _decode_usage(body.get("usage") or {}), model)


def _decode_usage(usage: Mapping[str, Any]) -> Usage:
    """Anthropic's usage in the kit's convention: cache reads and writes join input_tokens.

    e.g. input 10 + cache read 300 + cache write 50 -> input_tokens=360; of the 50 written,
    `cache_creation.ephemeral_1h_input_tokens` (say 40) were 1-hour writes.
    """
    read = usage.get("cache_read_input_tokens") or 0
    write = usage.get("cache_creation_input_tokens") or 0
    split = usage.get("cache_creation") or {}
    details = usage.get("output_tokens_details") or {}
    server = usage.get("server_tool_use") or {}
    return Usage(input_tokens=(usage.get("input_tokens") or 0) + read + write,
                 output_tokens=usage.get("output_tokens") or 0,
                 cache_read_tokens=read, cache_write_tokens=write,
                 # subtle: a proxy may report the split without the total; never more than the total
                 cache_write_1h_tokens=min(split.get("ephemeral_1h_input_tokens") or 0, write),
                 reasoning_tokens=details.get("thinking_tokens") or 0,
                 web_search_requests=server.get("web_search_requests") or 0)


def _programmatic_extras(body: Mapping[str, Any]) -> dict[str, Any]:
    """What a reply's programmatic tool calls need to be replayed: callers and container.

    A `caller` of type "direct" is the default, so it is not kept.
    e.g. tool_use toolu_1 with caller {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
    and container {"id": "container_1", ...} -> {"callers": {"toolu_1": {...}}, "container": {...}}.
    """
    callers = {item.get("id", ""): plain_json(item["caller"]) for item in body["content"]
               if isinstance(item, Mapping) and item.get("type") == "tool_use"
               and isinstance(item.get("caller"), Mapping) and item["caller"].get("type") != "direct"}
    extras: dict[str, Any] = {"callers": callers} if callers else {}
    if isinstance(body.get("container"), Mapping):
        extras["container"] = plain_json(body["container"])
    return extras


def _decode_blocks(content: Sequence[Mapping[str, Any]], *, model: str | None,
                   keep_others: bool = False) -> Iterator[Block]:
    """Kit blocks from Anthropic content blocks, in order.

    A server tool's call and result (`server_tool_use`, `web_search_tool_result`, ...)
    become `ServerToolCall` and `ServerToolResult`, the wire block kept verbatim. Other
    kinds the kit has no block for are kept verbatim in a ReasoningBlock when
    `keep_others` (a reply, which must replay as it came), and skipped otherwise (a
    request's user turn cannot hold reasoning).
    """
    for item in content:
        match item.get("type"):
            case "text":
                yield TextBlock(item.get("text", ""))
            case "tool_use":
                yield _decode_call(item)
            case "tool_result":
                yield ToolResult(item.get("tool_use_id", ""), _result_text(item.get("content")),
                                 bool(item.get("is_error", False)))
            case "thinking":
                yield ReasoningBlock(item.get("thinking", ""), PROVIDER_NAME, model,
                                     {"signature": item.get("signature", "")})
            case "redacted_thinking":
                yield ReasoningBlock("", PROVIDER_NAME, model, {"redacted": item.get("data", "")})
            case "server_tool_use":
                args = item.get("input")
                if not isinstance(args, dict) or arguments_problem(args) is not None:
                    args = {}  # the wire block, kept in `opaque`, still replays as it came
                yield ServerToolCall(item.get("id", ""), item.get("name", ""), args, PROVIDER_NAME,
                                     plain_json(item))
            case str(kind) if kind.endswith("_tool_result") and "tool_use_id" in item:
                text, failed = _server_result_text(item.get("content"))
                yield ServerToolResult(item["tool_use_id"], text, failed, PROVIDER_NAME, plain_json(item))
            case _ if keep_others:
                # server_tool_use, code_execution_tool_result, ...: turning them into text would
                # put words in the model's mouth, and dropping them would break the replay.
                yield ReasoningBlock("", PROVIDER_NAME, model, {"block": plain_json(item)})
            case _:
                continue  # image, document, ... in a request: the kit sends no media


def _server_result_text(content: object) -> tuple[str, bool]:
    """(readable text, failed) of a server tool's result content.

    e.g. [{"type": "web_search_result", "title": "T", "url": "https://t.example", ...}]
    -> ("T <https://t.example>", False); {"type": "web_search_tool_result_error",
    "error_code": "max_uses_exceeded"} -> ("max_uses_exceeded", True); a code run's
    {"stdout": "West", ...} -> ("West", False).
    """
    if isinstance(content, list):
        return search_digest([c for c in content if isinstance(c, Mapping)]), False
    if isinstance(content, Mapping):
        if "error_code" in content:
            return str(content["error_code"]), True
        return str(content.get("stdout") or ""), False
    return "", False


def _decode_call(item: Mapping[str, Any]) -> ToolCall:
    """A tool_use block as a ToolCall; `input` that is not a JSON object never raises.

    e.g. input '{"city": "Par' (a string, cut off) -> ToolCall(args={}, raw_args='{"city": "Par').
    """
    id_, name, raw = item.get("id", ""), item.get("name", ""), item.get("input", {})
    if isinstance(raw, Mapping):  # subtle: NaN, or nesting past MAX_NESTING, makes it malformed
        return object_call(id_, name, raw)
    if isinstance(raw, str):  # not what the API sends, but a proxy or a double might
        parsed = parse_arguments(raw)  # subtle: '[' * 5000 is malformed too, not a RecursionError
        return ToolCall(id_, name, parsed) if parsed is not None else ToolCall(id_, name, {}, raw)
    return ToolCall(id_, name, {}, raw_args=json_text(raw))


def _result_text(content: object) -> str:
    """A tool_result's content as text: a string, or the text parts of a block list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content
                         if isinstance(p, Mapping) and p.get("type") == "text")
    return ""


# -- the server half and the API's rules, in modules of their own ------------------------------
# subtle: imported last, because both read this module's names (API_NAME, _MIN_BUDGET, the
# block translators); re-exported, so this module stays the API's one codec (`wire.API_SPECS`).
from .rules.anthropic import check_request  # noqa: E402
from .server.anthropic import decode_request, decode_tool_choice, encode_response, error_body  # noqa: E402
