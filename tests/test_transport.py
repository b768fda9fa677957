"""The double in-process: each SDK's HTTP client reaches an `ApiDouble` through its transport.

For each of the four APIs, through its official SDK (anthropic, openai Responses, openai
Chat, ollama), plain and streamed, with the sync client and the async one, and with no
socket opened at all (`socket.socket` raises in the test's thread: `no_sockets`):

- a tool round trip: the model asks for `get_weather`, the result goes back, the answer
  comes (the sync clients through the kit's providers, `get_provider(..., double=double)`;
  the async ones through a provider written here on the SDK's async client);
- the double's faults reach the SDK as they would over a socket: a rate limit the SDK
  retries, a 400 it sends once, a stream cut mid-way the SDK's own error for a dropped
  connection (anthropic's and openai's `APIConnectionError`, whose cause is the HTTP
  client's `RemoteProtocolError`; the ollama client's `RemoteProtocolError` itself);
- a double that was never started is at `http://double.invalid`, and a provider given it
  needs no key, sends none from the environment and shows none.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from conftest import REAL_PROVIDERS, SECRET
from toolcall_lab import Message, Transcript, get_provider, run_agent
from toolcall_lab.double import ApiDouble
from toolcall_lab.double.transport import IN_PROCESS_URL
from toolcall_lab.errors import IncompleteStreamError, ProviderTimeoutError, ProviderUnreachableError
from toolcall_lab.providers.sdk import _create_arguments, is_loopback
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import codec, decode_reply

httpx2 = pytest.importorskip("httpx2")
httpx = pytest.importorskip("httpx")
ollama = pytest.importorskip("ollama")
anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")

QUESTION = "What's the weather in Paris?"
ANSWER = "It's 18°C and sunny in Paris."


@pytest.fixture(autouse=True)
def no_sockets(monkeypatch):
    """Every network socket the test would open raises instead (the double's transport needs
    none); the one pair of Unix sockets an asyncio event loop wakes itself with is let be.

    subtle: only in the test's own thread, where the transport does all its work: `socket.socket`
    is the whole process's, and the suite's background jobs (the swap test's doubles, accepting
    in threads of their own while these tests run) must keep theirs."""
    real = socket.socket
    test_thread = threading.get_ident()

    class NoNetwork(real):  # type: ignore[misc, valid-type]
        def __init__(self, family: Any = -1, *args: Any, **kwargs: Any) -> None:
            if family in (-1, socket.AF_INET, socket.AF_INET6) and threading.get_ident() == test_thread:
                raise AssertionError("a network socket was opened")
            super().__init__(family, *args, **kwargs)

    monkeypatch.setattr(socket, "socket", NoNetwork)


class AsyncSDKProvider:
    """A provider on the SDK's *async* client, reaching `double` through `async_transport()`.

    Each call encodes with the kit's codec, sends with the async SDK in an event loop of its
    own, and decodes the JSON (or the events) exactly as it arrived, so `run_agent` can do the
    round trip on it.
    """

    def __init__(self, name: str, double: ApiDouble, *, stream: bool = False, max_retries: int = 2) -> None:
        self.name, self.api, self.double, self.streamed = name, REAL_PROVIDERS[name], double, stream
        self.kit = get_provider(name, double=double)  # it encodes the body as the kit's provider does
        self.model = self.kit.model
        self.max_retries = max_retries

    def complete(self, transcript: Transcript, *, tools: Sequence[Any] = ()) -> Any:
        request, _ = self.kit._request(transcript, tuple(tools), None, None, stream=self.streamed)
        return asyncio.run(self._call(request))

    def _client(self) -> Any:
        base_url = self.double.base_url(self.api)
        if self.api == "ollama":
            return ollama.AsyncClient(host=base_url, transport=self.double.async_transport())
        http_client = httpx2.AsyncClient(transport=self.double.async_transport())
        sdk = anthropic.AsyncAnthropic if self.api == "anthropic" else openai.AsyncOpenAI
        return sdk(base_url=base_url, api_key="unused", http_client=http_client, max_retries=self.max_retries)

    async def _call(self, request: dict[str, Any]) -> Any:
        client = self._client()
        if self.api == "ollama":  # as OllamaProvider sends it: the JSON lines as they came
            if self.streamed:
                lines = await client._request(dict, "POST", "/api/chat", json=request, stream=True)
                return decode_reply(api=self.api, events=[line async for line in lines])
            raw = await client._request_raw("POST", "/api/chat", json=request)
            return decode_reply(api=self.api, response=raw.json())
        resource = {"anthropic": lambda: client.messages, "responses": lambda: client.responses,
                    "chat": lambda: client.chat.completions}[self.api]()
        if self.streamed:
            stream = await resource.create(**_create_arguments(resource, request))
            return decode_reply(api=self.api, events=[event.to_dict() async for event in stream])
        raw = await resource.with_raw_response.create(**_create_arguments(resource, request))
        return decode_reply(api=self.api, response=raw.http_response.json())


def sync_provider(name: str, double: ApiDouble, **options: Any) -> Any:
    return get_provider(name, double=double, **options)


@pytest.mark.parametrize("name", REAL_PROVIDERS)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_tool_round_trip_through_the_sync_sdk_opens_no_socket(name, stream):
    double = ApiDouble()
    run = run_agent(sync_provider(name, double), QUESTION, tools=[get_weather], stream=stream)
    assert run.answer == ANSWER
    assert [request.api for request in double.requests] == [REAL_PROVIDERS[name]] * 2
    assert [request.status for request in double.requests] == [200, 200]
    tool_results = [block for message in run.transcript.messages for block in message.blocks
                    if block.kind == "tool_result"]
    assert len(tool_results) == 1 and "18" in str(tool_results[0].content)


@pytest.mark.parametrize("name", REAL_PROVIDERS)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_tool_round_trip_through_the_async_sdk_opens_no_socket(name, stream):
    double = ApiDouble()
    run = run_agent(AsyncSDKProvider(name, double, stream=stream), QUESTION, tools=[get_weather])
    assert run.answer == ANSWER
    sent = [request.body for request in double.requests]
    assert len(sent) == 2 and all(bool(body.get("stream")) is stream for body in sent
                                  if REAL_PROVIDERS[name] != "ollama")


@pytest.mark.parametrize("name", REAL_PROVIDERS)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_rate_limit_is_retried_by_the_sdk_as_over_a_socket(name, stream):
    """The SDKs retry a 429 (after its retry-after); the ollama client never retries."""
    double = ApiDouble()
    double.fail_next("rate_limit", retry_after=0.01)
    transcript = Transcript(messages=[Message.user(QUESTION)])
    provider = sync_provider(name, double)
    if REAL_PROVIDERS[name] == "ollama":
        with pytest.raises(Exception, match="429|rate"):
            list(provider.stream(transcript)) if stream else provider.complete(transcript)
        assert [request.status for request in double.requests] == [429]
        return
    list(provider.stream(transcript)) if stream else provider.complete(transcript)
    assert [request.status for request in double.requests] == [429, 200]


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_a_rate_limit_is_retried_by_the_async_sdk(name):
    double = ApiDouble()
    double.fail_next("rate_limit", retry_after=0.01)
    provider = AsyncSDKProvider(name, double)
    transcript = Transcript(messages=[Message.user(QUESTION)])
    if REAL_PROVIDERS[name] == "ollama":
        with pytest.raises(ollama.ResponseError):
            provider.complete(transcript)
        assert [request.status for request in double.requests] == [429]
        return
    assert provider.complete(transcript).message.text
    assert [request.status for request in double.requests] == [429, 200]


def sync_client(api: str, double: ApiDouble) -> Any:
    """The SDK's own sync client for `api`, on `double`'s transport."""
    if api == "ollama":
        return ollama.Client(host=double.base_url(api), transport=double.transport())
    sdk = anthropic.Anthropic if api == "anthropic" else openai.OpenAI
    return sdk(base_url=double.base_url(api), api_key="unused",
               http_client=httpx2.Client(transport=double.transport()))


#: A request each API refuses with a 400 (a field of the wrong type), sent by its SDK.
REFUSED = {
    "anthropic": lambda client: client.messages.create(model="m", max_tokens=5, messages="nope"),
    "responses": lambda client: client.responses.create(model="m", input=5),
    "chat": lambda client: client.chat.completions.create(model="m", messages="nope"),
    "ollama": lambda client: client._request_raw("POST", "/api/chat",
                                                 json={"model": "m", "messages": "nope", "stream": False}),
}


@pytest.mark.parametrize("api", REFUSED)
def test_a_400_is_sent_once(api):
    """A body the double refuses says `x-should-retry: false`; no SDK sends it again."""
    double = ApiDouble()
    with pytest.raises(Exception) as raised:
        REFUSED[api](sync_client(api, double))
    assert getattr(raised.value, "status_code", None) == 400, repr(raised.value)
    assert [request.status for request in double.requests] == [400]


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_a_stream_cut_mid_way_is_the_sdks_dropped_connection(name):
    """Through the kit's provider: one sentence, caused by what the SDK raises over a socket."""
    double = ApiDouble()
    double.fail_next("cut", after=1)
    provider = sync_provider(name, double)
    with pytest.raises(IncompleteStreamError) as raised:
        list(provider.stream(Transcript(messages=[Message.user(QUESTION)]), tools=[get_weather]))
    cause = raised.value.__cause__
    expected = "RemoteProtocolError" if REAL_PROVIDERS[name] == "ollama" else "APIConnectionError"
    assert type(cause).__name__ == expected, repr(cause)
    if expected == "APIConnectionError":
        assert type(cause.__cause__).__name__ == "RemoteProtocolError"
        assert type(cause.__cause__).__module__.startswith("httpx2")


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_a_stream_cut_mid_way_raises_the_async_sdks_error(name):
    double = ApiDouble()
    double.fail_next("cut", after=2)
    provider = AsyncSDKProvider(name, double, stream=True)
    expected = httpx.RemoteProtocolError if REAL_PROVIDERS[name] == "ollama" else (
        anthropic.APIConnectionError if name == "anthropic" else openai.APIConnectionError)
    with pytest.raises(expected) as raised:
        provider.complete(Transcript(messages=[Message.user(QUESTION)]))
    assert "incomplete chunked read" in str(raised.value) + str(raised.value.__cause__)


