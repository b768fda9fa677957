"""tool_choice and parallel_tool_calls: one vocabulary, spelled each API's way, held by every provider.

The bodies are validated against the APIs' own definitions (OpenAI's OpenAPI document, the
Anthropic SDK's request type); the rules an API enforces on top (forced choice with thinking)
are checked in its words, offline and through the API double; the scripted provider and the
double's model are held to the choice as an API holds a real model.
"""

from __future__ import annotations

import pytest

from conftest import REAL_PROVIDERS, real_provider
from schemas import anthropic_request_errors, openapi_errors
from toolcall_lab import (
    InvalidRequestError,
    Message,
    ScriptedProvider,
    StopReason,
    Transcript,
    UsageError,
    call,
    run_agent,
    stage,
)
from toolcall_lab.errors import ScriptError, UsageTypeError
from toolcall_lab.events import CallSent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tool_choice import callable_tools, check_tool_choice
from toolcall_lab.tools import calculator, get_weather
from toolcall_lab.wire import anthropic, chat, ollama, responses


@pytest.fixture
def make_double(make_in_process_double):
    """This file's doubles never serve: the SDKs reach them in-process (`real_provider`, `double=`)."""
    return make_in_process_double


TOOLS = (get_weather, calculator)
ASK = Transcript(messages=[Message.user("Weather in Paris and Tokyo?")])

# kit choice -> (Anthropic's tool_choice, the OpenAI APIs' tool_choice), as the spec tables say
SPELLINGS = {
    "auto": ({"type": "auto"}, "auto", "auto"),
    "none": ({"type": "none"}, "none", "none"),
    "required": ({"type": "any"}, "required", "required"),
    "get_weather": ({"type": "tool", "name": "get_weather"}, {"type": "function", "name": "get_weather"},
                    {"type": "function", "function": {"name": "get_weather"}}),
}


def bodies(**options):
    return {"anthropic": anthropic.encode_request(ASK, TOOLS, model="claude-haiku-5-5", **options),
            "responses": responses.encode_request(ASK, TOOLS, model="gpt-6-luna", **options),
            "chat": chat.encode_request(ASK, TOOLS, model="gpt-6-luna", **options)}


@pytest.mark.parametrize("choice", SPELLINGS)
def test_each_choice_is_spelled_the_apis_way_and_the_apis_definitions_accept_it(choice):
    found = bodies(tool_choice=choice)
    spelled = [found[api]["tool_choice"] for api in ("anthropic", "responses", "chat")]
    assert spelled == list(SPELLINGS[choice])
    assert anthropic_request_errors(found["anthropic"]) == []
    assert openapi_errors(found["responses"], "CreateResponse") == []
    assert openapi_errors(found["chat"], "CreateChatCompletionRequest") == []


@pytest.mark.parametrize("choice", [None, "auto", "required", "get_weather"])
def test_parallel_off_is_a_flag_of_its_own_on_openai_and_inside_tool_choice_on_anthropic(choice):
    found = bodies(tool_choice=choice, parallel_tool_calls=False)
    assert found["responses"]["parallel_tool_calls"] is False
    assert found["chat"]["parallel_tool_calls"] is False
    assert found["anthropic"]["tool_choice"]["disable_parallel_tool_use"] is True
    assert found["anthropic"]["tool_choice"]["type"] == SPELLINGS[choice or "auto"][0]["type"]
    assert anthropic_request_errors(found["anthropic"]) == []
    assert openapi_errors(found["responses"], "CreateResponse") == []
    assert openapi_errors(found["chat"], "CreateChatCompletionRequest") == []


def test_nothing_is_sent_unless_asked_and_nothing_beside_no_tools():
    for body in bodies().values():
        assert "tool_choice" not in body and "parallel_tool_calls" not in body
    assert "disable_parallel_tool_use" not in bodies(tool_choice="none", parallel_tool_calls=False)[
        "anthropic"]["tool_choice"]  # {"type": "none"} takes no such flag
    for codec in (anthropic, responses, chat):
        body = codec.encode_request(ASK, (), model="m", tool_choice="none", parallel_tool_calls=True)
        assert "tool_choice" not in body and "parallel_tool_calls" not in body


def test_ollama_keeps_none_by_offering_no_tools_and_refuses_what_it_cannot_say():
    assert ollama.encode_request(ASK, TOOLS, model="qwen3:4b", tool_choice="none")["tools"] == []
    assert len(ollama.encode_request(ASK, TOOLS, model="qwen3:4b", tool_choice="auto")["tools"]) == 2
    unsayable = [{"tool_choice": "required"}, {"tool_choice": "get_weather"}, {"parallel_tool_calls": False}]
    for options in unsayable:
        with pytest.raises(UsageError, match="Ollama's /api/chat has no"):
            ollama.encode_request(ASK, TOOLS, model="qwen3:4b", **options)


