"""The double's streams on the wire: headers, framing, the split rule, usage, flushing, faults.

What the SDK accumulator tests (`test_double_stream.py`) do not pin: the bytes themselves,
read with the standard library's `http.client`, and the faults a lesson stages (a stream cut
after N events, an error event mid-stream, a slow stream), each met through the SDK that
would meet it.
"""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any

import pytest

from conftest import post_to
from toolcall_lab import call
from toolcall_lab.double import ApiDouble
from toolcall_lab.double.streams import Streamed
from toolcall_lab.stream import PIECE
from toolcall_lab.wire import ENDPOINTS

QUESTION = [{"role": "user", "content": "What's the weather in Paris?"}]
ASKS: dict[str, dict[str, Any]] = {
    "anthropic": {"model": "claude-haiku-4-5", "max_tokens": 256, "messages": QUESTION, "stream": True},
    "responses": {"model": "gpt-4o-mini", "input": QUESTION, "stream": True},
    "chat": {"model": "gpt-4o-mini", "messages": QUESTION, "stream": True},
    "ollama": {"model": "qwen3:4b", "messages": QUESTION, "stream": True},
}
TEXT = "It's 18°C and sunny in Paris — a lovely day for a walk by the Seine."
SSE = "text/event-stream; charset=utf-8"
CONTENT_TYPES = {"anthropic": SSE, "responses": SSE, "chat": SSE, "ollama": "application/x-ndjson"}


def played(api: str, body: dict[str, Any], script: list[Any] | None = None, **faults: Any) -> Streamed:
    """What a fresh double streams for `body` (with the fault `faults`, if any), no socket."""
    double = ApiDouble(script or [TEXT])
    if faults:
        double.fail_next(**faults)
    status, answer, _ = double.handle("POST", ENDPOINTS[api], json.dumps(body).encode())
    assert status == 200 and isinstance(answer, Streamed)
    return answer


# -- headers and framing -----------------------------------------------------------------------
@pytest.mark.parametrize("api", ASKS)
def test_a_stream_goes_out_chunked_with_the_apis_content_type_and_frames(api, make_double):
    status, headers, raw = post_to(make_double([TEXT]).port, api, ASKS[api])
    assert status == 200 and headers["content-type"] == CONTENT_TYPES[api]
    assert headers["transfer-encoding"] == "chunked" and "content-length" not in headers
    assert headers["x-toolcall-lab-double"] == "1"
    text = raw.decode()
    if api == "ollama":  # one JSON object a line, never a blank line (the ollama client fails on one)
        lines = text.split("\n")
        assert lines[-1] == "" and all(json.loads(line) for line in lines[:-1])
        return
    blocks = text.split("\n\n")
    assert blocks[-1] == ""  # every event ends with a blank line, the last one too
    for block in blocks[:-1]:
        lines = block.split("\n")
        if api == "chat":  # data: lines only, and [DONE] at the end
            assert len(lines) == 1 and lines[0].startswith("data: ")
        else:  # an event: line naming the data's type
            assert len(lines) == 2 and lines[0] == "event: " + json.loads(lines[1][6:])["type"]
    assert (blocks[-2] == "data: [DONE]") is (api == "chat")


@pytest.mark.parametrize("api", ASKS)
def test_a_stream_is_cut_at_the_same_places_every_run_every_piece_4_characters(api):
    first, second = played(api, ASKS[api]), played(api, ASKS[api])
    assert bytes(first) == bytes(second)
    texts = [text for event in first.events for text in _pieces(api, event)]
    assert "".join(texts) == TEXT
    assert all(len(text) == PIECE for text in texts[:-1]) and 0 < len(texts[-1]) <= PIECE


def _pieces(api: str, event: dict[str, Any]) -> list[str]:
    """The text pieces a raw event carries."""
    if api == "anthropic":
        return [event["delta"]["text"]] if event["type"] == "content_block_delta" else []
    if api == "responses":
        return [event["delta"]] if event["type"] == "response.output_text.delta" else []
    if api == "chat":
        return [c["delta"]["content"] for c in event["choices"] if c["delta"].get("content")]
    return [event["message"]["content"]] if not event["done"] and event["message"]["content"] else []


def test_arguments_arrive_in_pieces_that_join_to_the_unstreamed_ones_on_every_api():
    script = [call("get_weather", city="Saint-Étienne-du-Rouvray")]
    anthropic = [e["delta"]["partial_json"] for e in played("anthropic", ASKS["anthropic"], script).events
                 if e["type"] == "content_block_delta"]
    assert anthropic[0] == "" and "".join(anthropic) == '{"city": "Saint-Étienne-du-Rouvray"}'
    responses = [e["delta"] for e in played("responses", ASKS["responses"], script).events
                 if e["type"] == "response.function_call_arguments.delta"]
    chunks = played("chat", ASKS["chat"], script).events
    chat = [c["delta"]["tool_calls"][0]["function"]["arguments"]
            for e in chunks for c in e["choices"] if "tool_calls" in c["delta"]]
    assert "".join(responses) == "".join(chat) == '{"city":"Saint-Étienne-du-Rouvray"}'
    assert len(responses) == 9 and chat[0] == "" and len(chat) == 10  # Chat opens the call with ""
    ollama = [e for e in played("ollama", ASKS["ollama"], script).events if e["message"].get("tool_calls")]
    assert [e["message"]["tool_calls"] for e in ollama] == [[
        {"function": {"name": "get_weather", "arguments": {"city": "Saint-Étienne-du-Rouvray"}}}]]


