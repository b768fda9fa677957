"""The Anthropic Messages codec: recorded bodies, a rich transcript, the API's rules, round trips."""

from __future__ import annotations

import json

import anthropic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from schemas import anthropic_request_errors, fixture
from toolcall_lab import Message, ReasoningBlock, StopReason, TextBlock, ToolCall, ToolResult, Transcript
from toolcall_lab.blocks import ServerToolCall
from toolcall_lab.errors import UsageError
from toolcall_lab.tools import get_weather
from toolcall_lab.turn import Turn
from toolcall_lab.usage import Usage
from toolcall_lab.wire import anthropic as wire

MODEL = "claude-haiku-5-5"
#: A model that still takes manual thinking budgets and assistant prefill (models.RULES).
OLD = "claude-haiku-4-5"
SIGNATURE = "EqQBCkgIARABGAIiQL2/real+signature+bytes=="


def rich_transcript(model: str = MODEL) -> Transcript:
    """System prompt, text, reasoning (by `model`) before two parallel calls, results with one error."""
    thinking = ReasoningBlock("Two cities: call get_weather twice.", provider="anthropic", model=model,
                              opaque={"signature": SIGNATURE})
    return Transcript(system="You are a weather assistant.", messages=[
        Message.user("Weather in Paris and Atlantis?"),
        Message.assistant(thinking, "Let me check both.",
                          ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
                          ToolCall("toolu_02", "get_weather", {"city": "Atlantis"})),
        Message.results([ToolResult("toolu_01", "18°C, sunny"),
                         ToolResult("toolu_02", "no weather data for 'Atlantis'", is_error=True)]),
    ])


def body_of(*messages, **extra):
    return {"model": MODEL, "max_tokens": 1024, "messages": list(messages), **extra}


def user(*blocks):
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks):
    return {"role": "assistant", "content": list(blocks)}


def text(t):
    return {"type": "text", "text": t}


def use(id_):
    return {"type": "tool_use", "id": id_, "name": "get_weather", "input": {"city": "Paris"}}


def result(id_):
    return {"type": "tool_result", "tool_use_id": id_, "content": "18°C"}


def only(problems):
    assert len(problems) == 1, problems
    return problems[0]


# -- decoding recorded responses ------------------------------------------------------------

def test_recorded_tool_use_response_decodes():
    turn = wire.decode_response(fixture("anthropic_messages_tool_use_response.sdk_recorded.json"))
    (call,) = turn.tool_calls
    assert (call.id, call.name, dict(call.args)) == ("toolu_013DU6hV4C1M8dJ32ybQFAFi", "get_weather",
                                                     {"location": "SF", "units": "c"})
    assert turn.stop_reason is StopReason.TOOL_USE
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (597, 71)
    assert turn.model == "claude-haiku-4-5-20251001"


def test_documented_thinking_response_decodes_in_order():
    body = {"model": MODEL, "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1},
            **fixture("anthropic_thinking_tool_use_response_content.docs.json")}
    thinking, words, call = wire.decode_response(body).message.blocks
    raw = body["content"][0]
    assert thinking == ReasoningBlock(raw["thinking"], "anthropic", MODEL, {"signature": raw["signature"]})
    assert words == TextBlock(body["content"][1]["text"])
    assert (call.id, dict(call.args)) == ("toolu_01CswdEQBMshySk6Y9DFKrfq", {"location": "Paris"})


def test_redacted_thinking_and_unknown_blocks():
    body = {"model": MODEL, "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va=="},
                        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
                        {"type": "container_upload", "file_id": "file_1"},
                        text("Done.")]}
    redacted, server, other, done = wire.decode_response(body).message.blocks
    assert redacted == ReasoningBlock("", "anthropic", MODEL, {"redacted": "EmwKAhgBEgy3va=="})
    # issue 9: the server tool block is kept verbatim, so the turn replays as it came; issue 13
    # gives it a kind of its own (a tool the provider ran), still carrying the block verbatim.
    assert server == ServerToolCall("srvtoolu_1", "web_search", {}, "anthropic", body["content"][1])
    # a block the kit has no kind for still rides verbatim in a ReasoningBlock
    assert other == ReasoningBlock("", "anthropic", MODEL, {"block": body["content"][2]})
    assert done == TextBlock("Done.")
    t = Transcript(messages=[Message.user("Go"), wire.decode_response(body).message, Message.user("More")])
    assert wire.encode_request(t, model=MODEL)["messages"][1]["content"] == body["content"]


@pytest.mark.parametrize(("wire_reason", "kit"), [
    ("end_turn", StopReason.END_TURN), ("tool_use", StopReason.TOOL_USE),
    ("max_tokens", StopReason.MAX_TOKENS), ("stop_sequence", StopReason.STOP_SEQUENCE),
    ("refusal", StopReason.REFUSAL), ("pause_turn", StopReason.PAUSE_TURN),
    ("model_context_window_exceeded", StopReason.CONTEXT_WINDOW_EXCEEDED)])
