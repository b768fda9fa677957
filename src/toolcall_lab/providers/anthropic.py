"""`AnthropicProvider`: Claude through the official `anthropic` SDK and the Messages API.

The translation lives in `toolcall_lab.wire.anthropic` (pure functions, testable
offline); this class is the thin shell that sends the encoded body with
`client.messages.create` and keeps the raw JSON the API returned.

    >>> AnthropicProvider(api_key="sk-ant-example", thinking="adaptive", effort="low")
    AnthropicProvider(model='claude-haiku-5-5', thinking='adaptive', effort='low')
    >>> AnthropicProvider("claude-haiku-4-5", api_key="sk-ant-example", thinking=2048, max_tokens=4096)
    AnthropicProvider(model='claude-haiku-4-5', thinking=2048)

Options beyond the shared ones (`model`, `api_key`, `base_url`, `max_tokens`, `timeout`,
`max_retries`, `check`, `client`; see `WireProvider`):

- `thinking`: None (not sent: the model's default, which on the newest models is to
  think), "adaptive" (Claude decides how much to think; the only kind the default model,
  Claude Haiku 5.5, takes), "disabled", or a budget in tokens for models with manual
  extended thinking (Claude Haiku 4.5 and older: at least 1024 and below `max_tokens`).
  A budget on a model that refuses it is caught before sending, in the API's words.
- `effort`: "low", "medium", "high", "xhigh" or "max", sent as `output_config.effort`
  (how hard adaptive thinking works; None leaves the model's default).
- `caching`: where to put prompt-cache breakpoints (`cache_control`): None or "off" (none,
  the default), "moving" (on the last message, so each call of a loop reads what the one
  before wrote), "system", "tools", "auto" (Anthropic's automatic caching, one top-level
  `cache_control`), or several of them, say ("tools", "system", "moving"); see
  `wire.anthropic.place_breakpoints`. `True` means "auto", the API's own switch (the one
  `cost.loop_bill(caching=True)` simulates), and `False` means "off"; the repr shows the
  strategy taken.
- `cache_ttl`: how long an unused cache entry lives, "5m" (writes at 1.25x input) or "1h"
  (2x); every read refreshes it.

    >>> AnthropicProvider(api_key="sk-ant-example", caching="moving", cache_ttl="1h")
    AnthropicProvider(model='claude-haiku-5-5', caching='moving', cache_ttl='1h')
    >>> AnthropicProvider(api_key="sk-ant-example", caching=True)
    AnthropicProvider(model='claude-haiku-5-5', caching='auto')

- `temperature` (a `WireProvider` option): sent as `temperature` when given. Claude Haiku
  5.5 and the other newest models take only their default sampling, so on them
  `temperature=0` is refused before sending, in the API's words; Claude Haiku 4.5 takes
  it (without thinking). The `anthropic` SDK 1.0 and later has no `temperature` argument,
  so it travels in the SDK's `extra_body`. There is no `seed`.

- `server_tools`: definitions of Anthropic's own tools, sent as given after yours, e.g.
  `[{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]`. Anthropic runs
  them inside the reply; the loop never does (`toolcall_lab.server_tools`).

- `thread`: True to keep the conversation on Anthropic's side between calls (message
  threads, a beta: `wire.anthropic.threads`). The first call sends the whole conversation
  with `"thread": {"type": "create"}`; each later call whose transcript extends the last
  one sends only the new messages with `"thread": {"type": "continue", ...}` and no
  `system` or `tools`; a thread the API no longer holds (`thread_not_found`, it lives 5
  minutes after its last request) is replayed at once: the whole transcript again, with a
  create. The transcript is never touched, so a call that fails leaves it as it was.
  `stream()` sends the whole conversation without a thread (left out).

    >>> AnthropicProvider(api_key="sk-ant-example", thread=True)
    AnthropicProvider(model='claude-haiku-5-5', thread=True)

`complete()` also takes `tool_choice=` and `parallel_tool_calls=` per call (the kit's
vocabulary, `toolcall_lab.tool_choice`); a forced choice with thinking on is refused before
sending, in the API's words.

`stream()` sends the same request with `"stream": true` through the SDK's own streaming
call, `client.messages.create(..., stream=True)`, and yields the kit's stream events
(`WireProvider.stream`); an `error` event mid-stream (the SDK raises it as an
`APIStatusError` with status 200) becomes `IncompleteStreamError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import UsageTypeError
from ..transcript import Transcript
from ..wire import anthropic
from ..wire.anthropic import threads
from .sdk import WireProvider, send_via_sdk, stream_via_sdk

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..tool import Tool
    from ..turn import Turn
    from ..wire import Codec

__all__ = ["AnthropicProvider"]


class AnthropicProvider(WireProvider):
    """Claude models through the Anthropic Messages API (`POST /v1/messages`).

    The key comes from `api_key=` or the `ANTHROPIC_API_KEY` variable; a loopback
    `base_url` (the API double) needs none.
    """

    name = "anthropic"
    api: ClassVar[str] = "anthropic"
    codec: ClassVar[Codec] = anthropic
    key_env: str | None = "ANTHROPIC_API_KEY"
    default_base_url: ClassVar[str] = "https://api.anthropic.com"
    sdk_client: ClassVar[str] = "anthropic.Anthropic"

    def __init__(self, model: str | None = None, *, thinking: int | str | None = None,
                 effort: str | None = None, server_tools: Sequence[Mapping[str, Any]] = (),
                 caching: str | Sequence[str] | bool | None = None, cache_ttl: str = "5m",
                 thread: bool = False, **kwargs: Any) -> None:
        if not isinstance(thread, bool):
            raise UsageTypeError(f"thread is True or False, got {thread!r}; pass thread=True to keep "
                                 "the conversation on Anthropic's side between calls.")
        #: whether calls keep the conversation in a message thread (see the module docstring)
        self.thread = thread
        self._at: threads.ThreadAt | None = None  # where the thread stands, after the last reply
        self._whole: dict[str, Any] | None = None  # this call's whole conversation, as a create
        self._replayed: dict[str, Any] | None = None  # the create a lost thread's call was replayed as
        caching = _strategy(caching)
        anthropic.place_breakpoints({}, caching, ttl=cache_ttl)  # a bad value fails now
        self.caching = caching
        self.cache_ttl = cache_ttl
        if thinking is not None:
            anthropic.thinking_config(thinking)  # a bad value fails now, not at the first call
        if effort is not None:
            anthropic.check_effort(effort)
        self.thinking = thinking
        self.server_tools = tuple(server_tools)
        self.effort = effort
        base_url = kwargs.get("base_url")
        if base_url:
            # subtle: the SDK appends /v1/messages itself; a base_url ending in /v1 (as
            # OpenAI-style settings often do) would make it call /v1/v1/messages.
            kwargs["base_url"] = base_url.rstrip("/").removesuffix("/v1")
        super().__init__(model, **kwargs)

    def __repr__(self) -> str:
        shown = super().__repr__()[:-1]
        if self.thinking is not None:
            shown += f", thinking={self.thinking!r}"
        if self.effort is not None:
            shown += f", effort={self.effort!r}"
        if self.caching not in (None, "off"):
            shown += f", caching={self.caching!r}"
        if self.cache_ttl != "5m":
            shown += f", cache_ttl={self.cache_ttl!r}"
        if self.thread:
            shown += ", thread=True"
        return shown + ")"

    def _options(self, tools: tuple[Tool, ...]) -> dict[str, Any]:
        return {"thinking": self.thinking, "effort": self.effort, "server_tools": self.server_tools,
                "caching": self.caching, "cache_ttl": self.cache_ttl}

    # -- message threads: create, continue, replay --------------------------------------------
    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = (), tool_choice: str | None = None,
                 parallel_tool_calls: bool | None = None) -> Turn:
        """`WireProvider.complete`; with `thread=True`, over a message thread (the module docstring)."""
        turn = super().complete(transcript, tools=tools, tool_choice=tool_choice,
                                parallel_tool_calls=parallel_tool_calls)
        if self._replayed is not None:  # the turn keeps the request that was answered: the create
            turn = replace(turn, request=self._replayed)
        if self.thread and self._whole is not None and isinstance(turn.response, Mapping):
            # subtle: the server holds what this call's whole conversation said, then its reply,
            # which the next call sends as the kit encodes the turn's message
            reply = anthropic.encode_request(Transcript(None, [turn.message]), model=self.model)["messages"]
            self._at = threads.after(self._whole, str(turn.response.get("id")), reply)
        return turn

    def _request(self, transcript: Transcript, tools: tuple[Tool, ...], tool_choice: str | None,
                 parallel_tool_calls: bool | None, *, stream: bool = False
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The whole conversation, checked; with `thread=True` (not streamed), a create, or a
        continue from the last reply when this transcript extends the one it answered."""
        request, options = super()._request(transcript, tools, tool_choice, parallel_tool_calls,
                                            stream=stream)
        self._whole = self._replayed = None
        if not self.thread or stream:
            return request, options
        self._whole = threads.created(request)
        request = threads.continued(self._whole, self._at) or self._whole
        if self.check:
            self._refuse_if_invalid(request)
        return request, options

    def _record(self, transcript: Transcript, tools: tuple[Tool, ...], request: dict[str, Any],
                tool_choice: str | None, options: Mapping[str, Any]) -> None:
        super()._record(transcript, tools, self._replayed or request, tool_choice, options)

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        if "thread" not in request:
            return send_via_sdk(self._client.messages, request)
        try:
            body = send_via_sdk(self._client.beta.messages, request)
        except Exception as exc:  # the SDK's APIStatusError: a thread the API cannot continue
            if not (threads.is_continue(request) and _replay_code(exc) and self._whole is not None):
                raise
            self._at = None
            body = send_via_sdk(self._client.beta.messages, self._whole)  # the whole transcript again
            self._replayed = self._whole
        return body

    def _open_stream(self, request: dict[str, Any]) -> Any:
        return stream_via_sdk(self._client.messages, request)


def _replay_code(exc: BaseException) -> str | None:
    """The `error.details.error_code` of an API error a client answers with a replay, or None."""
    body = getattr(exc, "body", None)
    error = body.get("error") if isinstance(body, Mapping) else None
    details = error.get("details") if isinstance(error, Mapping) else None
    code = details.get("error_code") if isinstance(details, Mapping) else None
    return code if isinstance(code, str) and code in threads.REPLAY_CODES else None


def _strategy(caching: object) -> str | tuple[str, ...] | None:
    """`caching` as `place_breakpoints` takes it: True -> "auto", False -> None, a list -> a tuple.

    >>> _strategy(True), _strategy(False), _strategy(["tools", "moving"])
    ('auto', None, ('tools', 'moving'))
    """
    if isinstance(caching, bool):
        return "auto" if caching else None
    if caching is None or isinstance(caching, str):
        return caching
    if isinstance(caching, Iterable) and not isinstance(caching, Mapping | bytes):
        return tuple(caching)
    choices = ", ".join(map(repr, anthropic.CACHING))
    raise UsageTypeError(f"caching must be True, False, None, 'off', or one or more of {choices} "
                         f"(say ('tools', 'system', 'moving')), got {caching!r}.")