def test_chat_sends_usage_only_when_include_usage_asks_and_then_last():
    plain = played("chat", ASKS["chat"]).events
    assert all("usage" not in chunk and chunk["choices"] for chunk in plain)
    asked = played("chat", {**ASKS["chat"], "stream_options": {"include_usage": True}}).events
    assert all(chunk["usage"] is None and chunk["choices"] for chunk in asked[:-1])
    unstreamed = json.loads(ApiDouble([TEXT]).handle("POST", ENDPOINTS["chat"], json.dumps(
        {**ASKS["chat"], "stream": False}).encode())[1])
    assert asked[-1]["choices"] == [] and asked[-1]["usage"] == unstreamed["usage"]


def test_the_usage_is_where_each_api_puts_it():
    played_ = played("anthropic", ASKS["anthropic"])
    anthropic, usage = played_.events, played_.reply["usage"]
    assert anthropic[0]["message"]["usage"] == {**usage, "output_tokens": 1}  # so far: the input counts
    assert anthropic[-2]["type"] == "message_delta" and anthropic[-2]["usage"] == usage  # cumulative
    responses = played("responses", ASKS["responses"]).events
    assert [e["response"]["usage"] is None for e in responses if "response" in e] == [True, True, False]
    ollama = played("ollama", ASKS["ollama"]).events
    assert [("eval_count" in line) for line in ollama] == [False] * (len(ollama) - 1) + [True]


def test_ollama_streams_when_the_request_does_not_say_and_not_when_it_says_false():
    unsaid = {key: value for key, value in ASKS["ollama"].items() if key != "stream"}
    assert isinstance(played("ollama", unsaid), Streamed)
    said = json.dumps({**unsaid, "stream": False}).encode()
    status, answer, _ = ApiDouble([TEXT]).handle("POST", "/api/chat", said)
    assert status == 200 and json.loads(answer)["done"] is True


def test_a_streamed_request_is_recorded_with_its_body_and_status(make_double):
    double = make_double([TEXT])
    post_to(double.port, "chat", ASKS["chat"])
    assert [(r.api, r.body["stream"], r.status) for r in double.requests] == [("chat", True, 200)]


def test_each_event_is_on_the_wire_before_the_next_is_written(make_double):
    """With 5 s between events, the first event arrives at once: nothing waits to be batched."""
    double = make_double([TEXT])
    double.fail_next("slow_stream", delay=5)
    with socket.create_connection(("127.0.0.1", double.port), timeout=4) as connection:
        body = json.dumps(ASKS["anthropic"]).encode()
        connection.sendall(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                           b"content-length: %d\r\n\r\n%s" % (len(body), body))
        seen = b""
        while b"event: message_start" not in seen:  # a timeout (4 s) here: the event was held back
            seen += connection.recv(65536)
        assert b"event: content_block_start" not in seen


def test_each_event_is_made_as_it_is_sent_not_all_before_the_first(monkeypatch):
    """A 2,000-token reply is 2,000 events: the first goes out before the others are made (framed
    and encoded), so the time to the first event does not grow with the reply."""
    from toolcall_lab.wire.chat import server

    made: list[int] = []
    encode = server.encode_stream

    def counted(*args: Any, **kwargs: Any) -> Any:
        for number, event in enumerate(encode(*args, **kwargs)):
            made.append(number)
            yield event

    monkeypatch.setattr(server.SERVER, "encode_stream", counted)
    status, answer, _ = ApiDouble([TEXT]).handle("POST", ENDPOINTS["chat"], json.dumps(ASKS["chat"]).encode())
    assert status == 200 and made == []
    frames = answer.frames
    assert next(frames).startswith(b"data: ") and made == [0]
    rest = list(frames)
    assert len(made) == len(rest) + 1 > 2 and len(answer.events) == len(made)  # each made once


# -- faults ----------------------------------------------------------------------------------------
def test_a_cut_stream_sends_its_first_n_events_then_drops_the_connection(make_double):
    assert [e["type"] for e in played("anthropic", ASKS["anthropic"], kind="cut", after=2).events] == [
        "message_start", "content_block_start"]
    whole = played("chat", ASKS["chat"]).events
    assert len(played("chat", ASKS["chat"], kind="cut").events) == len(whole) // 2  # by default, half
    double = make_double([TEXT])
    double.fail_next("cut", after=3)
    with pytest.raises(http.client.IncompleteRead):  # the chunked body never ends
        post_to(double.port, "chat", ASKS["chat"])


