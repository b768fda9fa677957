"""Tests for ScriptedProvider: replies to Turns, ids, estimated usage, recorded requests."""

import itertools
import re

import pytest

from toolcall_lab import (
    Message,
    Provider,
    ScriptedProvider,
    ScriptExhaustedError,
    SentRequest,
    StopReason,
    TextBlock,
    ToolCall,
    Transcript,
    Turn,
    Usage,
    UsageError,
    call,
    stage,
)
from toolcall_lab.tokens import estimate_tokens, request_text
from toolcall_lab.tools import calculator, get_weather


def asked(text="What's the weather in Paris?", *, system=None):
    transcript = Transcript(system=system)
    transcript.append(Message.user(text))
    return transcript


def answer_once(reply):
    return ScriptedProvider([reply]).complete(asked(), tools=[get_weather])


# -- the two ways to drive it ----------------------------------------------------------

def test_list_mode_replies_in_order():
    provider = ScriptedProvider(["first", "second"])
    transcript = asked()
    assert provider.complete(transcript).text == "first"
    assert provider.complete(transcript).text == "second"


def test_policy_mode_sees_transcript_and_tools():
    seen = []

    def policy(transcript, tools):
        seen.append((transcript.last_user_text(), tuple(t.name for t in tools)))
        return f"You said: {transcript.last_user_text()}"

    turn = ScriptedProvider(policy).complete(asked("Hi"), tools=[get_weather, calculator])
    assert turn.text == "You said: Hi"
    assert seen == [("Hi", ("get_weather", "calculator"))]


def test_policy_tools_arrive_as_a_tuple():
    kinds = []
    ScriptedProvider(lambda t, tools: kinds.append(type(tools)) or "ok").complete(
        asked(), tools=[get_weather])
    assert kinds == [tuple]


# -- replies -----------------------------------------------------------------------------

def test_str_reply_is_end_turn_text():
    turn = answer_once("It's sunny.")
    assert turn.message.blocks == (TextBlock("It's sunny."),)
    assert turn.stop_reason is StopReason.END_TURN
    assert turn.message.role == "assistant"
    assert turn.model == "scripted-1"


def test_call_reply_is_tool_use():
    turn = answer_once(call("get_weather", city="Paris"))
    assert turn.message.blocks == (ToolCall("toolu_01", "get_weather", {"city": "Paris"}),)
    assert turn.stop_reason is StopReason.TOOL_USE


def test_call_helper_leaves_the_id_empty():
    assert call("get_weather", city="Paris") == ToolCall("", "get_weather", {"city": "Paris"})


def test_list_of_text_and_calls_keeps_text_first_then_calls():
    turn = answer_once(["Let me check.", call("get_weather", city="Paris"),
                        call("get_weather", city="Tokyo")])
    assert turn.message.blocks == (
        TextBlock("Let me check."),
        ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
        ToolCall("toolu_02", "get_weather", {"city": "Tokyo"}),
    )
    assert turn.stop_reason is StopReason.TOOL_USE


def test_list_of_text_only_is_end_turn():
    turn = answer_once(["one", "two"])
    assert turn.text == "one\ntwo"
    assert turn.stop_reason is StopReason.END_TURN


def test_tuple_reply_works_like_a_list():
    turn = answer_once(("Checking.", call("get_weather", city="Paris")))
    assert [b.kind for b in turn.message.blocks] == ["text", "tool_call"]


def test_ids_count_up_across_calls():
    provider = ScriptedProvider([
        [call("get_weather", city="Paris"), call("get_weather", city="Tokyo")],
        call("calculator", expression="1 + 1"),
        stage(call("get_weather", city="Cairo"), stop_reason="tool_use"),
    ])
    transcript = asked()
    ids = [c.id for _ in range(3) for c in provider.complete(transcript).tool_calls]
    assert ids == ["toolu_01", "toolu_02", "toolu_03", "toolu_04"]


def test_explicit_ids_are_kept_and_do_not_use_up_numbers():
    provider = ScriptedProvider([[ToolCall("call_abc", "get_weather", {"city": "Paris"}),
                                  call("get_weather", city="Tokyo")]])
    assert [c.id for c in provider.complete(asked()).tool_calls] == ["call_abc", "toolu_01"]


