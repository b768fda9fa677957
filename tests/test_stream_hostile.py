"""Streams that lie, stall or are typed wrong, and what the decoders make of them (issue 29 §5).

- **The end of reply is the end.** Nothing after the API's end (`message_stop`, Chat's
  `finish_reason` and its usage chunk, `response.completed`, Ollama's `done: true`) changes
  the `Turn`: it is refused, in one sentence. A Chat stream that asked for its usage and
  stopped before the usage chunk is cut, not free.
- **One source for each block.** A `message_delta` cannot replace the streamed blocks, a
  `response.completed` cannot disagree with the items streamed, an item cannot be added
  twice, and reasoning sent under two names is said once.
- **Streamed and unstreamed agree**, a Qwen3-style `<think>` prefix in Chat content too.
- **Wrong types are the kit's error**: a field of the wrong JSON type is a
  `MalformedResponseError` naming the field and what came, never a Python `TypeError`.
- **Linear time**: no text is grown by `+=` per delta (`benchmarks/stream_decode_scale.py`
  prints the figures; nothing here is timed).
"""

from __future__ import annotations

import copy
import functools
import json
import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, json_paths, same_turn
from stream_grammar import STREAMS
from test_stream_ends import REPLIES, SplitEvery
from test_stream_property import BODIES, DrawnCuts
from toolcall_lab.errors import IncompleteStreamError, MalformedResponseError
from toolcall_lab.stream import StreamFinished, pieces
from toolcall_lab.wire import APIS, codec


