"""AnthropicProvider end to end: the real `anthropic` SDK talking HTTP to a server on 127.0.0.1.

The API here is a few lines on purpose: it plays the Messages API with the codec's server
half (`check_request`, `decode_request`, `encode_response`) and a scripted model behind
the loopback stub (`stub_server.StubServer`), so this file tests the adapter and the codec
together without the shared API double. One test at the end runs the same Paris question
through the double as well.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from dataclasses import replace

import pytest

from schemas import fixture
from stub_server import StubServer
from toolcall_lab import ReasoningBlock, ScriptedProvider, StopReason, ToolResult, Transcript, run_agent
from toolcall_lab.errors import InvalidRequestError, MissingKeyError, RateLimitError
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.messages import Message
from toolcall_lab.providers.anthropic import AnthropicProvider
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import anthropic as wire

SECRET = "sk-ant-test-SECRET-123"


def messages_api(policy=weather_policy):
    """A loopback Messages API: a scripted model behind the codec's server half."""
    model = ScriptedProvider(policy)
    numbers = itertools.count(1)

    def answer(request):
        number = next(numbers)  # every request takes a number, refused or not
        problems = wire.check_request(request.body)
        if problems:
            return 400, wire.error_body(problems[0].text)
        transcript, tools = wire.decode_request(request.body)
        turn = replace(model.complete(transcript, tools=tools), model=request.body["model"])
        return 200, wire.encode_response(turn, response_id=f"msg_test_{number:04d}")

    return answer


@pytest.fixture
def fake():
    """Start Messages APIs (`fake(policy)`); all are stopped when the test ends."""
    with contextlib.ExitStack() as stack:
        def start(policy=weather_policy):
            return stack.enter_context(StubServer(messages_api(policy), path="/v1/messages"))

        yield start


def test_paris_run_over_http(fake):
    server = fake()
    provider = AnthropicProvider(base_url=server.url, api_key=SECRET)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [s.stop_reason for s in run.steps] == [StopReason.TOOL_USE, StopReason.END_TURN]
    first, second = (s.turn for s in run.steps)
    assert first.request == server.requests[0].body and second.request == server.requests[1].body
    assert first.request["tools"] == [get_weather.spec()]
    assert first.response["type"] == "message" and first.response["id"] == "msg_test_0001"
    assert first.response["content"][0]["name"] == "get_weather"
    assert second.request["messages"][2]["content"][0]["type"] == "tool_result"
    assert second.response["stop_reason"] == "end_turn"
    assert first.model == provider.model and first.latency_s > 0


def with_thinking(transcript, tools):
    """The weather model, thinking (unsigned: the server signs it) before a new question."""
    reply = weather_policy(transcript, tools)
    if transcript[-1].tool_results:
        return reply
    return [ReasoningBlock(f"The user asks: {transcript.last_user_text()}"), *reply]


@pytest.mark.parametrize(("model", "options", "config"), [
    ("claude-haiku-5-5", {"thinking": "adaptive", "effort": "medium"}, {"type": "adaptive"}),
    ("claude-haiku-4-5", {"thinking": 2048}, {"type": "enabled", "budget_tokens": 2048})])
def test_thinking_is_replayed_in_the_tool_loop(fake, model, options, config):
    server = fake(with_thinking)
    provider = AnthropicProvider(model, base_url=server.url, max_tokens=4096, **options)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    (thinking,) = run.transcript[1].reasoning
    assert thinking.provider == "anthropic"
    assert wire.verify_thinking(thinking.text, thinking.opaque["signature"])
    replayed = server.requests[1].body["messages"][1]["content"][0]
    assert replayed == {"type": "thinking", "thinking": thinking.text,
                        "signature": thinking.opaque["signature"]}
    assert server.requests[1].body["thinking"] == config
    assert server.requests[1].body.get("output_config") == (
        {"effort": options["effort"]} if "effort" in options else None)


def test_edited_thinking_is_caught_before_sending(fake):
    server = fake(with_thinking)
    provider = AnthropicProvider(base_url=server.url, thinking="adaptive", max_tokens=4096)
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    thinking, call = provider.complete(transcript, tools=[get_weather]).message.blocks
    transcript.append(Message.assistant(replace(thinking, text=thinking.text + " (edited)"), call))
    transcript.append(Message.results([ToolResult(call.id, "18°C, sunny")]))
    with pytest.raises(InvalidRequestError, match="cannot be modified") as caught:
        provider.complete(transcript, tools=[get_weather])
    assert caught.value.problems[0].path == "messages.1.content.0"
    assert len(server.requests) == 1


