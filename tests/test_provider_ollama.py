"""`OllamaProvider` with the real `ollama` client, against servers on 127.0.0.1 only.

The lessons' Paris run goes through the API double (`toolcall_lab.double`); the error
cases use the loopback stub (`stub_server.StubServer`) answering with a canned status and
body, so each test says exactly what Ollama sent.
"""

from __future__ import annotations

import sys
import time

import pytest

from stub_server import StubServer, free_port
from toolcall_lab import InvalidRequestError, ReasoningBlock, run_agent
from toolcall_lab.double import ApiDouble
from toolcall_lab.errors import (
    MalformedResponseError,
    ModelNotFoundError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    ServerError,
)
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.models import default_model
from toolcall_lab.providers.ollama import OllamaProvider
from toolcall_lab.tools import get_weather

ollama = pytest.importorskip("ollama")


def test_the_paris_run_goes_through_the_ollama_client():
    double = ApiDouble()  # reached in-process, through its transport
    provider = OllamaProvider(double=double)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    received = [r.body for r in double.requests]
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [s.stop_reason for s in run.steps] == ["tool_use", "end_turn"]
    for step, body in zip(run.steps, received, strict=True):
        assert step.turn.request == body  # what was sent is what arrived, key for key
        assert ollama.ChatResponse.model_validate(step.turn.response).done
        assert body["model"] == default_model("ollama") and body["stream"] is False
    call = run.steps[0].turn.tool_calls[0]
    assert call.id.startswith("call_") and dict(call.args) == {"city": "Paris"}
    history = received[1]["messages"]
    assert history[1]["tool_calls"][0]["function"]["arguments"] == {"city": "Paris"}
    assert history[2] == {"role": "tool", "content": "18°C, sunny", "tool_name": "get_weather",
                          "tool_call_id": call.id}


def test_thinking_is_asked_for_and_replayed():
    double = ApiDouble()
    run = run_agent(OllamaProvider(double=double, think=True), PARIS_QUESTION, tools=[get_weather])
    received = [r.body for r in double.requests]
    reasoning = run.steps[0].turn.message.reasoning[0]
    assert isinstance(reasoning, ReasoningBlock) and reasoning.provider == "ollama"
    assert received[0]["think"] is True
    assert received[1]["messages"][1]["thinking"] == reasoning.text  # Ollama's own reasoning goes back


def test_a_closed_port_says_where_and_how_to_start_ollama():
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    provider = OllamaProvider(base_url=url)
    with pytest.raises(ProviderUnreachableError) as info:
        run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert url in str(info.value) and "ollama serve" in str(info.value)
    assert info.value.retryable


def test_a_model_that_is_not_pulled_is_model_not_found():
    with StubServer(reply=(404, {"error": "model 'x' not found"})) as server:
        with pytest.raises(ModelNotFoundError) as info:
            run_agent(OllamaProvider("x", base_url=server.url), PARIS_QUESTION, tools=[get_weather])
    assert info.value.status == 404
    assert "model 'x' not found" in str(info.value) and "ollama pull x" in str(info.value)


def test_a_model_without_tool_support_gets_a_hint():
    said = "registry.ollama.ai/library/smollm2:135m does not support tools"
    with StubServer(reply=(400, {"error": said})) as server:
        with pytest.raises(InvalidRequestError) as info:
            run_agent(OllamaProvider("smollm2:135m", base_url=server.url), PARIS_QUESTION,
                      tools=[get_weather])
    assert said in str(info.value) and "ollama show" in str(info.value)


def test_a_server_error_is_raised_at_once_without_retries():
    with StubServer(reply=(500, {"error": "llama runner process has terminated: exit status 2"})) as server:
        with pytest.raises(ServerError) as info:
            run_agent(OllamaProvider(base_url=server.url, max_retries=5), PARIS_QUESTION)
        assert len(server.requests) == 1  # the ollama client never retries, nor does the provider
    assert "exit status 2" in str(info.value) and "after 0 retries" in str(info.value)


@pytest.mark.parametrize("body", [
    "<html>502 Bad Gateway</html>",                  # a proxy's page, not JSON
    {"model": "m", "done": True},                    # JSON, but no message: not a ChatResponse
    {"model": "m", "message": {"role": "assistant", "content": "",
                               "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}},
])
def test_a_reply_the_ollama_client_would_reject_is_malformed(body):
    with StubServer(reply=(200, body)) as server:
        with pytest.raises(MalformedResponseError) as info:
            run_agent(OllamaProvider(base_url=server.url), PARIS_QUESTION)
    assert server.url in str(info.value)


def test_a_slow_server_times_out():
    def slow(request):
        time.sleep(1.0)
        return 200, {}

    with StubServer(slow) as server:
        with pytest.raises(ProviderTimeoutError) as info:
            run_agent(OllamaProvider(base_url=server.url, timeout=0.2), PARIS_QUESTION)
    assert "0.2 s" in str(info.value) and "timeout=" in str(info.value)


def test_what_ollama_would_reject_is_not_sent():
    with StubServer(reply=(200, {})) as server:
        with pytest.raises(InvalidRequestError) as info:
            run_agent(OllamaProvider(base_url=server.url, think=1), PARIS_QUESTION)
        assert server.requests == []
    assert "think must be a boolean or string" in str(info.value)


def test_a_client_you_built_is_used_and_its_host_shown():
    with ApiDouble() as double:
        provider = OllamaProvider(client=ollama.Client(host=double.url))
        assert run_agent(provider, PARIS_QUESTION, tools=[get_weather]).answer
    assert provider.base_url == double.url


def test_without_the_ollama_package_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ollama", None)  # makes `import ollama` fail
    with pytest.raises(ImportError, match=r"pip install 'toolcall-lab\[ollama\]'"):
        OllamaProvider()