def test_stop_reasons(wire_reason, kit):
    body = {"model": MODEL, "stop_reason": wire_reason, "content": [],
            "usage": {"input_tokens": 1, "output_tokens": 0}}
    assert wire.decode_response(body).stop_reason is kit


def test_usage_with_cache_is_normalised():
    # input_tokens = 10 uncached + 300 read + 50 written = 360; thinking is part of output
    usage = wire.decode_response({"model": MODEL, "stop_reason": "end_turn", "content": [], "usage": {
        "input_tokens": 10, "cache_read_input_tokens": 300, "cache_creation_input_tokens": 50,
        "output_tokens": 40, "output_tokens_details": {"thinking_tokens": 25}}}).usage
    assert usage == Usage(input_tokens=360, output_tokens=40, cache_read_tokens=300,
                          cache_write_tokens=50, reasoning_tokens=25)
    assert usage.uncached_input_tokens == 10


@pytest.mark.parametrize("arguments", ['{"city": "Par', "[1, 2]", "", 42, ["Paris"], None])
def test_malformed_arguments_never_crash(arguments):
    body = {"model": MODEL, "stop_reason": "max_tokens", "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": arguments}]}
    (call,) = wire.decode_response(body).tool_calls
    assert call.malformed and dict(call.args) == {}
    assert call.raw_args == (arguments if isinstance(arguments, str) else json.dumps(arguments))


def test_arguments_as_a_json_string_are_read():
    body = {"model": MODEL, "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                         "input": '{"city": "Paris"}'}]}
    (call,) = wire.decode_response(body).tool_calls
    assert dict(call.args) == {"city": "Paris"} and not call.malformed


# -- encoding requests ------------------------------------------------------------------------

@pytest.mark.parametrize(("model", "options", "config"), [
    (MODEL, {"thinking": "adaptive", "effort": "low"}, {"type": "adaptive"}),
    (OLD, {"thinking": 2048}, {"type": "enabled", "budget_tokens": 2048})])
def test_rich_transcript_encodes_to_a_valid_request(model, options, config):
    body = wire.encode_request(rich_transcript(model), [get_weather], model=model, max_tokens=4096, **options)
    assert anthropic_request_errors(body) == []
    assert wire.check_request(body) == []
    assert body["system"] == "You are a weather assistant."
    assert body["tools"] == [get_weather.spec()]
    assert body["thinking"] == config
    assert body.get("output_config") == ({"effort": "low"} if "effort" in options else None)
    calls = body["messages"][1]["content"]
    assert [b["type"] for b in calls] == ["thinking", "text", "tool_use", "tool_use"]
    assert calls[0] == {"type": "thinking", "thinking": "Two cities: call get_weather twice.",
                        "signature": SIGNATURE}
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "18°C, sunny"},
        {"type": "tool_result", "tool_use_id": "toolu_02", "content": "no weather data for 'Atlantis'",
         "is_error": True}]


def test_rich_transcript_without_thinking_also_valid():
    body = wire.encode_request(rich_transcript(), [get_weather], model=MODEL)
    assert "thinking" not in body
    assert anthropic_request_errors(body) == [] and wire.check_request(body) == []


def test_foreign_reasoning_is_dropped():
    foreign = ReasoningBlock("summary", provider="openai", opaque={"id": "rs_1", "encrypted_content": "gAAA"})
    t = Transcript(messages=[Message.user("Hi"), Message.assistant(foreign, "Hello!")])
    body = wire.encode_request(t, model=MODEL)
    assert body["messages"][1]["content"] == [text("Hello!")]


def test_thinking_from_another_model_is_not_replayed():
    """A thinking block goes back only to the model that wrote it (a dated snapshot counts)."""
    opus = ReasoningBlock("Paris: look it up.", "anthropic", "claude-opus-5", {"signature": SIGNATURE})
    opus_redacted = ReasoningBlock("", "anthropic", "claude-opus-5", {"redacted": "EmwKAhgBEgy3va=="})
    haiku = ReasoningBlock("Tokyo too.", "anthropic", "claude-haiku-5-5-20261007", {"signature": "sig-2"})
    unnamed = ReasoningBlock("hand-made", "anthropic", None, {"signature": "sig-3"})
    t = Transcript(messages=[
        Message.user("Paris?"), Message.assistant(opus, opus_redacted, "18°C in Paris."),
        Message.user("Tokyo?"), Message.assistant(haiku, unnamed, "22°C in Tokyo."),
        Message.user("Thanks!")])

    def kinds(model):
        body = wire.encode_request(t, model=model)
        return [[block["type"] for block in body["messages"][i]["content"]] for i in (1, 3)]

    assert kinds("claude-haiku-5-5") == [["text"], ["thinking", "thinking", "text"]]
    assert kinds("claude-opus-5") == [["thinking", "redacted_thinking", "text"], ["thinking", "text"]]
    assert kinds("claude-opus-5-20260724") == kinds("claude-opus-5")
    assert wire.why_dropped(opus_redacted, model="claude-haiku-5-5") == (
        "written by claude-opus-5, not by claude-haiku-5-5: thinking goes back only to its model")
    assert wire.why_dropped(haiku, model="claude-haiku-5-5") is None
    assert wire.why_dropped(opus) is None  # no model named: only the provider is judged