def test_each_provider_counts_its_own_ids():
    first = ScriptedProvider([call("get_weather", city="Paris")])
    second = ScriptedProvider([call("get_weather", city="Paris")])
    assert first.complete(asked()).tool_calls[0].id == "toolu_01"
    assert second.complete(asked()).tool_calls[0].id == "toolu_01"


@pytest.mark.parametrize("reason", list(StopReason))
def test_stage_sets_any_stop_reason(reason):
    staged = stage("some text", stop_reason=reason.value)
    assert staged.stop_reason is reason
    turn = answer_once(staged)
    assert turn.stop_reason is reason
    assert turn.text == "some text"


def test_stage_with_a_cut_off_call_gets_an_id_and_keeps_raw_args():
    turn = answer_once(stage(ToolCall("", "get_weather", raw_args='{"city": "Par'),
                             stop_reason="max_tokens"))
    assert turn.tool_calls == (ToolCall("toolu_01", "get_weather", raw_args='{"city": "Par'),)
    assert turn.stop_reason is StopReason.MAX_TOKENS


def test_stage_rejects_an_unknown_stop_reason():
    with pytest.raises(ValueError):
        stage("x", stop_reason="finished")


def test_returned_turn_is_used_as_is():
    given = Turn(Message.assistant(ToolCall("", "get_weather", {"city": "Paris"})),
                 StopReason.TOOL_USE, Usage(input_tokens=5, output_tokens=1), "real-model-7")
    turn = ScriptedProvider([given]).complete(asked())
    assert turn.message is given.message  # no id filled in, no new message
    assert turn.tool_calls[0].id == ""
    assert (turn.stop_reason, turn.usage, turn.model) == (given.stop_reason, given.usage,
                                                          given.model)


def test_returned_turn_is_returned_unchanged():
    given = Turn(Message.assistant("Hi"), StopReason.END_TURN, Usage(), "real-model-7",
                 latency_s=1.5)
    assert ScriptedProvider([given]).complete(asked()) == given


@pytest.mark.parametrize("reply", [42, None, {"text": "hi"}, Message.assistant("hi")],
                         ids=["int", "None", "dict", "Message"])
def test_unsupported_reply_type_raises_type_error_naming_the_options(reply):
    with pytest.raises(TypeError, match=r"a str, a ToolCall \(call\(\.\.\.\)\), a list of them, "
                                        r"stage\(\.\.\.\), or a Turn"):
        answer_once(reply)


def test_exhausted_script_says_how_many_replies():
    provider = ScriptedProvider(["one", "two"])
    transcript = asked()
    provider.complete(transcript)
    provider.complete(transcript)
    with pytest.raises(ScriptExhaustedError, match="the script has 2 replies and call 3"):
        provider.complete(transcript)


def test_empty_script_is_exhausted_on_the_first_call():
    with pytest.raises(ScriptExhaustedError, match="the script has 0 replies and call 1"):
        ScriptedProvider([]).complete(asked())


# -- usage -------------------------------------------------------------------------------

def test_usage_is_estimated_from_the_request_text():
    transcript = asked(system="Be brief.")
    tools = [get_weather, calculator]
    turn = ScriptedProvider(["It's sunny."]).complete(transcript, tools=tools)
    assert turn.usage.estimated is True
    assert turn.usage.input_tokens == estimate_tokens(request_text(transcript, tools))
    assert turn.usage.output_tokens > 0


def test_worked_example_usage():
    transcript = Transcript()
    transcript.append(Message.user("Hi"))
    sent = '{"system":"","messages":[{"role":"user","content":[{"kind":"text","text":"Hi"}]}],"tools":[]}'
    assert request_text(transcript) == sent
    turn = ScriptedProvider(["Hello!"]).complete(transcript)
    # input: the 93 characters above -> ceil(93 / 4) = 24 tokens;
    # output: '[{"kind": "text", "text": "Hello!"}]' is 36 characters -> 9 tokens.
    assert turn.usage == Usage(input_tokens=24, output_tokens=9, estimated=True)