def test_a_streamed_answer_arrives_as_the_client_reads_it():
    """The double makes each event only when the client asks for the next bytes."""
    double = ApiDouble()
    client = httpx2.Client(transport=double.transport())
    body = codec("chat").encode_request(Transcript(messages=[Message.user(QUESTION)]), (get_weather,),
                                        model="gpt-5-mini")
    with client.stream("POST", double.base_url("chat") + "/chat/completions",
                       json={**body, "stream": True}) as response:
        assert response.status_code == 200 and response.headers["x-toolcall-lab-double"] == "1"
        chunks = response.iter_raw()
        first = next(chunks)
        assert first.startswith(b"data: {") and first.endswith(b"\n\n") and b"[DONE]" not in first
        rest = b"".join(chunks)
    assert rest.endswith(b"data: [DONE]\n\n")


def test_a_slow_answer_past_the_timeout_is_the_sdks_timeout():
    double = ApiDouble()
    double.fail_next("slow", delay=0.2)
    provider = sync_provider("openai-chat", double, timeout=0.05, max_retries=0)
    with pytest.raises(ProviderTimeoutError):
        provider.complete(Transcript(messages=[Message.user(QUESTION)]))


def test_a_body_over_max_body_is_refused_unread_as_over_a_socket():
    double = ApiDouble(max_body=100)
    response = httpx2.Client(transport=double.transport()).post(
        double.base_url("chat") + "/chat/completions", json={"model": "m", "messages": [], "x": "y" * 200})
    assert response.status_code == 413 and response.headers["x-should-retry"] == "false"
    assert "100" in response.json()["error"]["message"]