def test_a_programmatic_call_goes_back_whichever_model_continues():
    server = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution", "input": {}}
    carrier = ReasoningBlock("", "anthropic", "claude-opus-5", {"block": server})
    t = Transcript(messages=[Message.user("Run it."), Message.assistant(carrier, "Done."),
                             Message.user("Thanks!")])
    content = wire.encode_request(t, model="claude-haiku-5-5")["messages"][1]["content"]
    assert content == [server, text("Done.")]
    assert wire.why_dropped(carrier, model="claude-haiku-5-5") is None


def test_redacted_reasoning_is_replayed_verbatim():
    block = ReasoningBlock("", provider="anthropic", opaque={"redacted": "EmwKAhgBEgy3va=="})
    t = Transcript(messages=[Message.user("Hi"), Message.assistant(block, "Hello!")])
    content = wire.encode_request(t, model=MODEL)["messages"][1]["content"]
    assert content[0] == {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va=="}


def test_same_role_messages_are_not_merged():
    t = Transcript(messages=[Message.user("one"), Message.user("two")])
    assert len(wire.encode_request(t, model=MODEL)["messages"]) == 2


def test_thinking_and_effort_options():
    t = Transcript(messages=[Message.user("Hi")])
    assert wire.encode_request(t, model=MODEL, thinking="adaptive")["thinking"] == {"type": "adaptive"}
    assert wire.encode_request(t, model=MODEL, stop_sequences=["END"])["stop_sequences"] == ["END"]
    with pytest.raises(ValueError, match="thinking must be"):
        wire.encode_request(t, model=MODEL, thinking=True)
    body = wire.encode_request(t, model=MODEL, thinking="adaptive", effort="high")
    assert body["output_config"] == {"effort": "high"}
    assert wire.encode_request(t, model=MODEL, thinking="disabled")["thinking"] == {"type": "disabled"}
    with pytest.raises(ValueError, match="effort must be one of low, medium, high, xhigh, max"):
        wire.encode_request(t, model=MODEL, effort="extreme")


# -- what the API rejects -----------------------------------------------------------------------

def test_recorded_400_is_reproduced_exactly():
    expected = fixture("anthropic_error_tool_result_without_tool_use.body.json")["error"]["message"]
    t = Transcript(messages=[Message.user("What's the weather?"),
                             Message.results([ToolResult("toolu_01GHndag5wQmbzNihYmV2UBj", "18°C")])])
    problem = only(wire.check_request(wire.encode_request(t, model=MODEL)))
    assert problem.text == expected
    assert problem.path == "messages.0.content.1" and problem.api == "anthropic"


def test_tool_use_without_result_after_it():
    body = body_of(user(text("Hi")), assistant(use("toolu_A"), use("toolu_B")), user(result("toolu_A")),
                   assistant(text("ok")), user(text("and?")))
    problem = only(wire.check_request(body))
    assert problem.path == "messages.1"
    assert problem.text == ("messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
                            "after: toolu_B. Each `tool_use` block must have a corresponding `tool_result` "
                            "block in the next message.")


def test_tool_results_not_first():
    # A text message squeezed between the calls and their results merges into one user message.
    body = body_of(user(text("Hi")), assistant(use("toolu_A")), user(text("wait")), user(result("toolu_A")))
    problem = only(wire.check_request(body))
    assert problem.path == "messages.2"
    assert problem.text == ("messages.2: Did not find 1 `tool_result` block(s) at the beginning of this "
                            "message. Messages following `tool_use` blocks must begin with a matching "
                            "number of `tool_result` blocks.")


def test_text_after_results_is_fine():
    body = body_of(user(text("Hi")), assistant(use("toolu_A")), user(result("toolu_A")), user(text("thanks")))
    assert wire.check_request(body) == []


THINKING_ERROR = (
    "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When "
    "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
    "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from "
    "previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking")


@pytest.mark.parametrize(("first", "found"), [(use("toolu_A"), "tool_use"), (text("Let me see."), "text")])
@pytest.mark.parametrize("config", [{"type": "enabled", "budget_tokens": 1024}, {"type": "adaptive"}])
def test_thinking_missing_in_a_tool_loop(first, found, config):
    blocks = [first] if first["type"] == "tool_use" else [first, use("toolu_A")]
    body = body_of(user(text("Hi")), assistant(*blocks), user(result("toolu_A")),
                   thinking=config, max_tokens=4096, model=OLD if config["type"] == "enabled" else MODEL)
    problem = only(wire.check_request(body))
    assert problem.path == "messages.1.content.0.type"
    assert problem.text == THINKING_ERROR.format(found=found)


def test_a_later_step_of_a_tool_loop_needs_no_thinking_of_its_own():
    # After a tool_result Claude writes no new thinking until the next question, so the second
    # call of a loop starts with tool_use; the turn's first message holds the thinking (the
    # cookbook's "multiple tool calls with thinking" run was accepted in exactly this shape).
    thinking = {"type": "thinking", "thinking": "Weather, then news.", "signature": SIGNATURE}
    body = body_of(user(text("Weather and news?")), assistant(thinking, use("toolu_A")),
                   user(result("toolu_A")), assistant(use("toolu_B")), user(result("toolu_B")),
                   thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=4096, model=OLD)
    assert wire.check_request(body) == []
    body["messages"][1]["content"] = [use("toolu_A")]  # the turn's thinking dropped: refused
    problem = only(wire.check_request(body))
    assert problem.path == "messages.1.content.0.type"
    assert problem.text == THINKING_ERROR.format(found="tool_use")


def test_modified_thinking_earlier_in_the_same_tool_loop():
    signature = wire.sign_thinking("Weather, then news.")
    thinking = {"type": "thinking", "thinking": "Weather, then NEWS.", "signature": signature}
    body = body_of(user(text("Weather and news?")), assistant(thinking, use("toolu_A")),
                   user(result("toolu_A")), assistant(use("toolu_B")), user(result("toolu_B")),
                   thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=4096, model=OLD)
    problem = only(wire.check_request(body))
    assert problem.path == "messages.1.content.0"
    assert "cannot be modified" in problem.text


def test_thinking_missing_is_fine_when_thinking_is_off():
    body = body_of(user(text("Hi")), assistant(use("toolu_A")), user(result("toolu_A")))
    assert wire.check_request(body) == []


def test_modified_thinking_from_the_double():
    signature = wire.sign_thinking("I will call get_weather.")
    thinking = {"type": "thinking", "thinking": "I will call get_weather!", "signature": signature}
    body = body_of(user(text("Hi")), assistant(text("Sure."), thinking, use("toolu_A")),
                   user(result("toolu_A")))
    problem = only(wire.check_request(body))
    assert problem.path == "messages.1.content.1"
    assert problem.text == ("messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest "
                            "assistant message cannot be modified. These blocks must remain as they were "
                            "in the original response.")
    thinking["thinking"] = "I will call get_weather."  # put back as it was
    assert wire.check_request(body) == []


def test_foreign_signature_is_not_judged_and_empty_one_is_invalid():
    real = {"type": "thinking", "thinking": "anything", "signature": SIGNATURE}
    # (on a model that takes an assistant prefill: Haiku 5.5 would refuse the last turn anyway)
    assert wire.check_request(body_of(user(text("Hi")), assistant(real, text("Hello")), model=OLD)) == []
    unsigned = {"type": "thinking", "thinking": "anything", "signature": ""}
    problem = only(wire.check_request(body_of(user(text("Hi")), assistant(unsigned, text("Hello")),
                                              model=OLD)))
    assert (problem.path, problem.text) == (
        "messages.1.content.0", "messages.1.content.0: Invalid `signature` in `thinking` block")


def test_signatures():
    signature = wire.sign_thinking("abc")
    assert wire.signature_is_ours(signature) and not wire.signature_is_ours(SIGNATURE)
    assert wire.verify_thinking("abc", signature)
    assert not wire.verify_thinking("abd", signature) and not wire.verify_thinking("abc", SIGNATURE)
    assert signature == wire.sign_thinking("abc")  # deterministic: a fixed, public key


@pytest.mark.parametrize(("content", "expected"), [
    ("", "messages: text content blocks must be non-empty"),
    ("  \n", "messages: text content blocks must contain non-whitespace text")])
def test_empty_and_blank_text(content, expected):
    problem = only(wire.check_request(body_of(user(text(content)))))
    assert (problem.path, problem.text) == ("messages", expected)


def test_empty_message_content():
    body = body_of(user(text("Hi")), assistant(), user(text("Hello?")))
    problem = only(wire.check_request(body))
    assert (problem.path, problem.text) == ("messages.1", "messages.1: all messages must have non-empty "
                                            "content except for the optional final assistant message")
    # a final one may be empty, on a model that takes a prefill
    assert wire.check_request(body_of(user(text("Hi")), assistant(), model=OLD)) == []


def test_tool_name_pattern():
    bad = {"name": "get weather", "description": "", "input_schema": {"type": "object"}}
    problem = only(wire.check_request(body_of(user(text("Hi")), tools=[get_weather.spec(), bad])))
    assert (problem.path, problem.text) == (
        "tools.1.custom.name", "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'")


def test_thinking_budget_rules():
    low = only(wire.check_request(body_of(user(text("Hi")),
                                          thinking={"type": "enabled", "budget_tokens": 512}, model=OLD)))
    assert low.text == "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    over = only(wire.check_request(body_of(user(text("Hi")), max_tokens=1024,
                                           thinking={"type": "enabled", "budget_tokens": 1024},
                                           model=OLD)))
    assert over.path == "max_tokens"
    assert over.text.startswith("`max_tokens` must be greater than `thinking.budget_tokens`.")