def test_more_tools_cost_more_input():
    transcript = asked()
    bare = ScriptedProvider(["x"]).complete(transcript).usage.input_tokens
    with_tool = ScriptedProvider(["x"]).complete(transcript, tools=[get_weather]).usage.input_tokens
    assert with_tool > bare


# -- recorded requests -------------------------------------------------------------------

def test_requests_are_recorded_with_tools_and_tokens():
    provider = ScriptedProvider(["a", "b"])
    transcript = asked(system="Be brief.")
    turn = provider.complete(transcript, tools=[get_weather])
    (request,) = provider.requests
    assert isinstance(request, SentRequest)
    assert request.system == "Be brief."
    assert request.tools == (get_weather,)  # the whole tool: its schema is sent every time
    assert request.input_tokens == turn.usage.input_tokens
    assert request.messages == tuple(transcript.messages)
    assert request.body is None, "the scripted provider sends nothing over a wire"
    assert repr(request) == (f"SentRequest(system='Be brief.', messages=1, tools=['get_weather'], "
                             f"input_tokens≈{turn.usage.input_tokens})")


def test_a_failed_call_records_nothing():
    provider = ScriptedProvider(["only one"])
    transcript = asked()
    provider.complete(transcript)
    with pytest.raises(ScriptExhaustedError):
        provider.complete(transcript)
    assert len(provider.requests) == 1
    assert repr(provider) == "ScriptedProvider(model='scripted-1', calls=1)"


def test_a_policy_that_raises_records_nothing():
    def broken(transcript, tools):
        raise RuntimeError("a bug in the policy")

    provider = ScriptedProvider(broken)
    with pytest.raises(RuntimeError):
        provider.complete(asked())
    assert provider.requests == []


def test_a_staged_turn_is_recorded_too():
    staged = Turn(Message.assistant("Given."), StopReason.END_TURN, Usage(1, 1), "m")
    provider = ScriptedProvider([staged])
    assert provider.complete(asked(), tools=[get_weather]) is staged
    assert [t.name for t in provider.requests[0].tools] == ["get_weather"]


def test_recorded_messages_are_a_snapshot():
    provider = ScriptedProvider(["a", "b"])
    transcript = asked()
    turn = provider.complete(transcript)
    transcript.append(turn.message)
    transcript.append(Message.user("And tomorrow?"))
    provider.complete(transcript)
    assert len(provider.requests[0].messages) == 1
    assert len(provider.requests[1].messages) == 3
    assert isinstance(provider.requests[0].messages, tuple)


def test_provider_does_not_mutate_the_transcript():
    transcript = asked(system="Be brief.")
    before = list(transcript.messages)
    ScriptedProvider(["Sunny."]).complete(transcript, tools=[get_weather])
    assert transcript.messages == before
    assert transcript.system == "Be brief."


def test_policy_appending_to_its_copy_does_not_touch_the_callers_transcript():
    def meddling_policy(transcript, tools):
        transcript.append(Message.user("injected"))
        transcript.system = "changed"
        return "ok"

    transcript = asked(system="Be brief.")
    before = list(transcript.messages)
    ScriptedProvider(meddling_policy).complete(transcript)
    assert transcript.messages == before
    assert transcript.system == "Be brief."


def test_scripted_provider_is_a_provider():
    provider = ScriptedProvider(["x"])
    assert isinstance(provider, Provider)
    assert provider.name == "scripted"
    assert ScriptedProvider(["x"], model="other-2").model == "other-2"


def test_repr_counts_calls():
    provider = ScriptedProvider(["x"])
    provider.complete(asked())
    assert repr(provider) == "ScriptedProvider(model='scripted-1', calls=1)"


def test_two_fresh_providers_are_deterministic():
    script = [["Checking.", call("get_weather", city="Paris"), call("get_weather", city="Tokyo")],
              stage("cut", stop_reason="max_tokens")]

    def play():
        provider = ScriptedProvider(script)
        transcript = asked()
        return [provider.complete(transcript, tools=[get_weather]) for _ in script]

    first, second = play(), play()
    assert [t.message.blocks for t in first] == [t.message.blocks for t in second]
    assert [t.stop_reason for t in first] == [t.stop_reason for t in second]
    assert [t.usage for t in first] == [t.usage for t in second]