def test_a_rule_broken_is_caught_before_sending(fake):
    server = fake()
    provider = AnthropicProvider(base_url=server.url)
    t = Transcript(messages=[Message.user("Hi"), Message.results([ToolResult("toolu_9", "18°C")])])
    with pytest.raises(InvalidRequestError) as caught:
        provider.complete(t)
    assert caught.value.problems[0].path == "messages.0.content.1"
    assert server.requests == []  # nothing was sent


def test_the_servers_400_becomes_invalid_request_error(fake):
    server = fake()
    provider = AnthropicProvider(base_url=server.url, check=False)
    t = Transcript(messages=[Message.user("Hi"), Message.results([ToolResult("toolu_9", "18°C")])])
    with pytest.raises(InvalidRequestError, match="unexpected `tool_use_id` found") as caught:
        provider.complete(t)
    assert caught.value.status == 400 and len(server.requests) == 1


def test_rate_limit_becomes_rate_limit_error(fake):
    server = fake()
    server.reply = (429, fixture("anthropic_error_rate_limit_429.body.json"))
    provider = AnthropicProvider(base_url=server.url, max_retries=0)
    with pytest.raises(RateLimitError, match="rate limit"):
        provider.complete(Transcript(messages=[Message.user("Hi")]))


def test_a_body_the_sdk_rejects_is_malformed(fake):
    from toolcall_lab.errors import MalformedResponseError

    server = fake()
    server.reply = (200, {"hello": "world"})
    provider = AnthropicProvider(base_url=server.url, max_retries=0)
    with pytest.raises(MalformedResponseError, match="is .* really a anthropic server"):
        provider.complete(Transcript(messages=[Message.user("Hi")]))


def test_missing_key_is_one_sentence_naming_the_variable(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingKeyError) as caught:
        AnthropicProvider(base_url="https://api.anthropic.com")
    message = str(caught.value)
    assert "ANTHROPIC_API_KEY" in message
    assert message.endswith(".") and ". " not in message and "\n" not in message


def test_the_key_never_shows(fake, monkeypatch):
    server = fake()
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    for provider in (AnthropicProvider(base_url=server.url), AnthropicProvider(api_key=SECRET),
                     AnthropicProvider(base_url=server.url, api_key=SECRET, thinking="adaptive")):
        assert SECRET not in repr(provider)
        assert SECRET not in str(vars(provider).get("thinking"))
    turn = AnthropicProvider(base_url=server.url).complete(Transcript(messages=[Message.user("Hi")]))
    assert SECRET not in json.dumps([turn.request, turn.response])


def test_repr_and_options():
    assert repr(AnthropicProvider(api_key=SECRET)) == "AnthropicProvider(model='claude-haiku-5-5')"
    provider = AnthropicProvider("claude-opus-5", api_key=SECRET, base_url="http://127.0.0.1:9/v1/")
    assert provider.base_url == "http://127.0.0.1:9"  # the SDK adds /v1/messages itself
    assert repr(provider) == "AnthropicProvider(model='claude-opus-5', base_url='http://127.0.0.1:9')"
    with pytest.raises(ValueError, match="thinking must be"):
        AnthropicProvider(api_key=SECRET, thinking="lots")
    with pytest.raises(ValueError, match="effort must be one of"):
        AnthropicProvider(api_key=SECRET, thinking="adaptive", effort="lots")
    assert repr(AnthropicProvider(api_key=SECRET, thinking="adaptive", effort="low")) == (
        "AnthropicProvider(model='claude-haiku-5-5', thinking='adaptive', effort='low')")


def test_a_budget_on_the_default_model_is_caught_before_sending(fake):
    server = fake()
    provider = AnthropicProvider(base_url=server.url, thinking=2048, max_tokens=4096)
    with pytest.raises(InvalidRequestError, match='"thinking.type.enabled" is not supported') as caught:
        provider.complete(Transcript(messages=[Message.user("Hi")]))
    assert caught.value.problems[0].path == "thinking.type"
    assert server.requests == []  # nothing was sent


@pytest.fixture
def double(make_in_process_double):
    """The API double, reached in-process through its transport: no test here is about the socket."""
    return make_in_process_double()


def test_paris_run_through_the_api_double(double):
    provider = AnthropicProvider(double=double, api_key=SECRET)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    assert len(run.steps) == 2
    assert all(s.turn.request is not None and s.turn.response is not None for s in run.steps)


def test_thinking_through_the_api_double(double):
    provider = AnthropicProvider(double=double, thinking="adaptive", effort="low", max_tokens=4096)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    (thinking,) = run.transcript[1].reasoning
    assert wire.verify_thinking(thinking.text, thinking.opaque["signature"])
