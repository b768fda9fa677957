"""Stable tool order (`tool_order.stable_order`): the prompt cache hits only when the tools come alike.

Through the real OpenAI SDKs against the API double, which caches the way OpenAI's API does
(by itself, from 1,024 tokens on, a prefix of tools -> system -> messages: double/cache.py,
wire/_openai/server.py): the same tools in a changing order read nothing from the cache;
put in a stable order, the second request reads the tools back.
"""

from __future__ import annotations

import random

import pytest

from conftest import real_provider
from toolcall_lab import Message, ScriptedProvider, Tool, Transcript, run_agent
from toolcall_lab.tool_order import stable_order

NAMES = ["archive_mail", "book_room", "convert_currency", "draft_reply", "find_flight", "get_weather"]
TOOLS = [Tool(name, f"{name.replace('_', ' ').capitalize()}. " + "Use it only when the user asks. " * 30,
              {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
              lambda query: "ok") for name in NAMES]            # about 1,700 tokens of tools
ASK = Transcript("Be brief.", [Message.user("Weather in Paris?")])


@pytest.fixture
def make_double(make_in_process_double):
    return make_in_process_double


def shuffled(seed: int) -> list[Tool]:
    order = list(TOOLS)
    random.Random(seed).shuffle(order)
    return order


def reads(make_double, name, orders):
    """The cache-read tokens the double reports for one request per tool order, on one double."""
    provider = real_provider(name, make_double(), model="gpt-6-luna")
    return [provider.complete(ASK, tools=order).usage.cache_read_tokens for order in orders]


@pytest.mark.parametrize("name", ["openai", "openai-chat"])
def test_a_changing_tool_order_misses_the_cache_and_a_stable_one_hits(make_double, name):
    orders = [shuffled(seed) for seed in (1, 4, 5)]
    assert len({tuple(t.name for t in o) for o in orders}) == 3 and len({o[0].name for o in orders}) == 3
    assert reads(make_double, name, orders) == [0, 0, 0]
    stable = reads(make_double, name, [stable_order(o) for o in orders])
    assert stable[0] == 0 and stable[1] == stable[2] >= 1024   # all 1,693 tokens, read back


def test_stable_order_is_by_name_whatever_the_order_in():
    assert [t.name for t in stable_order(shuffled(7))] == NAMES
    assert stable_order(shuffled(7)) == stable_order(reversed(TOOLS))


def test_the_loop_sends_the_tools_in_the_order_given_on_every_call():
    from toolcall_lab import call

    provider = ScriptedProvider([call("get_weather", query="Paris"), "hi"])
    run_agent(provider, "hi", tools=shuffled(3))
    assert [[t.name for t in r.tools] for r in provider.requests] == [[t.name for t in shuffled(3)]] * 2
