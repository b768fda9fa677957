"""The OpenAI Chat Completions codec: recorded bodies, the API's rules, and round trips."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion

from conftest import examples
from schemas import fixture, openapi_errors
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
from toolcall_lab.tools import calculator, get_weather
from toolcall_lab.wire import chat, check

EMPTY_MESSAGES = ("Invalid 'messages': empty array. Expected an array with minimum length 1, "
                  "but got an empty array instead.")
ORPHAN = ("Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
          "with 'tool_calls'.")
MISSING_REPLY = ("An assistant message with 'tool_calls' must be followed by tool messages responding to "
                 "each 'tool_call_id'. The following tool_call_ids did not have response messages: ")
MISSING_ID = "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'."


def shape(transcript):
    """What a transcript says, without the ids and times that differ per object."""
    return transcript.system, [(m.role, m.blocks) for m in transcript]


def turn_shape(turn):
    return turn.message.blocks, turn.stop_reason, turn.usage, turn.model


def response(message, finish_reason="stop", usage=None, model="local-model"):
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "logprobs": None,
                         "finish_reason": finish_reason}]}
    if usage is not None:
        body["usage"] = usage
    return body


def rich_transcript():
    """System prompt, text, two parallel calls (with foreign reasoning), results with an error."""
    return Transcript(system="You are a weather assistant.", messages=[
        Message.user("Weather in Paris and Atlantis?"),
        Message.assistant(
            ReasoningBlock("Two cities, two calls.", provider="anthropic", model="claude-haiku-5-5",
                           opaque={"signature": "EqQBCkYIBxgCKkD"}),
            "Let me look both up.",
            ToolCall("call_paris", "get_weather", {"city": "Paris"}),
            ToolCall("call_atlantis", "get_weather", {"city": "Atlantis"})),
        Message.results([ToolResult("call_paris", "18°C, sunny"),
                         ToolResult("call_atlantis", "Unknown city 'Atlantis'.", is_error=True)]),
        Message.assistant("It's 18°C and sunny in Paris; I couldn't find Atlantis."),
        Message.user("Thanks!"),
    ])


# -- recorded responses ----------------------------------------------------------------

def test_spec_example_tool_call_arguments_with_newlines_parse():
    turn = chat.decode_response(fixture("openai_chat_tool_calls_response.spec_example.json"))
    assert turn.message.blocks == (
        ToolCall("call_abc123", "get_current_weather", {"location": "Boston, MA"}),)
    assert turn.stop_reason is StopReason.TOOL_USE
    assert turn.usage == Usage(input_tokens=82, output_tokens=17)
    assert turn.model == "gpt-4o-mini"


def test_recorded_parallel_calls_keep_their_order_and_usage():
    body = fixture("openai_chat_parallel_tool_calls_response.openai_python_recorded.json")
    turn = chat.decode_response(body)
    assert [(c.id, c.name) for c in turn.tool_calls] == [
        ("call_fdNz3vOBKYgOIpMdWotB9MjY", "GetWeatherArgs"),
        ("call_h1DWI1POMJLb0KwIyQHWXD4p", "get_stock_price")]
    assert turn.tool_calls[0].args == {"city": "Edinburgh", "country": "GB", "units": "c"}
    assert turn.tool_calls[1].args == {"ticker": "AAPL", "exchange": "NASDAQ"}
    assert turn.text == ""  # content null, refusal null: no text block
    assert turn.stop_reason is StopReason.TOOL_USE
    assert (turn.usage.input_tokens, turn.usage.output_tokens, turn.usage.reasoning_tokens) == (149, 60, 0)


def test_recorded_request_passes_the_checker_and_decodes():
    body = fixture("openai_chat_tool_calls_request.spec_example.json")
    assert chat.check_request(body) == []
    transcript, tools = chat.decode_request(body)
    assert shape(transcript) == (None, [("user", (TextBlock("What is the weather like in Boston today?"),))])
    assert [t.name for t in tools] == ["get_current_weather"]
    assert tools[0].input_schema["required"] == ["location"]
    again = chat.encode_request(transcript, tools, model=body["model"])
    assert again["messages"] == body["messages"]
    assert again["tools"] == body["tools"]
    with pytest.raises(UsageError, match="never runs it"):
        tools[0].function(location="Boston")


# -- encoding a request -----------------------------------------------------------------

def test_rich_transcript_encodes_to_a_valid_request():
    body = chat.encode_request(rich_transcript(), [get_weather, calculator], model="gpt-6.2-sol",
                               reasoning_effort="low", parallel_tool_calls=True)
    assert openapi_errors(body, "CreateChatCompletionRequest") == []
    assert chat.check_request(body) == []
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "tool",
                                                     "assistant", "user"]
    assert body["messages"][0] == {"role": "system", "content": "You are a weather assistant."}
    assert body["max_completion_tokens"] == 1024 and "max_tokens" not in body
    assert (body["reasoning_effort"], body["parallel_tool_calls"]) == ("low", True)
    assert body["tools"][0] == {"type": "function", "function": {
        "name": "get_weather", "description": get_weather.description,
        "parameters": dict(get_weather.input_schema)}}


def test_results_follow_the_assistant_one_tool_message_per_call_in_call_order():
    messages = chat.encode_request(rich_transcript(), model="m")["messages"]
    assistant = messages[2]
    assert assistant["content"] == "Let me look both up."
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_paris", "call_atlantis"]
    assert assistant["tool_calls"][0] == {"id": "call_paris", "type": "function", "function": {
        "name": "get_weather", "arguments": '{"city":"Paris"}'}}
    assert messages[3:5] == [
        {"role": "tool", "tool_call_id": "call_paris", "content": "18°C, sunny"},
        {"role": "tool", "tool_call_id": "call_atlantis", "content": "Error: Unknown city 'Atlantis'."},
    ]


def test_reasoning_is_never_sent_not_even_its_own():
    own = ReasoningBlock("thinking", provider=chat.PROVIDER_NAME)
    transcript = rich_transcript()
    transcript.append(Message.assistant(own, "Done."))
    text = json.dumps(chat.encode_request(transcript, model="m"))
    assert "Two cities" not in text and "EqQBCkYIBxgCKkD" not in text and "thinking" not in text


def test_results_with_text_become_tool_messages_then_a_user_message():
    transcript = Transcript(messages=[
        Message.user("Paris?"),
        Message.assistant(ToolCall("c1", "get_weather", {"city": "Paris"})),
        Message.user("And keep it short.", ToolResult("c1", "18°C, sunny")),
    ])
    body = chat.encode_request(transcript, model="m")
    assert body["messages"][2:] == [{"role": "tool", "tool_call_id": "c1", "content": "18°C, sunny"},
                                    {"role": "user", "content": "And keep it short."}]
    assert chat.check_request(body) == []


def test_assistant_with_only_calls_has_null_content_and_no_calls_no_key():
    calls_only = chat.encode_request(Transcript(messages=[
        Message.assistant(ToolCall("c1", "f", {}))]), model="m")["messages"][0]
    assert calls_only["content"] is None and calls_only["tool_calls"][0]["function"]["arguments"] == "{}"
    text_only = chat.encode_request(Transcript(messages=[Message.assistant("Hi")]), model="m")["messages"][0]
    assert text_only == {"role": "assistant", "content": "Hi"}


def test_malformed_arguments_are_replayed_verbatim():
    raw = '{"city": "Par'
    body = chat.encode_request(Transcript(messages=[
        Message.user("Paris?"), Message.assistant(ToolCall("c1", "get_weather", {}, raw_args=raw)),
        Message.results([ToolResult("c1", "arguments are not JSON", is_error=True)])]), model="m")
    assert body["messages"][1]["tool_calls"][0]["function"]["arguments"] == raw
    assert chat.check_request(body) == []


def test_max_tokens_field_is_an_option_for_local_servers():
    body = chat.encode_request(Transcript(messages=[Message.user("Hi")]), model="m", max_tokens=64,
                               max_tokens_field="max_tokens")
    assert body["max_tokens"] == 64 and "max_completion_tokens" not in body
    with pytest.raises(ValueError, match="max_tokens_field"):
        chat.encode_request(Transcript(), model="m", max_tokens_field="n_predict")


def test_no_tools_means_no_tools_key_and_no_parallel_flag():
    body = chat.encode_request(Transcript(messages=[Message.user("Hi")]), model="m",
                               parallel_tool_calls=False)
    assert "tools" not in body and "parallel_tool_calls" not in body
    assert openapi_errors(body, "CreateChatCompletionRequest") == []


# -- decoding a response: local-server quirks ----------------------------------------------

def test_tool_use_is_detected_from_tool_calls_even_with_finish_reason_stop():
    body = response({"content": "", "tool_calls": [{"id": "call_k3x9", "type": "function", "function": {
        "name": "get_weather", "arguments": '{"city":"Paris"}'}}]}, finish_reason="stop")
    turn = chat.decode_response(body)
    assert turn.stop_reason is StopReason.TOOL_USE
    assert turn.message.blocks == (ToolCall("call_k3x9", "get_weather", {"city": "Paris"}),)


@pytest.mark.parametrize(("finish_reason", "expected"), [
    ("stop", StopReason.END_TURN), ("length", StopReason.MAX_TOKENS),
    ("content_filter", StopReason.REFUSAL), ("tool_calls", StopReason.END_TURN)])
def test_finish_reasons_map_onto_stop_reasons(finish_reason, expected):
    assert chat.decode_response(response({"content": "x"}, finish_reason)).stop_reason is expected


def test_a_call_cut_off_by_the_limit_is_max_tokens_and_keeps_its_raw_arguments():
    body = response({"content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "get_weather", "arguments": '{"city": "Par'}}]}, finish_reason="length")
    turn = chat.decode_response(body)
    assert turn.stop_reason is StopReason.MAX_TOKENS
    assert turn.tool_calls[0].malformed and turn.tool_calls[0].raw_args == '{"city": "Par'


@pytest.mark.parametrize(("arguments", "args", "raw"), [
    ("", {}, None), ("  ", {}, None), ("[1, 2]", {}, "[1, 2]"), ("not json", {}, "not json"),
    ({"city": "Paris"}, {"city": "Paris"}, None)])
def test_arguments_are_parsed_defensively(arguments, args, raw):
    body = response({"content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}]})
    call = chat.decode_response(body).tool_calls[0]
    assert (dict(call.args), call.raw_args) == (args, raw)


def test_refusal_field_is_a_refusal_with_its_text():
    turn = chat.decode_response(response({"content": None, "refusal": "I can't help with that."}))
    assert turn.stop_reason is StopReason.REFUSAL
    assert turn.message.blocks == (TextBlock("I can't help with that."),)


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_local_reasoning_fields_become_a_reasoning_block_first(field):
    turn = chat.decode_response(response({"content": "Paris is sunny.", field: "Look it up."}, model="qwen3"))
    assert turn.message.blocks == (ReasoningBlock("Look it up.", provider="openai-chat", model="qwen3"),
                                   TextBlock("Paris is sunny."))
    assert not turn.message.reasoning[0].replayable_to("anthropic")


def test_think_tags_left_in_content_become_reasoning():
    turn = chat.decode_response(response({"content": "<think>\nThe user wants Paris.\n</think>\n\nSunny."}))
    assert turn.message.blocks == (ReasoningBlock("The user wants Paris.", provider="openai-chat",
                                                  model="local-model"), TextBlock("Sunny."))


def test_usage_details_map_onto_the_kit_convention():
    usage = {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
             "prompt_tokens_details": {"cached_tokens": 1920, "cache_write_tokens": 50},
             "completion_tokens_details": {"reasoning_tokens": 128}}
    assert chat.decode_response(response({"content": "x"}, usage=usage)).usage == Usage(
        input_tokens=2006, output_tokens=300, cache_read_tokens=1920, cache_write_tokens=50,
        reasoning_tokens=128)


@pytest.mark.parametrize("usage", [None, {"prompt_tokens": 5, "completion_tokens": 2},
                                   {"prompt_tokens": 5, "completion_tokens": 2,
                                    "prompt_tokens_details": None, "completion_tokens_details": None}])
def test_usage_and_its_details_are_optional(usage):
    expected = Usage() if usage is None else Usage(input_tokens=5, output_tokens=2)
    assert chat.decode_response(response({"content": "x"}, usage=usage)).usage == expected


def test_a_body_without_choices_is_an_error_not_a_crash():
    with pytest.raises(ValueError, match="no choices"):
        chat.decode_response({"model": "m", "choices": []})


# -- the API's rules ---------------------------------------------------------------------

def call_message(*ids):
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids]}


def tool_message(call_id):
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def problems_of(messages, tools=None):
    body = {"model": "m", "messages": messages}
    if tools is not None:
        body["tools"] = tools
    return [(p.path, p.text, p.param, p.code) for p in chat.check_request(body)]


USER = {"role": "user", "content": "Hi"}


def test_missing_tool_reply_is_flagged_at_the_assistant_message():
    assert problems_of([USER, call_message("call_a", "call_b"), tool_message("call_a"), USER]) == [
        ("messages.1", MISSING_REPLY + "call_b", "messages", None)]


def test_calls_left_unanswered_at_the_end_are_flagged():
    assert problems_of([USER, call_message("call_a", "call_b")]) == [
        ("messages.1", MISSING_REPLY + "call_a, call_b", "messages", None)]


def test_orphan_tool_message_is_flagged_with_the_apis_typo():
    assert problems_of([USER, tool_message("call_a")]) == [
        ("messages.1.role", ORPHAN, "messages.[1].role", None)]
    assert "preceeding" in ORPHAN


def test_tool_message_after_a_user_message_is_an_orphan_even_if_the_id_is_known():
    found = problems_of([USER, call_message("call_a"), USER, tool_message("call_a")])
    assert found == [("messages.1", MISSING_REPLY + "call_a", "messages", None),
                     ("messages.3.role", ORPHAN, "messages.[3].role", None)]


def test_duplicate_tool_message_is_flagged():
    assert problems_of([USER, call_message("call_a"), tool_message("call_a"), tool_message("call_a")]) == [
        ("messages.3.role", ORPHAN, "messages.[3].role", None)]


def test_tool_message_without_its_id_is_flagged_first_as_the_api_does():
    # issue 9: the API refuses the shape first and says only that; the pairing comes after.
    system = {"role": "system", "content": "Be brief."}
    found = problems_of([system, USER, call_message("call_a"), {"role": "tool", "content": "ok"}])
    assert found[0] == ("messages.3.tool_call_id", MISSING_ID, "messages.[3].tool_call_id", None)
    assert found[1:] == [("messages.2", MISSING_REPLY + "call_a", "messages", None)]


def test_shape_problems_come_before_conversation_rules():
    empty_calls = {"role": "assistant", "content": "x", "tool_calls": []}
    found = problems_of([USER, call_message("call_a"), USER, empty_calls])
    assert [path for path, *_ in found] == ["messages.3.tool_calls", "messages.1"]


def test_a_strict_function_with_an_open_schema_is_flagged():
    open_schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    tools = [{"type": "function", "function": {"name": "f", "parameters": open_schema, "strict": True}},
             {"type": "function", "function": {"name": "g", "parameters": open_schema}}]  # not strict
    assert problems_of([USER], tools) == [(
        "tools.0.function.parameters", "Invalid schema for function 'f': In context=(), "
        "'additionalProperties' is required to be supplied and to be false.",
        "tools[0].function.parameters", "invalid_function_parameters")]
    closed = {**open_schema, "additionalProperties": False}
    tools[0]["function"]["parameters"] = closed
    assert problems_of([USER], tools) == [(
        "tools.0.function.parameters", "Invalid schema for function 'f': In context=(), 'required' is "
        "required to be supplied and to be an array including every key in properties. Missing 'city'.",
        "tools[0].function.parameters", "invalid_function_parameters")]
    tools[0]["function"]["parameters"] = {**closed, "required": ["city"]}
    assert problems_of([USER], tools) == []


def test_arguments_nested_deeper_than_python_reads_are_a_malformed_call():
    deep = "[" * 5000
    turn = chat.decode_response({"model": "m", "choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": deep}}]}}]})
    assert turn.tool_calls[0].malformed and turn.tool_calls[0].raw_args == deep


def test_tool_message_answering_another_id_is_flagged():
    found = problems_of([USER, call_message("call_a"), tool_message("call_zzz")])
    assert found[1] == ("messages.2.tool_call_id",
                        "Invalid parameter: 'tool_call_id' of 'call_zzz' not found in 'tool_calls' of "
                        "previous message.", None, None)


@pytest.mark.parametrize("name", ["get weather", "wetter.abfragen", "", "météo"])
def test_tool_name_outside_the_pattern_is_flagged(name):
    tools = [{"type": "function", "function": {"name": "ok_tool"}},
             {"type": "function", "function": {"name": name}}]
    assert problems_of([USER], tools) == [(
        "tools.1.function.name",
        "Invalid 'tools[1].function.name': string does not match pattern. Expected a string that "
        "matches the pattern '^[a-zA-Z0-9_-]+$'.", "tools[1].function.name", "invalid_value")]


def test_tool_name_longer_than_64_is_flagged():
    tools = [{"type": "function", "function": {"name": "x" * 65}}]
    assert problems_of([USER], tools) == [(
        "tools.0.function.name",
        "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, "
        "but got a string with length 65 instead.", "tools[0].function.name", "string_above_max_length")]
    assert problems_of([USER], [{"type": "function", "function": {"name": "x" * 64}}]) == []


def test_empty_messages_array_is_flagged():
    assert problems_of([]) == [("messages", EMPTY_MESSAGES, "messages", "empty_array")]


def test_empty_tool_calls_array_is_flagged():
    message = {"role": "assistant", "content": "x", "tool_calls": []}
    assert problems_of([USER, message]) == [(
        "messages.1.tool_calls", "Invalid 'messages[1].tool_calls': empty array. Expected an array with "
        "minimum length 1, but got an empty array instead.", "messages[1].tool_calls", "empty_array")]


def test_empty_text_is_not_flagged():
    assert problems_of([{"role": "system", "content": ""}, {"role": "user", "content": ""},
                        {"role": "assistant", "content": ""}]) == []


def test_check_through_the_wire_registry():
    transcript = Transcript(messages=[Message.user("Hi"), Message.results([ToolResult("call_9", "18°C")])])
    assert [p.text for p in check(transcript, api="chat")] == [ORPHAN]


# -- the server side: encode_response and error_body ----------------------------------------

TURNS = [
    Turn(Message.assistant("It's 18°C and sunny in Paris."), "end_turn",
         Usage(input_tokens=300, output_tokens=12), "gpt-6-luna"),
    Turn(Message.assistant("Looking.", ToolCall("call_1", "get_weather", {"city": "Paris"}),
                           ToolCall("call_2", "get_weather", {"city": "Rome"})), "tool_use",
         Usage(input_tokens=2006, output_tokens=300, cache_read_tokens=1920, cache_write_tokens=50,
               reasoning_tokens=128), "gpt-6-luna"),
    Turn(Message.assistant(ToolCall("call_3", "get_weather", {}, raw_args='{"city": "Par')), "max_tokens",
         Usage(input_tokens=10, output_tokens=1024), "gpt-6-luna"),
    Turn(Message.assistant("I can't help with that."), "refusal", Usage(input_tokens=9, output_tokens=7),
         "gpt-6-luna"),
    Turn(Message.assistant(), "refusal", Usage(input_tokens=9), "gpt-6-luna"),
    Turn(Message.assistant(ReasoningBlock("Paris, then answer.", provider="openai-chat", model="qwen3:4b"),
                           "Sunny."), "end_turn", Usage(input_tokens=40, output_tokens=20), "qwen3:4b"),
]


@pytest.mark.parametrize("turn", TURNS, ids=lambda t: str(t.stop_reason))
def test_encode_response_is_a_valid_chat_completion_and_decodes_back(turn):
    body = chat.encode_response(turn, response_id="chatcmpl-test")
    assert openapi_errors(body, "CreateChatCompletionResponse") == []
    parsed = ChatCompletion.model_validate(body)
    assert parsed.id == "chatcmpl-test" and parsed.model == turn.model
    assert turn_shape(chat.decode_response(body)) == turn_shape(turn)


def test_error_body_has_openais_shape():
    body = chat.error_body(EMPTY_MESSAGES, param="messages", code="empty_array")
    assert openapi_errors(body, "ErrorResponse") == []
    assert body == {"error": {"message": EMPTY_MESSAGES, "type": "invalid_request_error",
                              "param": "messages", "code": "empty_array"}}
    assert chat.error_body("boom", status=500)["error"]["type"] == "server_error"
    assert chat.error_body("slow down", status=429, error_type="requests")["error"]["type"] == "requests"


# -- hypothesis: encode_request -> decode_request is the identity --------------------------

texts = st.text(min_size=1, max_size=20)
json_values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10),
                        st.lists(st.integers(), max_size=3))
argument_dicts = st.dictionaries(st.text(max_size=8), json_values, max_size=3)


def _not_json_object(text):
    try:
        return not isinstance(json.loads(text), dict)
    except ValueError:
        return True


raw_arguments = st.text(max_size=15).map(lambda s: "{" + s).filter(_not_json_object)
result_texts = st.text(max_size=20).filter(lambda s: not s.startswith(chat.ERROR_PREFIX))
tool_names = st.from_regex(r"[a-zA-Z0-9_-]{1,12}", fullmatch=True)


@st.composite
def conversations(draw):
    counter = iter(range(10_000))
    messages = []
    for _ in range(draw(st.integers(1, 3))):
        messages.append(Message.user(*draw(st.lists(texts, min_size=1, max_size=2))))
        for _ in range(draw(st.integers(0, 2))):
            calls = [ToolCall(f"call_{next(counter)}", draw(tool_names), draw(argument_dicts))
                     if draw(st.booleans()) else
                     ToolCall(f"call_{next(counter)}", draw(tool_names), {}, raw_args=draw(raw_arguments))
                     for _ in range(draw(st.integers(1, 3)))]
            messages.append(Message.assistant(*draw(st.lists(texts, max_size=2)), *calls))
            messages.append(Message.results([ToolResult(c.id, draw(result_texts), draw(st.booleans()))
                                             for c in calls]))
        if draw(st.booleans()):
            messages.append(Message.assistant(*draw(st.lists(texts, min_size=1, max_size=2))))
    return Transcript(draw(st.none() | texts), messages)


@st.composite
def tool_lists(draw):
    names = draw(st.lists(tool_names, max_size=3, unique=True))
    return [Tool(n, draw(st.text(max_size=20)), {"type": "object", "properties": {
        "x": {"type": "string"}}}, lambda **_: None) for n in names]


@settings(max_examples=examples(60))
@given(conversations(), tool_lists())
def test_encode_request_then_decode_request_round_trips(transcript, tools):
    body = chat.encode_request(transcript, tools, model="m")
    assert chat.check_request(body) == []
    assert openapi_errors(body, "CreateChatCompletionRequest") == []
    decoded, decoded_tools = chat.decode_request(body)
    assert shape(decoded) == shape(transcript)
    assert decoded_tools == tuple(tools)


def test_gpt_6_luna_takes_tools_on_chat_only_at_effort_none():
    """The model page: on Chat Completions, function calling only with reasoning effort "none"."""
    from toolcall_lab import OpenAIChatProvider

    t = Transcript(messages=[Message.user("Weather in Paris?")])
    body = chat.encode_request(t, [get_weather], model="gpt-6-luna")
    [problem] = chat.check_request(body)
    assert (problem.path, problem.code) == ("reasoning_effort", "unsupported_parameter")
    assert chat.check_request({**body, "reasoning_effort": "none"}) == []
    assert chat.check_request(chat.encode_request(t, [], model="gpt-6-luna")) == []  # no tools
    # the provider's default is valid for its default model: it asks for "none" with tools
    provider = OpenAIChatProvider(api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    encode = lambda tools: chat.encode_request(t, tools, model=provider.model, **provider._options(tools))
    assert encode((get_weather,))["reasoning_effort"] == "none"
    assert "reasoning_effort" not in encode(())


def test_a_lone_surrogate_in_a_calls_name_or_id_is_replaced_so_the_run_can_be_saved(tmp_path):
    # issue 19, item 6, in its own words: a Chat reply with "name": "get_weather\ud83d"
    text = ('{"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m", "choices": '
            '[{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, '
            '"tool_calls": [{"id": "call_1\\ud83d", "type": "function", "function": {"name": '
            '"get_weather\\ud83d", "arguments": "{\\"city\\": \\"Paris\\"}"}}]}}]}')
    body = ChatCompletion.model_validate(json.loads(text)).model_dump()  # what the SDK hands the kit
    [call] = chat.decode_response(body).tool_calls
    assert (call.id, call.name) == ("call_1\ufffd", "get_weather\ufffd")
    transcript = Transcript(messages=[Message.user("Weather in Paris?"), Message.assistant(call)])
    transcript.save(tmp_path / "run.json")
    assert Transcript.load(tmp_path / "run.json")[1].tool_calls == (call,)
