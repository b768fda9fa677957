"""The OpenAI Responses codec: recorded bodies decode right, requests validate, rules bite."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, same_turn
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
from toolcall_lab.errors import InvalidRequestError, RateLimitError, ServerError, UsageError
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import check, foreign_reasoning, responses

FUNCTION_CALL = "openai_responses_function_call_response.spec_example.json"
REASONING = "openai_responses_reasoning_encrypted_response.dotnet_recorded.json"


def blocks_of(transcript):
    return [(m.role, m.blocks) for m in transcript]


def recorded_reasoning():
    """The dotnet recording's reasoning block, encrypted_content and all."""
    return responses.decode_response(fixture(REASONING)).message.blocks[0]


def rich_transcript():
    """System, text, an OpenAI reasoning item, two parallel calls, one failed result."""
    return Transcript("Answer in one sentence.", [
        Message.user("What's the weather in Paris and in Atlantis?"),
        Message.assistant(recorded_reasoning(),
                          ToolCall("call_1", "get_weather", {"city": "Paris"}),
                          ToolCall("call_2", "get_weather", {"city": "Atlantis"})),
        Message.results([ToolResult("call_1", "18°C, sunny"),
                         ToolResult("call_2", "no weather data for 'Atlantis'", is_error=True)]),
        Message.assistant("Paris: 18°C and sunny; I have no data for Atlantis."),
        Message.user("Thanks!"),
    ])


# -- decoding recorded responses ---------------------------------------------------------
def test_spec_example_function_call_decodes_to_a_tool_use_turn():
    turn = responses.decode_response(fixture(FUNCTION_CALL))
    assert turn.tool_calls == (ToolCall("call_unLAR8MvFNptuiZK6K6HCy5k", "get_current_weather",
                                        {"location": "Boston, MA", "unit": "celsius"}),)
    assert turn.stop_reason is StopReason.TOOL_USE
    assert turn.usage == Usage(input_tokens=291, output_tokens=23)
    assert turn.model == "gpt-5.4"


def test_dotnet_recording_keeps_the_reasoning_item_verbatim():
    body = fixture(REASONING)
    turn = responses.decode_response(body)
    reasoning, text = turn.message.blocks
    assert isinstance(reasoning, ReasoningBlock)
    assert reasoning.provider == "openai" and reasoning.model == "gpt-5-mini-2025-08-07"
    assert reasoning.text == ""  # the summary is empty: only the encrypted form came back
    assert reasoning.opaque == body["output"][0]
    assert reasoning.opaque["encrypted_content"] == body["output"][0]["encrypted_content"]
    assert text == TextBlock("Hello! How can I help you today?")
    assert turn.stop_reason is StopReason.END_TURN
    assert turn.usage == Usage(input_tokens=10, output_tokens=15)


def test_decoded_opaque_is_a_copy_not_the_body():
    body = fixture(REASONING)
    reasoning = responses.decode_response(body).message.blocks[0]
    body["output"][0]["encrypted_content"] = "changed"
    assert reasoning.opaque["encrypted_content"].startswith("gAAAAABpMF_f")


def test_usage_reads_cache_and_reasoning_details():
    body = fixture(FUNCTION_CALL) | {"usage": {
        "input_tokens": 2000, "output_tokens": 900, "total_tokens": 2900,
        "input_tokens_details": {"cached_tokens": 1500, "cache_write_tokens": 300},
        "output_tokens_details": {"reasoning_tokens": 640}}}
    usage = responses.decode_response(body).usage
    assert usage == Usage(input_tokens=2000, output_tokens=900, cache_read_tokens=1500,
                          cache_write_tokens=300, reasoning_tokens=640)
    assert usage.uncached_input_tokens == 200  # OpenAI counts cached tokens inside input_tokens


def test_malformed_arguments_become_raw_args():
    body = fixture(FUNCTION_CALL)
    body["output"][0]["arguments"] = '{"location": "Bos'
    call = responses.decode_response(body).tool_calls[0]
    assert call.malformed and call.args == {} and call.raw_args == '{"location": "Bos'
    body["output"][0]["arguments"] = "[1, 2]"  # JSON, but not an object
    assert responses.decode_response(body).tool_calls[0].raw_args == "[1, 2]"


