"""Lesson 19's wrong answers: each check is fed the runs the lesson makes, through the API double.

Its compaction and web-search questions went to lesson 20 with the split (issue 29 §4):
tests/checkrows/compaction_and_server_tools.py.
"""

from __future__ import annotations

import operator
from dataclasses import replace
from functools import cache

from checkrows import Row
from toolcall_lab import ApiDouble, get_provider, run_agent
from toolcall_lab.checks import caching_for_real as key
from toolcall_lab.tool_order import stable_order
from toolcall_lab.tools import calculator, get_weather, search_kb

MODEL = "claude-opus-5"
POLICY = ("You are a weather assistant for a travel agency. " * 30).strip()
FIVE = "What's the weather in Paris, London, Tokyo, New York and Cairo?"


def _loop(double, tools=(get_weather,), **options):
    agent = get_provider("anthropic", base_url=double.base_url("anthropic"), model=MODEL, **options)
    return run_agent(agent, FIVE, tools=tools, system=POLICY, parallel_tool_calls=False)


@cache
def cached_run():
    with ApiDouble() as double:
        return _loop(double, caching="moving")


def _slow(double, minutes):
    waited = []

    def look_up(**args):
        if not waited:
            double.clock.advance(minutes=minutes)
            waited.append(minutes)
        return get_weather.function(**args)
    return replace(get_weather, function=look_up)


@cache
def slow_run():
    with ApiDouble() as double:
        return _loop(double, tools=[_slow(double, key.SLOW_TOOL_MINUTES)], caching="moving")


#: Section 5's three reconnections, each listing the same tools in another order.
RECONNECTS = ((get_weather, calculator, search_kb), (search_kb, get_weather, calculator),
              (calculator, search_kb, get_weather))


@cache
def reconnections():
    with ApiDouble() as double:
        agent = get_provider("anthropic", base_url=double.base_url("anthropic"), model=MODEL,
                             caching="moving")
        return [run_agent(agent, "What's the weather in Paris?", tools=order, system=POLICY,
                          parallel_tool_calls=False) for order in RECONNECTS]


def try_plan(options):
    with ApiDouble() as double:
        run = _loop(double, tools=[_slow(double, key.SLOW_TOOL_MINUTES)], **options)
    return run.steps[1].usage.cache_read_tokens


ROWS = [
    Row("19 predict_read", lambda answer: key.predict_read(answer, cached_run()), (), lambda: 766,
        (lambda: 823, lambda: 0, lambda: "766", lambda: 57)),
    Row("19 call_2_input", lambda answer: key.call_2_input(answer, cached_run()), (),
        lambda: (766 * 0.50 + 57 * 6.25) / 1_000_000,
        (lambda: 823 * 5 / 1_000_000, lambda: 766 * 0.50 + 57 * 6.25, lambda: (766 + 57) * 0.50 / 1_000_000,
         lambda: "0.000739")),
    Row("19 predict_slow", lambda answer: key.predict_slow(answer, slow_run()), (), lambda: 0,
        (lambda: 766, lambda: 823, lambda: "0", lambda: None)),
    Row("19 predict_reordered", lambda answer: key.predict_reordered(answer, reconnections()), (), lambda: 0,
        (lambda: reconnections()[0].steps[1].usage.cache_read_tokens,   # as if order did not matter
         lambda: reconnections()[0].steps[1].usage.cache_write_tokens,  # only the new tail missed
         lambda: "0", lambda: None)),
    Row("19 order_key", key.order_key, (), lambda: operator.attrgetter("name"),
        (lambda: operator.attrgetter("description"),  # two tools share a description: ties keep arrival order
         lambda: lambda tool: len(tool.name),           # two names of one length tie
         lambda: id,                                    # made anew on every reconnect
         lambda: "name",                                # the attribute's name, not a key
         lambda: stable_order,                          # the kit's own: write it yourself
         lambda: lambda tool: stable_order([tool])[0].name,
         lambda: lambda tool: tool.input_schema)),      # dicts do not sort
    Row("19 exercise_1", lambda answer: key.exercise_1(answer, try_plan), (),
        lambda: {"caching": "moving", "cache_ttl": "1h"},
        (lambda: {"caching": "moving"}, lambda: {"caching": "moving", "cache_ttl": "10m"},
         lambda: {"cache_ttl": "1h"}, lambda: "1h",
         lambda: {"caching": "moving", "cache_ttl": "1h", "model": "x"},
         lambda: {"caching": "system", "cache_ttl": "1h"},  # reads the system prompt back, not call 1's
         lambda: {"caching": ("tools", "system"), "cache_ttl": "1h"},
         lambda: {"caching": ["system"], "cache_ttl": "1h"})),
    Row("19 q1", key.q1, (), lambda: "no",
        (lambda: "yes", lambda: "no, too short", lambda: False, lambda: 4096)),
]