def test_the_shared_check_helper_uses_this_codec():
    from toolcall_lab.wire import check

    t = Transcript(messages=[Message.user("Hi"), Message.assistant("Hello!"),
                             Message.results([ToolResult("toolu_9", "18°C")])])
    (problem,) = check(t, api="anthropic")
    assert problem.path == "messages.2.content.0"


# -- the server side ------------------------------------------------------------------------------

def rich_turn() -> Turn:
    thinking = ReasoningBlock("Paris: one call.", provider="anthropic", model=MODEL,
                              opaque={"signature": wire.sign_thinking("Paris: one call.")})
    redacted = ReasoningBlock("", provider="anthropic", model=MODEL, opaque={"redacted": "EmwKAhgB"})
    message = Message.assistant(thinking, redacted, "Checking.",
                                ToolCall("toolu_01", "get_weather", {"city": "Paris"}))
    usage = Usage(input_tokens=360, output_tokens=40, cache_read_tokens=300, cache_write_tokens=50,
                  reasoning_tokens=25)
    return Turn(message, StopReason.TOOL_USE, usage, MODEL)


@pytest.mark.parametrize("stop", list(StopReason))
def test_encode_response_parses_with_the_sdk_and_round_trips(stop):
    turn = Turn(rich_turn().message, stop, rich_turn().usage, MODEL)
    body = wire.encode_response(turn, response_id="msg_double_0001")
    parsed = anthropic.types.Message.model_validate(body)
    assert parsed.id == "msg_double_0001" and parsed.usage.input_tokens == 10
    assert (parsed.usage.cache_read_input_tokens, parsed.usage.cache_creation_input_tokens) == (300, 50)
    back = wire.decode_response(body)
    assert back.message.blocks == turn.message.blocks
    assert (back.stop_reason, back.usage, back.model) == (stop, turn.usage, MODEL)