def stream(api: str, reply: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The plain grammar's stream of `reply` (the reply of test_stream_ends), cut every 4 characters."""
    return STREAMS[api](copy.deepcopy(reply or REPLIES[api]), SplitEvery(4))


def finished(api: str, events: list[dict[str, Any]]) -> Any:
    said = list(codec(api).decode_stream(events))
    assert isinstance(said[-1], StreamFinished)
    return said[-1].turn


# -- linear time -----------------------------------------------------------------------------------
class Piece(str):
    """A delta's text that refuses to be joined by `+`: growing a text with `+=` per delta
    copies all of it each time (quadratic); the decoders keep pieces and join them once."""

    def __add__(self, other: object) -> str:
        raise AssertionError(f"a delta was joined with + ({self!r})")

    def __radd__(self, other: object) -> str:
        raise AssertionError(f"a delta was joined with + ({self!r})")


def pieces_of(api: str, event: dict[str, Any]) -> None:
    """Each text or arguments piece of `event` made a `Piece`, in place."""
    def wrap(holder: dict[str, Any], *keys: str) -> None:
        for key in keys:
            if isinstance(holder.get(key), str):
                holder[key] = Piece(holder[key])

    if api == "anthropic" and event.get("type") == "content_block_delta":
        wrap(event["delta"], "text", "thinking", "partial_json")
    elif api == "responses" and str(event.get("type")).endswith(".delta"):
        wrap(event, "delta")
    elif api == "chat":
        for choice in event.get("choices") or ():
            wrap(choice["delta"], "content", "refusal", "reasoning_content")
            for call in choice["delta"].get("tool_calls") or ():
                wrap(call.get("function") or {}, "arguments")
    elif api == "ollama":
        wrap(event["message"], "content", "thinking")


@pytest.mark.parametrize("api", APIS)
def test_no_text_or_arguments_are_grown_with_plus_per_delta(api):
    events = stream(api)
    for event in events:
        pieces_of(api, event)
    turn = finished(api, events)
    assert turn.text == "It is 18°C and sunny"
    assert [dict(call.args) for call in turn.tool_calls] == [{"city": "Paris"}, {"city": "Tokyo"}]


# -- wrong types ---------------------------------------------------------------------------------------
#: A JSON value of any type but null (null is how the APIs leave a field out).
ANY_JSON = (st.booleans() | st.integers(-3, 3) | st.floats(-2, 2).filter(lambda x: x != int(x))
            | st.text(max_size=4) | st.lists(st.integers(0, 2), max_size=2)
            | st.dictionaries(st.sampled_from(["a", "type", "text"]), st.integers(0, 2), max_size=2))


def json_type(value: object) -> str:
    return "null" if value is None else type(value).__name__  # bool, int, float, str, list, dict


@functools.cache
def of_another_type(kind: str) -> st.SearchStrategy[object]:
    """`ANY_JSON` without the values of JSON type `kind`.

    subtle: one strategy per type, made once; a filter made anew in every example is a new
    strategy Hypothesis validates again each time (a fifth of the test's time)."""
    return ANY_JSON.filter(lambda v: json_type(v) != kind)




def swap(event: dict[str, Any], path: tuple[Any, ...], value: object) -> object:
    """The value at `path` in `event`, replaced by `value`; returns the old one."""
    holder: Any = event
    for step in path[:-1]:
        holder = holder[step]
    old, holder[path[-1]] = holder[path[-1]], value
    return old


@pytest.mark.parametrize("api", APIS)
@settings(max_examples=examples(300))
@given(data=st.data())
def test_a_field_of_the_wrong_type_is_the_kits_error_naming_it_never_a_python_error(api, data):
    body = data.draw(BODIES[api], label="body")
    events = json.loads(json.dumps(STREAMS[api](copy.deepcopy(body), DrawnCuts(data))))
    at = data.draw(st.integers(0, len(events) - 1), label="event")
    path = data.draw(st.sampled_from([path for path in json_paths(events[at]) if path]), label="field")
    old = swap(events[at], path, None)
    wrong = data.draw(of_another_type(json_type(old)), label="wrong value")
    swap(events[at], path, wrong)
    try:
        said = list(codec(api).decode_stream(events))
    except IncompleteStreamError:
        return  # a wrong `type` can make the end of reply another event, which never came
    except MalformedResponseError as error:
        message = str(error)
        assert message.count("; ") == 1 and message.endswith("check the server's URL, or report the server.")
        named = [step for step in path if isinstance(step, str)]
        # the field by name; or a body field decode_response reads (a usage count), in the net's words;
        # or, in a Responses item or terminal output, an output no longer the items streamed
        assert any(name in message for name in named[-2:]) or " rebuild is not " in message \
            or " cannot be read (" in message or (path[0] in ("item", "response")
                                                  and "output is not the items streamed" in message), message
        return
    assert isinstance(said[-1], StreamFinished)  # a field the decoder reads past, or passes on as it is


def has(*path: Any) -> Any:
    """Whether an event has a value at `path`."""
    def test(event: dict[str, Any]) -> bool:
        try:
            holder: Any = event
            for step in path:
                holder = holder[step]
        except (KeyError, IndexError, TypeError):
            return False
        return True
    return test


ARGUMENTS = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")


@pytest.mark.parametrize(("api", "at", "field", "wrong", "says"), [
    ("anthropic", has("delta", "text"), ("index",), "1", "index is a string ('1'), not a whole number"),
    ("anthropic", has("delta", "text"), ("delta",), ["x"], "delta is a list ([\"x\"]), not an object"),
    ("responses", has("delta"), ("delta",), 7, "delta is a number (7), not a string"),
    ("chat", has(*ARGUMENTS), ARGUMENTS, 12,
     "choices[0].delta.tool_calls[0].function.arguments is a number (12), not a string of JSON"),
    ("ollama", has("message", "content"), ("message", "content"), {"text": 1},
     "message.content is an object ({\"text\": 1}), not a string"),
])
def test_a_wrong_type_is_named_with_what_came(api, at, field, wrong, says):
    events = stream(api)
    index = next(i for i, event in enumerate(events) if at(event))
    swap(events[index], field, wrong)
    said = re.escape(f"event {index + 1}") + ".*" + re.escape(says)
    with pytest.raises(MalformedResponseError, match=said):
        list(codec(api).decode_stream(events))


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat"])
def test_a_wrong_type_through_a_provider_is_the_malformed_response_not_a_bare_provider_error(name):
    from test_stream_fixtures import anthropic_sdk, openai_sdk
    from toolcall_lab import Message, Transcript, get_provider
    from toolcall_lab.wire import API_SPECS

    api = {"anthropic": "anthropic", "openai": "responses", "openai-chat": "chat"}[name]
    events = stream(api)
    for event in events:  # every text piece a number
        if event.get("type") == "response.output_text.delta":
            event["delta"] = 5
        elif event.get("type") == "content_block_delta" and event["delta"]["type"] == "text_delta":
            event["delta"]["text"] = 5
        for choice in event.get("choices") or ():
            if "content" in choice["delta"]:
                choice["delta"]["content"] = 5
    server = API_SPECS[api].server
    body = b"".join(server.frame(event) for event in events) + server.STREAM_END
    client = (anthropic_sdk if api == "anthropic" else openai_sdk)(body)
    provider = get_provider(name, client=client)
    with pytest.raises(MalformedResponseError, match=r"is a number \(5\), not a string"):
        list(provider.stream(Transcript(messages=[Message.user("hi")])))


def test_arguments_nested_too_deep_to_parse_are_the_kits_error_not_a_recursion_error():
    events = stream("anthropic")
    first = next(e for e in events if e.get("delta", {}).get("type") == "input_json_delta")
    first["delta"]["partial_json"] = '{"a": ' + "[" * 100_000 + "]" * 100_000
    with pytest.raises(MalformedResponseError, match=r"block 1's input \('\{\"a\": \[+…', "
                       r"[\d,]+ characters\) is nested deeper than a JSON parser reads"):
        list(codec("anthropic").decode_stream(events))


@pytest.mark.parametrize(("kind", "index", "says"), [
    ("response.output_text.delta", "content_index", "is for content_index 3, but item 0 has 1 part"),
    ("response.reasoning_summary_text.delta", "summary_index", "is for summary_index 2, but item 0 has 0"),
])
def test_a_responses_delta_for_a_part_never_added_is_the_kits_error_not_an_index_error(kind, index, says):
    events = stream("responses")
    at = next(i for i, e in enumerate(events) if e["type"] == "response.output_text.delta")
    if kind == "response.output_text.delta":
        events[at][index] = 3
    else:
        events[at] = {"type": kind, "output_index": 0, "summary_index": 2, "delta": "Hm"}
    with pytest.raises(MalformedResponseError, match=re.escape(says)):
        list(codec("responses").decode_stream(events))


# -- the end of reply is the end -------------------------------------------------------------------------
def a_late_call(api: str, events: list[dict[str, Any]]) -> dict[str, Any]:
    """A tool call (rm -rf, say) sent after the end of reply, as the API would have sent it before."""
    call = {"id": "call_late", "name": "delete_everything"}
    match api:
        case "anthropic":
            blocks = sum(e["type"] == "content_block_start" for e in events)
            return {"type": "content_block_start", "index": blocks, "content_block": {
                "type": "tool_use", **call, "input": {}}}
        case "responses":
            items = sum(e["type"] == "response.output_item.added" for e in events)
            return {"type": "response.output_item.added", "output_index": items, "item": {
                "type": "function_call", "id": "fc_late", "call_id": call["id"], "name": call["name"],
                "arguments": "{}"}}
        case "chat":
            return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {
                "tool_calls": [{"index": 9, **call, "type": "function", "function": {
                    "name": call["name"], "arguments": "{}"}}]}, "finish_reason": None}]}
        case _:
            return {"model": "qwen3:4b", "message": {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": call["name"], "arguments": {}}}]}, "done": False}


def more_words(api: str, events: list[dict[str, Any]]) -> dict[str, Any]:
    """Text sent after the end of reply (or, on the APIs with one, a second end)."""
    match api:
        case "anthropic":
            return {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": 1}}
        case "responses":
            return copy.deepcopy(events[-1])  # a second response.completed
        case "chat":
            return {"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": " Or not."}}]}
        case _:
            return {**copy.deepcopy(events[-1]), "message": {"role": "assistant", "content": " Or not."}}


