"""Prompt caching for real: the kit sends breakpoints, the double caches the way the APIs do.

Every run goes through the official SDKs against the API double, and every number the
double reports is worked out by hand here first. How the double counts (double/cache.py):
a request's input is the kit's estimate (about 4 characters per token of `request_text`)
plus, on Anthropic with tools, the hidden tool prompt (286 tokens on Claude Opus 5); a
breakpoint caches everything up to and including its block, in the order tools -> system
-> messages.
"""

from __future__ import annotations

import itertools

import pytest

from conftest import real_provider
from schemas import anthropic_request_errors, openapi_errors
from toolcall_lab import Message, Transcript, UsageError, run_agent, wire
from toolcall_lab.double import ApiDouble, FakeClock
from toolcall_lab.models import PRICES
from toolcall_lab.tool import execute
from toolcall_lab.tools import calculator, get_weather
from toolcall_lab.usage import Usage
from toolcall_lab.views.cost import cost_of, run_cost
from toolcall_lab.wire import anthropic, chat, responses


@pytest.fixture
def make_double(make_in_process_double):
    """This file's doubles never serve: the SDKs reach them in-process (`real_provider`, `double=`)."""
    return make_in_process_double


OPUS = "claude-opus-5"      # 512-token minimum, $5 input, $0.50 read, $6.25 / $10 writes, $25 output
HIDDEN = 286                # Opus 5's hidden tool-use system prompt, billed whenever tools are offered
LONG = ("You are a weather assistant for a travel agency. " * 30).strip()   # 1,469 characters
FIVE = "What's the weather in Paris, London, Tokyo, New York and Cairo?"
ASK = Transcript("Be brief.", [Message.user("Weather in Paris?")])


def usage_of(step):
    """(read, written, input after the last breakpoint) as the Anthropic API reported them."""
    u = (step.turn if hasattr(step, "turn") else step).response["usage"]
    return u["cache_read_input_tokens"], u["cache_creation_input_tokens"], u["input_tokens"]


def loop(double, *, caching="moving", cache_ttl="5m", system=LONG, question=FIVE, tools=(get_weather,),
         transcript=None):
    provider = real_provider("anthropic", double, model=OPUS, caching=caching, cache_ttl=cache_ttl)
    run = run_agent(provider, question, tools=list(tools), system=system, transcript=transcript,
                    parallel_tool_calls=False)
    return provider, run


# -- the kit sends breakpoints ----------------------------------------------------------------
@pytest.mark.parametrize("caching", [*anthropic.CACHING, ("tools", "system", "moving"),
                                     ("auto", "tools", "system", "moving")])
@pytest.mark.parametrize("ttl", anthropic.CACHE_TTLS)
def test_every_strategy_is_a_body_the_sdks_request_type_accepts_strictly(caching, ttl):
    body = anthropic.encode_request(ASK, [get_weather, calculator], model=OPUS, caching=caching,
                                    cache_ttl=ttl)
    assert anthropic_request_errors(body) == []
    assert wire.check_request(body, api="anthropic") == []
    mark = {"type": "ephemeral", "ttl": ttl}
    strategies = {caching} if isinstance(caching, str) else set(caching)
    assert (body["tools"][-1].get("cache_control") == mark) == ("tools" in strategies)
    assert "cache_control" not in body["tools"][0]
    assert (body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": mark}]) == (
        "system" in strategies)
    assert (body["messages"][-1]["content"][-1].get("cache_control") == mark) == ("moving" in strategies)
    assert (body.get("cache_control") == mark) == ("auto" in strategies)


def test_caching_is_off_unless_asked_and_a_wrong_strategy_or_ttl_says_what_would_work():
    plain = anthropic.encode_request(ASK, [get_weather], model=OPUS)
    assert plain == anthropic.encode_request(ASK, [get_weather], model=OPUS, caching="off")
    assert "cache_control" not in str(plain)
    with pytest.raises(UsageError, match="'auto', 'tools', 'system', 'moving'"):
        anthropic.encode_request(ASK, model=OPUS, caching="everything")
    with pytest.raises(UsageError, match="'5m' or '1h'"):
        anthropic.encode_request(ASK, model=OPUS, caching="moving", cache_ttl="1d")


def test_the_moving_breakpoint_skips_thinking_which_cannot_carry_one():
    thinking = {"type": "thinking", "thinking": "t", "signature": "s"}
    body = {"messages": [{"role": "assistant", "content": [{"type": "text", "text": "Hi"}, thinking]}]}
    anthropic.place_breakpoints(body, "moving")
    assert [("cache_control" in block) for block in body["messages"][0]["content"]] == [True, False]


