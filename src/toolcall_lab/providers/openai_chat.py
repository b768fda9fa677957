"""`OpenAIChatProvider`: OpenAI Chat Completions, and every local server that speaks it.

One class talks to OpenAI's hosted `/v1/chat/completions` and, through a *preset*, to
the local servers that copy it. A preset is a base URL, the command that starts the
server, the name the server reads its output limit under, and the quirks worth knowing:

    preset          base URL                     start it with
    ollama-openai   http://localhost:11434/v1    ollama serve, then ollama pull <model>
    vllm            http://localhost:8000/v1     vllm serve <model> --enable-auto-tool-choice ...
    llamacpp        http://localhost:8080/v1     llama-server -hf <model> --jinja --port 8080
    lmstudio        http://localhost:1234/v1     lms server start (after lms load <model>)

    >>> provider = OpenAIChatProvider(preset="vllm")
    >>> provider
    OpenAIChatProvider(preset='vllm', model='Qwen/Qwen3-0.6B')
    >>> provider.name, provider.base_url
    ('vllm', 'http://localhost:8000/v1')

Local servers need no key (any string works unless you turned authentication on; pass
`api_key=` then). The translation itself lives in `toolcall_lab.wire.chat`; this module
only picks the URL, builds the `openai` client and sends.

Left out: streaming, and probing a server for its models (`GET /v1/models` lists them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import UsageError
from ..models import default_model, rules_of
from ..wire import chat
from ..wire._shared import prompt_cache_fields
from .sdk import WireProvider, send_via_sdk

if TYPE_CHECKING:
    from ..tool import Tool
    from ..wire import Codec

__all__ = ["LOCAL_SERVERS", "LocalServer", "OpenAIChatProvider"]


@dataclass(frozen=True)
class LocalServer:
    """A local server that speaks Chat Completions, and what to know before using it.

    `start` holds the commands that get it serving, in order, with `{model}` where the
    model id goes; `max_tokens_field` is the name the server reads the output limit
    under; `parallel_tool_calls` is sent when not None (llama.cpp makes one call per
    reply unless asked for more).
    """

    name: str
    base_url: str
    start: tuple[str, ...]
    max_tokens_field: str = "max_tokens"
    parallel_tool_calls: bool | None = None
    quirks: tuple[str, ...] = ()

    def start_hint(self, model: str) -> str:
        """One sentence on how to get this server answering at its URL."""
        steps = " then ".join(f"`{command.format(model=model)}`" for command in self.start)
        return f"start the server with {steps} and try again."


# Where each fact comes from (public pages; the quirk in brackets):
#   ollama-openai  docs.ollama.com/api/openai-compatibility [tool_choice unsupported, reasoning_effort];
#                  github.com/ollama/ollama/issues/7125 [max_completion_tokens ignored];
#                  github.com/ollama/ollama/blob/main/openai/openai.go [finish_reason, `reasoning`]
#   vllm           docs.vllm.ai/en/latest/features/tool_calling/ [the flags, the 400 without them];
#                  github.com/vllm-project/vllm/pull/25054 [a named tool_choice ends with "stop"];
#                  docs.vllm.ai/en/latest/features/reasoning_outputs/ [`reasoning`, --reasoning-parser]
#   llamacpp       github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md [--jinja,
#                  parallel_tool_calls]; .../tools/server/README.md [port 8080, reasoning_content];
#                  github.com/ggml-org/llama.cpp/pull/17524 [--jinja on by default, Nov 2025] and
#                  /pull/26508 [the port moving to 9931]
#   lmstudio       lmstudio.ai/docs/developer/openai-compat/chat-completions [max_tokens only] and
#                  /tools [numeric tool-call ids]; lmstudio.ai/docs/developer/api-changelog
#                  [reasoning_content]; github.com/lmstudio-ai/lmstudio-bug-tracker/issues/670
#                  [a named tool_choice is a 400 whose error is a plain string]
LOCAL_SERVERS: dict[str, LocalServer] = {s.name: s for s in (
    LocalServer(
        "ollama-openai", "http://localhost:11434/v1", ("ollama serve", "ollama pull {model}"),
        quirks=("max_completion_tokens is silently ignored: max_tokens is sent",
                "tool_choice is ignored; the model's template must support tools",
                "finish_reason is 'tool_calls' when calls are present; reasoning comes as 'reasoning'")),
    LocalServer(
        "vllm", "http://localhost:8000/v1",
        ("vllm serve {model} --enable-auto-tool-choice --tool-call-parser hermes",),
        max_tokens_field="max_completion_tokens",
        quirks=("tool calls need --enable-auto-tool-choice and a --tool-call-parser, else 400",
                "a named tool_choice answers with finish_reason 'stop' beside the calls",
                "reasoning comes as 'reasoning' (was 'reasoning_content') with --reasoning-parser")),
    LocalServer(
        "llamacpp", "http://localhost:8080/v1", ("llama-server -hf {model} --jinja --port 8080",),
        parallel_tool_calls=True,
        quirks=("older builds read only max_tokens",
                "parallel tool calls are off unless parallel_tool_calls is true",
                "tool calls need --jinja on builds before Nov 2025; the default port may move to 9931",
                "reasoning comes as 'reasoning_content'")),
    LocalServer(
        "lmstudio", "http://localhost:1234/v1", ("lms load {model}", "lms server start --port 1234"),
        quirks=("only max_tokens is documented",
                "a named tool_choice object is rejected with 400; errors may be a plain string",
                "tool-call ids are numeric strings; reasoning may come as 'reasoning_content'")),
)}


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

    name: ClassVar[str] = "openai-chat"
    api: ClassVar[str] = "chat"
    codec: ClassVar[Codec] = chat
    key_env: ClassVar[str | None] = "OPENAI_API_KEY"
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
        server: LocalServer | None = None
        if preset is not None:
            if preset not in LOCAL_SERVERS:
                known = ", ".join(LOCAL_SERVERS)
                raise UsageError(f"no local server preset called {preset!r}; choose one of: {known}.")
            server = LOCAL_SERVERS[preset]
            # subtle: instance attributes shadow the class's, so errors and the default
            # model say "vllm", and a learner's OPENAI_API_KEY is never sent to a local server.
            self.name = server.name  # type: ignore[misc]
            self.key_env = None  # type: ignore[misc]
            kwargs["base_url"] = kwargs.get("base_url") or server.base_url
        self.preset = server
        self.reasoning_effort = reasoning_effort
        self.parallel_tool_calls = (parallel_tool_calls if parallel_tool_calls is not None
                                    else server.parallel_tool_calls if server else None)
        self.max_tokens_field = max_tokens_field or (server.max_tokens_field if server
                                                     else "max_completion_tokens")
        super().__init__(model or default_model(self.name), **kwargs)
        if server is not None:
            self.start_hint = server.start_hint(self.model)  # type: ignore[misc]

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
