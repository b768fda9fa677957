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

`provider_from_env()` reads `TOOLCALL_LAB_PROVIDER` (default `scripted`, so every lesson
runs offline), and `TOOLCALL_LAB_MODEL` / `TOOLCALL_LAB_BASE_URL` when set. A lesson
written as `provider = provider_from_env(script=weather_policy)` runs unchanged against
any of them.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import Any

from .base import Provider

__all__ = ["PROVIDERS", "get_provider", "provider_from_env"]

#: name -> (module, class, preset or None)
PROVIDERS: dict[str, tuple[str, str, str | None]] = {
    "scripted": ("scripted", "ScriptedProvider", None),
    "anthropic": ("anthropic", "AnthropicProvider", None),
    "openai": ("openai_responses", "OpenAIResponsesProvider", None),
    "openai-chat": ("openai_chat", "OpenAIChatProvider", None),
    "ollama": ("ollama", "OllamaProvider", None),
    "ollama-openai": ("openai_chat", "OpenAIChatProvider", "ollama-openai"),
    "vllm": ("openai_chat", "OpenAIChatProvider", "vllm"),
    "llamacpp": ("openai_chat", "OpenAIChatProvider", "llamacpp"),
    "lmstudio": ("openai_chat", "OpenAIChatProvider", "lmstudio"),
}


def get_provider(name: str, /, **options: Any) -> Provider:
    """The provider called `name`, built with `options` (see each class for its options).

    The scripted provider takes `script=` (a policy or a list of replies; default: the
    lessons' weather model); the others take `model=`, `base_url=`, `api_key=`, ...

    >>> get_provider("scripted")
    ScriptedProvider(model='scripted-1', calls=0)
    """
    try:
        module_name, class_name, preset = PROVIDERS[name]
    except KeyError:
        known = ", ".join(PROVIDERS)
        raise ValueError(f"no provider called {name!r}; choose one of: {known}.") from None
    module = importlib.import_module(f"{__package__}.{module_name}")
    cls = getattr(module, class_name)
    if name == "scripted":
        script = options.pop("script", None)
        if script is None:
            from ..examples import weather_policy

            script = weather_policy
        # subtle: options meant for real providers (api_key=, base_url=, thinking=, ...) are
        # ignored here, so one cell that passes them still runs offline when scripted.
        return cls(script, **{k: v for k, v in options.items() if k == "model"})
    options.pop("script", None)  # a script only drives the scripted provider
    if preset is not None:
        options.setdefault("preset", preset)
    return cls(**options)


def provider_from_env(*, script: Any = None, environ: Mapping[str, str] | None = None,
                      **options: Any) -> Provider:
    """The provider `TOOLCALL_LAB_PROVIDER` names (default `scripted`, with `script`).

    >>> provider_from_env(environ={})
    ScriptedProvider(model='scripted-1', calls=0)
    """
    env = os.environ if environ is None else environ
    name = env.get("TOOLCALL_LAB_PROVIDER", "").strip() or "scripted"
    if name != "scripted":
        if env.get("TOOLCALL_LAB_MODEL"):
            options.setdefault("model", env["TOOLCALL_LAB_MODEL"])
        if env.get("TOOLCALL_LAB_BASE_URL"):
            options.setdefault("base_url", env["TOOLCALL_LAB_BASE_URL"])
    if script is not None:
        options["script"] = script
    return get_provider(name, **options)