@pytest.mark.parametrize("api", ASKS)
def test_a_cut_stream_fails_the_sdk_on_its_connection_not_with_a_half_message(api, make_double):
    double = make_double([TEXT])
    double.fail_next("cut", after=3)
    with pytest.raises(Exception) as raised:
        _sdk_stream(api, double)
    assert type(raised.value).__name__ in ("RemoteProtocolError", "APIConnectionError"), raised.value


def _sdk_stream(api: str, double: ApiDouble) -> Any:
    """The streamed reply through `api`'s SDK, accumulated by the SDK where it has a helper."""
    ask = {key: value for key, value in ASKS[api].items() if key != "stream"}
    if api == "anthropic":
        import anthropic

        client = anthropic.Anthropic(base_url=double.base_url(api), api_key="-", max_retries=0)
        with client.messages.stream(**ask) as streaming:
            return streaming.get_final_message()
    if api == "ollama":
        import ollama

        return list(ollama.Client(host=double.url).chat(**ask, stream=True))
    import openai

    client_ = openai.OpenAI(base_url=double.base_url(api), api_key="-", max_retries=0)
    helper = client_.responses.stream(**ask) if api == "responses" else client_.chat.completions.stream(**ask)
    with helper as streaming:
        events = list(streaming)
        final = streaming.get_final_response() if api == "responses" else streaming.get_final_completion()
        return events, final


def test_an_error_event_mid_stream_reaches_each_sdk_in_its_apis_words(make_double):
    import anthropic
    import ollama
    import openai

    double = make_double([TEXT] * 4)
    double.fail_next("stream_error", after=3, times=4)
    with pytest.raises(anthropic.APIStatusError) as raised:  # status 200: the stream had begun
        _sdk_stream("anthropic", double)
    assert raised.value.status_code == 200 and raised.value.body == {
        "type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with pytest.raises(ollama.ResponseError, match="an error was encountered while running the model"):
        _sdk_stream("ollama", double)
    with pytest.raises(openai.APIError, match="The engine is currently overloaded"):
        _sdk_stream("chat", double)
    with pytest.raises(RuntimeError, match="Didn't receive a `response.completed` event"):
        _sdk_stream("responses", double)  # the spec's error event: seen only by code that iterates
    events = played("responses", ASKS["responses"], kind="stream_error", after=3).events
    assert events[-1] == {"type": "error", "code": "server_is_overloaded", "param": None,
                          "sequence_number": 3,
                          "message": "The engine is currently overloaded, please try again later."}


def test_a_failed_responses_stream_ends_with_response_failed_which_the_sdk_helper_reports(make_double):
    import openai

    double = make_double([TEXT] * 2)
    double.fail_next("stream_failed", after=3)
    client = openai.OpenAI(base_url=double.base_url("responses"), api_key="-", max_retries=0)
    ask = {key: value for key, value in ASKS["responses"].items() if key != "stream"}
    with client.responses.stream(**ask) as streaming:
        events = list(streaming)
        with pytest.raises(RuntimeError, match="Didn't receive a `response.completed` event"):
            streaming.get_final_response()
    assert [event.type for event in events][:3] == ["response.created", "response.in_progress",
                                                   "response.output_item.added"]
    failed = events[-1]
    assert len(events) == 4 and failed.type == "response.failed" and failed.sequence_number == 3
    assert failed.response.status == "failed" and failed.response.error.code == "server_error"
    assert failed.response.id == events[0].response.id  # the same response, as every lifecycle event
    # an API with no failed end of its own ends as with "stream_error"
    assert played("anthropic", ASKS["anthropic"], kind="stream_failed", after=2).events[-1] == (
        played("anthropic", ASKS["anthropic"], kind="stream_error", after=2).events[-1])


def test_a_slow_stream_pauses_between_events_and_a_stream_fault_waits_for_a_stream(make_double):
    assert played("ollama", ASKS["ollama"], kind="slow_stream", delay=0.25).delay == 0.25
    assert played("ollama", ASKS["ollama"], kind="slow_stream").delay == 0.1
    double = make_double([TEXT] * 3)
    double.fail_next("cut", after=1)
    plain = {**ASKS["chat"], "stream": False}
    status, answer, _ = double.handle("POST", ENDPOINTS["chat"], json.dumps(plain).encode())
    assert status == 200 and json.loads(answer)["choices"]  # whole: the cut waits
    assert len(double.handle("POST", ENDPOINTS["chat"], json.dumps(ASKS["chat"]).encode())[1].events) == 1
    status, _, _ = double.handle("POST", ENDPOINTS["chat"], json.dumps(plain).encode(), fault_header="cut")
    assert status == 200  # asked by header of a request that does not stream: nothing to cut


def test_a_failure_before_the_stream_begins_is_the_apis_json_error(make_double):
    double = make_double([TEXT])
    double.fail_next("rate_limit")
    status, headers, raw = post_to(double.port, "anthropic", ASKS["anthropic"])
    assert status == 429 and headers["content-type"] == "application/json"
    assert json.loads(raw)["error"]["type"] == "rate_limit_error"


def test_a_malformed_stream_is_torn_in_two():
    whole = bytes(played("responses", ASKS["responses"]))
    assert bytes(played("responses", ASKS["responses"], kind="malformed")) == whole[: len(whole) // 2]