def test_encode_response_signs_unsigned_reasoning():
    turn = Turn(Message.assistant(ReasoningBlock("hmm"), "Hi"), StopReason.END_TURN, Usage(1, 1), MODEL)
    thinking = wire.encode_response(turn, response_id="msg_1")["content"][0]
    assert wire.verify_thinking("hmm", thinking["signature"])


def test_decode_request_reads_what_encode_request_wrote():
    body = wire.encode_request(rich_transcript(), [get_weather], model=MODEL, max_tokens=4096, thinking=2048)
    transcript, tools = wire.decode_request(body)
    assert transcript.system == "You are a weather assistant."
    expected = [(m.role, m.blocks) for m in rich_transcript()]
    # Reasoning comes back without its model: a request does not say which model wrote it.
    expected[1] = ("assistant", (ReasoningBlock("Two cities: call get_weather twice.", "anthropic", None,
                                                {"signature": SIGNATURE}), *expected[1][1][1:]))
    assert [(m.role, m.blocks) for m in transcript] == expected
    (weather,) = tools
    assert weather.spec() == get_weather.spec()
    with pytest.raises(UsageError, match="never runs it"):
        weather(city="Paris")


def test_decode_request_lenient_forms():
    body = body_of({"role": "user", "content": "Hi"},
                   user({"type": "image", "source": {}}, result("toolu_1")),
                   system=[text("Be brief."), text("Be kind.")])
    body["messages"][1]["content"][1]["content"] = [text("18°C"), text("sunny")]
    transcript, _ = wire.decode_request(body)
    assert transcript.system == "Be brief.\nBe kind."
    assert transcript[0].blocks == (TextBlock("Hi"),)
    assert transcript[1].blocks == (ToolResult("toolu_1", "18°C\nsunny"),)


@pytest.mark.parametrize(("status", "kind"), [(400, "invalid_request_error"), (401, "authentication_error"),
                                              (403, "permission_error"), (404, "not_found_error"),
                                              (429, "rate_limit_error"), (500, "api_error"),
                                              (529, "overloaded_error")])
def test_error_body(status, kind):
    body = wire.error_body("Something is wrong.", status=status)
    assert body["type"] == "error"
    assert body["error"] == {"type": kind, "message": "Something is wrong."}
    assert body == wire.error_body("Something is wrong.", status=status)  # deterministic request_id
    assert body["request_id"].startswith("req_")
    assert wire.error_body("x", error_type="billing_error")["error"]["type"] == "billing_error"


def test_error_body_shape_matches_the_recorded_one():
    recorded = fixture("anthropic_error_tool_result_without_tool_use.body.json")
    made = wire.error_body(recorded["error"]["message"])
    assert made.keys() == recorded.keys() and made["error"] == recorded["error"]


# -- round trip property ----------------------------------------------------------------------------

words = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=20)
ids = st.from_regex(r"toolu_[A-Za-z0-9]{1,8}", fullmatch=True)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3), max_leaves=6)
reasoning = st.one_of(
    st.builds(lambda t, s: ReasoningBlock(t, "anthropic", None, {"signature": s}), words, words),
    st.builds(lambda d: ReasoningBlock("", "anthropic", None, {"redacted": d}), words))
assistant_blocks = st.lists(st.one_of(st.builds(TextBlock, words), reasoning,
                                      st.builds(ToolCall, ids, st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
                                                st.dictionaries(words, json_values, max_size=3))), max_size=4)
