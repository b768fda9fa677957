"""Tools you don't run (issue 13): a provider's own web search in the transcript, on the wire and
on the bill.

Shapes are the official SDK types' (`anthropic` 2.14 `ServerToolUseBlock`,
`WebSearchToolResultBlock`, `ServerToolUsage`; `openai` 3.57 `ResponseFunctionWebSearch`), and
every body the kit builds or the double answers is validated by them; the usage example is the
pricing page's (tests/fixtures/SOURCES.md).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from schemas import anthropic_request_errors, fixture, openapi_errors
from toolcall_lab import Message, ScriptedProvider, StopReason, Transcript, Usage, run_agent, tool, wire
from toolcall_lab.blocks import ServerToolCall, ServerToolResult, block_from_dict, block_to_dict
from toolcall_lab.double import ApiDouble
from toolcall_lab.models import SERVER_TOOL_FEES
from toolcall_lab.server_tools import web_search
from toolcall_lab.tools import get_weather
from toolcall_lab.views.cost import Cost, cost_of, run_cost
from toolcall_lab.views.report import trace_table

MODEL = "claude-opus-5"
SEARCH_TOOL = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}


def search_reply():
    """A Messages reply in the SDK's shapes: a search Anthropic ran, what it found, the answer."""
    return {
        "id": "msg_01", "type": "message", "role": "assistant", "model": MODEL,
        "content": [
            {"type": "text", "text": "I'll search for that."},
            {"type": "server_tool_use", "id": "srvtoolu_01ABC", "name": "web_search",
             "input": {"query": "Paris weather today"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01ABC", "content": [
                {"type": "web_search_result", "title": "Paris forecast", "url": "https://example.com/paris",
                 "encrypted_content": "EqgfCioIARgBIiQ3YTAw", "page_age": "2 hours ago"}]},
            {"type": "text", "text": "Paris is 18°C and sunny."},
        ],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 2100, "output_tokens": 120, "cache_read_input_tokens": 0,
                  "cache_creation_input_tokens": 0,
                  "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0}},
    }


def test_the_reply_shape_is_the_sdks():
    import anthropic

    message = anthropic.types.Message.model_validate(search_reply())
    assert [type(b).__name__ for b in message.content] == [
        "TextBlock", "ServerToolUseBlock", "WebSearchToolResultBlock", "TextBlock"]
    assert message.usage.server_tool_use.web_search_requests == 1


def test_anthropic_decodes_a_search_into_server_blocks():
    body = search_reply()
    turn = wire.decode_response(body, api="anthropic")
    _, call, found, _ = turn.message.blocks
    assert call == ServerToolCall("srvtoolu_01ABC", "web_search", {"query": "Paris weather today"},
                                  "anthropic", body["content"][1])
    assert found == ServerToolResult("srvtoolu_01ABC", "Paris forecast <https://example.com/paris>",
                                     False, "anthropic", body["content"][2])
    assert turn.tool_calls == () and turn.message.server_tool_calls == (call,)
    assert turn.stop_reason is StopReason.END_TURN
    assert turn.usage == Usage(input_tokens=2100, output_tokens=120, web_search_requests=1)


def test_the_pricing_pages_usage_example_decodes():
    usage = wire.decode_response({"model": MODEL, "content": [], "stop_reason": "end_turn",
                                  **fixture("anthropic_web_search_usage.docs.json")}, api="anthropic").usage
    # 105 + 7,123 read + 7,345 written = 14,573 input tokens in the kit's convention
    assert usage == Usage(input_tokens=14_573, output_tokens=6039, cache_read_tokens=7123,
                          cache_write_tokens=7345, web_search_requests=1)


def test_a_failed_search_is_an_error_result():
    body = search_reply()
    body["content"][2] = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01ABC",
                          "content": {"type": "web_search_tool_result_error",
                                      "error_code": "max_uses_exceeded"}}
    found = wire.decode_response(body, api="anthropic").message.blocks[2]
    assert (found.content, found.is_error) == ("max_uses_exceeded", True)


