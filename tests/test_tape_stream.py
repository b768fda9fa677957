"""Tapes record and replay streamed exchanges: the events, not only the final reply.

A streamed request is recorded through the real SDK (its own stream call, the recorder on
its HTTP client) against a double; the double is stopped; the tape is replayed with no
server behind it but the tape's, through the same SDK stream call, and the SDK sees the
same events and rebuilds the same message. The kit's own decoders are not what is checked:
the SDK's objects are compared.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from conftest import REAL_PROVIDERS, SECRET
from toolcall_lab import call, get_provider
from toolcall_lab.double import ApiDouble
from toolcall_lab.errors import TapeError
from toolcall_lab.tape import Tape, record, replay
from toolcall_lab.tools import get_weather

SPEC = get_weather.spec()
QUESTION = [{"role": "user", "content": "What's the weather in Paris?"}]
SCRIPT = [["Let me look.", call("get_weather", city="Paris")]]


def streamed(api: str, client: Any, model: str, watch: Any = None) -> tuple[list[Any], Any]:
    """(every event the SDK's stream call yields, as plain data; what its helper rebuilds) for the
    Paris question, through `api`'s SDK `client`; `watch(n)` is called as event n arrives."""
    watch = watch or (lambda number: None)
    if api == "ollama":
        tool = {"type": "function", "function": {"name": SPEC["name"], "description": SPEC["description"],
                                                 "parameters": SPEC["input_schema"]}}
        parts = []
        chunks = client.chat(model=model, messages=QUESTION, tools=[tool], stream=True)
        for number, part in enumerate(chunks):
            watch(number)
            parts.append(part.model_dump())
        return parts, parts[-1]
    if api == "anthropic":
        tools = [{"name": SPEC["name"], "description": SPEC["description"],
                  "input_schema": SPEC["input_schema"]}]
        helper = client.messages.stream(model=model, max_tokens=1024, messages=QUESTION, tools=tools)
    elif api == "responses":
        tools = [{"type": "function", "name": SPEC["name"], "description": SPEC["description"],
                  "parameters": SPEC["input_schema"]}]
        helper = client.responses.stream(model=model, input=QUESTION, tools=tools)
    else:
        tools = [{"type": "function", "function": {"name": SPEC["name"], "description": SPEC["description"],
                                                   "parameters": SPEC["input_schema"]}}]
        # subtle: the Chat provider's default model reasons, which Chat refuses with tools
        helper = client.chat.completions.stream(model="gpt-4o-mini", messages=QUESTION, tools=tools)
    events = []
    with helper as stream:
        for number, event in enumerate(stream):
            watch(number)
            events.append(event.model_dump(warnings=False))
        final = (stream.get_final_message() if api == "anthropic" else
                 stream.get_final_response() if api == "responses" else stream.get_final_completion())
    return events, final.model_dump(warnings=False)


def provider_on(name: str, double: ApiDouble) -> Any:
    if name == "ollama":
        pytest.importorskip("ollama")
    return get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), api_key=SECRET)


@pytest.mark.parametrize("name", list(REAL_PROVIDERS))
def test_a_streamed_exchange_recorded_through_the_sdk_replays_through_its_stream_call(name, tmp_path):
    api = REAL_PROVIDERS[name]
    path = tmp_path / "streamed.tape.json"
    with ApiDouble(list(SCRIPT)) as double:
        provider = provider_on(name, double)
        with record(provider, path) as recorder:
            # while the SDK reads the stream, nothing is recorded yet: the recorder did not read
            # the body ahead of the SDK (which would hold every event back until the last)
            held: list[int] = []
            live = streamed(api, provider._client, provider.model,
                            watch=lambda n: held.append(len(recorder.exchanges)))
        assert set(held) == {0} and len(held) == len(live[0]) > 3
    tape = Tape.load(path)
    assert tape == recorder.tape and SECRET not in path.read_text(encoding="utf-8")
    (exchange,) = tape.exchanges
    assert exchange.streamed and exchange.response is None and exchange.status == 200
    assert len(exchange.events) > 3  # the wire's events (the anthropic helper adds its own on top)
    assert tape.answer == "Let me look."  # read from the events
    replayed_provider = replay(tape)  # the double above is gone: only the tape answers
    assert streamed(api, replayed_provider._client, replayed_provider.model) == live


def test_a_replayed_stream_is_the_recorded_events_not_a_stream_played_anew(tmp_path):
    """The events on the tape are played as they are: an edited event comes back edited."""
    with ApiDouble(list(SCRIPT)) as double:
        provider = provider_on("openai-chat", double)
        with record(provider) as recorder:
            streamed("chat", provider._client, provider.model)
    (exchange,) = recorder.tape.exchanges
    events = [json.loads(json.dumps(event)) for event in exchange.events]
    first_text = next(event for event in events
                      if (event["choices"] or [{}])[0].get("delta", {}).get("content"))
    first_text["choices"][0]["delta"]["content"] = "Hold on, "
    edited = replace(recorder.tape, exchanges=(replace(exchange, events=tuple(events)),))
    replayed = replay(edited)
    _, final = streamed("chat", replayed._client, replayed.model)
    assert final["choices"][0]["message"]["content"].startswith("Hold on, ")


def test_a_stream_fault_bends_a_replayed_stream_too(tmp_path):
    with ApiDouble(list(SCRIPT)) as double:
        provider = provider_on("anthropic", double)
        with record(provider) as recorder:
            streamed("anthropic", provider._client, provider.model)
    with ApiDouble(tape=recorder.tape) as playing:
        playing.fail_next("stream_error", after=2)
        body = {**recorder.tape.exchanges[0].request}
        _, played, _ = playing.handle("POST", "/v1/messages", json.dumps(body).encode())
    assert [event["type"] for event in played.events] == ["message_start", "content_block_start", "error"]
    assert played.turn  # a Streamed, though it has no reply of its own


def test_a_tape_with_a_stream_that_is_not_events_says_where():
    tape = {"format": 1, "label": "l", "api": "chat", "provider": "openai-chat", "model": "m",
            "exchanges": [{"api": "chat", "path": "/v1/chat/completions", "status": 200, "model": "m",
                           "latency_ms": None, "request": {}, "response": None, "events": [1]}]}
    with pytest.raises(TapeError, match=r"exchanges\[0\]\.events\[0\] must be a JSON object"):
        Tape.from_dict(tape)
