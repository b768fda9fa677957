"""One cell swaps the provider: get_provider(name) and provider_from_env()."""

import importlib
import sys

import pytest

from toolcall_lab import ScriptedProvider, get_provider, provider_from_env, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.models import DEFAULT_MODELS, PRICES, PRICES_CHECKED, default_model, price_of
from toolcall_lab.providers.registry import PROVIDERS, ProviderSpec
from toolcall_lab.tools import get_weather


def test_scripted_is_the_default_and_plays_the_lessons_model_when_given_it():
    provider = provider_from_env(script=weather_policy, environ={})
    assert isinstance(provider, ScriptedProvider)
    assert run_agent(provider, PARIS_QUESTION, tools=[get_weather]).answer == "It's 18°C and sunny in Paris."


def test_without_a_script_the_scripted_provider_echoes_not_a_lesson():
    """The registry holds no lesson content: with no script, the last user text comes back."""
    assert run_agent(get_provider("scripted"), PARIS_QUESTION, tools=[get_weather]).answer == PARIS_QUESTION
    assert run_agent(provider_from_env(environ={}), "Hello").answer == "Hello"


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
    if name == "ollama":
        pytest.importorskip("ollama")
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)  # a loopback URL needs no key
    cls = PROVIDERS[name].cls
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


def test_every_provider_spec_has_a_default_model():
    assert [name for name in PROVIDERS if name not in DEFAULT_MODELS] == []
    assert set(DEFAULT_MODELS) == set(PROVIDERS)
    assert all(spec.default_model == DEFAULT_MODELS[name] for name, spec in PROVIDERS.items())


def test_each_real_provider_names_the_codec_of_its_api():
    from toolcall_lab.wire import API_SPECS

    for spec in API_SPECS.values():
        cls = PROVIDERS[spec.provider].cls
        assert cls.api == spec.name and cls.codec is spec.codec
        assert spec.codec.PROVIDER_NAME == spec.provider


@pytest.mark.parametrize("name", [n for n in PROVIDERS if n != "scripted"])
def test_each_real_provider_names_its_sdk_client_and_a_missing_sdk_says_what_to_install(name, monkeypatch):
    """The base class builds every SDK client from `sdk_client`; its module names the extra."""
    sdk = PROVIDERS[name].cls.sdk_client.partition(".")[0]
    monkeypatch.setitem(sys.modules, sdk, None)  # makes `import <sdk>` fail
    with pytest.raises(ImportError, match=rf"the {name} provider needs the `{sdk}` package; "
                                          rf"install it with pip install 'toolcall-lab\[{sdk}\]'"):
        get_provider(name, base_url="http://127.0.0.1:9")


class ToyProvider:
    """A provider in one line of the registry: answers "toy" to everything."""

    def __init__(self, model: str = "toy-1") -> None:
        self.model = model
        self.requests = []

    def complete(self, transcript, *, tools=()):
        return ScriptedProvider(["toy"], model=self.model).complete(transcript, tools=tools)


def test_a_new_provider_is_one_line_of_the_registry(monkeypatch):
    monkeypatch.setitem(PROVIDERS, "toy", ProviderSpec("toy", "Toy (offline)", ToyProvider))
    assert isinstance(get_provider("toy"), ToyProvider)
    assert get_provider("toy", model="toy-2").model == "toy-2"
    provider = provider_from_env(environ={"TOOLCALL_LAB_PROVIDER": "toy", "TOOLCALL_LAB_MODEL": "toy-3"})
    assert type(provider) is ToyProvider and provider.model == "toy-3"
    assert run_agent(provider, "Hi").answer == "toy"
    spec = PROVIDERS["toy"]
    assert (spec.api, spec.key_env, spec.local_url) == (None, None, None)


def test_the_toy_registration_is_gone_after_its_test():
    assert "toy" not in PROVIDERS


@pytest.mark.parametrize("package", ["toolcall_lab.providers", "toolcall_lab.double",
                                     "toolcall_lab.views.widgets", "toolcall_lab.checks"])
def test_dir_lists_every_exported_name_so_completion_offers_it(package):
    """JupyterLab completes from dir(module): a name served lazily by a module `__getattr__`
    needs a module `__dir__` too, or completion never offers it."""
    module = importlib.import_module(package)
    assert set(module.__all__) <= set(dir(module))
    assert all(hasattr(module, name) for name in module.__all__)
