"""One rich conversation, four wires, each checked by the API's own definition.

The conversation has everything a request can carry: a system prompt, text, a reasoning
block made by the provider it is sent to, two parallel tool calls, their results (one an
error), and a new question. Each codec's request must be accepted by:

- OpenAI Responses and Chat: OpenAI's published OpenAPI schema (tests/fixtures);
- Anthropic: the SDK's request type, strictly, with unknown keys reported;
- Ollama: the official client's own `ChatRequest` type;

and by the codec's own `check_request`, which knows the rules no schema can see.
"""

from __future__ import annotations

import json

import pytest

from schemas import anthropic_request_errors, openapi_errors
from toolcall_lab import Message, ReasoningBlock, TextBlock, ToolCall, ToolResult, Transcript
from toolcall_lab.tools import get_weather, search_kb
from toolcall_lab.wire import anthropic as anthropic_wire
from toolcall_lab.wire import check_request, encode_request
from toolcall_lab.wire import responses as responses_wire

THOUGHT = "Two cities, so two calls; Atlantis may not exist."


def reasoning_from(provider: str, model: str = "m") -> ReasoningBlock:
    """A reasoning block as `provider`'s decoder would have made it, in a reply from `model`."""
    opaque = {
        "anthropic": {"signature": anthropic_wire.sign_thinking(THOUGHT)},
        "openai": {"type": "reasoning", "id": "rs_01", "summary": [{"type": "summary_text", "text": THOUGHT}],
                   "encrypted_content": responses_wire.seal_reasoning(THOUGHT)},
    }.get(provider, {})
    return ReasoningBlock(THOUGHT, provider=provider, model=model, opaque=opaque)


def rich(provider: str, model: str = "m") -> Transcript:
    calls = [ToolCall("call_paris", "get_weather", {"city": "Paris"}),
             ToolCall("call_atlantis", "get_weather", {"city": "Atlantis"})]
    return Transcript(system="Answer in one sentence.", messages=[
        Message.user("Weather in Paris and Atlantis?"),
        Message.assistant(reasoning_from(provider, model), TextBlock("Let me look both up."), *calls),
        Message.results([ToolResult("call_paris", "18°C, sunny"),
                         ToolResult("call_atlantis", "no weather data for 'Atlantis'", is_error=True)]),
        Message.assistant("Paris is 18°C and sunny; I found nothing for Atlantis."),
        Message.user("Thanks. Is there a handbook entry on umbrellas?"),
    ])


TOOLS = [get_weather, search_kb]


def test_anthropic_accepts_it():
    # subtle: the thinking must be the requested model's own; another model's is left out.
    body = encode_request(rich("anthropic", "claude-haiku-5-5"), TOOLS, api="anthropic",
                          model="claude-haiku-5-5", thinking="adaptive", effort="low", max_tokens=4096)
    assert anthropic_request_errors(body) == []
    assert check_request(body, api="anthropic") == []
    thinking = body["messages"][1]["content"][0]
    assert thinking == {"type": "thinking", "thinking": THOUGHT,
                        "signature": anthropic_wire.sign_thinking(THOUGHT)}


def test_openai_responses_accepts_it():
    body = encode_request(rich("openai"), TOOLS, api="responses", model="gpt-6-luna", reasoning_effort="low")
    assert openapi_errors(body, "CreateResponse") == []
    assert check_request(body, api="responses") == []
    reasoning = next(item for item in body["input"] if item.get("type") == "reasoning")
    assert reasoning == reasoning_from("openai").opaque, "replayed verbatim"
    assert body["include"] == ["reasoning.encrypted_content"] and body["store"] is False


def test_openai_chat_accepts_it():
    body = encode_request(rich("openai-chat"), TOOLS, api="chat", model="gpt-6-luna",
                          reasoning_effort="none")  # the only effort Chat takes tools at
    assert openapi_errors(body, "CreateChatCompletionRequest") == []
    assert check_request(body, api="chat") == []
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "tool",
                                                     "assistant", "user"]


def test_ollama_accepts_it():
    ollama = pytest.importorskip("ollama")
    body = encode_request(rich("ollama"), TOOLS, api="ollama", model="qwen3:4b", think=True)
    request = ollama._types.ChatRequest.model_validate(body)
    assert json.loads(request.model_dump_json(exclude_none=True))["messages"][2]["thinking"] == THOUGHT
    assert check_request(body, api="ollama") == []


@pytest.mark.parametrize(("api", "provider"), [("anthropic", "openai"), ("responses", "anthropic"),
                                               ("chat", "anthropic"), ("ollama", "openai")])
def test_reasoning_from_another_provider_is_left_out(api, provider):
    body = encode_request(rich(provider), TOOLS, api=api, model="m")
    assert THOUGHT not in json.dumps(body, ensure_ascii=False)
    assert check_request(body, api=api) == []


@pytest.mark.parametrize(("fixture_name", "api"), [
    ("openai_chat_tool_calls_request.spec_example.json", "chat"),
    ("openai_responses_function_call_request.spec_example.json", "responses"),
    ("ollama_chat_tool_calls_request.docs.json", "ollama"),
    ("ollama_chat_tool_result_history_request.docs.json", "ollama"),
])
def test_recorded_valid_requests_raise_nothing_and_survive_a_round_trip(fixture_name, api):
    from schemas import fixture
    from toolcall_lab.wire import codec

    body = fixture(fixture_name)
    assert check_request(body, api=api) == []
    transcript, tools = codec(api).decode_request(body)
    again = codec(api).encode_request(transcript, tools, model=body["model"])
    assert check_request(again, api=api) == []
    assert [t.name for t in tools] == [t["name"] if "name" in t else t["function"]["name"]
                                       for t in body["tools"]]


def test_the_recorded_anthropic_400_is_reproduced_word_for_word():
    from schemas import fixture

    recorded = fixture("anthropic_error_tool_result_without_tool_use.body.json")["error"]["message"]
    broken = Transcript(messages=[Message.user("Hi"),
                                  Message.results([ToolResult("toolu_01GHndag5wQmbzNihYmV2UBj", "x")])])
    (problem,) = [p for p in check_request(encode_request(broken, api="anthropic", model="m"),
                                           api="anthropic") if "tool_use_id" in p.text]
    assert problem.text == recorded