def end_of_reply(api: str, events: list[dict[str, Any]]) -> int:
    """The index of the event that ends the reply (Chat: the chunk with the finish_reason)."""
    if api != "chat":
        return len(events) - 1
    return next(i for i, e in enumerate(events) if e["choices"] and e["choices"][0]["finish_reason"])


@pytest.mark.parametrize("api", APIS)
@settings(max_examples=examples(100))
@given(data=st.data())
def test_nothing_after_the_end_of_reply_changes_the_turn_it_is_refused(api, data):
    body = data.draw(BODIES[api], label="body")
    events = STREAMS[api](copy.deepcopy(body), DrawnCuts(data))
    late = data.draw(st.sampled_from([a_late_call, more_words]), label="late")(api, events)
    at = data.draw(st.integers(end_of_reply(api, events) + 1, len(events)), label="where")
    events.insert(at, late)
    refused = (rf"^{codec(api).PROVIDER_NAME}'s stream is not the API's: event {at + 1}( \([a-z_.]+\))? came "
               r"after .+, the end of the reply; check")
    with pytest.raises(MalformedResponseError, match=refused):
        list(codec(api).decode_stream(events))


@pytest.mark.parametrize("api", APIS)
def test_a_keep_alive_or_an_error_after_the_end_is_no_new_content(api):
    events = stream(api)
    after = {"anthropic": {"type": "ping"}, "responses": None, "ollama": None,
             "chat": {"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}}
    if after[api] is not None:
        assert same_turn(finished(api, [*events, after[api]]), finished(api, events))
    error = {"anthropic": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
             "responses": {"type": "error", "code": "server_error", "message": "Oops"},
             "chat": {"error": {"message": "Oops", "type": "server_error"}}, "ollama": {"error": "Oops"}}[api]
    with pytest.raises(IncompleteStreamError, match="sent an error after"):
        list(codec(api).decode_stream([*events, error]))


# -- Chat's usage: asked for, it is due --------------------------------------------------------------------
def chat_chunks(*, include_usage: bool) -> list[dict[str, Any]]:
    """The chunks the API's server half (what the double sends) makes of the Chat reply."""
    from toolcall_lab.wire import API_SPECS

    request = {"stream_options": {"include_usage": True}} if include_usage else {}
    return list(API_SPECS["chat"].server.encode_stream(copy.deepcopy(REPLIES["chat"]), request=request))


def test_a_chat_stream_that_asked_for_its_usage_and_stopped_before_it_is_cut_not_free():
    chunks = chat_chunks(include_usage=True)
    assert chunks[0]["usage"] is None and chunks[-1]["choices"] == []  # as the spec says, and the recording
    assert finished("chat", chunks).usage.input_tokens == 40
    with pytest.raises(IncompleteStreamError) as cut:
        list(codec("chat").decode_stream(chunks[:-1]))
    assert str(cut.value) == (
        f"the stream ended after {len(chunks) - 1} events, before the usage chunk "
        "(stream_options.include_usage): text 'It is 18°C…' and 2 whole get_weather calls had arrived; "
        "nothing was added to the transcript and no tool ran: call again.")


def test_a_chat_usage_that_rides_on_the_finish_chunk_is_the_usage():
    chunks = chat_chunks(include_usage=True)
    usage = chunks.pop()["usage"]
    chunks[-1]["usage"] = usage  # older llama.cpp: the usage on the last chunk, beside the finish
    assert finished("chat", chunks).usage.output_tokens == 30


def test_a_chat_stream_that_asked_for_no_usage_has_none_and_ends_at_its_finish():
    chunks = chat_chunks(include_usage=False)
    assert "usage" not in chunks[0] and chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert finished("chat", chunks).usage.input_tokens == 0  # the API sent no count


def test_the_openai_chat_provider_cut_before_the_usage_chunk_raises_and_runs_nothing(make_double):
    from conftest import real_provider
    from toolcall_lab import Message, Transcript, call, run_agent
    from toolcall_lab.tools import get_weather

    reply = ["Checking.", call("get_weather", city="Paris")]
    double = make_double([reply, reply])
    provider = real_provider("openai-chat", double)
    asked = Transcript(messages=[Message.user("Weather in Paris?")])
    whole = list(provider.stream(asked, tools=[get_weather]))
    sent = whole[-1].turn.response["events"]
    assert sent[-1]["choices"] == [] and sent[-1]["usage"]
    double.fail_next("cut", after=len(sent) - 1)  # everything but the usage chunk
    seen: list[Any] = []
    cut = r"before the usage chunk \(stream_options.include_usage\)"
    with pytest.raises(IncompleteStreamError, match=cut):
        run_agent(provider, "Weather in Paris?", tools=[get_weather], stream=True, on_event=seen.append)
    assert not [event for event in seen if event.kind == "tool_executed"]


# -- one source for each block -------------------------------------------------------------------------------
@pytest.mark.parametrize("field", ["content", "model", "usage"])
def test_an_anthropic_message_delta_cannot_replace_what_the_stream_built(field):
    events = stream("anthropic")
    at = next(i for i, e in enumerate(events) if e["type"] == "message_delta")
    forged = {"content": [{"type": "tool_use", "id": "toolu_9", "name": "rm", "input": {}}],
              "model": "claude-other", "usage": {"input_tokens": 0}}
    events[at]["delta"][field] = forged[field]
    refused = rf"event {at + 1} \(message_delta\)'s delta carries {field}, which message_start and"
    with pytest.raises(MalformedResponseError, match=refused):
        list(codec("anthropic").decode_stream(events))


@pytest.mark.parametrize(("change", "says"), [
    (lambda output: output.append({"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "rm",
                                   "arguments": "{}"}),
     "block 3 streamed as nothing, and response.completed holds ToolCall('call_9', 'rm', {})"),
    (lambda output: output[1].update(arguments='{"city": "Lyon"}'),
     "block 1 streamed as ToolCall('call_01', 'get_weather', {'city': 'Paris'}), and response.completed "
     "holds ToolCall('call_01', 'get_weather', {'city': 'Lyon'})"),
    (lambda output: output.pop(0), "block 0 streamed as TextBlock('It is 18°C and sunny'), and"),
])
def test_a_responses_completed_output_that_disagrees_with_the_items_streamed_is_refused(change, says):
    events = stream("responses")
    assert events[-1]["type"] == "response.completed" and events[-1]["response"]["output"]
    assert same_turn(finished("responses", events), codec("responses").decode_response(REPLIES["responses"]))
    change(events[-1]["response"]["output"])
    refused = re.escape(f"response.completed's output is not the items streamed: {says}")
    with pytest.raises(MalformedResponseError, match=refused):
        list(codec("responses").decode_stream(events))


def test_a_responses_reply_sent_whole_in_its_terminal_event_is_the_reply():
    events = stream("responses")
    whole = [events[0], events[-1]]  # a proxy that streams no items
    assert same_turn(finished("responses", whole), codec("responses").decode_response(REPLIES["responses"]))


def test_a_responses_item_added_twice_at_one_output_index_is_refused_not_dropped():
    events = stream("responses")
    calls = [i for i, e in enumerate(events) if e.get("output_index") == 2]
    for at in calls:
        events[at]["output_index"] = 1  # the second call reuses the first's place
    second = calls[0]
    with pytest.raises(MalformedResponseError, match=re.escape(
            "item 1 was added twice (function_call get_weather (call_01), then function_call get_weather "
            "(call_02)): each item has an output_index of its own")):
        list(codec("responses").decode_stream(events[:second + 1]))


def test_chat_reasoning_sent_under_both_names_is_said_once():
    head = {"id": "c", "object": "chat.completion.chunk", "model": "Qwen/Qwen3-0.6B"}
    chunks = [{**head, "choices": [{"index": 0, "delta": {"reasoning_content": piece, "reasoning": piece}}]}
              for piece in ("The user ", "wants Paris.")]
    chunks.append({**head, "choices": [{"index": 0, "delta": {"content": "Sunny."},
                                        "finish_reason": "stop"}]})
    said = list(codec("chat").decode_stream(chunks))
    assert [str(event) for event in said[:3]] == [
        "[0] reasoning += 'The user '", "[0] reasoning += 'wants Paris.'", "[1] text += 'Sunny.'"]
    assert said[-1].turn.message.reasoning[0].text == "The user wants Paris."


# -- streamed and unstreamed agree ---------------------------------------------------------------------------
def test_a_qwen3_style_think_prefix_then_a_call_streams_as_it_decodes_unstreamed():
    """vLLM and llama.cpp without a reasoning parser: the thinking in `content`, then the call."""
    head = {"id": "c", "object": "chat.completion.chunk", "model": "Qwen/Qwen3-0.6B"}
    thought = "<think>\nThe user wants the weather in Paris.\n</think>\n\n"
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather",
                                                                        "arguments": '{"city": "Paris"}'}}
    chunks = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
              *({**head, "choices": [{"index": 0, "delta": {"content": cut}}]} for cut in pieces(thought)),
              {**head, "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
              {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    said = list(codec("chat").decode_stream(chunks))
    unstreamed = codec("chat").decode_response({**head, "object": "chat.completion", "choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": thought, "tool_calls": [call]}}]})
    assert same_turn(said[-1].turn, unstreamed)
    assert [str(event) for event in said[:-1]] == [
        "[0] reasoning += 'The user wants the weather in Paris.'",
        "[1] call get_weather started, id call_1", "[1] arguments += '{\"city\": \"Paris\"}'",
        "[0] finished: ReasoningBlock('The user wants the weather in Paris.', provider='openai-chat', "
        "model='Qwen/Qwen3-0.6B')",
        "[1] finished: ToolCall('call_1', 'get_weather', {'city': 'Paris'})"]


