"""One contract, every provider: the scripted one and each real adapter through the API double.

Whatever the wire, the loop sees the same thing: the model asks, your code runs the tool
and answers with the matching id, the model replies. Only the ids' spelling differs.
"""

from __future__ import annotations

import re

import pytest

from conftest import REAL_PROVIDERS, real_provider
from toolcall_lab import (
    InvalidRequestError,
    Message,
    ProviderError,
    ScriptedProvider,
    ScriptExhaustedError,
    SentRequest,
    StopReason,
    ToolResult,
    Transcript,
    call,
    run_agent,
)
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tokens import estimate_tokens, request_text
from toolcall_lab.tools import get_weather


@pytest.fixture
def make_double(make_in_process_double):
    """This file's doubles never serve: the SDKs reach them in-process (`real_provider`, `double=`)."""
    return make_in_process_double


NAMES = ["scripted", *REAL_PROVIDERS]


@pytest.fixture(params=NAMES)
def provider_for(request, make_double):
    """`provider_for(policy)`: a provider of this parameter's kind playing `policy`."""
    def build(policy=weather_policy, **options):
        if request.param == "scripted":
            build.double = None
            return ScriptedProvider(policy)
        build.double = make_double(policy)
        return real_provider(request.param, build.double, **options)
    build.name = request.param
    return build


def test_the_paris_run(provider_for):
    provider = provider_for()
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    roles = [m.role for m in run.transcript]
    assert roles == ["user", "assistant", "user", "assistant"]
    (asked,) = run.transcript[1].tool_calls
    (answered,) = run.transcript[2].tool_results
    assert (asked.name, dict(asked.args)) == ("get_weather", {"city": "Paris"})
    assert answered.call_id == asked.id and answered.content == "18°C, sunny"
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [s.stop_reason for s in run.steps] == [StopReason.TOOL_USE, StopReason.END_TURN]
    for step in run.steps:
        assert step.usage.input_tokens > 0 and step.usage.output_tokens > 0
        if provider_for.name != "scripted":
            assert step.turn.request["model"] == provider.model  # the wire bodies are kept
            assert step.turn.response is not None and step.turn.model


def test_parallel_calls_are_answered_in_one_message_in_call_order(provider_for):
    run = run_agent(provider_for(), "Weather in Tokyo and in Paris?", tools=[get_weather])
    calls = run.transcript[1].tool_calls
    assert [c.args["city"] for c in calls] == ["Tokyo", "Paris"]
    assert len({c.id for c in calls}) == 2
    assert [r.call_id for r in run.transcript[2].tool_results] == [c.id for c in calls]
    assert run.answer == "It's 22°C and cloudy in Tokyo. It's 18°C and sunny in Paris."


def answer_from_the_result(transcript, tools):
    last = transcript[-1]
    if not last.tool_results:
        return call("get_weather", city="Atlantis")
    (result,) = last.tool_results
    return f"is_error={result.is_error}, says why: {'no weather data for' in result.content}"


def test_an_error_result_reaches_the_model_as_an_error(provider_for):
    run = run_agent(provider_for(answer_from_the_result), "Weather in Atlantis?", tools=[get_weather])
    assert run.answer == "is_error=True, says why: True"


def test_complete_leaves_the_transcript_alone(provider_for):
    transcript = Transcript(system="Be brief.", messages=[Message.user(PARIS_QUESTION)])
    before = transcript.to_dict()
    turn = provider_for().complete(transcript, tools=[get_weather])
    assert transcript.to_dict() == before
    assert turn.message.role == "assistant" and turn.tool_calls[0].name == "get_weather"


def test_a_conversation_continues_across_runs(provider_for):
    provider = provider_for()
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    run = run_agent(provider, "And in London?", tools=[get_weather], transcript=run.transcript)
    assert run.answer == "It's 14°C and light rain in London."
    ids = [c.id for c in run.transcript.tool_calls()]
    assert len(ids) == len(set(ids)) == 2, "every call id is unique across the conversation"


# -- provider.requests: the same record on every provider (the one-line swap) ---------------

