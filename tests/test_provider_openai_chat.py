"""OpenAIChatProvider with the real `openai` SDK, against a loopback server (never the internet)."""

import itertools

import pytest

from stub_server import StubServer, free_port
from toolcall_lab import (
    Message,
    ScriptedProvider,
    ToolResult,
    Transcript,
    run_agent,
)
from toolcall_lab.errors import (
    InvalidRequestError,
    MissingKeyError,
    ModelNotFoundError,
    ProviderUnreachableError,
)
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.models import default_model
from toolcall_lab.providers.openai_chat import LOCAL_SERVERS, OpenAIChatProvider
from toolcall_lab.providers.registry import get_provider
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import chat


def chat_api():
    """A tiny Chat Completions API: the scripted weather model behind the codec's server side."""
    model = ScriptedProvider(weather_policy)
    numbers = itertools.count(1)

    def answer(request):
        transcript, tools = chat.decode_request(request.body)
        turn = model.complete(transcript, tools=tools)
        return 200, chat.encode_response(turn, response_id=f"chatcmpl-{next(numbers)}", created=1700000000)

    return answer


@pytest.fixture
def server():
    with StubServer(chat_api(), path="/v1/chat/completions") as running:
        yield running


@pytest.fixture
def no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def question():
    return Transcript(messages=[Message.user(PARIS_QUESTION)])


def test_the_paris_run_completes_over_the_wire(server, no_key):
    provider = OpenAIChatProvider(base_url=f"{server.url}/v1", max_retries=0)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [str(s.stop_reason) for s in run.steps] == ["tool_use", "end_turn"]
    for step in run.steps:
        assert step.turn.request is not None and step.turn.response is not None
        assert step.turn.response["object"] == "chat.completion"
    first, second = (seen.body for seen in server.requests)
    assert first["model"] == default_model("openai-chat") and first["max_completion_tokens"] == 1024
    assert run.steps[0].turn.request == first
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "toolu_01", "content": "18°C, sunny"}


def test_a_preset_sets_name_model_limit_field_and_sends_no_openai_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-learner-secret-key")
    provider = OpenAIChatProvider(preset="llamacpp", base_url=f"{server.url}/v1", max_retries=0)
    assert provider.name == "llamacpp" and provider.model == default_model("llamacpp")
    turn = provider.complete(question(), tools=[get_weather])
    _, body, authorization = server.requests[0]
    assert body["max_tokens"] == 1024 and "max_completion_tokens" not in body
    assert body["parallel_tool_calls"] is True  # llama.cpp makes one call per reply otherwise
    assert "sk-learner-secret-key" not in authorization
    assert turn.tool_calls[0].args == {"city": "Paris"}


def test_options_reach_the_request(server, no_key):
    provider = OpenAIChatProvider("gpt-6.2-sol", base_url=f"{server.url}/v1", reasoning_effort="low",
                                  parallel_tool_calls=False, max_tokens=77, max_retries=0)
    provider.complete(question(), tools=[get_weather])
    body = server.requests[0].body
    assert (body["model"], body["reasoning_effort"]) == ("gpt-6.2-sol", "low")
    assert body["parallel_tool_calls"] is False
    assert body["max_completion_tokens"] == 77


@pytest.mark.parametrize("preset", sorted(LOCAL_SERVERS))
def test_an_unreachable_local_server_names_its_url_and_start_command(preset):
    url = f"http://127.0.0.1:{free_port()}/v1"
    provider = OpenAIChatProvider(preset=preset, base_url=url, max_retries=0, timeout=5)
    with pytest.raises(ProviderUnreachableError) as caught:
        provider.complete(question())
    message = str(caught.value)
    assert url in message
    command = {"ollama-openai": "ollama serve",
               "vllm": "vllm serve Qwen/Qwen3-0.6B --enable-auto-tool-choice",
               "llamacpp": "llama-server -hf ggml-org/Qwen3-1.7B-GGUF:Q4_K_M --jinja --port 8080",
               "lmstudio": "lms server start"}[preset]
    assert command in message
    assert caught.value.provider == preset


