"""What the double's request path does once instead of on every request (issue 30 §3) still gives
what it gave: the route a path finds, the JSON a body reads as, the model a reply names, the events
a stream's readers read. Asserted on what is answered, never timed."""

from __future__ import annotations

import json

import pytest

from toolcall_lab import Turn, Usage
from toolcall_lab.double import ApiDouble, routing
from toolcall_lab.double.streams import Streamed
from toolcall_lab.messages import Message
from toolcall_lab.turn import StopReason
from toolcall_lab.wire import ENDPOINTS


def ask(api: str, **fields: object) -> dict[str, object]:
    body = {"anthropic": {"max_tokens": 64}, "responses": {"input": "Hi", "store": False}}.get(api, {})
    asked = [{"role": "user", "content": "Hi"}]
    return {"model": "m-1", "messages": asked, "stream": False, **body, **fields}


def test_a_path_asked_again_finds_the_same_route_and_an_unknown_one_none():
    routes = routing.Routes()
    found = [("/v1/messages", "anthropic"), ("/v1/chat/completions/", "chat"), ("/api/chat", "ollama")]
    for target, api in found:
        first = routes.find(target)
        assert first is not None and first.api == api and routes.find(target) == first
    assert routes.find("/v1/nothing") is None and routes.find("/v1/nothing") is None


def test_a_routes_remembers_no_more_than_its_bound_of_targets(monkeypatch):
    monkeypatch.setattr(routing, "_REMEMBERED", 3)
    routes = routing.Routes()
    for number in range(10):
        assert routes.find(f"/v1/made-up-{number}") is None
    assert routes.find("/v1/messages").api == "anthropic"  # past the bound: found, just not kept
    assert len(routes._found) == 3


def test_a_body_in_utf16_or_with_a_bom_reads_as_json_loads_reads_it_and_nan_is_refused():
    double = ApiDouble()
    for raw in (json.dumps(ask("chat")).encode("utf-16"), b"\xef\xbb\xbf" + json.dumps(ask("chat")).encode()):
        status, _, _ = double.handle("POST", ENDPOINTS["chat"], raw)
        assert status == 200
    raw = b'{"model": "m", "messages": [], "n": NaN}'
    status, body, _ = double.handle("POST", ENDPOINTS["anthropic"], raw)
    assert status == 400 and b"NaN is not a JSON value" in body


def test_a_reply_names_the_requests_model_or_the_scripts_when_the_request_names_none():
    for api in ENDPOINTS:
        double = ApiDouble(["Hi!", "Hi again!"])
        _, named, _ = double.handle("POST", ENDPOINTS[api], json.dumps(ask(api)).encode())
        status, unnamed, _ = double.handle("POST", ENDPOINTS[api], json.dumps(ask(api, model="")).encode())
        assert json.loads(named)["model"] == "m-1", api
        if api == "ollama":  # Ollama refuses a request without a model
            assert status == 400 and json.loads(unnamed) == {"error": "model is required"}
        else:
            assert json.loads(unnamed)["model"] == "scripted-1", api


def test_a_turn_a_script_returns_whole_says_the_requests_model_not_its_own():
    staged = Turn(Message.assistant("Done."), StopReason.END_TURN, Usage(3, 1), "its-own-model")
    double = ApiDouble([staged, staged])
    _, body, _ = double.handle("POST", ENDPOINTS["chat"], json.dumps(ask("chat")).encode())
    assert json.loads(body)["model"] == "m-1"
    _, body, _ = double.handle("POST", ENDPOINTS["chat"], json.dumps(ask("chat", model="")).encode())
    assert json.loads(body)["model"] == "its-own-model"


def test_every_reader_of_a_stream_reads_every_event_once_in_order_whoever_made_it():
    def made() -> object:
        yield from ({"n": number} for number in range(5))

    stream = Streamed("chat", None, made(), lambda event: b"%d" % event["n"])
    first, second = stream._each(), stream._each()
    read = [next(first), next(second), next(second), next(first)]
    assert stream.events == tuple({"n": n} for n in range(5))  # a third reader, mid-stream
    assert read == [{"n": 0}, {"n": 0}, {"n": 1}, {"n": 1}]
    assert [*first] == [*second] == [{"n": n} for n in range(2, 5)]
    assert [frame for _, frame in stream.paced()] == [b"0", b"1", b"2", b"3", b"4"]