def test_more_than_four_breakpoints_are_refused_in_the_apis_words_by_check_and_by_the_double(double):
    body = anthropic.encode_request(ASK, [get_weather, calculator], model=OPUS,
                                    caching=("auto", "tools", "system", "moving"))
    assert wire.check_request(body, api="anthropic") == []          # four: the most there may be
    body["tools"][0]["cache_control"] = {"type": "ephemeral"}       # a fifth
    text = "A maximum of 4 blocks with cache_control may be provided. Found 5."
    assert [str(p.text) for p in wire.check_request(body, api="anthropic")] == [text]
    import anthropic as sdk
    import httpx2

    client = sdk.Anthropic(base_url=double.url, api_key="sk-test", max_retries=0,
                           http_client=httpx2.Client(transport=double.transport()))
    with pytest.raises(sdk.BadRequestError) as refused:
        client.messages.create(**body)
    assert refused.value.body["error"] == {"type": "invalid_request_error", "message": text}
    assert double.requests[-1].status == 400


def test_openai_sends_its_cache_fields_only_when_asked_and_the_schemas_accept_them():
    for codec, root in ((responses, "CreateResponse"), (chat, "CreateChatCompletionRequest")):
        plain = codec.encode_request(ASK, [get_weather], model="gpt-6-luna")
        assert "prompt_cache_key" not in plain and "prompt_cache_retention" not in plain
        keyed = codec.encode_request(ASK, [get_weather], model="gpt-6-luna", prompt_cache_key="lesson-8",
                                     prompt_cache_retention="24h")
        assert (keyed["prompt_cache_key"], keyed["prompt_cache_retention"]) == ("lesson-8", "24h")
        assert openapi_errors(keyed, root) == []
        with pytest.raises(UsageError, match="'in_memory' or '24h'"):
            codec.encode_request(ASK, model="gpt-6-luna", prompt_cache_retention="1h")


# -- the double caches: Anthropic ---------------------------------------------------------------
def test_a_moving_breakpoint_writes_each_call_and_the_next_reads_it_matching_a_hand_computation(double):
    provider, run = loop(double)
    # What each call sent, counted as the double counts: the hidden tool prompt plus the kit's
    # estimate of the request (SentRequest.input_tokens). Call 1 is 286 + 480 = 766 tokens.
    sent = [HIDDEN + request.input_tokens for request in provider.requests]
    assert sent == [766, 823, 882, 939, 997, 1054]
    # The breakpoint sits on the last block, so nothing comes after it (input_tokens 0); call 1
    # writes all 766; call k reads the 766, 823, ... that call k-1 wrote and writes the rest.
    expected = [(0, 766, 0)] + [(before, now - before, 0) for before, now in itertools.pairwise(sent)]
    assert expected == [(0, 766, 0), (766, 57, 0), (823, 59, 0), (882, 57, 0), (939, 58, 0), (997, 57, 0)]
    assert [usage_of(step) for step in run.steps] == expected
    assert [step.turn.response["usage"]["cache_creation"] for step in run.steps[:2]] == [
        {"ephemeral_5m_input_tokens": 766, "ephemeral_1h_input_tokens": 0},
        {"ephemeral_5m_input_tokens": 57, "ephemeral_1h_input_tokens": 0}]
    # In the kit's convention the reads and writes are parts of input_tokens, which stays what was sent.
    assert [step.usage.input_tokens for step in run.steps] == sent
    assert run.usage.cache_write_tokens == 1054 and run.usage.cache_read_tokens == 766 + 823 + 882 + 939 + 997


def test_run_cost_prices_the_cached_run_against_the_same_run_without_caching(make_double):
    _, cached = loop(make_double())
    _, plain = loop(make_double(), caching=None)
    output = plain.usage.output_tokens
    assert cached.usage.output_tokens == output == 153
    # dollars per million: writes 1,054 * 6.25, reads 4,407 * 0.50, output 153 * 25; nothing uncached
    assert run_cost(cached).total == pytest.approx((1054 * 6.25 + 4407 * 0.50 + 153 * 25) / 1e6)  # $0.0121
    # without caching every call pays the full 5,461 input tokens at $5
    assert run_cost(plain).total == pytest.approx((5461 * 5 + 153 * 25) / 1e6)                     # $0.0296
    assert [usage_of(step) for step in plain.steps][0] == (0, 0, 766)
    assert "cache_creation" not in plain.steps[0].turn.response["usage"]  # bodies without caching unchanged


