"""Anthropic's message threads (beta) through the real SDK against the double, and the bill of a
conversation the server holds (issue 29 §1).

The page: https://platform.claude.com/docs/en/build-with-claude/message-threads ("Send only the
messages since the previous response ... Leave system and tools out of the request"; "It expires
5 minutes after its last request"). The client behaviour is the installed SDK's
(`anthropic/lib/threads/_thread_state.py`: a replay on `thread_not_found`,
`thread_already_continued`, `thread_continue_in_flight`).
"""

from __future__ import annotations

import json

import pytest

from conftest import SECRET
from toolcall_lab import Message, Transcript, run_agent
from toolcall_lab.double import ApiDouble
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.providers.anthropic import AnthropicProvider
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import check_request
from toolcall_lab.wire.anthropic import threads

anthropic = pytest.importorskip("anthropic")

MODEL = "claude-haiku-4-5"
BETA = threads.BETA
SYSTEM = "You answer weather questions briefly."
TOOL = {"name": "get_weather", "description": "The weather in a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


@pytest.fixture
def client(double):
    return anthropic.Anthropic(base_url=double.base_url("anthropic"), api_key=SECRET, max_retries=0)


def _create(client, messages, **more):
    return client.beta.messages.create(model=MODEL, max_tokens=256, system=SYSTEM, tools=[TOOL],
                                       messages=messages, betas=[BETA], thread={"type": "create"}, **more)


def _continue(client, previous, messages, **more):
    return client.beta.messages.create(model=MODEL, max_tokens=256, messages=messages, betas=[BETA],
                                       thread={"type": "continue", "previous_message_id": previous}, **more)


def _tool_round(client):
    """A create that asks for the weather, and the continue that sends only its result."""
    question = [{"role": "user", "content": PARIS_QUESTION}]
    first = _create(client, question)
    (use,) = [block for block in first.content if block.type == "tool_use"]
    answer = {"type": "tool_result", "tool_use_id": use.id, "content": "18°C"}
    result = [{"role": "user", "content": [answer]}]
    return question, first, result


def test_a_continue_sends_only_the_new_messages_and_the_model_reads_the_whole_thread(client, double):
    question, first, result = _tool_round(client)
    second = _continue(client, first.id, result)
    assert second.stop_reason == "end_turn" and "18" in second.content[-1].text
    sent = double.requests[-1].body
    assert sent["messages"] == result and "system" not in sent and "tools" not in sent


def test_the_sdk_tool_runner_with_its_defaults_completes_a_tool_round_trip(client, double):
    from anthropic import beta_tool

    @beta_tool
    def get_weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: the city
        """
        return "18°C and sunny"

    for stream in (False, True):
        runner = client.beta.messages.tool_runner(model=MODEL, max_tokens=256, tools=[get_weather],
                                                  messages=[{"role": "user", "content": PARIS_QUESTION}],
                                                  stream=stream)
        for _ in runner:
            pass
        created, continued = double.requests[-2:]
        assert (created.status, continued.status) == (200, 200)
        assert created.body["thread"] == {"type": "create"}
        assert continued.body["thread"]["type"] == "continue" and "tools" not in continued.body
        assert [block["type"] for block in continued.body["messages"][0]["content"]] == ["tool_result"]


def test_a_thread_expires_after_five_minutes_of_the_double_s_clock(client, double):
    question, first, result = _tool_round(client)
    double.clock.advance(minutes=5, seconds=1)
    with pytest.raises(anthropic.NotFoundError) as caught:
        _continue(client, first.id, result)
    assert caught.value.status_code == 404
    assert caught.value.body["error"]["details"] == {"error_code": "thread_not_found"}
    assert caught.value.body["error"]["type"] == "not_found_error"


def test_a_thread_used_within_five_minutes_lives_on(client, double):
    question, first, result = _tool_round(client)
    double.clock.advance(minutes=4, seconds=59)
    assert _continue(client, first.id, result).stop_reason == "end_turn"


def test_the_sdk_thread_helper_replays_the_conversation_when_the_thread_expired(client, double):
    thread = client.beta.messages.thread(model=MODEL, max_tokens=256, system=SYSTEM, tools=[TOOL])
    first = thread.send({"role": "user", "content": PARIS_QUESTION})
    (use,) = [block for block in first.content if block.type == "tool_use"]
    double.clock.advance(minutes=6)
    second = thread.send({"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id,
                                                       "content": "18°C"}]})
    assert "18" in second.content[-1].text
    statuses = [(r.status, r.body["thread"]["type"]) for r in double.requests[-3:]]
    assert statuses == [(200, "create"), (404, "continue"), (200, "create")]
    assert len(double.requests[-1].body["messages"]) == 3 and double.requests[-1].body["tools"]


def test_an_unknown_or_already_continued_id_gets_the_codes_the_sdk_replays_on(client, double):
    question, first, result = _tool_round(client)
    with pytest.raises(anthropic.NotFoundError) as unknown:
        _continue(client, "msg_nope_0001", result)
    assert unknown.value.body["error"]["details"]["error_code"] == "thread_not_found"
    _continue(client, first.id, result)
    with pytest.raises(anthropic.BadRequestError) as again:
        _continue(client, first.id, result)
    assert again.value.body["error"]["details"]["error_code"] == "thread_already_continued"


def test_a_continue_may_not_carry_system_or_tools_nor_name_anything_but_a_message(client, double):
    body = {"model": MODEL, "max_tokens": 64, "betas": [BETA], "system": SYSTEM, "tools": [TOOL],
            "messages": [{"role": "user", "content": "Hi"}],
            "thread": {"type": "continue", "previous_message_id": "toolu_01"}}
    assert [p.path for p in check_request(body, api="anthropic")] == [
        "thread.previous_message_id", "system", "tools"]
    first = _create(client, [{"role": "user", "content": "Hi"}])
    with pytest.raises(anthropic.BadRequestError) as caught:
        _continue(client, first.id, [{"role": "user", "content": "Bye"}], system=SYSTEM)
    assert caught.value.body["error"]["message"].startswith("system: must be left out")


def test_a_thread_without_the_beta_header_is_an_unknown_field(client, double):
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "Hi"}],
                               extra_body={"thread": {"type": "create"}})
    assert caught.value.body["error"]["message"] == "thread: Extra inputs are not permitted"
    assert check_request({"model": MODEL, "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}],
                          "thread": {"type": "create"}}, api="anthropic")[0].path == "thread"


# -- the kit's provider, opt-in -----------------------------------------------------------------
def _provider(double, **options):
    return AnthropicProvider(MODEL, base_url=double.base_url("anthropic"), api_key=SECRET, max_retries=0,
                             **options)


def test_the_provider_sends_the_whole_conversation_once_then_only_what_is_new(double):
    run = run_agent(_provider(double, thread=True), None, tools=[get_weather],
                    transcript=Transcript(SYSTEM, [Message.user(PARIS_QUESTION)]))
    assert "18" in run.answer
    created, continued = double.requests[-2:]
    assert created.body["thread"] == {"type": "create"} and created.body["system"] == SYSTEM
    # the reply the create was answered with is the one stored first
    assert continued.body["thread"] == {"type": "continue",
                                        "previous_message_id": next(iter(double._player.stored["anthropic"]))}
    assert len(continued.body["messages"]) == 1 and "tools" not in continued.body
    assert repr(_provider(double, thread=True)).endswith("thread=True)")


def test_the_provider_replays_the_whole_transcript_when_the_thread_expired(double):
    provider = _provider(double, thread=True)
    transcript = Transcript(SYSTEM, [Message.user(PARIS_QUESTION)])
    first = provider.complete(transcript, tools=[get_weather])
    transcript.append(first.message)
    transcript.append(_results(first))
    before = list(transcript.messages)
    double.clock.advance(minutes=6)
    second = provider.complete(transcript, tools=[get_weather])
    assert "18" in second.text and list(transcript.messages) == before
    assert second.request["thread"] == {"type": "create"} == provider.requests[-1].body["thread"]
    statuses = [(r.status, r.body["thread"]["type"], len(r.body["messages"])) for r in double.requests[-3:]]
    assert statuses == [(200, "create", 1), (404, "continue", 1), (200, "create", 3)]


def _results(turn):
    from toolcall_lab.tool import execute, tool_map

    return Message.results([execute(call, tool_map([get_weather])) for call in turn.tool_calls])


def test_a_changed_system_prompt_or_tool_list_starts_a_new_thread():
    """The thread keeps its create's system and tools: a conversation that changed either cannot
    continue it (the API would read the old ones), so it is sent whole, with a create."""
    first = threads.created({"model": MODEL, "max_tokens": 64, "system": SYSTEM, "tools": [TOOL],
                             "messages": [{"role": "user", "content": "Hi"}]})
    at = threads.after(first, "msg_01", [{"role": "assistant", "content": "Hello!"}])
    more = {**first, "messages": [*at.messages, {"role": "user", "content": "Bye"}]}
    assert threads.continued(more, at)["messages"] == [{"role": "user", "content": "Bye"}]
    assert threads.continued({**more, "system": "Be terse."}, at) is None
    assert threads.continued({**more, "tools": []}, at) is None
    assert threads.continued({key: value for key, value in more.items() if key != "tools"}, at) is None


def test_the_provider_without_the_option_sends_no_thread(double):
    run_agent(_provider(double), PARIS_QUESTION, tools=[get_weather])
    assert all("thread" not in r.body for r in double.requests)


def test_the_option_is_a_bool():
    with pytest.raises(TypeError):
        AnthropicProvider(MODEL, api_key=SECRET, thread="yes")


# -- the bill: the whole conversation the model reads ------------------------------------------
def test_a_continued_anthropic_request_bills_the_whole_conversation(client, double):
    question, first, result = _tool_round(client)
    threaded = _continue(client, first.id, result)
    replayed = client.messages.create(model=MODEL, max_tokens=256, system=SYSTEM, tools=[TOOL], messages=[
        *question, {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        *result])
    assert threaded.usage.input_tokens == replayed.usage.input_tokens > first.usage.input_tokens
    sizes = [len(json.dumps(r.body)) for r in double.requests[-2:]]
    assert sizes[0] < sizes[1]  # the upload shrank; the bill did not


def test_a_previous_response_id_request_bills_the_whole_conversation():
    openai = pytest.importorskip("openai")
    with ApiDouble(["The weather is fine.", "Tomorrow too.", "Tomorrow too."]) as double:
        client = openai.OpenAI(base_url=double.base_url("responses"), api_key=SECRET, max_retries=0)
        first = client.responses.create(model="gpt-5-mini", input=PARIS_QUESTION)
        chained = client.responses.create(model="gpt-5-mini", input="And tomorrow?",
                                          previous_response_id=first.id)
        whole = client.responses.create(model="gpt-5-mini", input=[
            {"role": "user", "content": PARIS_QUESTION},
            {"role": "assistant", "content": "The weather is fine."},
            {"role": "user", "content": "And tomorrow?"}])
    assert chained.usage.input_tokens == whole.usage.input_tokens > first.usage.input_tokens


# -- lesson 6 says it with the numbers its cells print -------------------------------------------
def test_lesson_6_prose_takes_its_numbers_from_the_thread_cells():
    from pathlib import Path

    lesson = Path(__file__).parents[1] / "notebooks" / "06_caching_and_threads.ipynb"
    cells = json.loads(lesson.read_text())["cells"]
    by_id = {cell["id"]: cell for cell in cells}
    printed = "".join("".join(out.get("text", "")) for out in by_id["th06"]["outputs"])
    rows = [line.split() for line in printed.splitlines()[1:7]]
    whole = [int(row[2].replace(",", "")) for row in rows]
    thread = [int(row[3]) for row in rows]
    billed = [(int(row[5]), int(row[6])) for row in rows]
    prose = "".join(by_id["th08"]["source"])
    assert f"from {whole[0]:,} bytes to {whole[-1]:,}" in prose
    assert f"stays at {thread[-1]:,}" in prose and len(set(thread[1:])) == 1
    assert f"billed {billed[-1][0]:,} input tokens either way" in prose and billed[-1][0] == billed[-1][1]
