"""How a stream can go wrong, and what the decoders make of it.

- A stream that stops before the API's end of reply (a dropped connection, an error event)
  raises `IncompleteStreamError` in one sentence: what had arrived, what had not; no
  `StreamFinished`, so nothing reaches a transcript and no tool runs.
- A reply cut at the output limit is a finished reply (stop reason max_tokens) whose cut
  call is malformed, and the loop keeps it out, as `decode_response` and `decide` do.
- Arguments that finish as broken JSON make the usual malformed call: an is_error result.
- Chat Completions servers that bend the grammar (a whole call in one chunk, calls
  interleaved, an index repeated or left out, an id or name sent again) still decode right.
- A stream that breaks the grammar itself is a `MalformedResponseError`.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from stream_grammar import STREAMS, NoCuts
from toolcall_lab import StopReason, ToolCall
from toolcall_lab.errors import IncompleteStreamError, MalformedResponseError, TransientError
from toolcall_lab.loop import decide
from toolcall_lab.stream import BlockFinished, StreamFinished
from toolcall_lab.tool import execute, tool_map
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import anthropic, chat, codec, responses

PARIS, TOKYO = {"city": "Paris"}, {"city": "Tokyo"}

#: One reply per API: words, then two parallel get_weather calls, with usage.
REPLIES: dict[str, dict[str, Any]] = {
    "anthropic": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-5",
                  "content": [{"type": "text", "text": "It is 18°C and sunny"},
                              {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": PARIS},
                              {"type": "tool_use", "id": "toolu_02", "name": "get_weather", "input": TOKYO}],
                  "stop_reason": "tool_use", "stop_sequence": None,
                  "usage": {"input_tokens": 40, "output_tokens": 30}},
    "responses": {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-6-luna",
                  "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                              "content": [{"type": "output_text", "text": "It is 18°C and sunny"}]},
                             {"type": "function_call", "id": "fc_1", "call_id": "call_01",
                              "name": "get_weather", "arguments": json.dumps(PARIS)},
                             {"type": "function_call", "id": "fc_2", "call_id": "call_02",
                              "name": "get_weather", "arguments": json.dumps(TOKYO)}],
                  "usage": {"input_tokens": 40, "output_tokens": 30}},
    "chat": {"id": "chatcmpl-1", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "finish_reason":
             "tool_calls", "message": {"role": "assistant", "content": "It is 18°C and sunny", "tool_calls": [
                 {"id": "call_01", "type": "function", "function": {"name": "get_weather",
                                                                     "arguments": json.dumps(PARIS)}},
                 {"id": "call_02", "type": "function", "function": {"name": "get_weather",
                                                                     "arguments": json.dumps(TOKYO)}}]}}],
             "usage": {"prompt_tokens": 40, "completion_tokens": 30}},
    "ollama": {"model": "qwen3:4b", "created_at": "2026-12-01T10:00:59Z", "done": True, "done_reason": "stop",
               "message": {"role": "assistant", "content": "It is 18°C and sunny", "tool_calls": [
                   {"id": "call_01", "function": {"name": "get_weather", "arguments": PARIS}},
                   {"id": "call_02", "function": {"name": "get_weather", "arguments": TOKYO}}]},
               "prompt_eval_count": 40, "eval_count": 30},
}
#: How many events may follow the end of reply: Chat's usage chunk comes after the finish, and
#: these chunks carry no `"usage": null`, so no usage was asked for and the finish ends the reply
#: (asked for, the usage chunk is due: test_stream_hostile.py); the others end last.
AFTER_THE_END = {"anthropic": 0, "responses": 0, "chat": 1, "ollama": 0}


class SplitEvery:
    """Cuts text every `size` characters, and takes none of the grammar's options."""

    def __init__(self, size: int) -> None:
        self.size = size

    def pieces(self, text: str) -> list[str]:
        return [text[i:i + self.size] for i in range(0, len(text), self.size)] or [text]

    def flag(self) -> bool:
        return False


def stream(api: str) -> list[dict[str, Any]]:
    return STREAMS[api](copy.deepcopy(REPLIES[api]), SplitEvery(4))


# -- a stream that stops early ------------------------------------------------------------------------
@pytest.mark.parametrize("api", sorted(REPLIES))
def test_a_stream_cut_anywhere_before_its_end_raises_and_no_call_is_handed_over_cut(api):
    events = stream(api)
    for kept in range(len(events) - AFTER_THE_END[api]):
        with pytest.raises(IncompleteStreamError) as cut:
            list(codec(api).decode_stream(copy.deepcopy(events[:kept])))
        message = str(cut.value)
        assert message.startswith(f"the stream ended after {kept} event")
        assert message.endswith("; nothing was added to the transcript and no tool ran: call again.")
        assert cut.value.events == kept and isinstance(cut.value, TransientError)


