"""The Ollama codec (`toolcall_lab.wire.ollama`) against Ollama's documented bodies.

Fixtures are the examples of Ollama's own docs (tests/fixtures/SOURCES.md). Ollama's
wire has no tool-call ids in those examples, so the codec mints them on decode; the
tests pin that the minted ids are stable for one body and differ between bodies.
"""

from __future__ import annotations

import copy
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from schemas import fixture
from toolcall_lab import (
    Message,
    ReasoningBlock,
    StopReason,
    TextBlock,
    Tool,
    ToolCall,
    ToolResult,
    Transcript,
    Turn,
    Usage,
)
from toolcall_lab.errors import UsageError
from toolcall_lab.wire import codec
from toolcall_lab.wire import ollama as wire

MODEL = "llama3.2"


def weather_tool() -> Tool:
    """The tool of Ollama's docs example, as a kit Tool."""
    spec = fixture("ollama_chat_tool_calls_request.docs.json")["tools"][0]["function"]
    return Tool(spec["name"], spec["description"], spec["parameters"], lambda city: f"sunny in {city}")


def shape(transcript: Transcript) -> tuple:
    """What a transcript says (messages compared without their ids and timestamps)."""
    return transcript.system, [(m.role, m.blocks) for m in transcript]


def without_ids(messages: list[dict]) -> list[dict]:
    """Wire messages with the id keys the docs examples do not show taken out."""
    out = copy.deepcopy(messages)
    for message in out:
        message.pop("tool_call_id", None)
        for call in message.get("tool_calls", ()):
            call.pop("id", None)
    return out


# -- decoding Ollama's reply ------------------------------------------------------------------
def test_the_docs_reply_is_one_tool_call():
    body = fixture("ollama_chat_tool_calls_response.docs.json")
    turn = wire.decode_response(body)
    (call,) = turn.tool_calls
    assert (call.name, dict(call.args), call.malformed) == ("get_weather", {"city": "Tokyo"}, False)
    assert body["done_reason"] == "stop"
    assert turn.stop_reason is StopReason.TOOL_USE  # no done reason for tools: the calls decide
    assert turn.usage == Usage(input_tokens=169, output_tokens=18)
    assert turn.model == MODEL
    assert turn.message.blocks == (call,)  # the empty content makes no TextBlock


def test_minted_ids_are_stable_for_a_body_and_differ_between_bodies():
    body = fixture("ollama_chat_tool_calls_response.docs.json")
    first, again = wire.decode_response(body), wire.decode_response(copy.deepcopy(body))
    assert first.tool_calls[0].id == again.tool_calls[0].id
    assert first.tool_calls[0].id.startswith("call_") and len(first.tool_calls[0].id) == 5 + 24
    later = dict(body, created_at="2025-07-07T20:32:54.000001Z")
    assert wire.decode_response(later).tool_calls[0].id != first.tool_calls[0].id


def test_parallel_calls_get_distinct_ids_and_a_sent_id_is_kept():
    body = fixture("ollama_chat_tool_calls_response.docs.json")
    call = body["message"]["tool_calls"][0]
    body["message"]["tool_calls"] = [call, copy.deepcopy(call), {"id": "call_ab12cd34", **call}]
    ids = [c.id for c in wire.decode_response(body).tool_calls]
    assert len(set(ids)) == 3 and ids[2] == "call_ab12cd34"  # newer servers send `call_` + 8 chars


def reply(message: dict, **fields) -> dict:
    return {"model": MODEL, "created_at": "2025-01-01T00:00:00Z", "message": {"role": "assistant", **message},
            "done": True, "done_reason": "stop", **fields}