@pytest.mark.parametrize("api", ["anthropic", "responses", "chat"])
@pytest.mark.parametrize("choice", [*SPELLINGS, None])
@pytest.mark.parametrize("parallel", [None, False, True])
def test_the_server_half_reads_back_what_the_client_half_wrote(api, choice, parallel):
    codec = {"anthropic": anthropic, "responses": responses, "chat": chat}[api]
    body = codec.encode_request(ASK, TOOLS, model="m", tool_choice=choice, parallel_tool_calls=parallel)
    read_choice, read_parallel = codec.decode_tool_choice(body)
    assert read_choice == choice or (api == "anthropic" and choice is None and read_choice == "auto")
    # Anthropic can only say "parallel off" (True is its default), and not beside "none"
    off = parallel is False and choice != "none"
    assert read_parallel == (parallel if api != "anthropic" else (False if off else None))


def test_a_choice_the_tools_cannot_meet_is_the_kits_error_with_what_would_work():
    offered = r"\(get_weather, calculator\)"
    with pytest.raises(UsageError, match=rf"tool_choice='get_wether' is neither .* {offered}"):
        check_tool_choice("get_wether", TOOLS)
    with pytest.raises(UsageError, match="forces a tool call, but no tools are offered"):
        check_tool_choice("required", ())
    with pytest.raises(UsageTypeError):
        check_tool_choice(["get_weather"], TOOLS)
    with pytest.raises(UsageTypeError):
        check_tool_choice("auto", TOOLS, parallel_tool_calls="no")
    assert callable_tools("none", TOOLS) == () and callable_tools("calculator", TOOLS) == (calculator,)


# -- the API's own rules, in its words ----------------------------------------------------------
FORCED_WITH_THINKING = "Thinking may not be enabled when tool_choice forces tool use."


@pytest.mark.parametrize(("model", "thinking"), [("claude-haiku-5-5", "adaptive"),
                                                ("claude-haiku-4-5", 2048)])
@pytest.mark.parametrize("choice", ["required", "get_weather"])
def test_anthropic_refuses_a_forced_choice_with_thinking_on(model, thinking, choice):
    body = anthropic.encode_request(ASK, TOOLS, model=model, max_tokens=4096, thinking=thinking,
                                    tool_choice=choice)
    found = [(p.path, p.text) for p in anthropic.check_request(body)]
    assert found == [("tool_choice", FORCED_WITH_THINKING)]
    for allowed in ("auto", "none"):
        body = anthropic.encode_request(ASK, TOOLS, model=model, max_tokens=4096, thinking=thinking,
                                        tool_choice=allowed)
        assert anthropic.check_request(body) == []


def test_a_model_that_never_takes_a_forced_choice_is_refused_without_thinking_too():
    body = anthropic.encode_request(ASK, TOOLS, model="claude-sonnet-5-5", tool_choice="required")
    assert [p.text for p in anthropic.check_request(body)] == [FORCED_WITH_THINKING]


def test_the_double_answers_a_forced_choice_with_thinking_as_the_api_does(double):
    checked = real_provider("anthropic", double, thinking="adaptive")
    with pytest.raises(InvalidRequestError, match="would reject this request, so it was not sent"):
        checked.complete(ASK, tools=TOOLS, tool_choice="get_weather")
    assert double.requests == []
    sent = real_provider("anthropic", double, thinking="adaptive", check=False, max_retries=0)
    with pytest.raises(InvalidRequestError) as caught:
        sent.complete(ASK, tools=TOOLS, tool_choice="get_weather")
    assert caught.value.status == 400 and FORCED_WITH_THINKING.rstrip(".") in str(caught.value)
    assert [r.status for r in double.requests] == [400]


# -- held to the choice: the scripted provider, and the double's model -------------------------
def test_under_none_a_policy_sees_no_tools_and_answers_in_text():
    provider = ScriptedProvider(weather_policy)
    turn = provider.complete(ASK, tools=TOOLS, tool_choice="none")
    assert turn.text == "I have no way to look up the weather right now." and not turn.tool_calls
    assert provider.requests[-1].tools == TOOLS and provider.requests[-1].tool_choice == "none"
    tokens = provider.requests[-1].input_tokens
    assert repr(provider.requests[-1]) == ("SentRequest(messages=1, tools=['get_weather', 'calculator'], "
                                           f"tool_choice='none', input_tokens≈{tokens})")