@pytest.mark.parametrize(("status", "details", "expected"), [
    ("incomplete", {"reason": "max_output_tokens"}, StopReason.MAX_TOKENS),
    ("incomplete", {"reason": "content_filter"}, StopReason.REFUSAL),
    ("completed", None, StopReason.TOOL_USE),
])
def test_stop_reason_comes_from_status(status, details, expected):
    body = fixture(FUNCTION_CALL) | {"status": status, "incomplete_details": details}
    assert responses.decode_response(body).stop_reason is expected


def test_a_reply_the_context_window_cut_off_is_sent_as_incomplete_not_completed():
    # OpenAI has no reason of its own for a full window (incomplete_details.reason is
    # max_output_tokens or content_filter, per the spec), so the double says the nearer one.
    turn = Turn(Message.assistant("It's 18°C and sun"), StopReason.CONTEXT_WINDOW_EXCEEDED, Usage(),
                "gpt-6-luna")
    body = responses.encode_response(turn, response_id="resp_1")
    assert (body["status"], body["incomplete_details"]) == ("incomplete", {"reason": "max_output_tokens"})
    assert responses.decode_response(body).stop_reason is StopReason.MAX_TOKENS


def test_a_refusal_part_is_text_and_a_refusal():
    body = fixture(REASONING)
    body["output"][1]["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
    turn = responses.decode_response(body)
    assert turn.text == "I can't help with that." and turn.stop_reason is StopReason.REFUSAL


@pytest.mark.parametrize(("code", "error"), [("server_error", ServerError),
                                             ("rate_limit_exceeded", RateLimitError),
                                             ("invalid_prompt", InvalidRequestError)])
def test_a_failed_response_raises_the_kits_error(code, error):
    body = fixture(FUNCTION_CALL) | {"status": "failed",
                                     "error": {"code": code, "message": "Something broke."}}
    with pytest.raises(error, match=f"{code}: Something broke"):
        responses.decode_response(body)


def test_an_unfinished_response_is_not_a_turn():
    with pytest.raises(ValueError, match="'in_progress'"):
        responses.decode_response(fixture(FUNCTION_CALL) | {"status": "in_progress"})


# -- encoding requests ---------------------------------------------------------------------
def test_rich_transcript_encodes_to_a_valid_request():
    body = responses.encode_request(rich_transcript(), [get_weather], model="gpt-6-luna")
    assert openapi_errors(body, "CreateResponse") == []
    assert responses.check_request(body) == []
    assert body["instructions"] == "Answer in one sentence."
    assert [(i["type"], i.get("role")) for i in body["input"]] == [
        ("message", "user"), ("reasoning", None), ("function_call", None), ("function_call", None),
        ("function_call_output", None), ("function_call_output", None),
        ("message", "assistant"), ("message", "user")]
    assert body["input"][0]["content"] == [
        {"type": "input_text", "text": "What's the weather in Paris and in Atlantis?"}]
    assert body["input"][2] == {"type": "function_call", "call_id": "call_1", "name": "get_weather",
                                "arguments": '{"city":"Paris"}'}
    assert body["input"][5]["output"] == "Error: no weather data for 'Atlantis'"
    assert body["input"][6] == {"type": "message", "role": "assistant",
                                "content": "Paris: 18°C and sunny; I have no data for Atlantis."}
    assert body["max_output_tokens"] == 1024 and body["store"] is False
    assert "reasoning" not in body and "include" not in body


def test_tools_say_strict_false_out_loud():
    body = responses.encode_request(Transcript(messages=[Message.user("Hi")]), [get_weather],
                                    model="m")
    (spec,) = body["tools"]
    assert spec == {"type": "function", "name": "get_weather", "description": get_weather.description,
                    "parameters": dict(get_weather.input_schema), "strict": False}


def test_reasoning_is_replayed_byte_for_byte():
    recorded = fixture(REASONING)["output"][0]
    body = responses.encode_request(rich_transcript(), model="gpt-6-luna")
    replayed = body["input"][1]
    assert replayed == recorded
    assert json.dumps(replayed) == json.dumps(recorded)  # same keys, same order, same bytes
    assert replayed["encrypted_content"] == recorded["encrypted_content"]


def test_foreign_reasoning_is_dropped():
    claude = ReasoningBlock("Paris, so call get_weather.", "anthropic", "claude-haiku-5-5",
                            {"signature": "EqQBCkYIBxgCKkD..."})
    nameless = ReasoningBlock("made up by hand")  # no provider: nobody can verify it
    transcript = Transcript(messages=[
        Message.user("Weather in Paris?"),
        Message.assistant(claude, nameless, ToolCall("call_1", "get_weather", {"city": "Paris"})),
        Message.results([ToolResult("call_1", "18°C, sunny")])])
    body = responses.encode_request(transcript, model="gpt-6-luna")
    assert [i["type"] for i in body["input"]] == ["message", "function_call", "function_call_output"]
    assert responses.check_request(body) == []


def test_malformed_call_is_replayed_with_its_raw_text():
    call = ToolCall("call_1", "get_weather", {}, raw_args='{"city": "Par')
    body = responses.encode_request(
        Transcript(messages=[Message.user("Hi"), Message.assistant(call),
                             Message.results([ToolResult("call_1", "bad JSON", is_error=True)])]),
        model="m")
    assert body["input"][1]["arguments"] == '{"city": "Par'


def test_reasoning_effort_asks_for_encrypted_content_when_nothing_is_stored():
    transcript = Transcript(messages=[Message.user("Hi")])
    body = responses.encode_request(transcript, model="gpt-6-luna", reasoning_effort="low")
    assert body["reasoning"] == {"effort": "low"}
    assert body["include"] == ["reasoning.encrypted_content"] and body["store"] is False
    assert openapi_errors(body, "CreateResponse") == []
    stored = responses.encode_request(transcript, model="gpt-6-luna", reasoning_effort="low", store=True)
    assert "include" not in stored and stored["store"] is True


# -- the API's rules ---------------------------------------------------------------------
def only(problems):
    assert len(problems) == 1, problems
    return problems[0]


def test_a_call_without_its_output_is_flagged():
    transcript = Transcript(messages=[
        Message.user("Weather in Paris?"),
        Message.assistant(ToolCall("call_1", "get_weather", {"city": "Paris"}))])
    problem = only(check(transcript, api="responses"))
    assert (problem.path, problem.param, problem.code) == ("input.1", "input", None)
    assert problem.text == "No tool output found for function call call_1."


def test_an_output_without_its_call_is_flagged():
    transcript = Transcript(messages=[Message.user("Hi"), Message.assistant("Hello!"),
                                      Message.results([ToolResult("call_TnakLSVsqtVt5cJssAhRwMoe", "18°C")])])
    problem = only(check(transcript, api="responses"))
    assert (problem.path, problem.param) == ("input.2", "input")
    assert problem.text == ("No tool call found for function call output with call_id "
                            "call_TnakLSVsqtVt5cJssAhRwMoe.")


def test_an_output_before_its_call_is_flagged():
    body = {"model": "m", "input": [
        {"type": "function_call_output", "call_id": "call_1", "output": "18°C"},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}]}
    texts = [p.text for p in responses.check_request(body)]
    assert texts == ["No tool call found for function call output with call_id call_1.",
                     "No tool output found for function call call_1."]