def test_presets_match_the_local_server_notes():
    assert {name: s.base_url for name, s in LOCAL_SERVERS.items()} == {
        "ollama-openai": "http://localhost:11434/v1", "vllm": "http://localhost:8000/v1",
        "llamacpp": "http://localhost:8080/v1", "lmstudio": "http://localhost:1234/v1"}
    assert LOCAL_SERVERS["ollama-openai"].max_tokens_field == "max_tokens"
    assert "ollama pull qwen3:4b" in LOCAL_SERVERS["ollama-openai"].start_hint("qwen3:4b")
    assert all(s.notes for s in LOCAL_SERVERS.values())


def test_a_preset_needs_no_key_and_uses_its_own_url(no_key):
    provider = OpenAIChatProvider(preset="ollama-openai")
    assert provider.base_url == "http://localhost:11434/v1" and provider.model == "qwen3:4b"


def test_the_registry_builds_presets(no_key):
    provider = get_provider("vllm")
    assert isinstance(provider, OpenAIChatProvider)
    assert (provider.name, provider.base_url) == ("vllm", "http://localhost:8000/v1")


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(ValueError, match="ollama-openai, vllm, llamacpp, lmstudio"):
        OpenAIChatProvider(preset="koboldcpp")


def test_hosted_api_without_a_key_names_the_variable(no_key):
    with pytest.raises(MissingKeyError, match="OPENAI_API_KEY"):
        OpenAIChatProvider()


def test_an_api_error_body_becomes_an_invalid_request_error(server, no_key):
    server.reply = (400, chat.error_body("Invalid 'messages': empty array. Expected an array with minimum "
                                         "length 1, but got an empty array instead.", param="messages",
                                         code="empty_array"))
    provider = OpenAIChatProvider(base_url=f"{server.url}/v1", max_retries=0, check=False)
    with pytest.raises(InvalidRequestError, match="Invalid 'messages': empty array"):
        provider.complete(Transcript())


def test_the_checker_stops_a_broken_request_before_it_is_sent(server, no_key):
    provider = OpenAIChatProvider(base_url=f"{server.url}/v1", max_retries=0)
    with pytest.raises(InvalidRequestError, match="preceeding") as caught:
        provider.complete(Transcript(messages=[Message.user("Hi"),
                                               Message.results([ToolResult("call_9", "18°C")])]))
    assert server.requests == []
    assert [p.param for p in caught.value.problems] == ["messages.[1].role"]


def test_lm_studios_plain_string_error_and_an_unknown_model(server):
    provider = OpenAIChatProvider(preset="lmstudio", base_url=f"{server.url}/v1", max_retries=0)
    server.reply = (400, {"error": "No models loaded. Please load a model in the developer page or use "
                                   "the 'lms load' command."})
    with pytest.raises(InvalidRequestError, match="No models loaded"):
        provider.complete(question())
    server.reply = (404, {"error": {"message": 'Model "x" not found.', "type": "invalid_request_error",
                                    "param": "model", "code": "model_not_found"}})
    with pytest.raises(ModelNotFoundError, match="lmstudio"):
        provider.complete(question())


@pytest.mark.parametrize("preset", [None, *sorted(LOCAL_SERVERS)])
def test_the_paris_run_against_the_shared_api_double(preset):
    from toolcall_lab.double import ApiDouble

    provider = OpenAIChatProvider(preset=preset, double=ApiDouble(), api_key="any", max_retries=0)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    assert all(step.turn.request and step.turn.response for step in run.steps)


def test_reprs_name_the_preset_and_hide_defaults(no_key):
    assert repr(OpenAIChatProvider(preset="lmstudio")) == (
        "OpenAIChatProvider(preset='lmstudio', model='qwen2.5-7b-instruct')")
    assert repr(OpenAIChatProvider(preset="vllm", base_url="http://gpu-box:8000/v1", model="m")) == (
        "OpenAIChatProvider(preset='vllm', model='m', base_url='http://gpu-box:8000/v1')")
    assert repr(OpenAIChatProvider(api_key="sk-x")) == "OpenAIChatProvider(model='gpt-6-luna')"