def test_a_named_choice_shows_a_policy_only_that_tool():
    seen = []
    ScriptedProvider(lambda t, tools: seen.append(tools) or call("calculator", expression="1 + 1")).complete(
        ASK, tools=TOOLS, tool_choice="calculator")
    assert seen == [(calculator,)]


@pytest.mark.parametrize(("choice", "reply", "says"), [
    ("none", call("get_weather", city="Paris"),
     "forbids tool calls, but the script's reply calls get_weather"),
    ("required", "Hello!", "forces a tool call, but the script's reply has none ('Hello!')"),
    ("get_weather", call("calculator", expression="1"),
     "forces that tool, but the script's reply calls calculator"),
])
def test_a_script_that_breaks_the_choice_is_a_script_error_that_says_which_reply(choice, reply, says):
    provider = ScriptedProvider([reply])
    with pytest.raises(ScriptError, match=says.replace("(", r"\(").replace(")", r"\)")):
        provider.complete(ASK, tools=TOOLS, tool_choice=choice)
    assert provider.requests == []


def test_a_refusal_or_a_cut_off_reply_is_not_held_to_a_forced_choice():
    provider = ScriptedProvider([stage("I can't help with that.", stop_reason="refusal")])
    assert provider.complete(ASK, tools=TOOLS, tool_choice="required").stop_reason is StopReason.REFUSAL


def test_parallel_off_keeps_the_first_call_and_the_ids_stay_consecutive():
    provider = ScriptedProvider([[call("get_weather", city="Paris"), call("get_weather", city="Tokyo")],
                                 call("get_weather", city="Tokyo")])
    first = provider.complete(ASK, tools=TOOLS, parallel_tool_calls=False)
    second = provider.complete(ASK, tools=TOOLS)
    assert [(c.id, c.args["city"]) for c in [*first.tool_calls, *second.tool_calls]] == [
        ("toolu_01", "Paris"), ("toolu_02", "Tokyo")]


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_every_real_provider_sends_the_choice_and_the_doubles_model_obeys(name, double):
    provider = real_provider(name, double)
    run = run_agent(provider, "Weather in Paris and Tokyo?", tools=[get_weather], tool_choice="none")
    assert run.answer == "I have no way to look up the weather right now."
    assert provider.requests[-1].tool_choice == "none"
    if name == "ollama":
        assert double.requests[-1].body["tools"] == []
        return
    run = run_agent(provider, "Weather in Paris and Tokyo?", tools=[get_weather], parallel_tool_calls=False)
    assert [len(step.turn.tool_calls) for step in run.steps] == [1, 1, 0]
    assert run.answer == "It's 18°C and sunny in Paris. It's 22°C and cloudy in Tokyo."


# -- run_agent ---------------------------------------------------------------------------------
def test_run_agent_sends_a_forced_choice_until_the_model_has_called_a_tool():
    provider = ScriptedProvider(weather_policy)
    events = []
    run = run_agent(provider, PARIS_QUESTION, tools=TOOLS, tool_choice="get_weather",
                    parallel_tool_calls=False, on_event=events.append)
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [(r.tool_choice, r.parallel_tool_calls) for r in provider.requests] == [("get_weather", False),
                                                                                   (None, False)]
    assert [step.tool_choice for step in run.steps] == ["get_weather", None]
    assert "tool_choice='get_weather'" in repr(run.steps[0]) and "tool_choice" not in repr(run.steps[1])
    sent = [str(e) for e in events if isinstance(e, CallSent)]
    assert sent[0].endswith("(tool_choice='get_weather')") and "tool_choice" not in sent[1]


def test_run_agent_checks_the_choice_before_anything_is_sent():
    provider = ScriptedProvider(weather_policy)
    transcript = Transcript()
    with pytest.raises(UsageError, match="get_wether"):
        run_agent(provider, PARIS_QUESTION, tools=TOOLS, tool_choice="get_wether", transcript=transcript)
    assert provider.requests == [] and len(transcript) == 0


class OnlyTools:
    """A provider of your own whose complete() takes tools= and nothing more."""

    name, model = "only-tools", "m"

    def complete(self, transcript, *, tools=()):
        return ScriptedProvider(["Hi."]).complete(transcript, tools=tools)


def test_a_provider_without_the_keywords_runs_unless_a_choice_is_asked_for():
    assert run_agent(OnlyTools(), "Hello?", tools=TOOLS).answer == "Hi."
    with pytest.raises(UsageTypeError, match=r"OnlyTools.complete\(\) takes no tool_choice="):
        run_agent(OnlyTools(), "Hello?", tools=TOOLS, tool_choice="auto")