@pytest.mark.parametrize("api", sorted(REPLIES))
def test_blocks_finished_before_a_cut_are_whole_and_a_cut_call_never_finishes(api):
    events = stream(api)
    whole = list(codec(api).decode_stream(copy.deepcopy(events)))[-1].turn
    for kept in range(len(events) - AFTER_THE_END[api]):
        finished = []
        try:
            for event in codec(api).decode_stream(copy.deepcopy(events[:kept])):
                assert not isinstance(event, StreamFinished)
                if isinstance(event, BlockFinished):
                    finished.append(event.block)
        except IncompleteStreamError:
            pass
        assert all(block in whole.message.blocks for block in finished)


def test_the_sentence_says_what_arrived_and_where_the_arguments_stopped():
    events = [*stream("anthropic")[:3], {"type": "content_block_stop", "index": 0}, {"type": "ping"},
              {"type": "content_block_start", "index": 1, "content_block": {
                  "type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}},
              {"type": "content_block_delta", "index": 1, "delta": {
                  "type": "input_json_delta", "partial_json": '{"ci'}}]
    events[2]["delta"]["text"] = "It is 18°C and sunny"
    with pytest.raises(IncompleteStreamError) as cut:
        list(anthropic.decode_stream(events))
    assert str(cut.value) == (
        "the stream ended after 7 events, before message_stop: text 'It is 18°C…' had arrived and "
        "get_weather's arguments were cut at '{\"ci'; nothing was added to the transcript and no tool "
        "ran: call again.")


def test_a_stream_with_nothing_in_it_says_so():
    with pytest.raises(IncompleteStreamError, match=r"^the stream ended after 0 events, before "
                       r"response.completed: nothing had arrived;"):
        list(responses.decode_stream([]))


@pytest.mark.parametrize(("api", "error", "said"), [
    ("anthropic", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
     "overloaded_error: Overloaded"),
    ("responses", {"type": "error", "error": {
        "type": "service_unavailable_error", "code": "server_is_overloaded",
        "message": "Our servers are busy."}},
     "server_is_overloaded: Our servers are busy"),
    ("chat", {"error": {"message": "The model crashed.", "type": "InternalServerError", "code": 500}},
     "InternalServerError: The model crashed"),
    ("ollama", {"error": "an error was encountered while running the model"},
     "an error was encountered while running the model"),
])
def test_an_error_event_mid_stream_says_what_the_server_said_and_what_had_arrived(api, error, said):
    events = stream(api)
    with pytest.raises(IncompleteStreamError) as broke:
        list(codec(api).decode_stream([*events[:6], error, *events[6:]]))
    assert str(broke.value).startswith(f"{codec(api).PROVIDER_NAME} sent an error after 7 events ({said}): "
                                       "text 'It is")
    assert "had arrived" in str(broke.value)


# -- the output limit, and broken arguments -----------------------------------------------------------
def test_chat_cut_at_the_limit_inside_a_call_gives_a_malformed_call_the_loop_keeps_out():
    chunks = stream("chat")
    finish = next(i for i, c in enumerate(chunks) if c.get("choices") and c["choices"][0]["finish_reason"])
    cut = [*chunks[:finish - 2], {**chunks[finish], "choices": [{"index": 0, "delta": {}, "finish_reason":
                                                                   "length"}]}]
    turn = list(chat.decode_stream(cut))[-1].turn
    assert turn.stop_reason is StopReason.MAX_TOKENS and turn.tool_calls[-1].malformed
    assert decide(turn).keep is False
    body = copy.deepcopy(REPLIES["chat"])
    body["choices"][0]["finish_reason"] = "length"
    body["choices"][0]["message"]["tool_calls"][1]["function"]["arguments"] = turn.tool_calls[-1].raw_args
    assert chat.decode_response(body).tool_calls == turn.tool_calls  # as the unstreamed reply


def test_responses_incomplete_inside_a_call_is_max_tokens_with_the_call_malformed():
    events = stream("responses")
    delta = next(i for i, e in enumerate(events) if e["type"] == "response.function_call_arguments.delta"
                 and e["output_index"] == 2)
    incomplete = {"type": "response.incomplete", "response": {
        **REPLIES["responses"], "status": "incomplete", "output": None,
        "incomplete_details": {"reason": "max_output_tokens"}}}
    turn = list(responses.decode_stream([*events[:delta + 1], incomplete]))[-1].turn
    assert turn.stop_reason is StopReason.MAX_TOKENS and turn.tool_calls[-1].raw_args == '{"ci'
    assert decide(turn).keep is False


def test_arguments_that_finish_as_broken_json_become_the_usual_error_result():
    events = stream("anthropic")
    for event in events:
        if event.get("delta", {}).get("partial_json") == '{"ci':
            event["delta"]["partial_json"] = '{ci'
    turn = list(anthropic.decode_stream(events))[-1].turn
    broken = turn.tool_calls[0]
    assert broken.malformed and broken.raw_args == '{city": "Paris"}'
    assert turn.stop_reason is StopReason.TOOL_USE
    result = execute(broken, tool_map([get_weather]))
    assert result.is_error and "were not a valid JSON object" in result.content


# -- Chat servers that bend the grammar -----------------------------------------------------------------
def chunks(*deltas: dict[str, Any], finish: str = "tool_calls") -> list[dict[str, Any]]:
    head = {"id": "c", "object": "chat.completion.chunk", "model": "local"}
    return ([{**head, "choices": [{"index": 0, "delta": delta}]} for delta in deltas]
            + [{**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}])


def piece(index: int | None = None, call_id: str | None = None, name: str | None = None,
          arguments: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {} if index is None else {"index": index}
    if call_id is not None:
        entry |= {"id": call_id, "type": "function"}
    function = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not None}
    return {"tool_calls": [entry | ({"function": function} if function else {})]}


def calls_of(raw: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(c.id, c.name, dict(c.args)) for c in list(chat.decode_stream(raw))[-1].turn.tool_calls]


WEATHER = [("call_1", "get_weather", PARIS), ("call_2", "get_weather", TOKYO)]


@pytest.mark.parametrize(("server", "raw"), [
    ("OpenAI: each call opened by id and name, then its arguments", chunks(
        piece(0, "call_1", "get_weather", ""), piece(0, arguments='{"city": '),
        piece(0, arguments='"Paris"}'), piece(1, "call_2", "get_weather", ""),
        piece(1, arguments=json.dumps(TOKYO)))),
    ("Ollama /v1: each call whole in one piece", chunks(
        piece(0, "call_1", "get_weather", json.dumps(PARIS)),
        piece(1, "call_2", "get_weather", json.dumps(TOKYO)))),
    ("parallel calls interleaved, after an empty first delta", chunks(
        {}, piece(0, "call_1", "get_weather", ""), piece(1, "call_2", "get_weather", '{"city"'),
        piece(0, arguments='{"city": "Paris"}'), piece(1, arguments=': "Tokyo"}'))),
    ("litellm's Ollama translator: index 0 for every call", chunks(
        piece(0, "call_1", "get_weather", json.dumps(PARIS)),
        piece(0, "call_2", "get_weather", json.dumps(TOKYO)))),
    ("Ollama before v0.4.7: no index at all", chunks(
        piece(None, "call_1", "get_weather", '{"city": '), piece(None, arguments='"Paris"}'),
        piece(None, "call_2", "get_weather", json.dumps(TOKYO)))),
    ("llama.cpp before #13800: id and name sent again with every piece", chunks(
        piece(0, "call_1", "get_weather", '{"city": '), piece(0, "call_1", "get_weather", '"Paris"}'),
        piece(1, "call_2", "get_weather", json.dumps(TOKYO)))),
    ("llama.cpp: a name resent whole as it grows; LM Studio: id '' on later pieces", chunks(
        piece(0, "call_1", "get_", ""), piece(0, "", "get_weather", json.dumps(PARIS)),
        piece(1, "call_2", "get_weather", json.dumps(TOKYO)))),
])
def test_chat_tool_calls_join_by_what_the_pieces_mean(server, raw):
    assert calls_of(raw) == WEATHER, server


def test_content_as_text_parts_and_arguments_as_an_object_are_read_too():
    raw = chunks({"content": [{"type": "text", "text": "It is "}, {"type": "text", "text": "18°C"}]},
                 {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "get_weather",
                                                                          "arguments": PARIS}}]})
    turn = list(chat.decode_stream(raw))[-1].turn
    assert turn.text == "It is 18°C"
    assert [(c.id, dict(c.args)) for c in turn.tool_calls] == [("call_1", PARIS)]


