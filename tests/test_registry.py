"""One cell swaps the provider: get_provider(name) and provider_from_env()."""

import pytest

from toolcall_lab import ScriptedProvider, get_provider, provider_from_env, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.models import DEFAULT_MODELS, PRICES, PRICES_CHECKED, default_model, price_of
from toolcall_lab.providers.registry import PROVIDERS
from toolcall_lab.tools import get_weather


def test_scripted_is_the_default_and_plays_the_lessons_model():
    provider = provider_from_env(environ={})
    assert isinstance(provider, ScriptedProvider)
    assert run_agent(provider, PARIS_QUESTION, tools=[get_weather]).answer == "It's 18°C and sunny in Paris."


def test_scripted_takes_a_script():
    provider = provider_from_env(script=["Hi!"], environ={"TOOLCALL_LAB_PROVIDER": "scripted"})
    assert run_agent(provider, "Hello").answer == "Hi!"


def test_real_provider_options_do_not_break_the_scripted_one():
    provider = provider_from_env(environ={}, api_key="sk-x", base_url="http://127.0.0.1:1", thinking=2048)
    assert isinstance(provider, ScriptedProvider) and provider.model == "scripted-1"
    assert get_provider("scripted", model="mine").model == "mine"


def test_unknown_names_list_the_known_ones():
    with pytest.raises(ValueError, match="choose one of: scripted, anthropic, openai"):
        get_provider("antropic")
    with pytest.raises(ValueError, match="no provider called 'gemini'"):
        provider_from_env(environ={"TOOLCALL_LAB_PROVIDER": "gemini"})


def test_environment_sets_model_and_base_url_for_real_providers():
    provider = provider_from_env(environ={"TOOLCALL_LAB_PROVIDER": "openai-chat",
                                          "TOOLCALL_LAB_MODEL": "m-1",
                                          "TOOLCALL_LAB_BASE_URL": "http://127.0.0.1:9/v1"})
    assert provider.model == "m-1" and provider.base_url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("name", [n for n in PROVIDERS if n != "scripted"])
def test_every_real_provider_builds_offline_for_a_loopback_url(name):
    pytest.importorskip("ollama") if name == "ollama" else None
    provider = get_provider(name, base_url="http://127.0.0.1:9")
    assert provider.model == default_model(name)
    assert "127.0.0.1:9" in repr(provider)


def test_model_table_is_dated_and_sourced():
    assert PRICES_CHECKED.isoformat() == "2026-11-30"
    for price in PRICES.values():
        assert price.source and price.input > 0 and price.output > price.input
        assert price.cache_read < price.input
    assert set(DEFAULT_MODELS) == set(PROVIDERS)
    for provider in ("anthropic", "openai"):
        assert price_of(default_model(provider)) is not None, "hosted defaults have a price"


def test_anthropic_cache_multipliers_hold_in_the_table():
    haiku = price_of("claude-haiku-5-5")
    assert haiku.cache_write == pytest.approx(1.25 * haiku.input)
    assert haiku.cache_write_1h == pytest.approx(2 * haiku.input)
    assert haiku.cache_read == pytest.approx(0.1 * haiku.input)


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_every_provider_comes_from_the_environment_in_one_cell_with_no_key(name, monkeypatch, double):
    """The swap a lesson promises: two variables, no key, the double playing the model."""
    import importlib

    if name == "ollama":
        pytest.importorskip("ollama")
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)  # a loopback URL needs no key
    module, class_name, _ = PROVIDERS[name]
    cls = getattr(importlib.import_module(f"toolcall_lab.providers.{module}"), class_name)
    environ = {"TOOLCALL_LAB_PROVIDER": name}
    if name != "scripted":
        environ["TOOLCALL_LAB_BASE_URL"] = double.base_url(cls.api)
    provider = provider_from_env(script=weather_policy, environ=environ)
    assert type(provider) is cls
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [len(r.messages) for r in provider.requests] == [1, 3]
    reached = [r.api for r in double.requests]
    assert reached == ([] if name == "scripted" else [cls.api, cls.api])
