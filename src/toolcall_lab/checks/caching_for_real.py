"""Answer keys and worked solutions of lesson 19, "Caching for real".

Every key computes its answer from what the lesson's cell passes in (a run through the API
double, the model table), so no answer is written here. Compaction and the provider's own
tools, and their questions, went to lesson 20 with the split (issue 29 §4):
`compaction_and_server_tools`.

    >>> from toolcall_lab.checks.caching_for_real import q1
    >>> q1("no")
    Q1: correct.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..loop import Run
from ..messages import Message
from ..models import rules_of
from ..selfcheck import check, word
from ..selfcheck import number as a_number
from ..tool import Tool
from ..tool_order import stable_order
from ..transcript import Transcript
from ..views.cost import cost_of
from ..wire import encode_request
from ..wire.anthropic.caching import CACHE_TTLS, CACHING, TTL_SECONDS

__all__ = ["SLOW_TOOL_MINUTES", "SOLUTIONS", "call_2_input", "exercise_1", "order_key", "predict_read",
           "predict_reordered", "predict_slow", "q1"]


def predict_read(answer: Any, cached: Run) -> None:
    """How many input tokens call 2 of the cached loop read from the cache."""
    check("Prediction", answer, a_number(cached.steps[1].usage.cache_read_tokens),
          hint="the moving breakpoint sits on the last block of call 1's request: how much of "
               "call 1's prompt did it write, and how much of it does call 2 repeat?")


def call_2_input(answer: Any, cached: Run) -> None:
    """What call 2's input cost in dollars with caching: reads, writes and the uncached rest."""
    usage = cached.steps[1].usage
    expected = cost_of(usage, cached.steps[1].turn.model or "").total - cost_of(
        usage, cached.steps[1].turn.model or "").output
    check("Your turn", answer, a_number(expected, tolerance=expected * 0.01),
          hint="three parts at three prices: tokens read x the read price, tokens written x the write "
               "price, tokens after the breakpoint x the input price; each per million")


def predict_slow(answer: Any, slow: Run) -> None:
    """Tokens call 2 read from a 5-minute cache after a tool that took `SLOW_TOOL_MINUTES`."""
    check("Prediction", answer, a_number(slow.steps[1].usage.cache_read_tokens),
          hint="how long does a 5-minute entry live, and how long did the tool take?")


#: How long the lesson's slow tool takes, in minutes of the double's clock.
SLOW_TOOL_MINUTES = 7


def exercise_1(answer: Any, try_plan: Any) -> None:
    """Provider options whose cache survives the slow tool: `try_plan(options)` -> tokens read by call 2,
    which must be all of call 1's prompt (what the best plan reads back), not only a part of it."""
    def wrong(options: Any) -> str | None:
        if not isinstance(options, dict):
            return f"expected a dict of AnthropicProvider options, got {type(options).__name__}"
        unknown = set(options) - {"caching", "cache_ttl"}
        if unknown:
            return f"use only caching and cache_ttl, not {', '.join(sorted(unknown))}"
        try:
            read = try_plan(options)
        except Exception as exc:  # a bad option value: say which, in one line
            return f"the provider refused it: {str(exc).splitlines()[0][:100]}"
        if not read > 0:
            return "call 2 still read nothing from the cache"
        whole = _most_read_back(try_plan)
        if read < whole:
            return (f"call 2 read back {read} tokens, not all {whole} of call 1's prompt: only the part "
                    "up to a breakpoint is kept, so call 2 wrote the rest again")
        return None

    check("Exercise 1", answer, wrong,
          hint="a cache entry lives for its ttl; which ttl outlasts a 7-minute tool, and where must the "
               "breakpoint sit for call 2 to read all of call 1's prompt (section 1)?")


def _most_read_back(try_plan: Any) -> int:
    """The most call 2 reads with any one strategy at the longest lifetime: call 1's whole prompt."""
    longest = max(CACHE_TTLS, key=TTL_SECONDS.__getitem__)
    return max(int(try_plan({"caching": strategy, "cache_ttl": longest})) for strategy in CACHING)


def predict_reordered(answer: Any, reconnections: Sequence[Run]) -> None:
    """Tokens the second reconnection's first call reads from the cache: its tools came in another order."""
    check("Prediction", answer, a_number(reconnections[1].steps[0].usage.cache_read_tokens),
          hint="a cache matches the request's bytes from its start, and the tools come first: where does the "
               "second reconnection's first request first differ from the one the cache holds?")


def _reconnected() -> list[list[Tool]]:
    """The hidden tools, made again in every order, as each reconnection would list them.

    Two have the same description and two names the same length, so a key that ties keeps
    the order they came in; every copy is a new object, as after a restart.
    """
    from ..tools.calculator import calculator
    from ..tools.knowledge_base import search_kb
    from ..tools.weather import get_weather
    look_up = "Look one thing up and return it as text."
    tools = [get_weather, calculator, search_kb,
             replace(get_weather, name="get_tickets", description=look_up),
             replace(search_kb, name="find_hotel", description=look_up)]
    return [[replace(tool) for tool in order] for order in itertools.permutations(tools)]


def _tools_sent(tools: Sequence[Tool]) -> str:
    """The `tools` of an Anthropic request body, as the bytes the cache compares."""
    asked = Transcript(None, [Message.user("Hi")])
    body = encode_request(asked, tools, api="anthropic", model="claude-opus-5")
    return json.dumps(body.get("tools"), ensure_ascii=False)


def order_key(answer: Any) -> None:
    """A sort key that gives every reconnection's tools the same bytes: `sorted(tools, key=answer)`."""
    def wrong(key: Any) -> str | None:
        if key is stable_order or "stable_order" in getattr(getattr(key, "__code__", None), "co_names", ()):
            return "that is the kit's stable_order, which comes next: write it yourself, a key of one tool"
        if not callable(key):
            return (f"expected a function of one tool, as sorted(tools, key=...) takes, got "
                    f"{type(key).__name__}")
        if key in (id, hash):
            return ("an object's id or hash changes when the tools are made again (another process, a "
                    "reconnect): key on something the tool itself says")
        sent = set()
        for tools in _reconnected():
            try:
                ranked = sorted(tools, key=key)
            except Exception as exc:  # a key that cannot sort: say so in one line
                return f"sorting with it failed: {str(exc).splitlines()[0][:80]}"
            sent.add(_tools_sent(ranked))
        if len(sent) > 1:
            return (f"{len(_reconnected())} reconnections still sent {len(sent)} different tool lists: tools "
                    "that tie under your key keep the order they came in")
        return None

    check("Your turn", answer, wrong,
          hint="sorted(tools, key=...) gives one order only if no two tools tie under the key: what is "
               "different for every tool, and the same after every reconnect?")


def q1(answer: Any) -> None:
    """Whether a 3,000-token prompt on Claude Haiku 4.5 is cached with a breakpoint on its last block."""
    minimum = rules_of("claude-haiku-4-5").min_cache_tokens or 0
    check("Q1", answer, word("yes" if 3_000 >= minimum else "no", choices=("yes", "no")),
          hint="the model table's cache minimum for claude-haiku-4-5 (section 4 printed Opus 5's)")


SOLUTIONS: dict[str, str] = {
    "predict_read": "766",
    "call_2_input": "(766 * 0.50 + 57 * 6.25) / 1_000_000",
    "predict_slow": "0",
    "predict_reordered": "0",
    "order_key": 'operator.attrgetter("name")',
    "exercise_1": '{"caching": "moving", "cache_ttl": "1h"}',
    "q1": '"no"',
}