def test_only_the_first_choice_is_read_and_the_last_usage_counts():
    raw = chunks({"content": "Hi"}, finish="stop")
    raw.insert(1, {"id": "c", "choices": [{"index": 1, "delta": {"content": "other choice"}}],
                   "usage": {"prompt_tokens": 1, "completion_tokens": 1}})
    raw.append({"id": "c", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}})
    turn = list(chat.decode_stream(raw))[-1].turn
    assert (turn.text, turn.usage.input_tokens, turn.usage.output_tokens) == ("Hi", 9, 2)


# -- the SDK's own helper events, and what is not a stream ----------------------------------------------
def test_the_anthropic_helper_stream_events_decode_as_the_raw_events():
    from test_stream_fixtures import anthropic_sdk, decoded, stored, summary

    body = stored("anthropic_messages_tool_use_stream.sdk_recorded.sse")
    with anthropic_sdk(body).messages.stream(model="m", max_tokens=64, messages=[
            {"role": "user", "content": "hi"}]) as helper:
        events = [event.to_dict() for event in helper]
    assert {"input_json", "content_block_stop", "message_stop"} <= {event["type"] for event in events}
    raw = summary(decoded(anthropic, events))
    assert raw[1] == (("toolu_018acGYLtfR52q9yDbWaEdQZ", "get_weather", {"location": "San Francisco, CA",
                                                                        "units": "f"}),)