user_blocks = st.lists(st.one_of(st.builds(TextBlock, words),
                                 st.builds(ToolResult, ids, st.text(max_size=20), st.booleans())), max_size=4)
messages = st.lists(st.one_of(st.builds(lambda b: Message("user", tuple(b)), user_blocks),
                              st.builds(lambda b: Message("assistant", tuple(b)), assistant_blocks)),
                    max_size=5)


@settings(max_examples=examples(150))
@given(system=st.none() | words, conversation=messages)
def test_encode_then_decode_request_gives_the_transcript_back(system, conversation):
    body = wire.encode_request(Transcript(system, conversation), model=MODEL)
    assert anthropic_request_errors(body) == []
    transcript, tools = wire.decode_request(body)
    assert transcript.system == system and tools == ()
    assert [(m.role, m.blocks) for m in transcript] == [(m.role, m.blocks) for m in conversation]


@pytest.mark.parametrize("body", [{"hello": "world"}, fixture("anthropic_error_rate_limit_429.body.json"),
                                  {"type": "message", "content": None}])
def test_a_body_that_is_not_a_message_is_refused(body):
    with pytest.raises(ValueError, match="expected a Messages API reply"):
        wire.decode_response(body)


# -- rules that depend on the model (models.RULES) ------------------------------------------------
USE_ADAPTIVE = 'Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'


def test_manual_thinking_on_haiku_5_5_is_refused_in_the_apis_words():
    body = body_of(user(text("Hi")), thinking={"type": "enabled", "budget_tokens": 2048}, max_tokens=4096)
    problem = only(wire.check_request(body))
    assert (problem.path, problem.text) == (
        "thinking.type", f'"thinking.type.enabled" is not supported for this model. {USE_ADAPTIVE}')
    # a dated snapshot id is its family; the adaptive spelling passes
    assert only(wire.check_request({**body, "model": "claude-haiku-5-5-20261007"})) == problem
    assert wire.check_request({**body, "thinking": {"type": "adaptive"},
                               "output_config": {"effort": "low"}}) == []


def test_budget_thinking_is_fine_on_haiku_4_5_which_has_no_adaptive_mode():
    body = body_of(user(text("Hi")), thinking={"type": "enabled", "budget_tokens": 2048}, max_tokens=4096,
                   model=OLD)
    assert wire.check_request(body) == []
    adaptive = only(wire.check_request({**body, "thinking": {"type": "adaptive"}}))
    assert adaptive.path == "thinking.type" and "thinking.type.adaptive" in adaptive.text
    effort = only(wire.check_request({**body, "output_config": {"effort": "low"}}))
    assert effort.path == "output_config.effort"


@pytest.mark.parametrize(("model", "mode", "refused"), [
    ("claude-opus-5-5", "disabled", True), ("claude-opus-5-5", "between_tools", True),
    ("claude-sonnet-5-5", "disabled", True), ("claude-sonnet-5-5", "between_tools", False),
    ("claude-haiku-5-5", "disabled", False), ("claude-opus-5", "disabled", False),
    ("claude-opus-5", "enabled", True), ("some-future-model", "enabled", False)])
def test_thinking_modes_per_model(model, mode, refused):
    thinking = {"type": mode, **({"budget_tokens": 1024} if mode == "enabled" else {})}
    problems = wire.check_request(body_of(user(text("Hi")), model=model, thinking=thinking, max_tokens=4096))
    assert bool(problems) == refused
    if mode == "disabled" and refused:
        assert problems[0].text == f'"thinking.type.disabled" is not supported for this model. {USE_ADAPTIVE}'


def test_thinking_cannot_be_disabled_at_the_top_efforts():
    body = body_of(user(text("Hi")), thinking={"type": "disabled"}, output_config={"effort": "high"})
    assert wire.check_request(body) == []
    body["output_config"] = {"effort": "max"}
    assert only(wire.check_request(body)).path == "thinking.type"


@pytest.mark.parametrize("name", ["temperature", "top_p", "top_k"])
def test_sampling_parameters_on_models_that_refuse_them(name):
    problem = only(wire.check_request(body_of(user(text("Hi")), **{name: 0.5})))
    assert (problem.path, problem.text) == (name, f"`{name}` is deprecated for this model.")
    assert wire.check_request(body_of(user(text("Hi")), temperature=1.0)) == []  # the default is fine
    assert wire.check_request(body_of(user(text("Hi")), model=OLD, **{name: 0.5})) == []


def test_haiku_4_5_takes_temperature_or_top_p_not_both_and_temperature_1_with_thinking():
    both = only(wire.check_request(body_of(user(text("Hi")), model=OLD, temperature=0.5, top_p=0.9)))
    assert both.text.startswith("`temperature` and `top_p` cannot both be specified for this model.")
    hot = only(wire.check_request(body_of(user(text("Hi")), model=OLD, temperature=0.5, max_tokens=4096,
                                          thinking={"type": "enabled", "budget_tokens": 1024})))
    assert hot.text.startswith("`temperature` may only be set to 1 when thinking is enabled.")


