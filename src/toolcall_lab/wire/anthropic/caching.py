"""Prompt caching, Anthropic's way: where a request puts its breakpoints, and the rules about them.

A *breakpoint* is a `cache_control` on one block of the prompt, which is read in the order
tools -> system -> messages: the API caches the prompt up to and including that block, and
a later request that starts the same way reads it back for a tenth of the price. Anthropic
caches only where asked. The client half asks with `place_breakpoints` (the kit's
strategies, `CACHING`, and the two lifetimes, `CACHE_TTLS`); `check_request` (`rules.py`)
refuses what the API refuses (`breakpoint_problems`): more than four breakpoints, or a
1-hour one after a 5-minute one.

Left out: the beta 1-hour header of older API versions, and caching of images and documents
(the kit sends none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from ...errors import UsageError
from ..problem import Problem
from ._blocks import API_NAME

__all__ = ["CACHE_TTLS", "CACHING", "MAX_BREAKPOINTS", "breakpoint_problems", "breakpoints",
           "caching_strategies", "place_breakpoints"]

# -- the client half: where the breakpoints go --------------------------------------------------
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


# -- the rules: four at most, a 1-hour one never after a 5-minute one ------------------------
#: The most `cache_control` breakpoints one request may carry.
MAX_BREAKPOINTS = 4


def breakpoint_problems(body: Mapping[str, Any]) -> list[Problem]:
    """At most four breakpoints: on tools, system blocks, message blocks, and the top level.

    The API's words, from a recorded 400 (tghamm/Anthropic.SDK#50, Wei-Shaw/sub2api#176); it
    names no path. Counting the top-level (automatic) `cache_control` as one of the four is
    the kit's reading of the prompt-caching page, which gives automatic caching one slot.
    """
    marks = _marks(body)
    if len(marks) > MAX_BREAKPOINTS:
        return [_problem("cache_control", f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be "
                         f"provided. Found {len(marks)}.")]
    # A 1-hour breakpoint may not follow a 5-minute one (a mark without a ttl is a 5-minute one).
    # The API's words as recorded in cnighswonger/claude-code-cache-fix#44 (the full 400 body)
    # and headroomlabs-ai/headroom#2939.
    seen_5m = False
    for path, control in marks:
        ttl = str(control.get("ttl") or "5m")
        seen_5m = seen_5m or ttl == "5m"
        if ttl == "1h" and seen_5m:
            where = f"{path}.cache_control.ttl" if path != "cache_control" else "cache_control.ttl"
            return [_problem(where, f"{where}: a ttl='1h' cache_control block must not come after a ttl='5m' "
                             "cache_control block. Note that blocks are processed in the following order: "
                             "`tools`, `system`, `messages`.")]
    return []


def breakpoints(body: Mapping[str, Any]) -> list[str]:
    """The paths of every `cache_control` in a request body, in the order of the prompt.

    >>> breakpoints({"tools": [{"name": "t", "cache_control": {"type": "ephemeral"}}],
    ...              "messages": [{"role": "user", "content": [
    ...                  {"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]}]})
    ['tools.0', 'messages.0.content.0']
    """
    return [path for path, _ in _marks(body)]


def _marks(body: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(path, its cache_control) for every breakpoint, in the order the API processes them."""
    def marked(blocks: object, path: str) -> list[tuple[str, Mapping[str, Any]]]:
        found: list[tuple[str, Mapping[str, Any]]] = []
        for index, block in enumerate(blocks if isinstance(blocks, list) else []):
            if isinstance(block, Mapping):
                control = block.get("cache_control")
                if control is not None:
                    found.append((f"{path}.{index}", control if isinstance(control, Mapping) else {}))
                found += marked(block.get("content"), f"{path}.{index}.content")  # inside a tool_result
        return found

    marks = marked(body.get("tools"), "tools") + marked(body.get("system"), "system")
    for index, message in enumerate(body.get("messages") or []):
        if isinstance(message, Mapping):
            marks += marked(message.get("content"), f"messages.{index}.content")
    control = body.get("cache_control")
    if control is not None:  # automatic caching: on the last block, so processed last
        marks.append(("cache_control", control if isinstance(control, Mapping) else {}))
    return marks


def _problem(path: str, text: str) -> Problem:
    return Problem(API_NAME, path, text)
