"""`AnthropicProvider`: Claude through the official `anthropic` SDK and the Messages API.

The translation lives in `toolcall_lab.wire.anthropic` (pure functions, testable
offline); this class is the thin shell that sends the encoded body with
`client.messages.create` and keeps the raw JSON the API returned.

    >>> provider = AnthropicProvider(api_key="sk-ant-example", thinking=2048, max_tokens=4096)
    >>> provider
    AnthropicProvider(model='claude-haiku-5-5', thinking=2048)

Options beyond the shared ones (`model`, `api_key`, `base_url`, `max_tokens`, `timeout`,
`max_retries`, `check`, `client`; see `WireProvider`): `thinking`, None for no extended
thinking, a budget in tokens (at least 1024 and below `max_tokens`), or "adaptive".

Left out: streaming, prompt-cache breakpoints, `tool_choice`, and server tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..wire import anthropic as codec
from ._wire import WireProvider, send_via_sdk

if TYPE_CHECKING:
    from ..messages import Transcript
    from ..tool import Tool

__all__ = ["AnthropicProvider"]


class AnthropicProvider(WireProvider):
    """Claude models through the Anthropic Messages API (`POST /v1/messages`).

    The key comes from `api_key=` or the `ANTHROPIC_API_KEY` variable; a loopback
    `base_url` (the API double) needs none.
    """

    name: ClassVar[str] = "anthropic"
    api: ClassVar[str] = "anthropic"
    key_env: ClassVar[str | None] = "ANTHROPIC_API_KEY"
    default_base_url: ClassVar[str] = "https://api.anthropic.com"

    def __init__(self, model: str | None = None, *, thinking: int | str | None = None,
                 **kwargs: Any) -> None:
        if thinking is not None:
            codec.thinking_config(thinking)  # a bad value fails now, not at the first call
        self.thinking = thinking
        base_url = kwargs.get("base_url")
        if base_url:
            # subtle: the SDK appends /v1/messages itself; a base_url ending in /v1 (as
            # OpenAI-style settings often do) would make it call /v1/v1/messages.
            kwargs["base_url"] = base_url.rstrip("/").removesuffix("/v1")
        super().__init__(model, **kwargs)

    def __repr__(self) -> str:
        shown = super().__repr__()
        if self.thinking is None:
            return shown
        return f"{shown[:-1]}, thinking={self.thinking!r})"

    def _make_client(self, api_key: str) -> Any:
        import anthropic  # here, not at the top: `import toolcall_lab` must stay light

        return anthropic.Anthropic(api_key=api_key, base_url=self.base_url, timeout=self.timeout,
                                   max_retries=self.max_retries)

    def _encode(self, transcript: Transcript, tools: tuple[Tool, ...]) -> dict[str, Any]:
        return codec.encode_request(transcript, tools, model=self.model, max_tokens=self.max_tokens,
                                    thinking=self.thinking)

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        return send_via_sdk(self._client.messages, request)