def test_assistant_prefill_is_refused_where_the_model_refuses_it():
    body = body_of(user(text("Classify: great product")), assistant(text("{")))
    problem = only(wire.check_request(body))
    assert (problem.path, problem.text) == ("messages.1", "This model does not support assistant message "
                                            "prefill. The conversation must end with a user message.")
    assert wire.check_request({**body, "model": OLD}) == []


def test_a_paused_turn_sent_back_to_continue_is_not_a_prefill():
    # pause_turn: "Send the assistant content back to continue" (handling-stop-reasons), so a
    # conversation ending in the paused reply, server tool blocks and all, is not refused.
    search = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
              "input": {"query": "weather Paris"}}
    body = body_of(user(text("Weather in Paris?")), assistant(text("Let me search."), search))
    assert wire.check_request(body) == []


@pytest.mark.parametrize(("model", "thinking", "refused"), [
    (OLD, {"type": "enabled", "budget_tokens": 1024}, True), (OLD, None, False),
    (MODEL, {"type": "adaptive"}, True), (MODEL, None, False),
    ("claude-opus-5-5", None, True), ("claude-sonnet-5-5", None, True)])
def test_forced_tool_choice(model, thinking, refused):
    body = body_of(user(text("Weather?")), model=model, max_tokens=4096, tools=[get_weather.spec()],
                   tool_choice={"type": "tool", "name": "get_weather"},
                   **({"thinking": thinking} if thinking else {}))
    problems = wire.check_request(body)
    assert [(p.path, p.text) for p in problems] == (
        [("tool_choice", "Thinking may not be enabled when tool_choice forces tool use.")] if refused else [])
    assert wire.check_request({**body, "tool_choice": {"type": "auto"}}) == []


# -- issue 9: rules the checker let through, and what decoding lost -------------------------

DUPLICATE = "each tool_use must have a single result. Found multiple `tool_result` blocks with id: "


def test_a_tool_use_answered_twice_is_flagged():
    found = only(wire.check_request(body_of(user(text("Weather?")), assistant(use("toolu_1")),
                                            user(result("toolu_1"), result("toolu_1")))))
    assert (found.path, found.text) == ("messages.2.content.1",
                                        "messages.2.content.1: " + DUPLICATE + "toolu_1")
    # Two user messages in a row are one message to the API: the second answer is content.1 too.
    merged = only(wire.check_request(body_of(user(text("Weather?")), assistant(use("toolu_1")),
                                             user(result("toolu_1")), user(result("toolu_1")))))
    assert merged.path == "messages.2.content.1"


def test_temperature_other_than_1_with_thinking_is_flagged_on_any_model():
    thinking = {"type": "enabled", "budget_tokens": 1024}
    hot = only(wire.check_request(body_of(user(text("Hi")), model="some-claude", temperature=0.5,
                                          max_tokens=4096, thinking=thinking)))
    assert (hot.path, hot.text.split(". ")[0]) == (
        "temperature", "`temperature` may only be set to 1 when thinking is enabled")
    assert wire.check_request(body_of(user(text("Hi")), model="some-claude", temperature=1.0,
                                      max_tokens=4096, thinking=thinking)) == []


def programmatic_response():
    """A programmatic tool call, in the shape of the docs' example (platform.claude.com/docs/en/
    agents-and-tools/tool-use/programmatic-tool-calling): Claude's code, run in a container,
    calls a client tool; the tool_use says who called it (`caller`). Not a recording."""
    return {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "I'll query the regions in one script."},
            {"type": "server_tool_use", "id": "srvtoolu_abc123", "name": "code_execution",
             "input": {"code": "results = [await query_database(r) for r in ('West', 'East')]"}},
            {"type": "tool_use", "id": "toolu_def456", "name": "query_database",
             "input": {"sql": "SELECT revenue FROM sales WHERE region = 'West'"},
             "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_abc123"}},
        ],
        "container": {"id": "container_xyz789", "expires_at": "2026-01-15T14:30:00Z"},
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 150, "output_tokens": 75},
    }


def test_a_programmatic_tool_call_replays_as_it_came():
    body = programmatic_response()
    turn = wire.decode_response(body)
    call = turn.tool_calls[0]
    assert (call.id, call.name, turn.stop_reason) == ("toolu_def456", "query_database", StopReason.TOOL_USE)
    transcript = Transcript(messages=[Message.user("Which region sold most?"), turn.message,
                                      Message.results([ToolResult("toolu_def456", "[[1200]]")])])
    request = wire.encode_request(transcript, model="claude-sonnet-4-5")
    assert request["messages"][1]["content"] == body["content"]
    assert request["container"] == "container_xyz789"
    assert wire.check_request(request) == []
    assert anthropic_request_errors(request) == []