def test_every_provider_records_what_it_sent_the_same_way(provider_for):
    provider = provider_for()
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather], system="Be brief.")
    assert len(provider.requests) == 2 and all(type(r) is SentRequest for r in provider.requests)
    first, second = provider.requests
    assert second.messages == tuple(run.transcript.messages[:3])
    assert second.messages[0] is run.transcript[0], "messages are kept, not copied"
    assert second.system == "Be brief." and second.tools == (get_weather,)
    sent = Transcript("Be brief.", list(second.messages))
    assert second.input_tokens == estimate_tokens(request_text(sent, [get_weather]))
    assert [repr(r) for r in provider.requests] == [
        f"SentRequest(system='Be brief.', messages={n}, tools=['get_weather'], input_tokens≈{r.input_tokens})"
        for n, r in zip((1, 3), provider.requests, strict=True)]


def test_the_repr_of_a_record_is_identical_on_every_provider(provider_for):
    # the same conversation sent by any provider: only the ids differ, so blank them out
    provider = provider_for()
    provider.complete(Transcript(messages=[Message.user(PARIS_QUESTION)]), tools=[get_weather])
    assert repr(provider.requests[0]) == "SentRequest(messages=1, tools=['get_weather'], input_tokens≈104)"
    run_agent(provider, "Weather in Tokyo and in Paris?", tools=[get_weather])
    shape = re.sub(r"\d+\)$", "N)", repr(provider.requests[-1]))
    assert shape == "SentRequest(messages=3, tools=['get_weather'], input_tokens≈N)"


def test_body_is_the_exact_request_that_crossed_the_wire(provider_for):
    provider = provider_for()
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    bodies = [r.body for r in provider.requests]
    if provider_for.name == "scripted":
        assert bodies == [None, None]
        return
    assert bodies == [seen.body for seen in provider_for.double.requests]
    for sent, step in zip(provider.requests, run.steps, strict=True):
        assert sent.body is step.turn.request


def test_a_failed_call_records_nothing(provider_for):
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    if provider_for.name == "scripted":
        provider, expected = provider_for(["only reply"]), ScriptExhaustedError
    else:
        provider, expected = provider_for(max_retries=0), ProviderError
    provider.complete(transcript, tools=[get_weather])
    before = list(provider.requests)
    if provider_for.double is not None:
        provider_for.double.fail_next("server_error")
    with pytest.raises(expected):
        provider.complete(transcript, tools=[get_weather])
    assert provider.requests == before and len(transcript) == 1


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_a_request_the_check_refuses_records_nothing(name, double):
    provider = real_provider(name, double)
    orphan = Transcript(messages=[Message.user("Hi"), Message.assistant("Hello!"),
                                  Message.results([ToolResult("toolu_9", "18°C")])])
    if name == "ollama":
        provider.think = 5  # Ollama checks almost nothing, orphans included; a bad `think` it refuses
    with pytest.raises(InvalidRequestError):
        provider.complete(orphan, tools=[get_weather])
    assert provider.requests == []


def _transport(provider):
    return provider._client._client._transport  # the SDK client's HTTP client's transport


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_every_sdk_client_verifies_with_the_one_tls_context_and_keeps_the_sdks_settings(name, double):
    # issue 20: a TLS context per client cost ~35 ms of CPU, a few dozen times a lesson
    import ssl

    first, second = real_provider(name, double, socket=True), real_provider(name, double, socket=True)
    context = _transport(first)._pool._ssl_context
    assert _transport(second)._pool._ssl_context is context
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    http = first._client._client
    assert (http.timeout.read, http.follow_redirects) == (first.timeout, True)
    if name != "ollama":  # what the SDK builds itself, but for the context
        sdk = __import__(first.sdk_client.partition(".")[0])
        own = sdk.DefaultHttpxClient(timeout=first.timeout)
        assert (_transport(first)._pool._max_connections, _transport(first)._pool._socket_options) == (
            own._transport._pool._max_connections, own._transport._pool._socket_options)


def test_a_notebook_that_sets_ssl_cert_file_gets_a_context_that_trusts_it(monkeypatch):
    import certifi

    from toolcall_lab.providers._tls import tls_context

    before = tls_context("httpx2")
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    assert tls_context("httpx2") is not before
    assert tls_context("httpx2") is tls_context("httpx2")