def test_one_hour_writes_are_reported_apart_and_priced_at_two_times_input(double):
    _, run = loop(double, cache_ttl="1h")
    first = run.steps[0]
    assert first.turn.response["usage"]["cache_creation"] == {"ephemeral_5m_input_tokens": 0,
                                                             "ephemeral_1h_input_tokens": 766}
    assert first.usage.cache_write_1h_tokens == first.usage.cache_write_tokens == 766
    # 766 written for an hour at $10 per million (2x Opus 5's $5 input) = $0.00766
    assert cost_of(first.usage, OPUS).cache_write == pytest.approx(766 * 10 / 1e6)
    assert run_cost(run).cache_write == pytest.approx(1054 * 10 / 1e6)


def test_below_the_models_minimum_nothing_is_cached_and_nothing_is_said(double):
    # the lessons' short run: 286 + about 100 tokens, under Opus 5's 512
    _, run = loop(double, system="You are a helpful assistant.", question="What's the weather in Paris?")
    assert [usage_of(step) for step in run.steps] == [(0, 0, 397), (0, 0, 454)]
    assert run.steps[0].turn.response["usage"]["cache_creation"] == {"ephemeral_5m_input_tokens": 0,
                                                                    "ephemeral_1h_input_tokens": 0}
    assert len(double.cache) == 0


def test_a_5_minute_entry_expires_on_a_slow_tool_and_a_1_hour_one_does_not(make_double):
    for ttl, expected in (("5m", (0, 823, 0)), ("1h", (766, 57, 0))):
        double = make_double()
        provider = real_provider("anthropic", double, model=OPUS, caching="moving", cache_ttl=ttl)
        transcript = Transcript(LONG, [Message.user(FIVE)])
        first = provider.complete(transcript, tools=[get_weather], parallel_tool_calls=False)
        transcript.append(first.message)
        call = transcript.messages[-1].tool_calls[0]
        double.clock.advance(minutes=6)          # the tool takes six minutes
        transcript.append(Message.results([execute(call, {"get_weather": get_weather})]))
        turn = provider.complete(transcript, tools=[get_weather], parallel_tool_calls=False)
        u = turn.response["usage"]
        assert (u["cache_read_input_tokens"], u["cache_creation_input_tokens"], u["input_tokens"]) == expected


def test_every_read_starts_the_lifetime_again(double):
    provider = real_provider("anthropic", double, model=OPUS, caching="system")
    transcript = Transcript(f"{LONG} {LONG}", [Message.user("Weather in Paris?")])
    reads = []
    for _ in range(3):
        double.clock.advance(minutes=4)           # 4 + 4 + 4 minutes: never 5 since the last use
        reads.append(provider.complete(transcript).response["usage"]["cache_read_input_tokens"])
    # the system prompt's prefix: 34 characters of punctuation, "[]" for no tools, and the
    # 2,939-character prompt in quotes: 34 + 2 + 2,941 = 2,977 characters -> 745 tokens
    assert reads == [0, 745, 745]


def test_a_new_system_prompt_or_new_tools_invalidate_everything(double):
    _, first = loop(double)
    _, reworded = loop(double, system=LONG.replace("travel", "TRAVEL"))   # as long, not the same
    assert usage_of(reworded.steps[0]) == (0, 766, 0)
    _, more_tools = loop(double, tools=(get_weather, calculator))
    assert usage_of(more_tools.steps[0])[0] == 0
    _, again = loop(double)                               # the first prompt is still held
    assert usage_of(again.steps[0]) == (766, 0, 0)


def test_editing_an_earlier_message_invalidates_from_that_message_on(double):
    provider, run = loop(double)
    messages = list(run.transcript.messages)[:-1]                 # up to the 5th result, as call 6 sent
    result = messages[4].tool_results[0]                          # London's result, the 2nd
    messages[4] = Message.results([type(result)(result.call_id, "15°C, light rain")])
    turn = provider.complete(Transcript(LONG, messages), tools=[get_weather])
    # Breakpoints were written at the end of messages 0, 2, 4, ... (one per call). Message 4
    # changed, so the longest prefix still held ends at message 2: the 823 call 2 wrote.
    # Everything after it is written again, up to the new breakpoint on the last message.
    sent = HIDDEN + provider.requests[-1].input_tokens
    assert sent == 1054
    assert usage_of(turn) == (823, 1054 - 823, 0)


def test_the_cache_is_per_double_and_per_model(make_double):
    first = make_double()
    loop(first)
    _, elsewhere = loop(make_double())
    assert usage_of(elsewhere.steps[0]) == (0, 766, 0)
    provider = real_provider("anthropic", first, model="claude-haiku-5-5", caching="moving")
    turn = provider.complete(Transcript(LONG, [Message.user(FIVE)]), tools=[get_weather])
    assert turn.response["usage"]["cache_read_input_tokens"] == 0