def test_server_tool_results_replay_verbatim_and_the_latest_container_wins():
    first = wire.decode_response(programmatic_response())
    container = {"id": "container_2", "expires_at": "2026-01-15T15:00:00Z"}
    later = {**programmatic_response(), "container": container,
             "stop_reason": "end_turn", "content": [
                 {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_abc123",
                  "content": {"type": "code_execution_result", "stdout": "West", "stderr": "",
                              "return_code": 0, "content": []}},
                 {"type": "text", "text": "West sold most."}]}
    second = wire.decode_response(later)
    assert second.text == "West sold most."
    transcript = Transcript(messages=[Message.user("Which region?"), first.message,
                                      Message.results([ToolResult("toolu_def456", "[[1200]]")]),
                                      second.message, Message.user("Thanks")])
    request = wire.encode_request(transcript, model="claude-sonnet-4-5")
    assert request["messages"][3]["content"] == later["content"]
    assert request["container"] == "container_2"


def test_a_programmatic_turn_is_not_replayed_to_another_api():
    from toolcall_lab.wire import chat, responses
    turn = wire.decode_response(programmatic_response())
    transcript = Transcript(messages=[Message.user("Which region?"), turn.message,
                                      Message.results([ToolResult("toolu_def456", "[[1200]]")])])
    items = responses.encode_request(transcript, model="gpt-6-luna")["input"]
    assert [i["type"] for i in items] == ["message", "message", "function_call", "function_call_output"]
    assert "container" not in chat.encode_request(transcript, model="gpt-6-luna")


def test_string_input_nested_deeper_than_python_reads_is_a_malformed_call():
    deep = "[" * 5000
    turn = wire.decode_response({"type": "message", "model": "m", "stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": deep}]})
    assert turn.tool_calls[0].malformed and turn.tool_calls[0].raw_args == deep


# -- preserved thinking: a thinking block is bound to what came before it --------------------------
def _bound_loop(model=MODEL):
    """Two questions on `model` as the double answered them: each reply's thinking signed and bound."""
    from toolcall_lab.wire.anthropic.server import encode_response

    body = body_of(user(text("Paris?")), model=model, thinking={"type": "adaptive"})
    for question, call_id in (("Paris?", "toolu_1"), ("And Tokyo?", "toolu_2")):
        if question != "Paris?":
            body["messages"].append(user(text(question)))
        thought = Turn(Message.assistant(ReasoningBlock(f"{question} look it up."),
                                         ToolCall(call_id, "get_weather", {"city": "Paris"})),
                       StopReason.TOOL_USE, Usage(10, 5), model)
        reply = encode_response(thought, response_id="r", request=body)
        body["messages"].append({"role": "assistant", "content": reply["content"]})
        body["messages"] += [user(result(call_id)), assistant(text("18°C."))]
    body["messages"].append(user(text("And Rome?")))
    return body  # messages: 0 q, 1 [thinking, tool_use], 2 result, 3 answer, 4 q, 5 [thinking, ...], ...


BOUND = ('{path}: Invalid `signature` in `thinking` block. The block is bound to a different conversation. '
         'Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".')


def test_an_append_only_conversation_keeps_its_bound_thinking_valid():
    body = _bound_loop()
    assert wire.binding_of(body["messages"][1]["content"][0]["signature"])  # bound, by the double
    assert wire.check_request(body) == []


def test_an_edit_before_bound_thinking_is_refused_in_the_apis_words():
    # The text: platform.claude.com/docs/en/build-with-claude/preserved-thinking/
    # fix-bound-to-a-different-conversation. The thinking before the edit stays valid.
    body = _bound_loop()
    body["messages"][2]["content"][0]["content"] = "[redacted]"  # a redacted tool result
    problem = only(wire.check_request(body))
    assert problem.path == "messages.5.content.0"
    assert problem.text == BOUND.format(path="messages.5.content.0")
    body = _bound_loop()
    body["system"] = "Today is Tuesday."  # a rebuilt system prompt: every block's prefix changed
    assert only(wire.check_request(body)).path == "messages.1.content.0"


def test_drop_block_lets_the_edited_request_through():
    body = _bound_loop()
    body["messages"][2]["content"][0]["content"] = "[redacted]"
    body["thinking"]["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
    assert wire.check_request(body) == []


def test_only_models_with_preserved_thinking_bind_it():
    for model in ("claude-opus-5", OLD):
        body = _bound_loop(model)
        body["messages"][2]["content"][0]["content"] = "[redacted]"
        body.pop("thinking")  # (Haiku 4.5 takes no adaptive thinking; the rule is about the model)
        assert wire.check_request(body) == [], model


def test_cache_marks_and_response_only_fields_are_not_part_of_the_prefix():
    body = _bound_loop()
    body["messages"][2]["content"][0]["cache_control"] = {"type": "ephemeral"}
    body["messages"][1]["content"][1]["caller"] = {"type": "direct"}
    body["system"] = []  # no system prompt, spelled as an empty list
    assert wire.check_request(body) == []


def test_a_real_signature_is_left_for_the_api_to_judge():
    body = _bound_loop()
    body["messages"][5]["content"][0]["signature"] = SIGNATURE  # Anthropic's own: cannot be checked here
    body["messages"][2]["content"][0]["content"] = "[redacted]"
    assert wire.check_request(body) == []