def test_thinking_comes_first_then_text_then_calls():
    body = reply({"content": "Let me check.", "thinking": "The user wants weather.",
                  "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
                 prompt_eval_count=50, eval_count=20)
    kinds = [b.kind for b in wire.decode_response(body).message.blocks]
    assert kinds == ["reasoning", "text", "tool_call"]
    reasoning = wire.decode_response(body).message.reasoning[0]
    assert (reasoning.text, reasoning.provider, reasoning.model) == (
        "The user wants weather.", "ollama", MODEL)
    assert reasoning.replayable_to("ollama") and not reasoning.replayable_to("anthropic")


@pytest.mark.parametrize(("arguments", "args", "raw"), [
    ('{"city": "Paris"}', {"city": "Paris"}, None),      # a string that parses: read it
    ('{"city": "Par', {}, '{"city": "Par'),              # cut off: kept as raw_args, no crash
    (["Paris"], {}, '["Paris"]'),                        # not an object at all
    (None, {}, None),                                    # no arguments: an empty object
])
def test_arguments_that_are_not_an_object_never_crash(arguments, args, raw):
    call = {"function": {"name": "get_weather", "arguments": arguments}}
    body = reply({"content": "", "tool_calls": [call]})
    (call,) = wire.decode_response(body).tool_calls
    assert (dict(call.args), call.raw_args) == (args, raw)


@pytest.mark.parametrize(("done_reason", "calls", "stop"), [
    ("stop", False, StopReason.END_TURN),
    ("stop", True, StopReason.TOOL_USE),
    ("length", False, StopReason.MAX_TOKENS),
    ("length", True, StopReason.MAX_TOKENS),  # a call cut off at the limit is not a finished call
    ("load", False, StopReason.END_TURN),
    ("unload", False, StopReason.END_TURN),
    (None, True, StopReason.TOOL_USE),
])
def test_done_reasons(done_reason, calls, stop):
    message = {"content": "x"}
    if calls:
        message["tool_calls"] = [{"function": {"name": "f", "arguments": {}}}]
    body = reply(message)
    if done_reason is None:
        del body["done_reason"]
    else:
        body["done_reason"] = done_reason
    assert wire.decode_response(body).stop_reason is stop


def test_missing_counts_read_as_zero_and_cached_prompt_tokens_are_part_of_input():
    assert wire.decode_response(reply({"content": "hi"})).usage == Usage()
    usage = wire.decode_response(reply({"content": "hi"}, prompt_eval_count=100, prompt_eval_cached_count=80,
                                       eval_count=5)).usage
    assert usage == Usage(input_tokens=100, output_tokens=5, cache_read_tokens=80)


# -- encoding a conversation --------------------------------------------------------------------
def test_the_docs_first_request_is_reproduced():
    expected = fixture("ollama_chat_tool_calls_request.docs.json")
    body = wire.encode_request(Transcript(messages=[Message.user("what is the weather in tokyo?")]),
                               [weather_tool()], model=MODEL)
    assert body.pop("options") == {"num_predict": 1024}  # the docs example sets no limit
    assert body == expected
    assert "think" not in body  # sent only when asked: Ollama decides for thinking models


def test_the_docs_history_request_is_reproduced():
    expected = fixture("ollama_chat_tool_result_history_request.docs.json")
    call = ToolCall("call_k3x9", "get_weather", {"city": "Toronto"})
    transcript = Transcript(messages=[Message.user("what is the weather in Toronto?"),
                                      Message.assistant(call),
                                      Message.results([ToolResult("call_k3x9", "11 degrees celsius")])])
    body = wire.encode_request(transcript, [weather_tool()], model=MODEL)
    # The docs show no ids; Ollama's Go types take them (ToolCall.id, Message.tool_call_id).
    assert without_ids(body["messages"]) == expected["messages"]
    assert body["messages"][1]["tool_calls"][0]["id"] == "call_k3x9"
    assert body["messages"][2]["tool_call_id"] == "call_k3x9"
    assert body["tools"] == expected["tools"] and body["stream"] is False
    assert wire.check_request(body) == [] and wire.check_request(expected) == []


def rich_transcript() -> Transcript:
    calls = (ToolCall("call_1", "get_weather", {"city": "Paris"}),
             ToolCall("call_2", "get_weather", {"city": "Atlantis"}))
    return Transcript(system="You are a weather assistant.", messages=[
        Message.user("Weather in Paris and Atlantis?"),
        Message.assistant(ReasoningBlock("Two cities, two calls.", provider="ollama", model="qwen3:4b"),
                          "Checking both.", *calls),
        Message.results([ToolResult("call_1", "18°C, sunny"),
                         ToolResult("call_2", "no such city: Atlantis", is_error=True)]),
        Message.assistant(ReasoningBlock("signed", provider="anthropic", opaque={"signature": "sig"}),
                          "Paris is sunny; Atlantis is not real."),
        Message.user("Thanks!"),
    ])


def test_a_rich_conversation():
    body = wire.encode_request(rich_transcript(), [weather_tool()], model="qwen3:4b", max_tokens=300,
                               think="high")
    system, user, assistant, paris, atlantis, answer, thanks = body["messages"]
    assert system == {"role": "system", "content": "You are a weather assistant."}
    assert user == {"role": "user", "content": "Weather in Paris and Atlantis?"}
    assert assistant["thinking"] == "Two cities, two calls." and assistant["content"] == "Checking both."
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == [{"city": "Paris"},
                                                                              {"city": "Atlantis"}]
    assert paris == {"role": "tool", "content": "18°C, sunny", "tool_name": "get_weather",
                     "tool_call_id": "call_1"}
    assert atlantis["content"] == "Error: no such city: Atlantis"  # no is_error field on this wire
    assert atlantis["tool_name"] == "get_weather"
    assert "thinking" not in answer  # Anthropic's signed reasoning is not Ollama's to read
    assert thanks == {"role": "user", "content": "Thanks!"}
    assert body["options"] == {"num_predict": 300} and body["think"] == "high"
    assert wire.check_request(body) == []


def test_a_malformed_call_is_replayed_as_an_empty_object():
    bad = ToolCall("call_9", "get_weather", {}, raw_args='{"city": "Par')
    transcript = Transcript(messages=[Message.user("Paris?"), Message.assistant(bad),
                                      Message.results([ToolResult("call_9", "not JSON", is_error=True)])])
    body = wire.encode_request(transcript, model=MODEL)
    assert body["messages"][1]["tool_calls"][0]["function"]["arguments"] == {}
    assert body["tools"] == []


def test_text_and_results_in_one_user_message_keep_their_order():
    transcript = Transcript(messages=[
        Message.user("Paris?"), Message.assistant(ToolCall("c1", "get_weather", {"city": "Paris"})),
        Message.user(ToolResult("c1", "sunny"), "And tomorrow?")])
    roles = [m["role"] for m in wire.encode_request(transcript, model=MODEL)["messages"]]
    assert roles == ["user", "assistant", "tool", "user"]


# -- the server side -------------------------------------------------------------------------
def test_the_docs_history_request_decodes_with_paired_ids():
    transcript, tools = wire.decode_request(fixture("ollama_chat_tool_result_history_request.docs.json"))
    user, assistant, results = transcript.messages
    (call,) = assistant.tool_calls
    (result,) = results.tool_results
    assert result.call_id == call.id and call.id.startswith("call_")  # paired by tool_name
    assert (result.content, result.is_error) == ("11 degrees celsius", False)
    assert [t.name for t in tools] == ["get_weather"]
    with pytest.raises(UsageError, match="never runs it"):
        tools[0].function(city="Paris")  # a tool read from a request is never run


def test_encode_response_is_what_the_ollama_client_accepts_and_decodes_back():
    ollama = pytest.importorskip("ollama")
    turn = Turn(Message.assistant(ReasoningBlock("Paris first.", provider="ollama", model="qwen3:4b"),
                                  "Checking.", ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
                                  ToolCall("toolu_02", "get_weather", {"city": "Rome"})),
                StopReason.TOOL_USE, Usage(input_tokens=120, output_tokens=40), "qwen3:4b")
    body = wire.encode_response(turn, response_id="ollama-double-0001")
    parsed = ollama.ChatResponse.model_validate(body)
    assert parsed.done and parsed.done_reason == "stop" and parsed.created_at.endswith("Z")
    assert all("id" not in c for c in body["message"]["tool_calls"])  # as in Ollama's docs
    back = wire.decode_response(body)
    assert (back.stop_reason, back.usage, back.model) == (turn.stop_reason, turn.usage, turn.model)
    # Equal except the call ids, which Ollama does not carry and the decoder mints anew.
    strip = [(b.name, dict(b.args)) if isinstance(b, ToolCall) else b for b in back.message.blocks]
    assert strip == [(b.name, dict(b.args)) if isinstance(b, ToolCall) else b for b in turn.message.blocks]


def test_a_cut_off_reply_says_length_and_zero_metrics_are_left_out():
    turn = Turn(Message.assistant("It is"), StopReason.MAX_TOKENS, Usage(output_tokens=2), MODEL)
    body = wire.encode_response(turn)
    assert body["done_reason"] == "length" and "prompt_eval_count" not in body
    assert wire.decode_response(body).stop_reason is StopReason.MAX_TOKENS


def test_a_reply_the_context_window_cut_off_says_length_too():
    turn = Turn(Message.assistant("It is"), StopReason.CONTEXT_WINDOW_EXCEEDED, Usage(output_tokens=2), MODEL)
    assert wire.encode_response(turn)["done_reason"] == "length"
    assert wire.decode_response(wire.encode_response(turn)).stop_reason is StopReason.MAX_TOKENS


def test_stop_reasons_ollama_cannot_say_come_back_as_end_turn():
    turn = Turn(Message.assistant("No."), StopReason.REFUSAL, Usage(), MODEL)
    assert wire.decode_response(wire.encode_response(turn)).stop_reason is StopReason.END_TURN


# -- rules and errors ------------------------------------------------------------------------
def test_check_request_flags_only_what_ollama_rejects():
    assert [p.text for p in wire.check_request({"messages": []})] == ["model is required"]
    assert [p.path for p in wire.check_request({"model": MODEL, "think": 1})] == ["think"]
    assert [p.text for p in wire.check_request({"model": MODEL, "top_logprobs": 21})] == [
        "top_logprobs must be between 0 and 20"]
    # A result with no call, an empty user message, a call never answered: Ollama takes them all.
    lax = {"model": MODEL, "messages": [
        {"role": "tool", "content": "18°C", "tool_name": "get_weather"}, {"role": "user", "content": ""},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}]}
    assert wire.check_request(lax) == []