def test_a_reply_is_measured_as_the_next_request_will_resend_it():
    from toolcall_lab.examples import PARIS_QUESTION, weather_policy
    from toolcall_lab.tokens import blocks_text

    provider = ScriptedProvider(weather_policy)
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    turn = provider.complete(transcript, tools=[get_weather])
    reply = blocks_text(turn.message.blocks)
    assert turn.usage.output_tokens == estimate_tokens(reply)
    transcript.append(turn.message)
    assert reply in request_text(transcript, [get_weather])  # the same characters, re-sent


def test_a_long_loop_keeps_one_copy_of_the_messages():
    """Each record refers to one shared message store; none copies the conversation (issue 9, 19)."""
    import gc

    from toolcall_lab import run_agent
    from toolcall_lab.tools import get_weather

    policy = itertools.cycle([call("get_weather", city="Paris")])
    provider = ScriptedProvider(lambda transcript, tools: next(policy))
    with pytest.raises(Exception):  # noqa: B017 (MaxStepsExceeded: the run goes the distance)
        run_agent(provider, "Weather?", tools=[get_weather], max_steps=60)
    containers = {id(x) for r in provider.requests for x in gc.get_referents(r)
                  if isinstance(x, list | tuple) and len(x) > 3}
    assert len(provider.requests) == 60
    assert len(containers) == 1, "every record points at the same store of messages"
    assert [len(r.messages) for r in provider.requests] == list(range(1, 121, 2))
    assert provider.requests[5].messages == tuple(provider.requests[-1].messages[:11])
    assert isinstance(provider.requests[5].messages, tuple)
    first = provider.requests[0]
    tokens = estimate_tokens(request_text(Transcript(None, list(first.messages)), [get_weather]))
    assert repr(first) == f"SentRequest(messages=1, tools=['get_weather'], input_tokens≈{tokens})"


def test_records_stay_true_when_the_caller_rewrites_the_transcript():
    provider = ScriptedProvider(["a", "b", "c"])
    transcript = asked()
    transcript.append(provider.complete(transcript).message)
    first = provider.requests[0].messages
    transcript.messages[0] = Message.user("A different question")  # an edit, not an append
    provider.complete(transcript)
    transcript.messages.clear()
    transcript.append(Message.user("Start over"))
    provider.complete(transcript)
    assert provider.requests[0].messages == first
    assert provider.requests[1].messages[0].text == "A different question"
    assert [m.text for m in provider.requests[2].messages] == ["Start over"]


def test_latency_is_the_stated_value_never_a_stopwatch():
    """A lesson's committed output can show a run's timing: it is what the script states."""
    from toolcall_lab import run_agent
    from toolcall_lab.examples import PARIS_QUESTION, weather_policy
    from toolcall_lab.tools import get_weather

    assert ScriptedProvider(["Hi"]).complete(asked()).latency_s == 0.0
    run = run_agent(ScriptedProvider(weather_policy, latency_s=1.2), PARIS_QUESTION, tools=[get_weather])
    assert [step.latency_s for step in run.steps] == [1.2, 1.2]  # a tool call: two model calls
    assert run.latency_s == pytest.approx(2.4)


@pytest.mark.parametrize(("latency", "error", "says"), [
    ("1.2", TypeError, "a number; got str '1.2'"),
    (True, TypeError, "a number; got bool"),
    (-1, ValueError, "pass 0 or more"),
])
def test_a_latency_that_is_not_seconds_says_what_to_pass(latency, error, says):
    with pytest.raises(error, match=re.escape(says)):
        ScriptedProvider(["Hi"], latency_s=latency)


def test_keep_holds_the_last_requests_and_the_repr_still_counts_every_call():
    provider = ScriptedProvider(["a", "b", "c"], keep=2)
    transcript = Transcript(messages=[Message.user("Hi")])
    for _ in range(3):
        provider.complete(transcript)
    assert len(provider.requests) == 2 and repr(provider).endswith("calls=3)")
    assert len(ScriptedProvider(["a"]).requests) == 0  # every call kept by default
    for wrong in (0, -1, True, 1.5, "2"):
        with pytest.raises(UsageError, match="keep is how many"):
            ScriptedProvider(["a"], keep=wrong)