def test_a_slow_stream_pauses_before_every_frame_but_the_first_and_skips_empty_ones():
    events = [{"n": 1}, {"n": 0}, {"n": 2}]
    stream = Streamed("chat", None, events, lambda event: b"x" * event["n"], delay=0.5)
    assert list(stream.paced()) == [(0.0, b"x"), (0.5, b"xx")]


def test_a_record_shares_its_store_with_the_conversation_it_continues_and_no_other():
    from dataclasses import replace

    from toolcall_lab import ScriptedProvider, Transcript
    from toolcall_lab.providers.base import SentRequest

    hi, other = Message.user("Hi"), Message.user("Hi")  # equal words, ids of their own
    first = SentRequest.of(Transcript(messages=[hi]), ())
    assert SentRequest.of(Transcript(messages=[hi, Message.assistant("Hello")]), (),
                          previous=first)._store is first._store
    assert SentRequest.of(Transcript(messages=[replace(hi)]), (), previous=first)._store is first._store
    assert SentRequest.of(Transcript(messages=[other]), (), previous=first)._store is not first._store
    scripted = ScriptedProvider(["a", "b"])
    assert scripted.complete(Transcript(messages=[hi])).usage == scripted.complete(
        Transcript(messages=[other])).usage  # the same tokens either way


def test_headers_already_in_lower_case_are_read_as_any_others():
    from toolcall_lab.double.handler import Lowered

    double = ApiDouble()
    assert double.sdk_of(Lowered({"anthropic-version": "2023-06-01"})) == "anthropic"
    assert double.sdk_of(["Anthropic-Version"]) == "anthropic" and double.sdk_of(Lowered()) is None
    body = json.dumps(ask("anthropic", thread={"type": "create"})).encode()  # a beta the header turns on
    beta = "message-threads-2026-08-12"
    for headers, status in [({"Anthropic-Beta": beta}, 200), (Lowered({"anthropic-beta": beta}), 200),
                            (Lowered(), 400)]:
        assert double.handle("POST", ENDPOINTS["anthropic"], body, headers=headers)[0] == status


def test_a_prompt_too_short_to_cache_keeps_its_usage_and_one_said_cached_is_set_to_none():
    from toolcall_lab.double.cache import FakeClock, PromptCache
    from toolcall_lab.transcript import Transcript
    from toolcall_lab.wire._openai.server import cache_usage

    cache, transcript = PromptCache(FakeClock()), Transcript(messages=[Message.user("Hi")])
    plain = Usage(20, 5)
    assert cache_usage("chat", cache, {"model": "gpt-4o-mini"}, transcript, (), plain) is plain
    said = Usage(20, 5, cache_read_tokens=8, cache_write_tokens=4)
    assert cache_usage("chat", cache, {"model": "gpt-4o-mini"}, transcript, (), said) == Usage(20, 5)


@pytest.mark.parametrize("count", [0, 1, 63, 64, 65, 200])
def test_a_stream_sends_every_nonempty_frame_once_in_order_however_long(count):
    from toolcall_lab.double import streams

    def made() -> object:
        yield from ({"n": number} for number in range(count))

    def framing(event: dict[str, int]) -> bytes:
        return b"" if event["n"] % 7 == 3 else b"%d" % event["n"]  # some frames empty, as a flavour's

    expected = [(0.0, framing({"n": n})) for n in range(count) if framing({"n": n})]
    stream = Streamed("chat", None, made(), framing)
    paced = stream.paced()
    first = next(paced, None)
    assert len(stream._made) == min(count, streams.AT_ONCE)  # a long reply's rest is made as it is read
    assert [first, *paced] == (expected or [None])
    assert stream.events == tuple({"n": n} for n in range(count))
