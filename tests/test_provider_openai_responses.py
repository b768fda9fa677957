"""OpenAIResponsesProvider with the real `openai` SDK, against loopback servers (never the internet).

The Paris run goes through the shared API double; the replies no double gives on request
(a failed response, an error that quotes the key, half a body) come from the loopback stub
(`stub_server.StubServer`), which answers exactly what a test tells it to.
"""

from dataclasses import replace

import pytest

from conftest import SECRET
from stub_server import StubServer, free_port
from toolcall_lab import Message, StopReason, ToolResult, Transcript, Turn, Usage, run_agent
from toolcall_lab.errors import (
    AuthenticationError,
    InvalidRequestError,
    MalformedResponseError,
    MissingKeyError,
    ProviderUnreachableError,
    ServerError,
)
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.models import default_model
from toolcall_lab.providers.openai_responses import OpenAIResponsesProvider
from toolcall_lab.providers.registry import get_provider
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import responses

PARIS_ANSWER = "It's 18°C and sunny in Paris."


@pytest.fixture
def no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def question():
    return Transcript(messages=[Message.user(PARIS_QUESTION)])


@pytest.fixture
def double(make_in_process_double):
    """The API double, reached in-process through its transport: no test here is about the socket."""
    return make_in_process_double()


def provider_at(double, **options):
    return OpenAIResponsesProvider(double=double, max_retries=0, **options)


# -- the Paris run ---------------------------------------------------------------------------
def test_the_paris_run_completes_over_the_wire(double, no_key):
    run = run_agent(provider_at(double), PARIS_QUESTION, tools=[get_weather])
    assert run.answer == PARIS_ANSWER
    assert [str(s.stop_reason) for s in run.steps] == ["tool_use", "end_turn"]
    first, second = (seen.body for seen in double.requests)
    for step, sent in zip(run.steps, (first, second), strict=True):
        assert step.turn.request == sent and step.turn.response["object"] == "response"
        assert step.turn.model == default_model("openai")
    assert first["model"] == default_model("openai") and first["max_output_tokens"] == 1024
    assert first["store"] is False and first["tools"][0]["strict"] is False
    call = run.steps[0].turn.tool_calls[0]
    assert second["input"][-1] == {"type": "function_call_output", "call_id": call.id,
                                   "output": "18°C, sunny"}


def test_reasoning_comes_back_sealed_and_is_replayed_verbatim(double, no_key):
    provider = provider_at(double, reasoning_effort="low")
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == PARIS_ANSWER
    first, second = (seen.body for seen in double.requests)
    assert first["reasoning"] == {"effort": "low"}
    assert first["include"] == ["reasoning.encrypted_content"]
    (reasoning,) = run.steps[0].turn.message.reasoning
    assert reasoning.provider == "openai"
    sent_back = [item for item in second["input"] if item["type"] == "reasoning"]
    assert sent_back == [run.steps[0].turn.response["output"][0]] == [dict(reasoning.opaque)]
    assert responses.unseal_reasoning(sent_back[0]["encrypted_content"]) == reasoning.text


def test_tampered_reasoning_is_refused_before_sending_and_by_the_double(double, no_key):
    provider = provider_at(double, reasoning_effort="low")
    transcript = question()
    turn = provider.complete(transcript, tools=[get_weather])
    reasoning = turn.message.reasoning[0]
    forged = reasoning.opaque["encrypted_content"][:-8] + "AAAAAAAA"
    forged_block = replace(reasoning, opaque={**reasoning.opaque, "encrypted_content": forged})
    blocks = tuple(forged_block if b is reasoning else b for b in turn.message.blocks)
    transcript.append(Message("assistant", blocks))
    transcript.append(Message.results([ToolResult(turn.tool_calls[0].id, "18°C, sunny")]))
    with pytest.raises(InvalidRequestError) as before:
        provider.complete(transcript, tools=[get_weather])
    assert before.value.problems[0].code == "invalid_encrypted_content"
    assert len(double.requests) == 1, "a request the API would refuse is not sent"
    unchecked = provider_at(double, reasoning_effort="low", check=False)
    with pytest.raises(InvalidRequestError, match="could not be verified") as by_double:
        unchecked.complete(transcript, tools=[get_weather])
    assert by_double.value.status == 400 and double.requests[-1].status == 400


