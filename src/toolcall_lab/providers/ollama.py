"""`OllamaProvider`: a model on your own machine, through Ollama's native `/api/chat`.

Start the server and fetch the default model once, then talk to it like any provider:

    $ ollama serve                # if the desktop app is not already running it
    $ ollama pull qwen3:4b

    >>> provider = OllamaProvider()                                  # doctest: +SKIP
    >>> run_agent(provider, PARIS_QUESTION, tools=[get_weather])     # doctest: +SKIP

The translation is the codec's (`toolcall_lab.wire.ollama`); this module only sends the
body with the official `ollama` client (`pip install 'toolcall-lab[ollama]'`) and turns
what can go wrong into the kit's errors. Ollama needs no key; `api_key=` is sent as a
bearer token only if you give one (for a server behind a proxy, say).

Ollama's API has no `tool_choice` and no parallel switch: `complete(..., tool_choice="none")`
offers no tools, and a forced choice or `parallel_tool_calls=False` raises `UsageError`
(`wire.ollama.encode_request`).

`stream()` sends the same body with `"stream": true` (Ollama's own default) through the
client's streaming request, the one `client.chat(..., stream=True)` makes, and yields the
kit's stream events (`WireProvider.stream`); an `{"error": ...}` line mid-stream becomes
`IncompleteStreamError`.

Left out: retries. The `ollama` client has none, and this provider adds none: a local
server that fails usually fails the same way a second later (model not pulled, out of
memory), so the error is raised at once. `max_retries` is accepted and ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import (
    InvalidRequestError,
    MalformedResponseError,
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
)
from ..models import default_model
from ..wire import ollama as ollama_codec
from ..wire.flavours import FLAVOURS
from ._tls import tls_context
from .sdk import NO_KEY_NEEDED, WireProvider

if TYPE_CHECKING:
    from ..tool import Tool
    from ..wire import Codec

__all__ = ["OllamaProvider"]

#: Ollama's record in the one table of local servers (its URL and start commands, with sources).
_SERVER = FLAVOURS["ollama"]


class OllamaProvider(WireProvider):
    """A provider for Ollama's native chat API (`POST /api/chat`).

    Options besides `WireProvider`'s: `think` (True, False, or a level such as "high"),
    sent only when given; Ollama switches thinking on by itself for models that can
    think, and answers 400 if you ask a model that cannot. `temperature` and `seed`
    travel inside `options` (`options.temperature`, `options.seed`), each only when given;
    left out, the model's Modelfile defaults apply.

    >>> OllamaProvider(model="llama3.2", base_url="http://127.0.0.1:11435")
    OllamaProvider(model='llama3.2', base_url='http://127.0.0.1:11435')
    """

    name = "ollama"
    api: ClassVar[str] = "ollama"
    codec: ClassVar[Codec] = ollama_codec
    key_env: str | None = None
    default_base_url: ClassVar[str] = _SERVER.base_url
    sdk_client: ClassVar[str] = "ollama.Client"
    takes_seed: ClassVar[bool] = True
    start_hint: str | None = _SERVER.start_hint(default_model(_SERVER.name))

    def __init__(self, model: str | None = None, *, think: bool | str | None = None, **kwargs: Any) -> None:
        self.think = think
        super().__init__(model, **kwargs)
        serve, pull = (command.format(model=self.model) for command in _SERVER.start)
        self.start_hint = (f"start Ollama with `{serve}` (and fetch the model once with "
                           f"`{pull}`), or pass the base_url it listens on.")
        self.max_retries = 0  # the ollama client never retries; error messages must say so
        inner: Any = getattr(self._client, "_client", None)  # a client you built: its httpx client
        if kwargs.get("client") is not None and getattr(inner, "base_url", None) is not None:
            self.base_url = str(inner.base_url).rstrip("/")

    # -- what WireProvider asks of a provider -------------------------------------------------
    def _client_options(self, api_key: str) -> dict[str, Any]:
        # the ollama client takes a host, no retries, and a key only as a header you give it
        headers = {"Authorization": f"Bearer {api_key}"} if api_key != NO_KEY_NEEDED else None
        # `verify`: the process's one TLS context (`_tls.py`), not a new one per client; with
        # `double=`, the double's transport, which the client passes on to its httpx.Client
        reach = ({"verify": tls_context("httpx")} if self._double is None
                 else {"transport": self._double.transport()})
        return {"host": self.base_url, "timeout": self.timeout, "headers": headers, **reach}

    def _options(self, tools: tuple[Tool, ...]) -> dict[str, Any]:
        return {"think": self.think}

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        """POST the body and return the reply's JSON exactly as it arrived.

        `client.chat()` would hand back a pydantic `ChatResponse`, rebuilt from the JSON
        and rebuilt again by `model_dump()` (with the client's own defaults and without
        the keys its model does not know, such as a tool call's `id`); `Turn.response`
        is meant to show the wire. So the body goes through `_request_raw`, the very
        call `chat()` makes (same URL, headers and error mapping), and the JSON is then
        validated with `ollama.ChatResponse`, so a reply the official client would not
        accept fails here too.
        """
        response = self._client._request_raw("POST", "/api/chat", json=request)
        body: dict[str, Any] = self._validated(response.json(), "answered with a body")
        return body

    def _open_stream(self, request: dict[str, Any]) -> Any:
        """The lines of the streamed reply, each the JSON object it arrived as.

        `client.chat(stream=True)` is `client._request(ChatResponse, "POST", "/api/chat",
        ..., stream=True)`, which builds a `ChatResponse` from each line and so drops what
        its model does not know (a tool call's `id`: the streamed turn would get other ids
        than the unstreamed one). The same streaming request with `dict` keeps each line as
        it came; `_event_dict` then validates it with `ollama.ChatResponse`, as `chat()`
        would. The request is made when the first line is asked for.
        """
        return self._client._request(dict, "POST", "/api/chat", json=request, stream=True)

    def _event_dict(self, event: Any) -> dict[str, Any]:
        return dict(self._validated(event, "streamed a line"))

    def _validated(self, data: Any, said: str) -> Any:
        """`data` (a body, or one line of a stream), if `ollama.ChatResponse` accepts it, as the
        official client requires; else a `MalformedResponseError` naming the first field."""
        import ollama
        import pydantic

        try:
            ollama.ChatResponse.model_validate(data)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise MalformedResponseError(
                f"{self.name} {said} the ollama client rejects ({where}: {first['msg']}); "
                f"is {self.shown_url} really an Ollama server?", provider=self.name) from None
        return data

    def _error_event(self, exc: Exception) -> dict[str, Any] | None:
        # subtle: the client raises ResponseError(line["error"]) for an error line, status -1
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "ResponseError" in names and getattr(exc, "status_code", None) == -1:
            return {"error": str(getattr(exc, "error", exc))}
        return None

    # -- errors: the ollama client raises its own exceptions ----------------------------------
    def _translate(self, exc: Exception) -> ProviderError:
        """Map the `ollama` client's exceptions (and httpx's) onto the kit's error tree.

        The client raises `ResponseError(error, status_code)` for an HTTP error, the
        built-in `ConnectionError` when nothing listens, and lets httpx's timeouts through.
        """
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "ResponseError" in names and isinstance(getattr(exc, "status_code", None), int):
            status = exc.status_code  # type: ignore[attr-defined]
            message = str(getattr(exc, "error", exc))
            if status < 0:  # an error line in a stream: no HTTP status to go by
                return ProviderError(f"{self.name} failed: {self._redact(message)}", provider=self.name)
            return self._status_error(status, message, {})
        if "TimeoutException" in names or isinstance(exc, TimeoutError):
            return ProviderTimeoutError(
                f"{self.name} did not answer within {self.timeout:g} s at {self.shown_url}; the first "
                "call loads the model into memory, which can take a while, so try again or pass a "
                "larger timeout=.", provider=self.name)
        if "ConnectError" in names or isinstance(exc, ConnectionError):
            return self._unreachable(exc)
        return super()._translate(exc)

    def _status_error(self, status: int, message: str, headers: Mapping[str, str]) -> ProviderError:
        said = self._redact(message).rstrip(".")
        where = f"{self.name} ({self.shown_url})"
        if status == 404:
            return ModelNotFoundError(
                f"{where} has no model {self.model!r} ({status}: {said}); fetch it with "
                f"`ollama pull {self.model}`, or pass model= one that `ollama list` shows.",
                provider=self.name, status=status)
        if status == 400 and "does not support tools" in message:
            return InvalidRequestError(
                f"{where} rejected the request ({status}: {said}); this model's template has no "
                "tool support, so pick one that lists `tools` under `ollama show <model>`.",
                provider=self.name, status=status)
        if status == 400 and "does not support thinking" in message:
            return InvalidRequestError(
                f"{where} rejected the request ({status}: {said}); this model cannot think, so "
                "leave think= unset (or pass think=False).", provider=self.name, status=status)
        return super()._status_error(status, message, headers)