def test_the_openai_helper_streams_decode_as_the_raw_events():
    from test_stream_fixtures import decoded, openai_sdk, responses_events, stored, summary

    body = stored("openai_responses_function_call_stream.dotnet_recorded.sse")
    with openai_sdk(body).responses.stream(model="m", input="hi") as helper:
        events = [event.to_dict() for event in helper]
    assert summary(decoded(responses, events)) == summary(decoded(responses, responses_events(body)))
    body = stored("openai_chat_parallel_tool_calls_stream.openai_python_recorded.sse")
    ask = [{"role": "user", "content": "hi"}]
    with openai_sdk(body).chat.completions.stream(model="m", messages=ask) as chunks:
        raw = [event.chunk.to_dict() for event in chunks if event.type == "chunk"]
    assert [c.name for c in list(chat.decode_stream(raw))[-1].turn.tool_calls] == ["GetWeatherArgs",
                                                                                  "get_stock_price"]


def test_an_sdk_event_object_passed_as_it_is_gets_a_sentence_that_says_to_pass_its_dict():
    import anthropic as sdk

    from toolcall_lab.errors import UsageTypeError

    start = sdk.types.RawMessageStartEvent.construct(type="message_start", message={})
    with pytest.raises(UsageTypeError, match=r"not a RawMessageStartEvent; pass event.to_dict\(\)"):
        list(anthropic.decode_stream([start]))


@pytest.mark.parametrize(("api", "events", "says"), [
    ("anthropic", [{"type": "content_block_start", "index": 0,
                    "content_block": {"type": "text", "text": ""}}], "before message_start"),
    ("anthropic", [stream("anthropic")[0], {"type": "content_block_delta", "index": 3,
                                            "delta": {"type": "text_delta", "text": "x"}}],
     "is for block 3, which never started"),
    ("anthropic", [stream("anthropic")[0], {"type": "content_block_start", "index": 2,
                                            "content_block": {"type": "text", "text": ""}}],
     "block 2 started where block 0 was due"),
    ("anthropic", [*stream("anthropic")[:3], {"type": "content_block_stop", "index": 0},
                   {"type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": "late"}}],
     "adds to block 0 after it finished"),
    ("responses", [stream("responses")[0], {"type": "response.output_text.delta", "output_index": 4,
                                            "content_index": 0, "delta": "x"}],
     "is for item 4, which never began"),
    ("chat", ["data: [DONE]"], "event 1 is a str, not a JSON object"),
])
def test_a_stream_that_breaks_the_grammar_is_a_malformed_response(api, events, says):
    with pytest.raises(MalformedResponseError, match=says):
        list(codec(api).decode_stream(events))


def test_every_stream_of_the_plain_grammar_ends_in_the_unstreamed_turn():
    for api, body in REPLIES.items():
        turn = list(codec(api).decode_stream(STREAMS[api](copy.deepcopy(body), NoCuts())))[-1].turn
        assert [c.id for c in turn.tool_calls] == (["toolu_01", "toolu_02"] if api == "anthropic"
                                                   else ["call_01", "call_02"])
        assert all(isinstance(c, ToolCall) and not c.malformed for c in turn.tool_calls)
        assert turn.text == "It is 18°C and sunny"


END = {"ollama": 'a line with "done": true', "responses": "response.completed"}


@pytest.mark.parametrize("api", sorted(END))
def test_a_call_whose_arguments_were_all_in_is_reported_whole_when_the_stream_is_cut_after_it(api):
    events = stream(api)
    last = max(i for i, e in enumerate(events) if e.get("type") == "response.function_call_arguments.done"
               or (e.get("message") or {}).get("tool_calls"))
    with pytest.raises(IncompleteStreamError) as cut:
        list(codec(api).decode_stream(events[:last + 1]))
    assert str(cut.value) == (f"the stream ended after {last + 1} events, before {END[api]}: "
                              "text 'It is 18°C…' and 2 whole get_weather calls had arrived; nothing was "
                              "added to the transcript and no tool ran: call again.")
