"""Sampling settings: `temperature=` on every real provider, `seed=` where the API has one.

Each API spells them its own way (Anthropic and both OpenAI APIs: top-level `temperature`,
Chat `seed`; Ollama: `options.temperature`, `options.seed`), each body is checked by the
API's own definition, and None sends nothing at all, so every other body stays as it was.
"""

from __future__ import annotations

import pytest

from conftest import REAL_PROVIDERS, real_provider
from schemas import anthropic_request_errors, openapi_errors
from toolcall_lab import (
    InvalidRequestError,
    Message,
    Transcript,
    UsageError,
    UsageTypeError,
    get_provider,
    run_agent,
)
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import check_request, encode_request


@pytest.fixture
def make_double(make_in_process_double):
    """This file's doubles never serve: the SDKs reach them in-process (`real_provider`, `double=`)."""
    return make_in_process_double


HI = Transcript("Be brief.", [Message.user("Hi")])
#: One model per API that takes a temperature (Claude Haiku 5.5, the default, takes only its own).
MODELS = {"anthropic": "claude-haiku-4-5", "responses": "gpt-4o-mini", "chat": "gpt-4o-mini",
          "ollama": "qwen3:4b"}


def body_for(api: str, **options):
    return encode_request(HI, [get_weather], api=api, model=MODELS[api], **options)


# -- the codecs: each API's spelling ----------------------------------------------------------
def test_anthropic_sends_a_top_level_temperature_the_api_accepts():
    body = body_for("anthropic", temperature=0)
    assert body["temperature"] == 0 and "seed" not in body
    assert check_request(body, api="anthropic") == []
    # subtle: the anthropic SDK (1.0 and later) dropped `temperature` from its request type,
    # so the key is unknown to it and travels in `extra_body`; everything else is its type's.
    assert anthropic_request_errors(body) == ["temperature: unknown key (dropped by the SDK type)"]
    assert anthropic_request_errors({k: v for k, v in body.items() if k != "temperature"}) == []


def test_responses_sends_a_top_level_temperature_and_has_no_seed():
    body = body_for("responses", temperature=0.2)
    assert body["temperature"] == 0.2
    assert openapi_errors(body, "CreateResponse") == []
    assert check_request(body, api="responses") == []
    with pytest.raises(TypeError):
        body_for("responses", seed=7)  # the codec has no such option: the API has no such field


def test_chat_sends_temperature_and_seed_at_the_top():
    body = body_for("chat", temperature=0, seed=42)
    assert (body["temperature"], body["seed"]) == (0, 42)
    assert openapi_errors(body, "CreateChatCompletionRequest") == []
    assert check_request(body, api="chat") == []


def test_ollama_sends_them_inside_options():
    ollama = pytest.importorskip("ollama")
    body = body_for("ollama", temperature=0, seed=42)
    assert body["options"] == {"num_predict": 1024, "temperature": 0, "seed": 42}
    assert "temperature" not in body and "seed" not in body
    request = ollama._types.ChatRequest.model_validate(body)  # the official client's own request type
    assert request.model_dump(exclude_none=True)["options"] == body["options"]
    assert ollama.Options.model_validate(body["options"]).model_dump(exclude_none=True) == body["options"]


@pytest.mark.parametrize("api", list(MODELS))
def test_none_sends_nothing(api):
    assert body_for(api) == body_for(api, temperature=None)
    assert "temperature" not in str(body_for(api)) and "seed" not in str(body_for(api))


@pytest.mark.parametrize(("value", "error"), [
    ("0", UsageTypeError), (True, UsageTypeError), (-0.5, UsageError), (float("nan"), UsageError)])
def test_a_temperature_that_is_none_is_refused_at_once(value, error):
    with pytest.raises(error, match="temperature must be"):
        get_provider("openai-chat", api_key="sk-example", temperature=value)
    with pytest.raises(error, match="temperature must be"):
        encode_request(HI, api="chat", model="m", temperature=value)


def test_a_seed_where_the_api_has_none_is_refused_with_the_way_out():
    for name in ("anthropic", "openai"):
        with pytest.raises(UsageError, match=r"has no seed.*openai-chat, ollama"):
            get_provider(name, api_key="sk-example", seed=42)
    with pytest.raises(UsageTypeError, match="seed must be a whole number"):
        get_provider("ollama", seed=4.2)