def test_pairing_is_not_checked_against_a_stored_conversation():
    body = {"model": "m", "previous_response_id": "resp_1", "input": [
        {"type": "function_call_output", "call_id": "call_1", "output": "18°C"}]}
    assert responses.check_request(body) == []


def test_reasoning_without_what_followed_it_is_flagged():
    reasoning = recorded_reasoning()
    transcript = Transcript(messages=[Message.user("Hi"), Message.assistant(reasoning),
                                      Message.user("Hello?")])
    problem = only(check(transcript, api="responses"))
    assert problem.path == "input.1" and problem.param == "input"
    assert problem.text == (f"Item '{reasoning.opaque['id']}' of type 'reasoning' was provided "
                            "without its required following item.")
    last = Transcript(messages=[Message.user("Hi"), Message.assistant(reasoning)])
    assert only(check(last, api="responses")).text == problem.text


def test_stateless_reasoning_without_encrypted_content_is_dropped_and_refused_if_sent():
    item = {"type": "reasoning", "id": "rs_1", "summary": []}  # came back without include
    reasoning = ReasoningBlock("", "openai", "gpt-6-luna", item)
    transcript = Transcript(messages=[Message.user("Hi"), Message.assistant(reasoning, "Hello!")])
    body = responses.encode_request(transcript, model="gpt-6-luna")  # store: false
    assert [i["type"] for i in body["input"]] == ["message", "message"]
    assert responses.check_request(body) == []
    [dropped] = foreign_reasoning(transcript, "responses")
    assert (dropped.message, dropped.block) == (1, reasoning)
    assert dropped.why == responses.why_dropped(reasoning) == (
        "no encrypted_content, and with store: false the API would not find the item by its id")
    # With store: true the API looks the item up by its id, so it goes back as it came.
    assert responses.encode_request(transcript, model="gpt-6-luna", store=True)["input"][1] == item
    assert check(transcript, api="responses", store=True) == []
    assert foreign_reasoning(transcript, "openai", store=True) == []
    # A body that sends it anyway with store: false is refused in the API's words.
    body["input"].insert(1, item)
    problem = only(responses.check_request(body))
    assert problem.path == "input.1"
    assert problem.text == ("Item with id 'rs_1' not found. Items are not persisted when `store` is "
                            "set to false. Try again with `store` set to true, or remove this item "
                            "from your input.")