def test_the_search_replays_exactly_as_it_came_and_only_to_anthropic():
    body = search_reply()
    turn = wire.decode_response(body, api="anthropic")
    t = Transcript(messages=[Message.user("Weather in Paris?"), turn.message, Message.user("And tomorrow?")])
    request = wire.encode_request(t, api="anthropic", model=MODEL, server_tools=[SEARCH_TOOL])
    assert request["messages"][1]["content"] == body["content"]
    assert request["tools"] == [SEARCH_TOOL]
    assert anthropic_request_errors(request) == []
    assert wire.check_request(request, api="anthropic") == []
    # another API cannot continue a search it never ran: the blocks are left out
    for api in ("responses", "chat", "ollama"):
        assert wire.check(t, api=api) == [], api
        other = json.dumps(wire.encode_request(t, api=api, model="gpt-6-luna"), ensure_ascii=False)
        assert "srvtoolu_01ABC" not in other and "Paris is 18°C and sunny." in other


def responses_search_reply():
    """A Responses body in the SDK's shapes: one web_search_call item, then the answer."""
    return {
        "id": "resp_01", "object": "response", "created_at": 0, "status": "completed", "model": "gpt-6-luna",
        "output": [
            {"type": "web_search_call", "id": "ws_01", "status": "completed",
             "action": {"type": "search", "query": "Paris weather today"}},
            {"type": "message", "id": "msg_01", "status": "completed", "role": "assistant",
             "content": [{"type": "output_text", "text": "Paris is 18°C.", "annotations": []}]},
        ],
        "usage": {"input_tokens": 900, "output_tokens": 40, "total_tokens": 940,
                  "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [{"type": "web_search"}],
    }


def test_responses_decodes_a_web_search_call_and_replays_the_item():
    from openai.types.responses import Response

    body = responses_search_reply()
    assert Response.model_validate(body).output[0].type == "web_search_call"
    turn = wire.decode_response(body, api="responses")
    call, answer = turn.message.blocks
    assert call == ServerToolCall("ws_01", "web_search", {"type": "search", "query": "Paris weather today"},
                                  "openai", body["output"][0])
    assert turn.usage.web_search_requests == 1 and turn.tool_calls == ()
    t = Transcript(messages=[Message.user("Weather in Paris?"), turn.message, Message.user("Thanks")])
    request = wire.encode_request(t, api="responses", model="gpt-6-luna",
                                  server_tools=[{"type": "web_search"}])
    assert request["input"][1] == body["output"][0]
    assert request["tools"] == [{"type": "web_search"}]
    assert openapi_errors(request, "CreateResponse") == []
    assert wire.check_request(request, api="responses") == []


def test_server_blocks_save_and_load_exactly():
    turn = wire.decode_response(search_reply(), api="anthropic")
    for block in turn.message.blocks:
        assert block_from_dict(block_to_dict(block)) == block
    t = Transcript(messages=[Message.user("Weather in Paris?"), turn.message])
    assert Transcript.from_json(t.to_json()).messages[1].blocks == turn.message.blocks


def test_a_server_block_built_as_its_docstring_shows_is_spelled_from_its_fields():
    # issue 19, item 8: with no `opaque` it went out as {} and the encoder raised KeyError('type')
    search = ServerToolCall("srvtoolu_01", "web_search", {"query": "Paris weather"}, "anthropic")
    failed = ServerToolResult("srvtoolu_01", "max_uses_exceeded", is_error=True, provider="anthropic")
    t = Transcript(messages=[Message.user("Weather in Paris?"),
                             Message.assistant(search, failed, "I could not search."),
                             Message.user("Again?")])
    assert wire.check(t, api="anthropic", server_tools=[SEARCH_TOOL]) == []
    request = wire.encode_request(t, api="anthropic", model=MODEL, server_tools=[SEARCH_TOOL])
    assert request["messages"][1]["content"][:2] == [
        {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
         "input": {"query": "Paris weather"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
         "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}]
    assert anthropic_request_errors(request) == []
    read = wire.anthropic.decode_request(request)[0].messages[1].blocks
    assert [(b.id, b.name, dict(b.args)) for b in read[:1]] == [(search.id, search.name, dict(search.args))]
    assert (read[1].call_id, read[1].content, read[1].is_error) == ("srvtoolu_01", "max_uses_exceeded", True)
    # and a run goes on from it, through the SDK
    from toolcall_lab import AnthropicProvider

    with ApiDouble(["Still no search, sorry."]) as double:
        provider = AnthropicProvider(MODEL, base_url=double.base_url("anthropic"), server_tools=[SEARCH_TOOL])
        assert run_agent(provider, None, transcript=t).answer == "Still no search, sorry."
        assert double.requests[-1].body["messages"][1]["content"][0]["type"] == "server_tool_use"


def test_a_user_message_cannot_hold_a_server_block():
    with pytest.raises(ValueError, match="cannot hold a server_tool_call block"):
        Message.user(ServerToolCall("srvtoolu_1", "web_search", {"query": "q"}))


# -- the loop never runs them -------------------------------------------------------------------
RAN = []


@tool
def local_web_search(query: str) -> str:
    """A local tool that must never run for a search the provider already ran."""
    RAN.append(query)
    return "local results"


def test_the_loop_does_not_run_a_server_search_and_finishes():
    script = [[*web_search("weather Paris", [("Paris forecast", "https://example.com/paris")]),
               "Paris is 18°C and sunny."]]
    provider = ScriptedProvider(script)
    # a local tool of the same name is offered, and must not be run
    same_name = replace(local_web_search, name="web_search")
    run = run_agent(provider, "Weather in Paris?", tools=[same_name])
    assert RAN == []
    assert run.stop_reason is StopReason.END_TURN and len(run.steps) == 1
    search, found, answer = run.transcript[-1].blocks
    assert (search.id, found.call_id) == ("srvtoolu_01", "srvtoolu_01")
    assert answer.text == "Paris is 18°C and sunny."
    assert run.steps[0].usage.web_search_requests == 1
    assert all(not step.results for step in run.steps)


def test_a_search_then_a_local_call_runs_only_the_local_one():
    script = [[*web_search("Paris", [("P", "https://p.example")]), get_weather_call()], "Done."]
    run = run_agent(ScriptedProvider(script), "Weather in Paris?", tools=[get_weather])
    assert [r.call_id for r in run.transcript.tool_results()] == ["toolu_01"]
    assert run.transcript.tool_calls()[0].name == "get_weather"


def get_weather_call():
    from toolcall_lab import call

    return call("get_weather", city="Paris")


# -- through the real SDKs, against the double -----------------------------------------------------
def test_a_scripted_search_through_the_anthropic_sdk():
    from toolcall_lab import AnthropicProvider

    script = [[*web_search("weather Paris", [("Paris forecast", "https://example.com/paris")]),
               "Paris is 18°C and sunny."], "You're welcome."]
    with ApiDouble(script) as double:
        provider = AnthropicProvider(MODEL, base_url=double.base_url("anthropic"), server_tools=[SEARCH_TOOL])
        run = run_agent(provider, "Weather in Paris?")
        search, found, answer = run.transcript[-1].blocks
        assert search.provider == found.provider == "anthropic" and search.opaque["type"] == "server_tool_use"
        assert found.content == "Paris forecast <https://example.com/paris>"
        assert run.steps[0].usage.web_search_requests == 1
        sent = double.requests[-1].body
        assert sent["tools"] == [SEARCH_TOOL]
        # the next request replays the search exactly as the double sent it
        run.transcript.append(Message.user("Thanks!"))
        provider.complete(run.transcript)
        replayed = double.requests[-1].body["messages"][1]["content"]
        assert replayed == [search.opaque, found.opaque, {"type": "text", "text": "Paris is 18°C and sunny."}]
        assert anthropic_request_errors(double.requests[-1].body) == []


def test_a_scripted_search_through_the_openai_sdk():
    from toolcall_lab import OpenAIResponsesProvider

    script = [[*web_search("weather Paris", [("Paris forecast", "https://example.com/paris")]),
               "Paris is 18°C."], "Bye."]
    with ApiDouble(script) as double:
        provider = OpenAIResponsesProvider("gpt-6-luna", base_url=double.base_url("responses"),
                                           server_tools=[{"type": "web_search"}])
        run = run_agent(provider, "Weather in Paris?")
        # gpt-6-luna reasons first; Responses returns no item for the search's results
        search, answer = run.transcript[-1].blocks[-2:]
        assert (search.name, search.args["query"]) == ("web_search", "weather Paris")
        assert answer.text == "Paris is 18°C."
        assert run.steps[0].usage.web_search_requests == 1
        run.transcript.append(Message.user("Thanks"))
        provider.complete(run.transcript)
        assert search.opaque in double.requests[-1].body["input"]


# -- the bill -------------------------------------------------------------------------------------
def test_the_fee_table_has_its_sources():
    fee = SERVER_TOOL_FEES[("anthropic", "web_search")]
    assert (fee.per_1000, fee.per_use, fee.label) == (10.0, 0.01, "quoted")
    assert "platform.claude.com" in fee.source and SERVER_TOOL_FEES[("openai", "web_search")].per_1000 == 10.0


def test_the_bill_includes_the_per_search_fee_by_hand():
    # Claude Opus 5: $5 input, $25 output per million; $10 per 1,000 searches.
    # 2,100 input tokens (the search results among them) and 120 output, one search:
    #   2,100 * 5 / 1e6 = $0.0105;  120 * 25 / 1e6 = $0.003;  1 * 10 / 1000 = $0.01  -> $0.0235
    usage = wire.decode_response(search_reply(), api="anthropic").usage
    cost = cost_of(usage, MODEL)
    assert cost == Cost(input=0.0105, output=0.003, server_tools=0.01)
    assert cost.total == pytest.approx(0.0235)
    assert repr(cost) == "Cost($0.0235: input $0.0105, output $0.0030, searches $0.0100)"


def test_run_cost_adds_the_searches_of_every_call():
    script = [[*web_search("a"), *web_search("b"), "Found both."], "Thanks."]
    run = run_agent(ScriptedProvider(script), "Search twice.")
    assert run.steps[0].usage.web_search_requests == 2
    tokens_only = run_cost(run, model=MODEL).total - 2 * 0.01
    no_search = sum((cost_of(Usage(s.usage.input_tokens, s.usage.output_tokens), MODEL)
                     for s in run.steps), Cost())
    assert tokens_only == pytest.approx(no_search.total)


def test_the_trace_shows_who_ran_it():
    turn = wire.decode_response(search_reply(), api="anthropic")
    table = trace_table(Transcript(messages=[Message.user("Weather in Paris?"), turn.message]), width=60)
    assert "(ran by the provider) web_search" in table and "(provider's result) Paris forecast" in table


# -- issue 29 §2: the searching call itself reads its results as input ------------------------------
def test_the_searching_call_bills_its_results_as_input_not_output():
    # "Web search results retrieved throughout a conversation are counted as input tokens, in
    # search iterations executed during a single turn and in subsequent conversation turns"
    # (platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool, Pricing)
    from toolcall_lab.tokens import blocks_text, estimate_tokens

    pages = [("Paris forecast " * 40, "https://example.com/paris")]
    searched = ScriptedProvider([[*web_search("weather Paris", pages), "Paris is 18°C."]])
    plain = ScriptedProvider(["Paris is 18°C."])
    asked = Transcript(messages=[Message.user("Weather in Paris?")])
    turn, bare = searched.complete(asked), plain.complete(asked)
    found = turn.message.blocks[1]
    results = estimate_tokens(blocks_text([found]))
    assert results > 150
    assert turn.usage.input_tokens == bare.usage.input_tokens + results
    assert turn.usage.output_tokens == estimate_tokens(blocks_text(turn.message.blocks[::2]))


@pytest.mark.parametrize("version", ["web_search_20250305", "web_search_20260209", "web_search_20260318"])
def test_the_double_takes_every_web_search_tool_version_and_bills_the_results_in_the_same_call(version):
    # the page: "Three versions of the web search tool are available: web_search_20250305 ...
    # web_search_20260209 ... web_search_20260318"
    from toolcall_lab import AnthropicProvider

    pages = [("Paris forecast " * 40, "https://example.com/paris")]
    with ApiDouble([[*web_search("weather Paris", pages), "Paris is 18°C."], "Paris is 18°C."]) as double:
        tool = {"type": version, "name": "web_search", "max_uses": 3}
        provider = AnthropicProvider(MODEL, base_url=double.base_url("anthropic"), server_tools=[tool])
        asked = Transcript(messages=[Message.user("Weather in Paris?")])
        searching = provider.complete(asked)
        answering = provider.complete(asked)  # the same question, answered without a search
    assert searching.usage.input_tokens - answering.usage.input_tokens > 150