@pytest.mark.parametrize("content", ["<think>cut at the limit", "  <thi", "<think", "\n\n", "<b>bold</b>"])
def test_content_that_only_looks_like_a_think_prefix_is_text_as_unstreamed(content):
    head = {"id": "c", "object": "chat.completion.chunk", "model": "m"}
    chunks = [*({**head, "choices": [{"index": 0, "delta": {"content": cut}}]} for cut in pieces(content)),
              {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}]
    turn = finished("chat", chunks)
    assert turn.text == content and not turn.message.reasoning


# -- one line of narration per event ------------------------------------------------------------------------
#: What a server may put in a name, an id or a text: line breaks and separators among it.
forged = st.text(st.sampled_from(["a", "_", "[", "]", "1", " ", "\n", "\r", "\x0b", "\x1c", "\x85", "\u2028",
                                  "\u2029", "é", "'", '"']), max_size=12)


@settings(max_examples=examples(300))
@given(name=forged, call_id=forged, text=forged)
def test_a_forged_line_break_cannot_start_a_line_of_narration(name, call_id, text):
    from toolcall_lab import Message, ToolCall, ToolResult, Usage
    from toolcall_lab._text import one_line
    from toolcall_lab.events import ReplyReceived, RunFinished, ToolExecuted, ToolRefused
    from toolcall_lab.stream import ArgumentsDelta, BlockFinished, ReasoningDelta, TextDelta, ToolCallStarted
    from toolcall_lab.turn import StopReason, Turn

    asked = ToolCall(call_id or "x", name or "f", {"q": text})
    turn = Turn(Message.assistant(text or "t", asked), StopReason.TOOL_USE, Usage(1, 1), "m")
    events = [ToolCallStarted(0, call_id, name), TextDelta(0, text), ArgumentsDelta(0, text),
              ReasoningDelta(0, text), BlockFinished(0, asked), StreamFinished(turn),
              ReplyReceived(1, turn), ToolExecuted(1, asked, ToolResult(asked.id, text or "r")),
              ToolRefused(1, asked, ToolResult(asked.id, "refused", is_error=True)),
              RunFinished(1, StopReason.END_TURN, text)]
    for event in events:
        assert len(str(event).splitlines()) == 1, repr(str(event))
    assert f"call {one_line(name)} started" in str(events[0])  # the name as it came, escaped