def test_a_block_without_its_item_is_dropped_whatever_store_says():
    bare = ReasoningBlock("a summary, but no item", "openai", "gpt-6-luna")
    transcript = Transcript(messages=[Message.user("Hi"), Message.assistant(bare, "Hello!")])
    for store in (False, True):
        body = responses.encode_request(transcript, model="gpt-6-luna", store=store)
        assert [i["type"] for i in body["input"]] == ["message", "message"]
    assert [d.why for d in foreign_reasoning(transcript, "responses", store=True)] == [
        "no reasoning item came with it: nothing OpenAI could find or verify"]


def test_tampered_sealed_reasoning_is_flagged_and_foreign_content_is_not():
    sealed = responses.seal_reasoning("Paris is in the table; call get_weather.")
    item = {"type": "reasoning", "id": "rs_9", "summary": [], "encrypted_content": sealed}
    good = ReasoningBlock("", "openai", "gpt-6-luna", item)
    tampered_value = sealed[:20] + ("A" if sealed[20] != "A" else "B") + sealed[21:]
    bad = ReasoningBlock("", "openai", "gpt-6-luna", item | {"encrypted_content": tampered_value})

    def transcript(block):
        return Transcript(messages=[Message.user("Hi"), Message.assistant(block, "Hello!")])

    assert check(transcript(good), api="responses") == []
    assert check(transcript(recorded_reasoning()), api="responses") == []  # OpenAI's own: not ours to judge
    problem = only(check(transcript(bad), api="responses"))
    assert (problem.path, problem.param, problem.code) == (
        "input.1.encrypted_content", None, "invalid_encrypted_content")
    assert problem.text == f"The encrypted content {tampered_value} could not be verified."


def test_a_bad_tool_name_is_flagged_in_the_chat_wording():
    body = {"model": "m", "input": "Hi", "tools": [
        {"type": "function", "name": "get_weather", "parameters": None, "strict": False},
        {"type": "function", "name": "get weather", "parameters": None, "strict": False}]}
    problem = only(responses.check_request(body))
    assert (problem.path, problem.param, problem.code) == ("tools.1.name", "tools[1].name",
                                                           "invalid_value")
    assert problem.text == ("Invalid 'tools[1].name': string does not match pattern. Expected a "
                            "string that matches the pattern '^[a-zA-Z0-9_-]+$'.")


def test_empty_input_and_empty_text_are_not_rejected():
    # No documented error for either (wire_facts §2): the checker invents none.
    assert responses.check_request({"model": "m", "input": []}) == []
    assert check(Transcript(messages=[Message.user("")]), api="responses") == []


