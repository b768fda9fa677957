"""Prompt caching, Anthropic's way: where a request puts its breakpoints, the rules about them,
and what the API reads and writes for them.

A *breakpoint* is a `cache_control` on one block of the prompt, which is read in the order
tools -> system -> messages: the API caches the prompt up to and including that block, and
a later request that starts the same way reads it back for a tenth of the price. Anthropic
caches only where asked. The client half asks with `place_breakpoints` (the kit's
strategies, `CACHING`, and the two lifetimes, `CACHE_TTLS`); `check_request` (`rules.py`)
refuses what the API refuses (`breakpoint_problems`): more than four breakpoints, or a
1-hour one after a 5-minute one.

The API double caches the way the API does (`cache_usage`), on the prompt laid out block
by block (`layout`, `wire._layout`: each block ends a prefix, named by a hash of what
comes before it and measured with the kit's token estimate, plus the hidden tool prompt):

- read: from each breakpoint (or the top-level automatic one, on the last block) the API
  looks back up to 20 blocks (`LOOKBACK`) for a prefix it already holds; the longest one
  found is read (`cache_read_input_tokens`) and its lifetime starts again;
- write: each breakpoint past what was read stores its prefix, if the prefix is at least
  the model's minimum (`models.Rules.min_cache_tokens`: 512 on Claude Haiku 5.5); the
  tokens from the read up to the last stored breakpoint are the write
  (`cache_creation_input_tokens`), split by the breakpoints' `ttl` into
  `cache_creation.ephemeral_5m_input_tokens` and `ephemeral_1h_input_tokens`;
- `input_tokens` is what is left: the tokens after the last breakpoint.

Below the minimum nothing is cached and nothing is said: both counts read 0. Changing a
tool or the system prompt changes every prefix after it, so nothing matches; editing a
message changes the prefixes from that message on.

Left out: the beta 1-hour header of older API versions, caching of images and documents
(the kit sends none), and eviction as Anthropic does it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from ..._json import compact
from ...blocks import block_to_dict
from ...errors import UsageError
from ...models import rules_of, tool_prompt_tokens
from .._layout import HOUR, MINUTE, Boundary, Layout, Prefixes, message_head
from ..problem import Problem
from ._blocks import API_NAME, decode_blocks

if TYPE_CHECKING:
    from ...tool import Tool
    from ...transcript import Transcript
    from ...usage import Usage

__all__ = ["CACHE_TTLS", "CACHING", "LOOKBACK", "MAX_BREAKPOINTS", "TTL_SECONDS", "breakpoint_problems",
           "breakpoints", "cache_usage", "caching_strategies", "layout", "place_breakpoints",
           "with_cache_creation"]

# -- the client half: where the breakpoints go --------------------------------------------------
#: The kit's caching strategies, each a place for a `cache_control` breakpoint.
CACHING = ("auto", "tools", "system", "moving")
#: How long a cache entry lives after its last use: Anthropic's two lifetimes, in seconds.
TTL_SECONDS = {"5m": 5 * MINUTE, "1h": HOUR}
CACHE_TTLS = tuple(TTL_SECONDS)  # ("5m", "1h"): what `cache_control.ttl` may say


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


# -- the API double: what a request reads from the cache, and what it writes ---------------------
#: How many blocks before a breakpoint Anthropic looks for a prefix it holds ("up to
#: approximately 20 blocks", the prompt-caching page); the breakpoint's own block is one more.
LOOKBACK = 20


def cache_usage(cache: Prefixes, body: Mapping[str, Any], transcript: Transcript, tools: Sequence[Tool],
                usage: Usage) -> Usage:
    """`usage` with what this request reads from `cache` and writes to it (unchanged without breakpoints).

    The reads and writes are parts of `usage.input_tokens` (the kit's convention), never
    more than it holds. The prefixes are the request's own blocks (`layout`), so the
    `transcript` read from it is not needed.
    """
    if not _marks(body) and not isinstance(body.get("cache_control"), Mapping):
        return usage  # subtle: no breakpoint anywhere, so `layout` would find none (its cost is the JSON)
    boundaries, marks = layout(body, tools)
    if not marks:
        return usage
    model = str(body.get("model", ""))
    space = ("anthropic", model)
    at = [min(b.tokens, usage.input_tokens) for b in boundaries]  # subtle: never more than the request holds
    read = _read(cache, space, boundaries, marks, at)
    minimum = rules_of(model).min_cache_tokens or 0
    written = _write(cache, space, boundaries, marks, at, read=read, minimum=minimum)
    return replace(usage, cache_read_tokens=read, cache_write_tokens=written["5m"] + written["1h"],
                   cache_write_1h_tokens=written["1h"])


def _read(cache: Prefixes, space: tuple[str, ...], boundaries: Sequence[Boundary],
          marks: Sequence[tuple[int, str]], at: Sequence[int]) -> int:
    """The tokens read: the longest held prefix found looking back from any breakpoint."""
    read = 0
    for index, _ in marks:
        for back in range(index, max(index - LOOKBACK - 1, -1), -1):
            if cache.held(space, boundaries[back].key):
                read = max(read, at[back])
                break
    return read


def _write(cache: Prefixes, space: tuple[str, ...], boundaries: Sequence[Boundary],
           marks: Sequence[tuple[int, str]], at: Sequence[int], *, read: int, minimum: int) -> dict[str, int]:
    """The tokens written past `read`, by lifetime: each breakpoint at least `minimum` long is stored."""
    written = {"5m": 0, "1h": 0}
    start = read
    for index, ttl in marks:
        if at[index] < minimum:
            continue  # too short to cache: silently not cached
        cache.keep(space, boundaries[index].key, TTL_SECONDS[ttl])
        if at[index] > start:
            written[ttl] += at[index] - start
            start = at[index]
    return written


def with_cache_creation(reply: dict[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
    """`reply`, which says how much it wrote to the cache whenever its `request` has breakpoints.

    (`encode_response` writes `usage.cache_creation` only when something was written; a
    request below the minimum asked for caching all the same, and the API answers it with
    zeros.)
    """
    if breakpoints(request) and "cache_creation" not in reply["usage"]:
        reply["usage"]["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
    return reply


def layout(body: Mapping[str, Any], tools: Sequence[Tool]) -> tuple[list[Boundary], list[tuple[int, str]]]:
    """Every block boundary of a Messages request, and its breakpoints as (boundary, ttl).

    The hash covers the request's own blocks (so an image or a signature counts); the
    tokens follow the kit's estimate of the blocks as `decode_request` reads them (and of
    `tools`, the request's tools as read), plus the hidden tool prompt when tools are offered.
    """
    hidden = tool_prompt_tokens(str(body.get("model", ""))) if tools else 0
    prompt = Layout(hidden)
    marks: list[tuple[int, str]] = []
    _lay_tools(prompt, marks, body, tools)
    _lay_system(prompt, marks, body)
    _lay_messages(prompt, marks, body)
    control = body.get("cache_control")
    if isinstance(control, Mapping) and prompt.boundaries:
        # automatic caching: the breakpoint goes on the last block (thinking cannot carry one,
        # which the kit's moving breakpoint also skips; here the last block stands for it)
        marks.append((len(prompt.boundaries) - 1, str(control.get("ttl") or "5m")))
    return prompt.boundaries, sorted(marks)


def _lay_tools(prompt: Layout, marks: list[tuple[int, str]], body: Mapping[str, Any],
               tools: Sequence[Tool]) -> None:
    """The tools come first: boundary k ends tool k; Anthropic's own tools count in the hash only."""
    wire_tools = [t for t in body.get("tools") or [] if isinstance(t, Mapping)]
    yours = iter([t.spec() for t in tools])
    prompt.tools([next(yours, None) if "input_schema" in t else None for t in wire_tools],
                 [_without_mark(t) for t in wire_tools])
    for index, item in enumerate(wire_tools):
        _mark(marks, item, index)


def _lay_system(prompt: Layout, marks: list[tuple[int, str]], body: Mapping[str, Any]) -> None:
    """The system prompt, a string or text blocks: one boundary per block."""
    system = body.get("system")
    blocks = ([{"type": "text", "text": system}] if isinstance(system, str)
              else [b for b in system or [] if isinstance(b, Mapping)])
    start = len(prompt.boundaries)
    prompt.system([str(b.get("text", "")) for b in blocks], [_without_mark(b) for b in blocks])
    for offset, item in enumerate(blocks):
        _mark(marks, item, start + offset)


def _lay_messages(prompt: Layout, marks: list[tuple[int, str]], body: Mapping[str, Any]) -> None:
    """Each message's content blocks, one boundary each, counted as the kit's blocks they decode to."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping) and m.get("role") != "system"]
    for number, message in enumerate(messages):
        content = message.get("content")
        items = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        prompt.add(message_head(str(message.get("role"))) + (number > 0), {"role": message.get("role")})
        kit_blocks = 0
        for position, item in enumerate(items):
            decoded = list(decode_blocks([item], model=None))
            chars = sum(len(compact(block_to_dict(b))) for b in decoded) + (kit_blocks > 0 and bool(decoded))
            kit_blocks += len(decoded)
            prompt.add(chars + 2 * (position == len(items) - 1), _without_mark(item))
            _mark(marks, item, prompt.boundary(f"messages.{number}.content.{position}"))
        if not items:
            prompt.add(2)


def _mark(marks: list[tuple[int, str]], item: Mapping[str, Any], index: int) -> None:
    """Note a breakpoint on boundary `index` if `item` carries one."""
    control = item.get("cache_control")
    if isinstance(control, Mapping):
        marks.append((index, str(control.get("ttl") or "5m")))


def _without_mark(block: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in block.items() if key != "cache_control"}
