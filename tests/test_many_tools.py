"""`examples.many_tools`: the example tool set lesson 5 §7 prices, the same on every call.

The lesson's figures (what fifty definitions add to a request, and to a 20-call loop) hold only
if the set is deterministic and like a real MCP server's tools: ten services, five actions each,
every property described, and about the size the vendor's page names for fifty tools.
"""

from __future__ import annotations

import pytest

from toolcall_lab import Message, Transcript, UsageError
from toolcall_lab.examples import PARIS_QUESTION, SYSTEM_PROMPT, many_tools
from toolcall_lab.tokens import request_tokens


def test_the_same_tools_in_the_same_order_every_time():
    assert [t.spec() for t in many_tools(50)] == [t.spec() for t in many_tools(50)]
    assert many_tools(7) == many_tools(50)[:7]
    assert [t.name for t in many_tools(12)][9:] == ["zendesk_search", "github_get", "jira_get"]


def test_fifty_distinct_valid_tools_every_property_described():
    tools = many_tools()
    assert len(tools) == 50 == len({t.name for t in tools})
    for tool in tools:
        tool.check_schema()
        properties = tool.input_schema["properties"]
        assert all(p.get("description") for p in properties.values()), tool.name
        assert set(tool.input_schema["required"]) <= set(properties)
        assert "{" not in tool.description  # every template filled


def test_fifty_definitions_weigh_what_the_vendor_page_says():
    """https://code.claude.com/docs/en/agent-sdk/tool-search: "50 tools can use 10-20K tokens"."""
    first = Transcript(SYSTEM_PROMPT, [Message.user(PARIS_QUESTION)])
    bare = request_tokens(first)
    added = request_tokens(first, many_tools(50)) - bare
    assert 10_000 <= added <= 20_000
    one = request_tokens(first, many_tools(1)) - bare  # the page shows one; fifty of it is close
    assert abs(50 * one - added) <= 0.1 * added


@pytest.mark.parametrize("n", [0, 51, -1, 2.0, True, "50"])
def test_a_count_outside_one_to_fifty_is_refused(n):
    with pytest.raises(UsageError, match="1 to 50"):
        many_tools(n)
