"""The Anthropic Messages API's client half: a `/v1/messages` request out, its reply in.

`encode_request` writes the body for a transcript, exactly as it stands (same-role
neighbours are *not* merged: the API merges them, and `check_request` does too);
`decode_response` reads a reply into a `Turn`, cache reads and writes counted into
`Usage.input_tokens` the kit's way. The block translators are this folder's (`_blocks.py`),
shared with the server half.

Server tools (web search, code execution) run on Anthropic's side inside the reply: a
`server_tool_use` block and its `..._tool_result` become a `ServerToolCall` and a
`ServerToolResult` (see `toolcall_lab.server_tools`), each keeping the wire block
verbatim in `opaque` and replayed as it came, to Anthropic only. They are asked for by
passing their definitions as given (`server_tools=`).

Programmatic tool calls (Claude's code, run in a container, calls your tools) come
back as a `server_tool_use` block, `tool_use` blocks whose `caller` names that code, and
a top-level `container`. The callers and the container have no block of their own, so
they ride in the one provider-scoped home the transcript has, `ReasoningBlock.opaque`
(text "", provider "anthropic"), in a block of their own at the end of the message.
`encode_request` puts them back: the blocks as they came, each `caller` on its
tool_use, and the latest container's id as the request's `container`. Other APIs drop
them, as they drop Anthropic's thinking.

`tool_choice` and `parallel_tool_calls` are the kit's vocabulary (`toolcall_lab.tool_choice`),
spelled Anthropic's way by `tool_choice_config`: "required" is `{"type": "any"}`, a tool's
name `{"type": "tool", "name": ...}`, and parallel off is `disable_parallel_tool_use` inside
the same object. A tool's `strict` is not sent: Anthropic's own strict tool use is left out.

Thinking (`thinking=`, `effort=`) is spelled by `thinking.py`; prompt caching (`caching=`
"tools", "system", "moving", "auto", or several, and `cache_ttl=` "5m" or "1h") by
`caching.py`, whose `place_breakpoints` puts the `cache_control` breakpoints in the body.

Left out: images, documents, citations, streaming, and strict tools.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...blocks import ReasoningBlock, ToolCall
from ...errors import UsageError
from ...messages import Message
from ...output_format import OutputFormat
from ...tool import Tool
from ...tool_choice import check_tool_choice
from ...transcript import Transcript
from ...turn import StopReason, Turn
from ...usage import Usage
from .._fields import COUNT, LIST, OBJECT, STRING, Field, check_reply
from .._shared import from_the_wire, plain_json, sampling
from ._blocks import API_NAME, PROVIDER_NAME, STOP_IN, decode_blocks, encode_content
from .caching import place_breakpoints
from .thinking import check_effort, thinking_config

__all__ = ["REPLY_FIELDS", "decode_response", "encode_request", "tool_choice_config"]


# -- request out ---------------------------------------------------------------------------------
def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str,
                   max_tokens: int = 1024, thinking: int | str | None = None,
                   effort: str | None = None,
                   stop_sequences: Sequence[str] | None = None,
                   tool_choice: str | None = None,
                   parallel_tool_calls: bool | None = None,
                   server_tools: Sequence[Mapping[str, Any]] = (),
                   temperature: float | None = None,
                   caching: str | Sequence[str] | None = None,
                   cache_ttl: str = "5m",
                   output_format: OutputFormat | None = None) -> dict[str, Any]:
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
    sends none). `output_format` (structured output, `toolcall_lab.output_format`) goes out as
    `output_config.format`, `{"type": "json_schema", "schema": ...}`, beside any effort
    (https://platform.claude.com/docs/en/build-with-claude/structured-outputs; the beta's
    top-level `output_format` is deprecated there).

    >>> t = Transcript(system="Be brief.", messages=[Message.user("Hi")])
    >>> encode_request(t, model="claude-haiku-5-5", max_tokens=256)
    {'model': 'claude-haiku-5-5', 'max_tokens': 256, 'system': 'Be brief.',
     'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]}]}
    """
    check_tool_choice(tool_choice, tools, parallel_tool_calls)
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    if transcript.system is not None:
        body["system"] = transcript.system
    body["messages"] = [{"role": m.role, "content": encode_content(m.blocks, model=model)}
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
    if output_format is not None:
        body.setdefault("output_config", {})["format"] = {"type": "json_schema",
                                                          "schema": dict(output_format.schema)}
    if stop_sequences:
        body["stop_sequences"] = list(stop_sequences)
    body.update(sampling(temperature))
    container = _latest_container(transcript.messages)
    if container is not None:
        body["container"] = container
    return place_breakpoints(body, caching, ttl=cache_ttl)


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


# -- reply in -----------------------------------------------------------------------------------
#: The fields `decode_response` reads, with the types the API sends (`wire._fields`).
REPLY_FIELDS = (
    Field("model", STRING), Field("stop_reason", STRING), Field("content", LIST, required=True),
    Field("content[]", OBJECT), Field("content[].type", STRING), Field("content[].text", STRING),
    Field("content[].id", STRING), Field("content[].name", STRING), Field("content[].thinking", STRING),
    Field("content[].signature", STRING), Field("content[].data", STRING),
    Field("usage", OBJECT), Field("usage.input_tokens", COUNT), Field("usage.output_tokens", COUNT),
    Field("usage.cache_read_input_tokens", COUNT), Field("usage.cache_creation_input_tokens", COUNT),
    Field("usage.cache_creation", OBJECT), Field("usage.cache_creation.ephemeral_5m_input_tokens", COUNT),
    Field("usage.cache_creation.ephemeral_1h_input_tokens", COUNT),
    Field("usage.output_tokens_details", OBJECT), Field("usage.output_tokens_details.thinking_tokens", COUNT),
    Field("usage.server_tool_use", OBJECT), Field("usage.server_tool_use.web_search_requests", COUNT),
)


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
    check_reply(body, REPLY_FIELDS, api=API_NAME, provider=PROVIDER_NAME)
    model = str(body.get("model", ""))
    blocks = tuple(decode_blocks(body["content"], model=model, keep_others=True))
    extras = _programmatic_extras(body)
    if extras:
        blocks += (ReasoningBlock("", PROVIDER_NAME, model, extras),)
    stop = body.get("stop_reason")
    if stop in STOP_IN:
        stop_reason = STOP_IN[stop]
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
