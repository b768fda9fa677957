"""`OpenAIChatProvider`: OpenAI Chat Completions, and every local server that speaks it.

One class talks to OpenAI's hosted `/v1/chat/completions` and, through a *preset*, to
the local servers that copy it. A preset is a local server's record (`wire.flavours`: its
base URL, the commands that start it, the name it reads its output limit under, and the
quirks worth knowing, each with its source). The presets are the servers of that table
that speak Chat:

    >>> list(LOCAL_SERVERS)
    ['ollama-openai', 'vllm', 'llamacpp', 'lmstudio']
    >>> provider = OpenAIChatProvider(preset="vllm")
    >>> provider
    OpenAIChatProvider(preset='vllm', model='Qwen/Qwen3-0.6B')
    >>> provider.name, provider.base_url
    ('vllm', 'http://localhost:8000/v1')

Local servers need no key (any string works unless you turned authentication on; pass
`api_key=` then). The translation itself lives in `toolcall_lab.wire.chat`; this module
only picks the URL, builds the `openai` client and sends.

`stream()` sends the same request with `"stream": true` and `stream_options:
{"include_usage": true}` (without it the API sends no usage in a stream) through the
SDK's own `client.chat.completions.create(..., stream=True)`, and yields the kit's stream
events (`WireProvider.stream`).

Left out: probing a server for its models (`GET /v1/models` lists them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import UsageError
from ..models import default_model, rules_of
from ..wire import chat
from ..wire._openai.client import prompt_cache_fields
from ..wire.flavours import FLAVOURS, Flavour
from .sdk import WireProvider, send_via_sdk, stream_via_sdk

if TYPE_CHECKING:
    from ..tool import Tool
    from ..wire import Codec

__all__ = ["LOCAL_SERVERS", "OpenAIChatProvider"]


#: The local servers that speak Chat Completions, each one preset of this provider: the very
#: records of `wire.flavours.FLAVOURS` (URL, start commands, the output-limit field it reads and
#: the one the preset sends, tool_choice and parallel behaviour, with a source for each).
LOCAL_SERVERS: dict[str, Flavour] = {name: server for name, server in FLAVOURS.items()
                                     if server.api == chat.API_NAME}


class OpenAIChatProvider(WireProvider):
    """OpenAI Chat Completions with the official `openai` SDK, hosted or local.

    Options, besides `WireProvider`'s (`model`, `api_key`, `base_url`, `max_tokens`,
    `timeout`, `max_retries`, `client`, `check`):

    - `preset`: a key of `LOCAL_SERVERS` ("ollama-openai", "vllm", "llamacpp",
      "lmstudio"); sets the URL, default model, output-limit field and provider name;
    - `reasoning_effort`: "none", "minimal", "low", "medium", "high", ... (reasoning models);
    - `parallel_tool_calls`: allow (True) or forbid (False) several calls in one reply;
    - `max_tokens_field`: "max_completion_tokens" (OpenAI) or "max_tokens" (older
      servers), when a server you point `base_url` at needs the other one;
    - `temperature`, `seed`: sent as `temperature` and `seed` when given (OpenAI marks
      `seed` deprecated, best effort; local servers pass both to their sampler).
    - `prompt_cache_key`, `prompt_cache_retention` ("in_memory" or "24h"): sent as they
      are; OpenAI caches long prompts by itself and reports reads as `cached_tokens`.

    >>> OpenAIChatProvider(preset="vllm", temperature=0, seed=42)
    OpenAIChatProvider(preset='vllm', model='Qwen/Qwen3-0.6B', temperature=0, seed=42)
    """

    name = "openai-chat"
    api: ClassVar[str] = "chat"
    codec: ClassVar[Codec] = chat
    key_env: str | None = "OPENAI_API_KEY"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    sdk_client: ClassVar[str] = "openai.OpenAI"
    takes_seed: ClassVar[bool] = True

    def __init__(self, model: str | None = None, *, preset: str | None = None,
                 reasoning_effort: str | None = None, parallel_tool_calls: bool | None = None,
                 max_tokens_field: str | None = None, prompt_cache_key: str | None = None,
                 prompt_cache_retention: str | None = None, **kwargs: Any) -> None:
        prompt_cache_fields(prompt_cache_key, prompt_cache_retention)  # a bad value fails now
        self.prompt_cache_key = prompt_cache_key
        self.prompt_cache_retention = prompt_cache_retention
        server: Flavour | None = None
        if preset is not None:
            if preset not in LOCAL_SERVERS:
                known = ", ".join(LOCAL_SERVERS)
                raise UsageError(f"no local server preset called {preset!r}; choose one of: {known}.")
            server = LOCAL_SERVERS[preset]
            # subtle: the preset is this instance's, read from the server's record (the class is
            # never changed): errors and the default model say "vllm", and a learner's
            # OPENAI_API_KEY is never sent to a local server.
            self.name = server.name
            self.key_env = None
            kwargs["base_url"] = kwargs.get("base_url") or server.base_url
        self.preset = server
        self.reasoning_effort = reasoning_effort
        self.parallel_tool_calls = (parallel_tool_calls if parallel_tool_calls is not None
                                    else server.parallel_tool_calls if server else None)
        self.max_tokens_field = max_tokens_field or (server.max_tokens_field if server
                                                     else "max_completion_tokens")
        super().__init__(model or default_model(self.name), **kwargs)
        if server is not None:
            self.start_hint = server.start_hint(self.model)

    def __repr__(self) -> str:
        if self.preset is None:
            shown = super().__repr__()[:-1]
            for name in ("prompt_cache_key", "prompt_cache_retention"):
                if getattr(self, name) is not None:
                    shown += f", {name}={getattr(self, name)!r}"
            return shown + ")"
        shown = f"preset={self.preset.name!r}, model={self.model!r}"
        if self.base_url != self.preset.base_url:
            shown += f", base_url={self.shown_url!r}"
        return f"{type(self).__name__}({shown}{self._shown_sampling()})"

    def _options(self, tools: tuple[Tool, ...]) -> dict[str, Any]:
        effort = self.reasoning_effort
        if effort is None and tools:
            # subtle: some models (gpt-6-luna) take tools on Chat only at one effort, and their
            # default is another; ask for that one rather than be refused (see models.Rules).
            effort = rules_of(self.model).chat_tools_effort
        return {"reasoning_effort": effort, "parallel_tool_calls": self.parallel_tool_calls,
                "max_tokens_field": self.max_tokens_field, "prompt_cache_key": self.prompt_cache_key,
                "prompt_cache_retention": self.prompt_cache_retention}

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        return send_via_sdk(self._client.chat.completions, request)

    def _stream_fields(self) -> dict[str, Any]:
        # subtle: without include_usage a Chat stream carries no usage at all (the spec's
        # ChatCompletionStreamOptions), so the streamed turn would cost 0 tokens
        return {"stream": True, "stream_options": {"include_usage": True}}

    def _open_stream(self, request: dict[str, Any]) -> Any:
        return stream_via_sdk(self._client.chat.completions, request)