# -- hangs: keep-alives are no progress ------------------------------------------------------------------
class KeepAlives:
    """A loopback server whose stream begins, then sends only keep-alives, every 20 ms, for
    `seconds` (then it ends the body): Anthropic's `ping` events, or SSE comments (`: ...`,
    which OpenRouter sends while a model is queued; no SDK hands them over)."""

    def __init__(self, api: str, *, seconds: float = 8.0) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from toolcall_lab.wire import API_SPECS

        server = API_SPECS[api].server
        first = next(iter(server.encode_stream(copy.deepcopy(REPLIES[api]),
                                               request={"stream_options": {"include_usage": True}})))
        opening = server.frame(first)
        keep_alive = (b'event: ping\ndata: {"type": "ping"}\n\n' if api == "anthropic"
                      else b": keep-alive\n\n")

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream; charset=utf-8")
                self.end_headers()
                try:
                    self.wfile.write(opening)
                    self.wfile.flush()
                    for _ in range(int(seconds / 0.02)):
                        time.sleep(0.02)
                        self.wfile.write(keep_alive)
                        self.wfile.flush()
                except OSError:
                    return  # the client closed the stream: what the kit should do

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # subtle: shutdown() waits for serve_forever's next look, every 0.5 s by default
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True)

    def __enter__(self) -> KeepAlives:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize(("name", "api"), [("anthropic", "anthropic"), ("openai", "responses"),
                                           ("openai-chat", "chat")])