# -- the double caches: OpenAI ------------------------------------------------------------------
OPENAI_LONG = ("You are a weather assistant for a travel agency. " * 80).strip()
THREE = "What's the weather in Paris, London and Tokyo?"


@pytest.mark.parametrize(("name", "model", "expected"), [
    # GPT-5.6 and later: the exact boundary, and a billed write of what was not read
    ("openai-chat", "gpt-6-luna", [(1088, 0, 1088), (1145, 1088, 57), (1203, 1145, 58), (1260, 1203, 57)]),
    # before GPT-5.6: from 1,024 in steps of 128 (1,088 -> 1,024; 1,203 -> 1,152), writes free and unreported
    ("openai-chat", "gpt-4o", [(1088, 0, 0), (1145, 1024, 0), (1203, 1024, 0), (1260, 1152, 0)]),
    ("openai", "gpt-4o", [(1088, 0, 0), (1145, 1024, 0), (1203, 1024, 0), (1260, 1152, 0)]),
])
def test_openai_caches_by_itself_and_reports_cached_tokens_inside_input(double, name, model, expected):
    provider = real_provider(name, double, model=model)
    run = run_agent(provider, THREE, tools=[get_weather], system=OPENAI_LONG, parallel_tool_calls=False)
    found = [(s.usage.input_tokens, s.usage.cache_read_tokens, s.usage.cache_write_tokens) for s in run.steps]
    assert found == expected
    body = run.steps[-1].turn.response["usage"]
    if name == "openai-chat":
        assert body["prompt_tokens"] == expected[-1][0]
        assert body["prompt_tokens_details"]["cached_tokens"] == expected[-1][1]
    else:
        assert body["input_tokens"] == expected[-1][0]
        assert body["input_tokens_details"]["cached_tokens"] == expected[-1][1]


def test_openai_below_1024_tokens_and_across_cache_keys_reads_nothing(double):
    short = run_agent(real_provider("openai-chat", double, model="gpt-6-luna"), THREE, tools=[get_weather],
                      parallel_tool_calls=False)
    assert {(s.usage.cache_read_tokens, s.usage.cache_write_tokens) for s in short.steps} == {(0, 0)}
    ask = Transcript(OPENAI_LONG, [Message.user(THREE)])
    for key, read in (("a", 0), ("a", 1088), ("b", 0)):
        provider = real_provider("openai-chat", double, model="gpt-6-luna", prompt_cache_key=key)
        assert provider.complete(ask, tools=[get_weather]).usage.cache_read_tokens == read
    assert double.requests[-1].body["prompt_cache_key"] == "b"


def test_ollama_reports_no_cache(double):
    pytest.importorskip("ollama")
    run = run_agent(real_provider("ollama", double), THREE, tools=[get_weather], system=OPENAI_LONG)
    assert run.usage.cache_read_tokens == run.usage.cache_write_tokens == 0


# -- the clock and the usage record --------------------------------------------------------------
def test_the_clock_moves_only_when_told_and_a_real_one_only_when_asked():
    assert ApiDouble().clock.now() == 0 and repr(ApiDouble().clock) == "FakeClock(at 0m 0s)"
    clock = FakeClock()
    assert clock.advance(minutes=6, seconds=30) == 390.0
    with pytest.raises(UsageError, match="forward"):
        clock.advance(minutes=-1)
    real = ApiDouble(clock="real").clock
    with pytest.raises(UsageError, match="cannot be moved"):
        real.advance(minutes=6)
    with pytest.raises(UsageError, match="FakeClock"):
        ApiDouble(clock="slow")


def test_anthropic_usage_decodes_the_one_hour_part_of_the_writes():
    turn = anthropic.decode_response({"model": OPUS, "stop_reason": "end_turn", "content": [], "usage": {
        "input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 300,
        "cache_creation_input_tokens": 50,
        "cache_creation": {"ephemeral_5m_input_tokens": 10, "ephemeral_1h_input_tokens": 40}}})
    assert turn.usage == Usage(input_tokens=360, output_tokens=3, cache_read_tokens=300,
                               cache_write_tokens=50, cache_write_1h_tokens=40)
    assert Usage(input_tokens=9, cache_write_tokens=5, cache_write_1h_tokens=5) + Usage(
        input_tokens=1, cache_write_tokens=1) == Usage(input_tokens=10, cache_write_tokens=6,
                                                       cache_write_1h_tokens=5)
    with pytest.raises(UsageError, match="part of cache_write_tokens"):
        Usage(input_tokens=9, cache_write_tokens=1, cache_write_1h_tokens=2)
    # 1-hour writes need a 1-hour price: OpenAI rows have none
    assert PRICES["gpt-6-luna"].cache_write_1h is None
    with pytest.raises(UsageError, match="1-hour"):
        cost_of(Usage(input_tokens=5, cache_write_tokens=5, cache_write_1h_tokens=5), "gpt-6-luna")


