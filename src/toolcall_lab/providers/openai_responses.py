"""`OpenAIResponsesProvider`: OpenAI models through the Responses API (`POST /v1/responses`).

A thin shell around the pure codec `toolcall_lab.wire.responses`: encode the
transcript, check it against the API's rules, send it with the official `openai` SDK,
decode the reply. The codec's docstring explains the translation; this module only
adds the SDK call.

    >>> from toolcall_lab import OpenAIResponsesProvider
    >>> OpenAIResponsesProvider(base_url="http://127.0.0.1:8000/v1", reasoning_effort="low")
    OpenAIResponsesProvider(model='gpt-6-luna', base_url='http://127.0.0.1:8000/v1', reasoning_effort='low')

Options besides `WireProvider`'s (model, api_key, base_url, max_tokens, timeout,
max_retries, check, client):

- `reasoning_effort`: "none", "minimal", "low", "medium", "high", ... for reasoning
  models; None leaves it to the model (and sends no `reasoning` at all, which
  non-reasoning models such as gpt-4o require).
- `server_tools`: OpenAI's built-in tool definitions, sent as given after yours, e.g.
  `[{"type": "web_search"}]`. OpenAI runs them inside the reply; the loop never does.
- `temperature` (a `WireProvider` option): sent as `temperature` when given. The
  Responses API has no `seed`, so `seed=` is refused.
- `store`: whether OpenAI keeps the response on its side (default False: the kit
  sends the whole transcript every time, and reasoning travels as `encrypted_content`).
- `prompt_cache_key`, `prompt_cache_retention` ("in_memory" or "24h"): sent as they are.
  OpenAI caches a long prompt's prefix by itself (1,024 tokens or more); the key keeps
  requests that share a prefix on one cache. Usage reports the reads as `cached_tokens`.

`stream()` sends the same request with `"stream": true` through the SDK's own
`client.responses.create(..., stream=True)` and yields the kit's stream events
(`WireProvider.stream`).

Left out: background responses, built-in tools, `previous_response_id`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..wire import responses
from ..wire._openai.client import prompt_cache_fields
from .sdk import WireProvider, send_via_sdk, stream_via_sdk

if TYPE_CHECKING:
    from ..tool import Tool
    from ..wire import Codec

__all__ = ["OpenAIResponsesProvider"]


class OpenAIResponsesProvider(WireProvider):
    """OpenAI's Responses API, through the `openai` SDK (needs OPENAI_API_KEY)."""

    name = "openai"
    api: ClassVar[str] = "responses"
    codec: ClassVar[Codec] = responses
    key_env: str | None = "OPENAI_API_KEY"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    sdk_client: ClassVar[str] = "openai.OpenAI"

    def __init__(self, model: str | None = None, *, reasoning_effort: str | None = None,
                 store: bool = False, server_tools: Sequence[Mapping[str, Any]] = (),
                 prompt_cache_key: str | None = None, prompt_cache_retention: str | None = None,
                 **kwargs: Any) -> None:
        prompt_cache_fields(prompt_cache_key, prompt_cache_retention)  # a bad value fails now
        self.reasoning_effort = reasoning_effort
        self.server_tools = tuple(server_tools)
        self.store = store
        self.prompt_cache_key = prompt_cache_key
        self.prompt_cache_retention = prompt_cache_retention
        super().__init__(model, **kwargs)

    def _options(self, tools: tuple[Tool, ...]) -> dict[str, Any]:
        return {"reasoning_effort": self.reasoning_effort, "store": self.store,
                "server_tools": self.server_tools, "prompt_cache_key": self.prompt_cache_key,
                "prompt_cache_retention": self.prompt_cache_retention}

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        return send_via_sdk(self._client.responses, request)

    def _open_stream(self, request: dict[str, Any]) -> Any:
        return stream_via_sdk(self._client.responses, request)

    def __repr__(self) -> str:
        shown = super().__repr__()[:-1]
        if self.reasoning_effort is not None:
            shown += f", reasoning_effort={self.reasoning_effort!r}"
        if self.store:
            shown += ", store=True"
        if self.prompt_cache_key is not None:
            shown += f", prompt_cache_key={self.prompt_cache_key!r}"
        if self.prompt_cache_retention is not None:
            shown += f", prompt_cache_retention={self.prompt_cache_retention!r}"
        return shown + ")"
