"""How the Anthropic Messages API spells the kit's blocks, both ways: what this folder shares.

The client half (`client.py`) writes requests and reads replies; the server half the API
double plays (`server.py`) reads requests and writes replies. Both translate the same
blocks, so the translators live here, once:

    encode_content(blocks, sign=False, model=None)  kit blocks -> content blocks (a request,
                                                    or with `sign` a reply the double writes)
    decode_blocks(content, model=..., keep_others)  content blocks -> kit blocks
    why_dropped(block, model=...)                   why a request leaves a reasoning block out
    result_text(content)                            a tool_result's content as text
    merge(messages)                                 same-role neighbours as one message, the
                                                    way the API reads them (`rules.py`,
                                                    `thinking.py`)

and the API's names (`API_NAME`, `PROVIDER_NAME`), its stop reasons (`STOP_IN`) and the
smallest thinking budget it takes (`MIN_BUDGET`). The double signs the thinking it invents
(`sign_thinking`, from `wire.signing`), so the rules can catch a thinking block someone
edited.

Left out: images and documents in a request (skipped), citations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never, cast

from ...blocks import (
    Block,
    ReasoningBlock,
    ServerToolCall,
    ServerToolResult,
    TextBlock,
    ToolCall,
    ToolResult,
    arguments_problem,
)
from ...models import same_model
from ...server_tools import results_of, search_digest
from ...turn import StopReason
from .._shared import json_text, made_elsewhere, object_call, parse_arguments, plain_json
from ..signing import sign_thinking

__all__ = [
    "API_NAME",
    "ITEMS_KEY",
    "MIN_BUDGET",
    "PROVIDER_NAME",
    "STOP_IN",
    "Merged",
    "decode_blocks",
    "encode_content",
    "ended_by",
    "merge",
    "result_text",
    "why_dropped",
]

#: The API's name, as `wire.API_SPECS` and every `Problem` of this API spell it.
API_NAME = "anthropic"
#: The name stamped on `ReasoningBlock.provider`: only blocks with it are sent back here.
PROVIDER_NAME = "anthropic"
#: The request body's key that carries the conversation, a list of messages.
ITEMS_KEY = "messages"
#: The smallest `thinking.budget_tokens` the API takes.
MIN_BUDGET = 1024

#: The API's stop reasons, in the kit's words.
STOP_IN: dict[str, StopReason] = {
    "end_turn": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
    "pause_turn": StopReason.PAUSE_TURN,
    "model_context_window_exceeded": StopReason.CONTEXT_WINDOW_EXCEEDED,
}


# -- kit blocks -> content blocks ----------------------------------------------------------------
def encode_content(blocks: Sequence[Block], *, sign: bool = False,
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
    wrote (see `wire.anthropic`); with no `model` given, only the provider is judged.
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
    and a container sends nothing itself (`encode_content` and `encode_request` use them).
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


# -- content blocks -> kit blocks ----------------------------------------------------------------
def decode_blocks(content: Sequence[Mapping[str, Any]], *, model: str | None,
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
                yield ToolResult(item.get("tool_use_id", ""), result_text(item.get("content")),
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


def result_text(content: object) -> str:
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


# -- messages as the API reads them ---------------------------------------------------------------
@dataclass
class Merged:
    """A message after the API merged same-role neighbours: its blocks, in order."""

    role: str
    blocks: list[Mapping[str, Any]] = field(default_factory=list)

    def ids(self, kind: str, key: str) -> list[str]:
        return [b.get(key, "") for b in self.blocks if b.get("type") == kind]


def merge(messages: Sequence[object]) -> list[Merged]:
    """Consecutive messages of one role as one, the way the API reads them.

    e.g. user [text], user [tool_result] -> one user message [text, tool_result].
    """
    merged: list[Merged] = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue  # the SDK's types reject it; nothing here to check
        content = message.get("content")
        if isinstance(content, str):
            # subtle: "" is no content at all, not an empty text block.
            content = [{"type": "text", "text": content}] if content else []
        blocks = [b for b in content or [] if isinstance(b, Mapping)]
        if merged and merged[-1].role == message.get("role"):
            merged[-1].blocks.extend(blocks)
        else:
            merged.append(Merged(str(message.get("role")), blocks))
    return merged


def ended_by(body: Mapping[str, Any]) -> str:
    """What a response body says ended the reply, in the API's words: its `stop_reason`.

    >>> ended_by({"stop_reason": "max_tokens"})
    'max_tokens'
    """
    return str(body["stop_reason"])