def test_the_registry_builds_this_provider(double, no_key):
    provider = get_provider("openai", double=double, reasoning_effort="high")
    assert isinstance(provider, OpenAIResponsesProvider) and provider.reasoning_effort == "high"
    assert provider.complete(question(), tools=[get_weather]).tool_calls[0].args == {"city": "Paris"}


# -- keys ------------------------------------------------------------------------------------
def test_a_missing_key_names_the_variable(no_key):
    with pytest.raises(MissingKeyError, match="OPENAI_API_KEY"):
        OpenAIResponsesProvider()
    with pytest.raises(MissingKeyError, match="OPENAI_API_KEY"):
        OpenAIResponsesProvider(base_url="https://gateway.example.com/v1")


def test_the_key_comes_from_the_environment_and_is_sent_as_a_bearer_token(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    hello = Turn(Message.assistant("Hello!"), StopReason.END_TURN, Usage(5, 2), "gpt-6-luna")
    body = responses.encode_response(hello, response_id="resp_1")
    with StubServer(reply=(200, body)) as server:
        provider = OpenAIResponsesProvider(base_url=f"{server.url}/v1", max_retries=0)
        provider.complete(question())
    path, _, authorization = server.requests[0]
    assert path == "/v1/responses" and authorization == f"Bearer {SECRET}"
    assert SECRET not in repr(provider)


def test_the_repr_hides_the_key_and_shows_the_options():
    provider = OpenAIResponsesProvider(api_key=SECRET, reasoning_effort="low", store=True)
    assert repr(provider) == ("OpenAIResponsesProvider(model='gpt-6-luna', reasoning_effort='low', "
                              "store=True)")
    assert SECRET not in repr(provider)


def test_an_error_that_quotes_the_key_is_redacted():
    message = f"Incorrect API key provided: {SECRET}. {responses.ERROR_PREFIX}check it."
    unauthorized = responses.error_body(message, status=401, code="invalid_api_key")
    with StubServer(reply=(401, unauthorized)) as server:
        provider = OpenAIResponsesProvider(base_url=f"{server.url}/v1", api_key=SECRET, max_retries=0)
        with pytest.raises(AuthenticationError) as caught:
            provider.complete(question())
    assert SECRET not in str(caught.value) and "OPENAI_API_KEY" in str(caught.value)


# -- what can go wrong -----------------------------------------------------------------------
def test_a_failed_response_is_a_server_error(no_key):
    failed = {"id": "resp_1", "object": "response", "created_at": 0, "status": "failed",
              "error": {"code": "server_error", "message": "The model crashed."},
              "incomplete_details": None, "instructions": None, "model": "gpt-6-luna", "output": [],
              "parallel_tool_calls": True, "metadata": {}, "tool_choice": "auto", "tools": [],
              "temperature": 1.0, "top_p": 1.0}
    with StubServer(reply=(200, failed)) as server:
        with pytest.raises(ServerError, match="server_error: The model crashed"):
            OpenAIResponsesProvider(base_url=f"{server.url}/v1", max_retries=0).complete(question())


def test_half_a_body_is_a_malformed_response(no_key):
    with StubServer(reply=(200, '{"id": "resp_1", "output": [')) as server:
        with pytest.raises(MalformedResponseError, match="responses"):
            OpenAIResponsesProvider(base_url=f"{server.url}/v1", max_retries=0).complete(question())


def test_the_apis_own_400_is_reported_in_its_words(no_key):
    words = "No tool output found for function call call_1."
    with StubServer(reply=(400, responses.error_body(words, param="input"))) as server:
        provider = OpenAIResponsesProvider(base_url=f"{server.url}/v1", max_retries=0)
        with pytest.raises(InvalidRequestError, match=words.rstrip(".")) as caught:
            provider.complete(question())
    assert caught.value.status == 400


def test_an_orphan_result_is_refused_before_anything_is_sent(double, no_key):
    transcript = Transcript(messages=[Message.user("Hi"), Message.assistant("Hello!"),
                                      Message.results([ToolResult("call_9", "18°C")])])
    with pytest.raises(InvalidRequestError, match="No tool call found for function call output "
                                                  "with call_id call_9") as caught:
        provider_at(double).complete(transcript)
    assert caught.value.problems[0].path == "input.2" and double.requests == []


def test_nothing_listening_is_unreachable(no_key):
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ProviderUnreachableError, match=url):
        OpenAIResponsesProvider(base_url=url, max_retries=0, timeout=5).complete(question())
