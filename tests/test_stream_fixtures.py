"""Every recorded stream in tests/fixtures decodes right, and as the official SDKs rebuild it.

Each file is read as a provider will read it: its bytes go through the official SDK
(`httpx2.MockTransport` stands in for the network), whose own SSE parser and event types
give the events; `event.to_dict()` is what `decode_stream` gets. The resulting `Turn` is
checked field by field (text, calls with ids and arguments, stop reason, usage), and
wherever the SDK's accumulator runs on the same bytes (`messages.stream`,
`responses.stream`, `chat.completions.stream`), against `decode_response` of the message
that accumulator rebuilds. Sources of the files: tests/fixtures/SOURCES.md, "Streams".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from test_stream_property import same_turn
from toolcall_lab import StopReason, ToolCall, Turn, Usage
from toolcall_lab.errors import IncompleteStreamError, MalformedResponseError
from toolcall_lab.loop import Stop, decide
from toolcall_lab.stream import ReasoningDelta, StreamFinished
from toolcall_lab.wire import anthropic, chat, ollama, responses

FIXTURES = Path(__file__).parent / "fixtures"
ASK = [{"role": "user", "content": "hi"}]


def stored(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def terminated(body: bytes) -> bytes:
    """`body` with the blank line every live event ends with (the docs' code blocks drop the last one).

    # subtle: SSE dispatches an event only at a blank line, so through the SDK's parser an
    unterminated last event (message_stop, say) is never seen (test below).
    """
    return body if body.endswith(b"\n\n") else body + (b"\n" if body.endswith(b"\n") else b"\n\n")


def _http(body: bytes, content_type: str = "text/event-stream; charset=utf-8") -> Any:
    import httpx2

    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": content_type}, content=body)))


def anthropic_sdk(body: bytes) -> Any:
    import anthropic as sdk

    return sdk.Anthropic(api_key="sk-test", base_url="http://sdk.test", http_client=_http(body),
                         max_retries=0)


def openai_sdk(body: bytes) -> Any:
    import openai as sdk

    return sdk.OpenAI(api_key="sk-test", base_url="http://sdk.test/v1", http_client=_http(body),
                      max_retries=0)


def anthropic_events(body: bytes) -> list[dict[str, Any]]:
    stream = anthropic_sdk(body).messages.create(model="m", max_tokens=64, messages=ASK, stream=True)
    return [event.to_dict() for event in stream]


def responses_events(body: bytes) -> list[dict[str, Any]]:
    stream = openai_sdk(body).responses.create(model="m", input="hi", stream=True)
    return [event.to_dict() for event in stream]


def chat_events(body: bytes) -> list[dict[str, Any]]:
    stream = openai_sdk(body).chat.completions.create(model="m", messages=ASK, stream=True)
    return [chunk.to_dict() for chunk in stream]


def ollama_events(body: bytes) -> list[dict[str, Any]]:
    import httpx
    import ollama as sdk

    answer = httpx.MockTransport(lambda request: httpx.Response(
        200, headers={"content-type": "application/x-ndjson"}, content=body))
    client = sdk.Client(host="http://ollama.test", transport=answer)
    return [part.model_dump(exclude_none=True) for part in client.chat(model="m", messages=ASK, stream=True)]


def decoded(codec: Any, events: list[dict[str, Any]]) -> Turn:
    said = list(codec.decode_stream(events))
    assert isinstance(said[-1], StreamFinished)
    return said[-1].turn


def summary(turn: Turn) -> tuple[Any, ...]:
    """What a reply says: its text, its calls (id, name, arguments), its stop reason and usage."""
    calls = tuple((c.id, c.name, c.raw_args if c.malformed else dict(c.args)) for c in turn.tool_calls)
    return turn.text, calls, turn.stop_reason, turn.usage


# -- Anthropic -------------------------------------------------------------------------------------
GET_WEATHER = "get_weather"
ANTHROPIC = {
    "anthropic_messages_text_stream.docs.sse": (
        "Hello!", (), StopReason.END_TURN, Usage(input_tokens=25, output_tokens=15)),
    "anthropic_messages_text_stream.sdk_recorded.sse": (
        "[12345,67890]", (), StopReason.END_TURN, Usage(input_tokens=135, output_tokens=10)),
    "anthropic_messages_tool_use_stream.docs.sse": (
        "Okay, let's check the weather for San Francisco, CA:",
        (("toolu_01T1x1fJ34qAmk2tNTrN7Up6", GET_WEATHER, {"location": "San Francisco, CA"}),),
        StopReason.TOOL_USE, Usage(input_tokens=472, output_tokens=89)),
    "anthropic_messages_tool_use_stream.sdk_fixture.sse": (
        "I'll check the current weather in Paris for you.",
        (("toolu_01NRLabsLyVHZPKxbKvkfSMn", GET_WEATHER, {"location": "Paris"}),),
        StopReason.TOOL_USE, Usage(input_tokens=377, output_tokens=65)),
    "anthropic_messages_tool_use_stream.sdk_recorded.sse": (
        "", (("toolu_018acGYLtfR52q9yDbWaEdQZ", GET_WEATHER,
              {"location": "San Francisco, CA", "units": "f"}),),
        StopReason.TOOL_USE, Usage(input_tokens=656, output_tokens=74)),
    "anthropic_messages_thinking_stream.docs.sse": (
        "The greatest common divisor of 1071 and 462 is **21**.", (), StopReason.END_TURN, Usage()),
}


@pytest.mark.parametrize("name", sorted(ANTHROPIC))
def test_anthropic_recorded_streams_decode_right(name):
    assert summary(decoded(anthropic, anthropic_events(terminated(stored(name))))) == ANTHROPIC[name]


@pytest.mark.parametrize("name", sorted(set(ANTHROPIC) - {"anthropic_messages_thinking_stream.docs.sse"}))
def test_anthropic_streams_decode_as_the_sdk_message_stream_rebuilds_them(name):
    # (the docs' thinking example has no usage at all: the SDK's accumulate_event fails on it,
    # reading `event.usage.output_tokens` of a message_delta without usage)
    body = terminated(stored(name))
    with anthropic_sdk(body).messages.stream(model="m", max_tokens=64, messages=ASK) as stream:
        final = stream.get_final_message().to_dict()
    assert same_turn(decoded(anthropic, anthropic_events(body)), anthropic.decode_response(final))


def test_anthropic_thinking_stream_keeps_the_thinking_and_its_signature():
    events = list(anthropic.decode_stream(anthropic_events(terminated(stored(
        "anthropic_messages_thinking_stream.docs.sse")))))
    thinking = events[-1].turn.message.reasoning[0]
    assert thinking.text.startswith("I need to find the GCD of 1071 and 462") and thinking.text.endswith(
        "GCD(1071, 462) = 21.")
    signed = [e.signature for e in events if isinstance(e, ReasoningDelta) and e.signature]
    assert signed == [thinking.opaque["signature"]] and signed[0].startswith("EqQBCgIYAhIM")


def test_a_call_cut_at_max_tokens_is_a_malformed_call_the_loop_never_runs():
    body = terminated(stored("anthropic_messages_max_tokens_partial_tool_use_stream.sdk_fixture.sse"))
    turn = decoded(anthropic, anthropic_events(body))
    text, calls, stop, usage = summary(turn)
    assert text.startswith("I'll create a comprehensive tax guide") and stop is StopReason.MAX_TOKENS
    assert usage == Usage(input_tokens=450, output_tokens=124)
    (call_id, name, raw), = calls
    assert (call_id, name) == ("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file")
    assert raw.startswith('{"filename": "taxes.txt", "lines_of_text": [') and raw.endswith('\n"Filing taxes')
    assert decide(turn) == Stop(decide(turn).note, keep=False)  # as decode_response's max_tokens replies
    # The SDK parses the cut JSON leniently into an object that looks like a whole call:
    with anthropic_sdk(body).messages.stream(model="m", max_tokens=64, messages=ASK) as stream:
        sdk_call = anthropic.decode_response(stream.get_final_message().to_dict()).tool_calls[0]
    assert not sdk_call.malformed and sdk_call.args["filename"] == "taxes.txt"


def test_a_last_event_without_its_blank_line_never_arrives_so_the_stream_is_incomplete():
    as_stored = stored("anthropic_messages_tool_use_stream.sdk_fixture.sse")  # ends '..."message_stop"}'
    events = anthropic_events(as_stored)
    assert events[-1]["type"] == "message_delta"
    with pytest.raises(IncompleteStreamError) as cut:
        list(anthropic.decode_stream(events))
    assert str(cut.value) == (
        "the stream ended after 13 events, before message_stop: text \"I'll check…\" and a whole "
        "get_weather call had arrived; nothing was added to the transcript and no tool ran: call again.")


def test_an_anthropic_error_event_raises_the_kit_error_and_the_sdk_raises_its_own():
    import anthropic as sdk

    body = terminated(stored("anthropic_stream_error_event.docs.sse"))
    raw = json.loads(body.decode().split("data: ", 1)[1])
    with pytest.raises(IncompleteStreamError, match=r"^anthropic sent an error after 1 event "
                       r"\(overloaded_error: Overloaded\): nothing had arrived; nothing was added"):
        list(anthropic.decode_stream([raw]))
    with pytest.raises(sdk.APIStatusError):  # what a provider on create(stream=True) meets instead
        anthropic_events(body)


def test_the_sdk_recorded_tool_run_decodes_both_streamed_exchanges():
    run = json.loads(stored("anthropic_tool_runner_stream_run.sdk_recorded.json"))
    first, second = (decoded(anthropic, anthropic_events(exchange["response"]["body"].encode()))
                     for exchange in run)
    assert first.stop_reason is StopReason.TOOL_USE and first.tool_calls[0].name == GET_WEATHER
    assert second.stop_reason is StopReason.END_TURN and second.text and not second.tool_calls
    assert second.usage.input_tokens == 770 and second.usage.output_tokens == 38


# -- OpenAI Responses ---------------------------------------------------------------------------------
RESPONSES = {
    "openai_responses_function_call_stream.dotnet_recorded.sse": (
        "", (("call_0UFGPwrziw5rbinYp7rthrTb", "get_weather_at_location",
              {"location": "San Francisco, CA"}),),
        StopReason.TOOL_USE, Usage(input_tokens=74, output_tokens=20)),
    "openai_responses_text_stream.dotnet_recorded.sse": (
        "Hello! How can I assist you today?", (), StopReason.END_TURN,
        Usage(input_tokens=11, output_tokens=10)),
}
REASONING = "openai_responses_reasoning_summary_stream.dotnet_recorded.sse"


@pytest.mark.parametrize("name", sorted(RESPONSES))
def test_responses_recorded_streams_decode_right(name):
    assert summary(decoded(responses, responses_events(stored(name)))) == RESPONSES[name]


@pytest.mark.parametrize("name", [*sorted(RESPONSES), REASONING])
def test_responses_streams_decode_as_the_sdk_response_stream_rebuilds_them(name):
    body = stored(name)
    with openai_sdk(body).responses.stream(model="m", input="hi") as stream:
        final = stream.get_final_response().to_dict()
    assert same_turn(decoded(responses, responses_events(body)), responses.decode_response(final))


def test_the_recorded_reasoning_summary_stream_joins_its_four_parts():
    said = list(responses.decode_stream(responses_events(stored(REASONING))))
    turn = said[-1].turn
    reasoning, = turn.message.reasoning
    assert reasoning.text.startswith("**Planning a New York itinerary**\n\n")
    assert reasoning.text.count("\n\n**") == 3
    assert "".join(e.text for e in said if isinstance(e, ReasoningDelta)) == reasoning.text
    assert turn.text.startswith("New York City offers an incredible blend of art and food")
    assert turn.usage == Usage(input_tokens=45, output_tokens=3506, reasoning_tokens=2240)


def spec_example(name: str) -> dict[str, Any]:
    return json.loads(stored("openai_responses_stream_error_events.spec_example.json"))[name]


def test_the_spec_error_event_and_response_failed_raise_the_kit_error():
    created = {"type": "response.created", "response": {**spec_example("response.failed")["response"],
                                                        "status": "in_progress", "error": None}}
    with pytest.raises(IncompleteStreamError, match=r"^openai sent an error after 2 events "
                       r"\(ERR_SOMETHING: Something went wrong\): nothing had arrived"):
        list(responses.decode_stream([created, spec_example("error")]))
    with pytest.raises(IncompleteStreamError, match=r"^openai sent an error after 2 events "
                       r"\(response.failed, server_error: The model failed to generate a response\)"):
        list(responses.decode_stream([created, spec_example("response.failed")]))


def test_response_incomplete_is_a_finished_reply_cut_at_the_limit():
    incomplete = spec_example("response.incomplete")
    created = {"type": "response.created", "response": {**incomplete["response"], "status": "in_progress"}}
    turn = decoded(responses, [created, incomplete])
    assert (turn.stop_reason, turn.message.blocks) == (StopReason.MAX_TOKENS, ())


# -- Chat Completions ---------------------------------------------------------------------------------
CHAT = {
    "openai_chat_length_stream.openai_python_recorded.sse": (
        '{"', (), StopReason.MAX_TOKENS, Usage(input_tokens=79, output_tokens=1)),
    "openai_chat_parallel_tool_calls_stream.openai_python_recorded.sse": (
        "", (("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs",
              {"city": "Edinburgh", "country": "GB", "units": "c"}),
             ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"})),
        StopReason.TOOL_USE, Usage(input_tokens=149, output_tokens=60)),
    "openai_chat_text_include_usage_stream.dotnet_recorded.sse": (
        "I'm sorry, I can't assist with that request.", (), StopReason.END_TURN,
        Usage(input_tokens=26, output_tokens=10)),
    "openai_chat_tool_call_stream.openai_python_recorded.sse": (
        "", (("call_c91SqDXlYFuETYv8mUHzz6pp", "GetWeatherArgs",
              {"city": "Edinburgh", "country": "UK", "units": "c"}),),
        StopReason.TOOL_USE, Usage(input_tokens=76, output_tokens=24)),
}
CHAT_TEXT = "openai_chat_text_stream.openai_python_recorded.sse"


@pytest.mark.parametrize("name", sorted(CHAT))
def test_chat_recorded_streams_decode_right(name):
    assert summary(decoded(chat, chat_events(stored(name)))) == CHAT[name]


def test_the_recorded_chat_text_stream_decodes_right():
    text, calls, stop, usage = summary(decoded(chat, chat_events(stored(CHAT_TEXT))))
    assert text.startswith("I'm unable to provide real-time weather updates.") and not calls
    assert (stop, usage) == (StopReason.END_TURN, Usage(input_tokens=14, output_tokens=30))


@pytest.mark.parametrize("name", [*sorted(CHAT), CHAT_TEXT])
def test_chat_streams_decode_as_the_sdk_completion_stream_rebuilds_them(name):
    body = stored(name)
    with openai_sdk(body).chat.completions.stream(model="m", messages=ASK) as stream:
        stream.until_done()
        # subtle: get_final_completion() raises LengthFinishReasonError on "length"; the
        # snapshot it would have parsed is the rebuilt completion all the same.
        final = stream.current_completion_snapshot.to_dict()
    assert same_turn(decoded(chat, chat_events(body)), chat.decode_response(final))


# -- Ollama ----------------------------------------------------------------------------------------------
OLLAMA = {
    "ollama_chat_text_stream.docs.ndjson": (
        "The", (), StopReason.END_TURN, Usage(input_tokens=26, output_tokens=282)),
    "ollama_chat_tool_calls_stream.docs.ndjson": (  # the docs' call has no id: decode_response mints one
        "", (("call_6f36aff95d86aba6ed63f789", GET_WEATHER, {"city": "Tokyo"}),), StopReason.TOOL_USE,
        Usage(input_tokens=169, output_tokens=15)),
}


def lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stored(name).decode().splitlines()]


@pytest.mark.parametrize("name", sorted(OLLAMA))
def test_ollama_documented_streams_decode_right_raw_and_through_the_ollama_client(name):
    assert summary(decoded(ollama, lines(name))) == OLLAMA[name]
    assert summary(decoded(ollama, ollama_events(stored(name)))) == OLLAMA[name]


def test_an_ollama_error_line_mid_stream_raises_the_kit_error():
    error = lines("ollama_error_midstream.docs.ndjson")[-1]
    text_line = lines("ollama_chat_text_stream.docs.ndjson")[0]
    with pytest.raises(IncompleteStreamError) as broke:
        list(ollama.decode_stream([text_line, error]))
    assert str(broke.value) == (
        "ollama sent an error after 2 events (an error was encountered while running the model): "
        "text 'The' had arrived; nothing was added to the transcript and no tool ran: call again.")
    assert broke.value.events == 2 and broke.value.retryable


@pytest.mark.parametrize("name", ["ollama_error_midstream.docs.ndjson", "ollama_generate_stream.docs.ndjson"])
def test_an_api_generate_stream_is_refused_not_read_as_an_empty_chat_reply(name):
    with pytest.raises(MalformedResponseError, match=r"line 1 has no message .* not /api/generate"):
        list(ollama.decode_stream(lines(name)))


def test_a_whole_ollama_call_starts_and_gets_its_arguments_in_one_line():
    said = list(ollama.decode_stream(lines("ollama_chat_tool_calls_stream.docs.ndjson")))
    assert [str(e) for e in said[:2]] == ["[0] call get_weather started, id (none yet)",
                                          "[0] arguments += '{\"city\": \"Tokyo\"}'"]
    assert isinstance(said[2].block, ToolCall) and said[2].block.id.startswith("call_")
