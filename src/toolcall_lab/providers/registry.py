"""Pick a provider by name, in one cell: `get_provider("anthropic")`, or from the environment.

    name            class                       API                        needs
    scripted        ScriptedProvider            none: your Python plays the model   nothing
    anthropic       AnthropicProvider           Anthropic Messages         ANTHROPIC_API_KEY
    openai          OpenAIResponsesProvider     OpenAI Responses           OPENAI_API_KEY
    openai-chat     OpenAIChatProvider          OpenAI Chat Completions    OPENAI_API_KEY
    ollama          OllamaProvider              Ollama /api/chat           `ollama serve`
    ollama-openai   OpenAIChatProvider preset   Chat at Ollama's /v1       `ollama serve`
    vllm            OpenAIChatProvider preset   Chat at vLLM               `vllm serve ...`
    llamacpp        OpenAIChatProvider preset   Chat at llama-server       `llama-server ...`
    lmstudio        OpenAIChatProvider preset   Chat at LM Studio          `lms server start`

Each name is one `ProviderSpec` in `PROVIDERS` (its label, class and preset; the API, key
variable and default model follow from those), and every other table of providers (the
picker's options and labels, the tests' lists) is derived from it. A new provider is its
own module plus one line here. The local servers' names come from their one table,
`wire.flavours.FLAVOURS`: each is a preset of the provider that speaks its API, or that
provider itself when it carries the server's name (Ollama).

The registry knows only providers. Choosing one from the environment, a tape to replay
or a recording included, is `provider_from_env` (`tape/environment.py`), which asks
`get_provider` for the provider it names.

`PROVIDERS` is built on first use (`get_provider`, or reading it), not at import: the
provider classes import their API's codec, and the local servers' names come from
`wire.flavours`, so `import toolcall_lab` loads neither.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .scripted import ScriptedProvider

if TYPE_CHECKING:
    from ..wire.flavours import Flavour
    from .base import Provider
    from .sdk import WireProvider

__all__ = ["PROVIDERS", "ProviderSpec", "echo", "get_provider"]


@dataclass(frozen=True)
class ProviderSpec:
    """Everything the kit knows about one provider name, in one record.

    `label` is what the picker shows; `cls` builds it (with `preset=` when `preset` is
    set). The rest is read from those two: `api` (the codec it speaks, None for the
    scripted provider), `key_env` (the variable holding its key, None for local servers),
    `default_model` (`models.DEFAULT_MODELS`) and `local_url` (a local server's default
    base URL, None for hosted APIs).

    >>> from toolcall_lab.providers.registry import PROVIDERS  # built on first use
    >>> spec = PROVIDERS["vllm"]
    >>> spec.api, spec.key_env, spec.default_model, spec.local_url
    ('chat', None, 'Qwen/Qwen3-0.6B', 'http://localhost:8000/v1')
    """

    name: str
    label: str
    cls: type[Provider]
    preset: str | None = None

    @property
    def api(self) -> str | None:
        return getattr(self.cls, "api", None)

    @property
    def key_env(self) -> str | None:
        return None if self.preset is not None else getattr(self.cls, "key_env", None)

    @property
    def default_model(self) -> str | None:
        from ..models import DEFAULT_MODELS

        return DEFAULT_MODELS.get(self.name)

    @property
    def local_url(self) -> str | None:
        from ..wire.flavours import FLAVOURS

        server = FLAVOURS.get(self.name)
        return None if server is None else server.base_url  # offline, or a hosted API: None


def _local(server: Flavour, speaks: dict[str, type[WireProvider]]) -> ProviderSpec:
    """A local server's name: the provider that speaks its API, preset to it unless it is that
    provider's own name (`ollama`: the Ollama provider; `vllm`: a preset of the Chat one)."""
    cls = speaks[server.api]
    return ProviderSpec(server.name, server.label, cls, None if cls.name == server.name else server.name)


@functools.cache
def _providers() -> dict[str, ProviderSpec]:
    """Every provider name, in the order the picker lists them: the hosted APIs, then the local servers."""
    from ..wire.flavours import FLAVOURS
    from .anthropic import AnthropicProvider
    from .ollama import OllamaProvider
    from .openai_chat import OpenAIChatProvider
    from .openai_responses import OpenAIResponsesProvider

    # the provider class that speaks each API, for the local servers
    speaks: dict[str, type[WireProvider]] = {cls.api: cls for cls in (
        AnthropicProvider, OpenAIResponsesProvider, OpenAIChatProvider, OllamaProvider)}
    return {spec.name: spec for spec in (
        ProviderSpec("scripted", "scripted (offline)", ScriptedProvider),
        ProviderSpec("anthropic", "Anthropic", AnthropicProvider),
        ProviderSpec("openai", "OpenAI (Responses)", OpenAIResponsesProvider),
        ProviderSpec("openai-chat", "OpenAI (Chat Completions)", OpenAIChatProvider),
        *(_local(server, speaks) for server in FLAVOURS.values()),
    )}


#: Every provider name, in the order the picker lists them (`_providers`, built on first use).
PROVIDERS: dict[str, ProviderSpec]


def __getattr__(name: str) -> Any:
    if name == "PROVIDERS":
        return _providers()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def echo(transcript: Any, tools: Any) -> str:
    """The scripted provider's policy when given no script: it answers with the last user text.

    >>> from toolcall_lab import Message, Transcript
    >>> echo(Transcript(messages=[Message.user("Hi")]), ())
    'Hi'
    """
    users = [message for message in transcript.messages if message.role == "user" and message.text]
    return users[-1].text if users else ""


def get_provider(name: str, /, **options: Any) -> Provider:
    """The provider called `name`, built with `options` (see each class for its options).

    The scripted provider takes `script=` (a policy or a list of replies; without one it
    echoes the last user message, see `echo`); the others take `model=`, `base_url=`,
    `api_key=`, ..., and `double=`, an `ApiDouble` their SDK then reaches in-process, through
    its transport, with no socket and no key (the double's own `base_url` for the API, unless
    one is given; the scripted provider ignores it).

    >>> get_provider("scripted")
    ScriptedProvider(model='scripted-1', calls=0)
    """
    try:
        spec = _providers()[name]
    except KeyError:
        known = ", ".join(_providers())
        raise UsageError(f"no provider called {name!r}; choose one of: {known}.") from None
    script = options.pop("script", None)  # a script only drives the scripted provider
    if spec.cls is ScriptedProvider:
        # subtle: options meant for real providers (api_key=, base_url=, thinking=, ...) are
        # ignored here, so one cell that passes them still runs offline when scripted.
        return ScriptedProvider(echo if script is None else script,
                                **{k: v for k, v in options.items() if k == "model"})
    if spec.preset is not None:
        options.setdefault("preset", spec.preset)
    if options.get("double") is not None and spec.api is not None:
        options["base_url"] = options.get("base_url") or options["double"].base_url(spec.api)
    return spec.cls(**options)