def test_the_scripted_provider_takes_the_same_cell():
    # the determinism lesson swaps a real provider for the scripted one in one line
    scripted = get_provider("scripted", temperature=0, seed=42)
    assert repr(scripted) == "ScriptedProvider(model='scripted-1', calls=0)"


def test_reprs_show_what_is_set_and_hide_the_defaults():
    assert repr(get_provider("vllm")) == "OpenAIChatProvider(preset='vllm', model='Qwen/Qwen3-0.6B')"
    assert repr(get_provider("vllm", temperature=0, seed=42)) == (
        "OpenAIChatProvider(preset='vllm', model='Qwen/Qwen3-0.6B', temperature=0, seed=42)")
    assert repr(get_provider("ollama", temperature=0.5)) == (
        "OllamaProvider(model='qwen3:4b', temperature=0.5)")


# -- the per-model rule: a model that takes only its default sampling -------------------------
def test_claude_haiku_5_5_refuses_temperature_0_before_sending(make_double):
    double = make_double()
    provider = real_provider("anthropic", double, temperature=0)  # the default model, Claude Haiku 5.5
    assert provider.model == "claude-haiku-5-5"
    with pytest.raises(InvalidRequestError, match="`temperature` is deprecated for this model") as caught:
        provider.complete(HI)
    assert "was not sent" in str(caught.value) and caught.value.problems[0].path == "temperature"
    assert len(double.requests) == 0 and provider.requests == []  # nothing crossed the wire


def test_the_api_double_refuses_it_in_the_same_words(make_double):
    double = make_double()
    provider = real_provider("anthropic", double, temperature=0, check=False)
    with pytest.raises(InvalidRequestError, match="`temperature` is deprecated for this model") as caught:
        provider.complete(HI)
    assert caught.value.status == 400 and "rejected the request" in str(caught.value)
    (sent,) = double.requests
    assert sent.body["temperature"] == 0 and sent.status == 400


def test_its_default_temperature_is_no_change_and_passes(make_double):
    double = make_double()
    provider = real_provider("anthropic", double, temperature=1)
    assert run_agent(provider, PARIS_QUESTION, tools=[get_weather]).answer == "It's 18°C and sunny in Paris."


def test_claude_haiku_4_5_takes_0_but_not_with_thinking():
    plain = body_for("anthropic", temperature=0)
    thinking = body_for("anthropic", temperature=0, thinking=2048, max_tokens=4096)
    assert check_request(plain, api="anthropic") == []
    (problem,) = check_request(thinking, api="anthropic")
    assert problem.text.startswith("`temperature` may only be set to 1 when thinking is enabled.")


# -- through each real SDK, against the double -------------------------------------------------
@pytest.mark.parametrize("name", list(REAL_PROVIDERS))
def test_a_run_at_temperature_0_through_each_sdk(make_double, name):
    double = make_double()
    options = {"temperature": 0, "model": MODELS[REAL_PROVIDERS[name]]}
    if getattr(get_provider(name, api_key="sk-example").__class__, "takes_seed", False):
        options["seed"] = 42
    provider = real_provider(name, double, **options)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    for sent, record in zip(double.requests, provider.requests, strict=True):
        assert sent.status == 200
        assert sent.body == record.body  # what the SDK put on the wire is the codec's body
        sampled = sent.body["options"] if name == "ollama" else sent.body
        assert sampled["temperature"] == 0
        assert sampled.get("seed") == options.get("seed")


def test_the_responses_double_echoes_the_temperature_it_was_asked_for(make_double):
    double = make_double()
    provider = real_provider("openai", double, temperature=0.3, model="gpt-4o-mini")
    assert provider.complete(HI).response["temperature"] == 0.3
    assert real_provider("openai", double).complete(HI).response["temperature"] == 1.0


def test_a_recording_keeps_the_settings_so_a_replay_sends_the_same(make_double, tmp_path):
    from toolcall_lab.tape import record, replay

    double = make_double()
    provider = real_provider("openai-chat", double, temperature=0, seed=42, model="gpt-4o-mini")
    with record(provider, tmp_path / "t.json") as recorder:
        run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert recorder.tape.settings["temperature"] == 0 and recorder.tape.settings["seed"] == 42
    again = replay(tmp_path / "t.json")
    assert (again.temperature, again.seed) == (0, 42)
    assert run_agent(again, PARIS_QUESTION, tools=[get_weather]).answer == "It's 18°C and sunny in Paris."