def test_a_double_reached_only_in_process_is_at_double_invalid(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    double = ApiDouble()
    assert double.url == IN_PROCESS_URL == "http://double.invalid" and is_loopback(IN_PROCESS_URL)
    assert double.base_url("chat") == "http://double.invalid/v1" and "double.invalid" in repr(double)
    provider = get_provider("openai-chat", double=double)
    assert provider._client.api_key != SECRET  # the environment's key is never sent to the double
    assert SECRET not in repr(provider) and provider.base_url == "http://double.invalid/v1"
    keyed = get_provider("openai-chat", double=double, api_key=SECRET)
    assert SECRET not in repr(keyed) and SECRET not in str(vars(keyed))
    assert run_agent(keyed, QUESTION, tools=[get_weather]).answer == ANSWER


def test_one_transport_serves_httpx_and_httpx2():
    double = ApiDouble()
    transport = double.transport()
    for library in (httpx, httpx2):
        response = library.Client(transport=transport).get(double.url + "/v1/models")
        assert isinstance(response, library.Response) and response.status_code == 200


def test_the_guard_catches_a_double_that_listens():
    """`no_sockets` is no empty promise: a double started over a socket fails under it."""
    with pytest.raises(AssertionError, match="a network socket was opened"):
        ApiDouble().start()


def test_the_guard_leaves_other_threads_sockets_be():
    """A double serving for another part of the suite (the swap test's, accepting in its own
    thread while these tests run) keeps its sockets: only the test's thread is refused."""
    opened: list[object] = []

    def open_one() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
            opened.append(other.family)

    worker = threading.Thread(target=open_one)
    worker.start()
    worker.join()
    assert opened == [socket.AF_INET]


def test_a_provider_at_an_unstarted_doubles_url_without_its_transport_says_what_to_pass(monkeypatch):
    def unresolved(host: str, *args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")  # what .invalid gets

    monkeypatch.setattr(socket, "getaddrinfo", unresolved)  # no name is looked up by this test
    double = ApiDouble()
    provider = get_provider("openai-chat", base_url=double.base_url("chat"), max_retries=0)
    with pytest.raises(ProviderUnreachableError) as raised:
        provider.complete(Transcript(messages=[Message.user(QUESTION)]))
    assert str(raised.value).startswith("nothing answers at http://double.invalid/v1: only an API double's "
                                        "transport answers there, in-process: pass the double itself, "
                                        "get_provider(..., double=double)"), str(raised.value)