def test_a_stream_of_keep_alives_is_cut_at_the_timeout_not_left_to_run(name, api):
    from toolcall_lab import Message, Transcript, get_provider

    with KeepAlives(api) as server:
        base_url = server.url if api == "anthropic" else f"{server.url}/v1"
        provider = get_provider(name, base_url=base_url, api_key="sk-test", timeout=0.5, max_retries=0)
        with pytest.raises(IncompleteStreamError) as cut:
            list(provider.stream(Transcript(messages=[Message.user("hi")])))
    assert str(cut.value) == (
        f"{provider.name} sent only keep-alives for 0.5 s (timeout=0.5) after 1 event, so the stream was "
        "closed: nothing had arrived; nothing was added to the transcript and no tool ran: call again, or "
        "pass a larger timeout=.")
    assert cut.value.events == 1 and not provider.requests


def test_a_delta_for_a_block_of_another_kind_is_refused():
    events = stream("responses")
    at = next(i for i, e in enumerate(events) if e.get("type") == "response.function_call_arguments.delta")
    item = events[at]["output_index"]
    events.insert(at, {"type": "response.reasoning_summary_part.added", "output_index": item,
                       "summary_index": 0, "part": {"type": "summary_text", "text": "Hm"}})
    with pytest.raises(MalformedResponseError, match=re.escape(
            f"event {at + 1} (response.reasoning_summary_part.added) adds reasoning to block 1, which is a "
            "tool call")):
        list(codec("responses").decode_stream(events))