def test_a_long_serve_keeps_the_cache_bounded(double):
    double.cache.max_entries = 4
    for city in ("Paris", "London", "Tokyo"):
        real_provider("openai-chat", double, model="gpt-6-luna").complete(
            Transcript(OPENAI_LONG, [Message.user(f"Weather in {city}?")]), tools=[get_weather])
    assert len(double.cache) <= 4


def test_the_providers_show_their_cache_options_and_hide_the_defaults():
    from toolcall_lab import AnthropicProvider, OpenAIChatProvider, OpenAIResponsesProvider

    assert repr(AnthropicProvider(api_key="sk-test", caching=["tools", "moving"], cache_ttl="1h")) == (
        "AnthropicProvider(model='claude-haiku-5-5', caching=('tools', 'moving'), cache_ttl='1h')")
    plain = AnthropicProvider(api_key="sk-test", caching="off")
    assert repr(plain) == "AnthropicProvider(model='claude-haiku-5-5')"
    assert repr(OpenAIResponsesProvider(api_key="sk-test", prompt_cache_key="lesson-8")) == (
        "OpenAIResponsesProvider(model='gpt-6-luna', prompt_cache_key='lesson-8')")
    assert repr(OpenAIChatProvider(api_key="sk-test", prompt_cache_retention="24h")) == (
        "OpenAIChatProvider(model='gpt-6-luna', prompt_cache_retention='24h')")
    with pytest.raises(UsageError, match="caching must be"):
        AnthropicProvider(api_key="sk-test", caching="sometimes")


def test_a_one_hour_breakpoint_after_a_five_minute_one_is_refused_in_the_apis_words():
    body = anthropic.encode_request(ASK, [get_weather], model=OPUS, caching=("tools", "system"),
                                    cache_ttl="1h")
    assert wire.check_request(body, api="anthropic") == []
    body["tools"][0]["cache_control"] = {"type": "ephemeral"}       # no ttl: a 5-minute one, processed first
    [problem] = wire.check_request(body, api="anthropic")
    assert problem.text == ("system.0.cache_control.ttl: a ttl='1h' cache_control block must not come "
                            "after a ttl='5m' cache_control block. Note that blocks are processed in the "
                            "following order: `tools`, `system`, `messages`.")


def test_automatic_caching_moves_its_breakpoint_like_the_moving_one(make_double):
    _, moving = loop(make_double())
    _, auto = loop(make_double(), caching="auto")
    assert auto.steps[0].turn.request["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert [usage_of(step) for step in auto.steps] == [usage_of(step) for step in moving.steps]


def test_a_breakpoint_on_the_tools_alone_is_too_short_to_cache_on_opus_5(double):
    # the prefix up to the tools: 286 hidden tokens + (34 characters of punctuation + the tools'
    # 298-character JSON) / 4 -> 286 + 83 = 369 tokens, under Opus 5's 512: silently not cached
    _, run = loop(double, caching="tools")
    assert double.requests[-1].body["tools"][0]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert usage_of(run.steps[0]) == (0, 0, 766)
    _, both = loop(double, caching=("tools", "system", "moving"))
    assert usage_of(both.steps[0]) == (0, 766, 0)        # the system breakpoint is past 512: all written


def test_caching_true_is_anthropics_automatic_caching_and_false_is_off(double):
    """Issue 19, item 20: `caching=True`, the obvious first guess, takes "auto" (the API's own switch,
    what `cost.loop_bill(caching=True)` simulates) instead of a raw TypeError; False is "off"."""
    from toolcall_lab import AnthropicProvider

    assert repr(AnthropicProvider(api_key="sk-test", caching=True)) == (
        "AnthropicProvider(model='claude-haiku-5-5', caching='auto')")
    assert AnthropicProvider(api_key="sk-test", caching=False).caching is None
    provider, run = loop(double, caching=True)
    sent = [step.turn.request for step in run.steps]
    assert all(body["cache_control"] == {"type": "ephemeral", "ttl": "5m"} for body in sent)
    assert usage_of(run.steps[1])[0] > 0, "call 2 read what call 1 wrote"