# -- sealing ---------------------------------------------------------------------------------
def test_seal_round_trips_and_refuses_foreign_or_altered_values():
    sealed = responses.seal_reasoning("naïve café ☕")
    assert sealed.startswith("gAAAA") and responses.unseal_reasoning(sealed) == "naïve café ☕"
    assert responses.unseal_reasoning(recorded_reasoning().opaque["encrypted_content"]) is None
    assert responses.unseal_reasoning(sealed + "x") is None
    assert responses.unseal_reasoning(None) is None


# -- the server side -------------------------------------------------------------------------
def reasoning_item(text, item_id="rs_1"):
    return {"type": "reasoning", "id": item_id, "summary": [{"type": "summary_text", "text": text}],
            "encrypted_content": responses.seal_reasoning(text)}


TURNS = [
    Turn(Message.assistant("It's 18°C and sunny in Paris."), StopReason.END_TURN,
         Usage(120, 12), "gpt-6-luna"),
    Turn(Message.assistant(ReasoningBlock("Two cities: two calls.", "openai", "gpt-6-luna",
                                          reasoning_item("Two cities: two calls.")),
                           "Checking both.",
                           ToolCall("call_1", "get_weather", {"city": "Paris"}),
                           ToolCall("call_2", "get_weather", {"city": "Tokyo"})),
         StopReason.TOOL_USE, Usage(2000, 300, cache_read_tokens=1500, cache_write_tokens=200,
                                    reasoning_tokens=250), "gpt-6-luna"),
    Turn(Message.assistant(ToolCall("call_3", "get_weather", {}, raw_args='{"city": "Pa')),
         StopReason.MAX_TOKENS, Usage(50, 16), "gpt-6-luna"),
    Turn(Message.assistant("Paris is", "in France"), StopReason.MAX_TOKENS, Usage(50, 16), "gpt-6-luna"),
    Turn(Message.assistant("I can't help with that."), StopReason.REFUSAL, Usage(30, 6), "gpt-6-luna"),
    Turn(Message.assistant(), StopReason.REFUSAL, Usage(30, 0), "gpt-6-luna"),
]


@pytest.mark.parametrize("turn", TURNS, ids=lambda t: str(t.stop_reason))
def test_encode_response_is_what_the_sdk_and_the_spec_accept(turn):
    from openai.types.responses import Response

    body = responses.encode_response(turn, response_id="resp_test", created_at=1764777949)
    parsed = Response.model_validate(body)
    assert parsed.id == "resp_test" and parsed.model == "gpt-6-luna"
    assert openapi_errors(body, "Response") == []
    assert same_turn(responses.decode_response(body), turn)


def test_encode_response_echoes_the_request_and_mints_sealed_reasoning():
    from openai.types.responses import Response

    request = responses.encode_request(rich_transcript(), [get_weather], model="gpt-6-luna",
                                       reasoning_effort="low")
    turn = Turn(Message.assistant(ReasoningBlock("Say thanks back."), "You're welcome!"),
                StopReason.END_TURN, Usage(400, 20, reasoning_tokens=8), "gpt-6-luna")
    body = responses.encode_response(turn, response_id="resp_2", request=request)
    assert Response.model_validate(body).instructions == "Answer in one sentence."
    assert openapi_errors(body, "Response") == []
    assert body["tools"] == request["tools"] and body["store"] is False
    item = body["output"][0]
    assert responses.unseal_reasoning(item["encrypted_content"]) == "Say thanks back."
    reasoning = responses.decode_response(body).message.blocks[0]
    assert (reasoning.text, reasoning.provider, reasoning.opaque) == ("Say thanks back.", "openai", item)


def test_decode_request_reads_what_encode_request_wrote():
    request = responses.encode_request(rich_transcript(), [get_weather], model="gpt-6-luna")
    transcript, tools = responses.decode_request(request)
    original = rich_transcript()
    assert transcript.system == original.system
    reasoning = original[1].blocks[0]
    expected = blocks_of(original)
    # A reasoning block read from a request has no model: the request does not say which made it.
    expected[1] = ("assistant", (ReasoningBlock(reasoning.text, "openai", None, reasoning.opaque),
                                 *original[1].blocks[1:]))
    assert blocks_of(transcript) == expected
    assert tools == (get_weather,)
    with pytest.raises(UsageError, match="never runs it"):
        tools[0].function(city="Paris")