def test_error_body_has_the_documented_shape():
    documented = fixture("ollama_error_body.docs.json")
    assert wire.error_body(documented["error"], status=500) == documented
    assert wire.error_body("model 'x' not found", status=404, param="model", code="x") == {
        "error": "model 'x' not found"}


def test_the_registry_finds_this_codec():
    assert codec("ollama") is wire and wire.PROVIDER_NAME == "ollama"


# -- property: what a client encodes, a server reads back -------------------------------------
texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20)
words = texts.filter(bool)
keys = st.text(string.ascii_lowercase, min_size=1, max_size=5)
values = st.one_of(st.none(), st.booleans(), st.integers(), texts, st.lists(st.integers(), max_size=2))
NAMES = ("get_weather", "search_kb", "lookup-2")


@st.composite
def transcripts(draw):
    messages = []
    serial = 0
    for _ in range(draw(st.integers(0, 3))):
        messages.append(Message.user(draw(texts)))
        blocks: list = []
        if draw(st.booleans()):
            blocks.append(ReasoningBlock(draw(words), provider="ollama", model=MODEL))
        if draw(st.booleans()):
            blocks.append(TextBlock(draw(words)))
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            serial += 1
            calls.append(ToolCall(f"call_{serial}", draw(st.sampled_from(NAMES)),
                                  draw(st.dictionaries(keys, values, max_size=3))))
        messages.append(Message.assistant(*blocks, *calls))
        if calls:
            results = []
            for c in calls:
                is_error = draw(st.booleans())
                content = draw(texts.filter(lambda t, e=is_error: e or not t.startswith(wire.ERROR_PREFIX)))
                results.append(ToolResult(c.id, content, is_error))
            messages.append(Message.results(results))
    return Transcript(draw(st.none() | words), messages)