def test_decode_request_reads_the_other_spellings():
    body = {"model": "m", "instructions": "Be brief.", "input": [
        {"role": "developer", "content": "Answer in French."},
        {"role": "user", "content": "Hi"},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
         "content": [{"type": "output_text", "text": "Bonjour", "annotations": [], "logprobs": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1",
         "output": [{"type": "input_text", "text": "done"}]}]}
    transcript, tools = responses.decode_request(body)
    assert transcript.system == "Be brief.\n\nAnswer in French."
    assert blocks_of(transcript) == [("user", (TextBlock("Hi"),)),
                                     ("assistant", (TextBlock("Bonjour"), ToolCall("c1", "f", {}))),
                                     ("user", (ToolResult("c1", "done"),))]
    assert tools == ()
    assert blocks_of(responses.decode_request({"model": "m", "input": "Hi"})[0]) == [
        ("user", (TextBlock("Hi"),))]


def test_decode_request_names_what_it_cannot_read():
    # issue 13: web_search_call items and the web_search tool are read now; file search is not
    with pytest.raises(ValueError, match="'file_search_call'"):
        responses.decode_request({"model": "m", "input": [{"type": "file_search_call", "id": "fs_1"}]})
    with pytest.raises(ValueError, match="function tools only"):
        responses.decode_request({"model": "m", "input": "Hi", "tools": [{"type": "file_search"}]})


@pytest.mark.parametrize(("status", "error_type"), [(400, "invalid_request_error"),
                                                    (401, "invalid_request_error"),
                                                    (429, "requests"), (500, "server_error")])
def test_error_body_is_openais_error_shape(status, error_type):
    body = responses.error_body("Something is off.", status=status, param="input", code="x")
    assert openapi_errors(body, "ErrorResponse") == []
    assert body == {"error": {"message": "Something is off.", "type": error_type, "param": "input",
                              "code": "x"}}
    assert responses.error_body("m", error_type="tokens", status=429)["error"]["type"] == "tokens"


# -- round trip, for any transcript ----------------------------------------------------------
texts = st.text(max_size=20)
json_values = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), texts)
call_ids = st.text("abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12).map("call_".__add__)
names = st.text("abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=16)


def _not_a_json_object(text):
    try:
        return not isinstance(json.loads(text), dict)
    except ValueError:
        return True


calls = st.one_of(
    st.builds(ToolCall, call_ids, names, st.dictionaries(texts, json_values, max_size=3)),
    st.builds(lambda i, n, raw: ToolCall(i, n, {}, raw_args=raw), call_ids, names,
              texts.filter(_not_a_json_object)))
results = st.builds(ToolResult, call_ids,
                    texts.filter(lambda t: not t.startswith(responses.ERROR_PREFIX)), st.booleans())
reasonings = st.builds(lambda text, n: ReasoningBlock(text, "openai", None, reasoning_item(text, f"rs_{n}")),
                       texts, st.integers(0, 99))
user_blocks = st.lists(st.one_of(texts.map(TextBlock), results), min_size=1, max_size=4)
assistant_blocks = st.lists(st.one_of(texts.map(TextBlock), calls, reasonings), min_size=1, max_size=4)


@st.composite
def transcripts(draw):
    count = draw(st.integers(0, 6))
    messages = [Message("user", tuple(draw(user_blocks))) if i % 2 == 0
                else Message("assistant", tuple(draw(assistant_blocks))) for i in range(count)]
    return Transcript(draw(st.none() | texts), messages)


@settings(max_examples=examples(150))
@given(transcripts())
def test_decode_request_inverts_encode_request(transcript):
    body = responses.encode_request(transcript, [get_weather], model="gpt-6-luna")
    decoded, tools = responses.decode_request(json.loads(json.dumps(body)))  # as it crosses the wire
    assert decoded.system == transcript.system
    assert blocks_of(decoded) == blocks_of(transcript)
    assert tools == (get_weather,)
    responses.check_request(body)  # never crashes, whatever the transcript


def test_tool_round_trip_keeps_name_description_and_schema():
    spec = Tool("lookup", "Find a thing.", {"type": "object", "properties": {"q": {"type": "string"}}},
                lambda q: q)
    body = responses.encode_request(Transcript(messages=[Message.user("Hi")]), [spec], model="m")
    assert responses.decode_request(body)[1] == (spec,)


# -- issue 9: shapes the API refuses before it reads the conversation ----------------------

def user_item(text="Hi"):
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def call_item(call_id, **extra):
    return {"type": "function_call", "call_id": call_id, "name": "f", "arguments": "{}", **extra}


def output_item(call_id):
    return {"type": "function_call_output", "call_id": call_id, "output": "ok"}


def test_max_output_tokens_below_16_is_flagged_in_the_apis_words():
    found = responses.check_request({"model": "m", "input": "Hi", "max_output_tokens": 10})
    assert [(p.path, p.text, p.param, p.code) for p in found] == [(
        "max_output_tokens", "Invalid 'max_output_tokens': integer below minimum value. Expected a value "
        ">= 16, but got 10 instead.", "max_output_tokens", "integer_below_min_value")]
    assert responses.check_request({"model": "m", "input": "Hi", "max_output_tokens": 16}) == []


def test_a_call_id_longer_than_64_is_flagged_on_the_call_and_its_output():
    long_id = "call_" + "x" * 60  # 65 characters, as another provider's ids can be
    found = responses.check_request({"model": "m", "input": [
        user_item(), call_item(long_id), output_item(long_id)]})
    assert [(p.path, p.param, p.code) for p in found] == [
        ("input.1.call_id", "input[1].call_id", "string_above_max_length"),
        ("input.2.call_id", "input[2].call_id", "string_above_max_length")]
    assert found[0].text == ("Invalid 'input[1].call_id': string too long. Expected a string with maximum "
                             "length 64, but got a string with length 65 instead.")


def test_an_empty_call_id_is_flagged_as_too_short():
    found = responses.check_request({"model": "m", "input": [user_item(), call_item(""), output_item("")]})
    assert [(p.param, p.code) for p in found] == [("input[1].call_id", "string_below_min_length"),
                                                  ("input[2].call_id", "string_below_min_length")]


@pytest.mark.parametrize("api, body, param", [
    ("responses", {"model": "m", "input": "Hi", "reasoning": {"effort": "extreme"}}, "reasoning.effort"),
    ("chat", {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "reasoning_effort": "extreme"},
     "reasoning_effort")])
def test_an_effort_outside_the_apis_values_is_flagged(api, body, param):
    from toolcall_lab.wire import check_request
    found = check_request(body, api=api)
    assert [(p.path, p.param, p.code) for p in found] == [(param, param, "invalid_value")]
    assert found[0].text == ("Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', "
                             "'medium', 'high', 'xhigh', and 'max'.")


def test_a_strict_tool_with_an_open_schema_is_flagged():
    open_schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    nested = {"type": "object", "additionalProperties": False, "required": ["place"],
              "properties": {"place": {"type": "object", "properties": {}}}}
    # `strict` left out passes: OpenAI's spec example sends an open schema without it.
    tools = [{"type": "function", "name": "f", "parameters": open_schema, "strict": True},
             {"type": "function", "name": "g", "parameters": open_schema},
             {"type": "function", "name": "h", "parameters": nested, "strict": True}]
    found = responses.check_request({"model": "m", "input": "Hi", "tools": tools})
    assert [(p.path, p.text, p.code) for p in found] == [
        ("tools.0.parameters", "Invalid schema for function 'f': In context=(), 'additionalProperties' is "
         "required to be supplied and to be false.", "invalid_function_parameters"),
        ("tools.2.parameters", "Invalid schema for function 'h': In context=('properties', 'place'), "
         "'additionalProperties' is required to be supplied and to be false.", "invalid_function_parameters")]


def test_a_strict_tool_must_list_every_property_in_required():
    # The recorded 400 (kevinwatt/mysql-mcp#5): an optional parameter is a property left out of
    # `required`, and strict mode names the first one missing, nested objects included.
    optional = {"type": "object", "additionalProperties": False, "required": ["sql"],
                "properties": {"sql": {"type": "string"}, "params": {"type": "array"}}}
    where = {"type": "object", "additionalProperties": False, "properties": {"city": {"type": "string"}}}
    inner = {"type": "object", "additionalProperties": False, "required": ["where"],
             "properties": {"where": where}}
    tools = [{"type": "function", "name": "mysql_execute", "parameters": optional, "strict": True},
             {"type": "function", "name": "g", "parameters": inner, "strict": True}]
    found = responses.check_request({"model": "m", "input": "Hi", "tools": tools})
    assert [(p.param, p.text) for p in found] == [
        ("tools[0].parameters", "Invalid schema for function 'mysql_execute': In context=(), 'required' is "
         "required to be supplied and to be an array including every key in properties. Missing 'params'."),
        ("tools[1].parameters", "Invalid schema for function 'g': In context=('properties', 'where'), "
         "'required' is required to be supplied and to be an array including every key in properties. "
         "Missing 'city'.")]


def test_strict_tools_built_by_the_kit_pass_the_check_and_are_sent_strict():
    from typing import Literal

    from toolcall_lab import Transcript, tool

    @tool(strict=True)
    def forecast(city: str, days: int = 3, unit: Literal["C", "F"] = "C") -> str:
        """A forecast."""
        return city

    body = responses.encode_request(Transcript(messages=[Message.user("Hi")]), [forecast], model="m")
    assert body["tools"][0]["strict"] is True
    assert responses.check_request(body) == []
    assert openapi_errors(body, "CreateResponse") == []
    decoded = responses.decode_request(body)[1][0]
    assert decoded.strict and decoded.input_schema == forecast.input_schema


def test_a_replayed_fc_item_without_its_reasoning_item_is_flagged():
    without = {"model": "gpt-6-luna", "input": [user_item(), call_item("call_1", id="fc_1"),
                                                output_item("call_1")]}
    found = responses.check_request(without)
    assert [(p.path, p.param, p.text) for p in found] == [(
        "input.1", "input", "Item 'fc_1' of type 'function_call' was provided without its required "
        "'reasoning' item.")]
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA..."}
    with_it = {**without, "input": [user_item(), reasoning, call_item("call_1", id="fc_1"),
                                    call_item("call_2", id="fc_2"), output_item("call_1"),
                                    output_item("call_2")]}
    assert responses.check_request(with_it) == []
    # No fc_ id (what the kit sends), or a model that does not reason: nothing to pair.
    assert responses.check_request({**without, "input": [user_item(), call_item("call_1"),
                                                         output_item("call_1")]}) == []
    assert responses.check_request({**without, "model": "gpt-4o"}) == []


def test_a_turn_of_thousands_of_parallel_calls_is_paired_call_by_call():
    # Issue 19 item 12: the pairing is one pass (benchmarks/wire_check_scale.py times it);
    # at this size it must still name exactly the call left unanswered and the orphaned one.
    n = 3000
    calls = [call_item(f"call_{i}", id=f"fc_{i}") for i in range(n)]
    outputs = [output_item(f"call_{i}") for i in range(n) if i != 1234]
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    body = {"model": "gpt-6-luna", "input": [user_item(), reasoning, *calls, *outputs, user_item(),
                                             call_item("call_late", id="fc_late"), output_item("call_late")]}
    found = [(p.path, p.text) for p in responses.check_request(body)]
    assert found == [("input.1236", "No tool output found for function call call_1234."),
                     ("input.6002", "Item 'fc_late' of type 'function_call' was provided without its "
                                    "required 'reasoning' item.")]


def test_shape_problems_come_before_conversation_rules():
    found = responses.check_request({"model": "m", "max_output_tokens": 8,
                                     "input": [user_item(), call_item("call_1")]})
    assert [p.param for p in found] == ["max_output_tokens", "input"]


def test_arguments_nested_deeper_than_python_reads_are_a_malformed_call():
    deep = "[" * 5000
    turn = responses.decode_response({"model": "m", "status": "completed", "output": [
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": deep}]})
    assert turn.tool_calls[0].malformed and turn.tool_calls[0].raw_args == deep