@settings(max_examples=examples(150))
@given(transcript=transcripts(), tools=st.lists(st.sampled_from(NAMES), unique=True))
def test_decode_request_reads_back_what_encode_request_wrote(transcript, tools):
    tools = [Tool(n, f"The {n} tool.", {"type": "object", "properties": {"q": {"type": "string"}}},
                  lambda **_: "") for n in tools]
    body = wire.encode_request(transcript, tools, model=MODEL)
    assert wire.check_request(body) == []
    back, back_tools = wire.decode_request(body)
    assert shape(back) == shape(transcript)
    assert [(t.name, t.description, dict(t.input_schema)) for t in back_tools] == [
        (t.name, t.description, dict(t.input_schema)) for t in tools]


@settings(max_examples=examples(100))
@given(text=texts, thinking=texts, calls=st.lists(st.tuples(st.sampled_from(NAMES),
                                                            st.dictionaries(keys, values, max_size=3)),
                                                  max_size=3),
       tokens=st.tuples(st.integers(0, 10**6), st.integers(0, 10**5)), cut=st.booleans())
def test_decode_response_reads_back_what_encode_response_wrote(text, thinking, calls, tokens, cut):
    blocks: list = [ReasoningBlock(thinking, "ollama", MODEL)] if thinking else []
    blocks += [TextBlock(text)] if text else []
    blocks += [ToolCall(f"toolu_{i}", name, args) for i, (name, args) in enumerate(calls)]
    stop = StopReason.MAX_TOKENS if cut else StopReason.TOOL_USE if calls else StopReason.END_TURN
    turn = Turn(Message("assistant", tuple(blocks)), stop, Usage(*tokens), MODEL)
    back = wire.decode_response(wire.encode_response(turn))
    assert (back.stop_reason, back.usage, back.model) == (turn.stop_reason, turn.usage, turn.model)
    words = [b for b in back.message.blocks if not isinstance(b, ToolCall)]
    assert words == blocks[:len(blocks) - len(calls)]
    assert [(c.name, dict(c.args)) for c in back.tool_calls] == [(n, a) for n, a in calls]


# -- issue 9: a stream chunk is not a turn; deep arguments are malformed, not a crash -----------

def test_a_chunk_with_done_false_is_refused_not_read_as_a_finished_turn():
    chunk = {"model": "qwen3:4b", "created_at": "2026-01-01T00:00:00Z", "done": False,
             "message": {"role": "assistant", "content": "", "tool_calls": [
                 {"function": {"name": "get_weather", "arguments": {"city": "Tokyo"}}}]}}
    with pytest.raises(ValueError, match=r"done: false.*stream: false"):
        wire.decode_response(chunk)


def test_string_arguments_nested_deeper_than_python_reads_are_a_malformed_call():
    deep = "[" * 5000
    turn = wire.decode_response({"model": "m", "done": True, "message": {
        "role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": deep}}]}})
    assert turn.tool_calls[0].malformed and turn.tool_calls[0].raw_args == deep
