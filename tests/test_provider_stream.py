"""Providers stream, and so does the loop: through each real SDK, against the API double.

Every real provider's `stream()` goes through its SDK's own streaming call (anthropic
`messages.create(stream=True)`, openai `responses.create(stream=True)` and
`chat.completions.create(stream=True, stream_options={"include_usage": True})`, the ollama
client's streaming request) to a loopback `ApiDouble`, which plays the very reply it would
send unstreamed; the scripted provider streams its own turn. So on all five:

- a streamed run leaves exactly the transcript the unstreamed run leaves, turn by turn;
- the events arrive in order: a call's `ToolCallStarted` before its `ArgumentsDelta`s, each
  block's `BlockFinished` after its deltas, `StreamFinished` last, before `ReplyReceived`;
- a stream that breaks off (the double's "cut" mid-arguments, or its "stream_error" event,
  which the anthropic SDK raises as an `APIStatusError` with status 200) raises
  `IncompleteStreamError` in one sentence, leaves the transcript as it was and runs no tool;
- arguments that arrive as broken JSON become the usual is_error result.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from conftest import REAL_PROVIDERS, real_provider
from toolcall_lab import Message, ScriptedProvider, ToolCall, Transcript, call, get_provider, run_agent, tool
from toolcall_lab.errors import (
    IncompleteStreamError,
    ModelNotFoundError,
    ProviderError,
    ProviderUnreachableError,
    RateLimitError,
    TransientError,
    UsageTypeError,
)
from toolcall_lab.events import CallSent, ReplyReceived
from toolcall_lab.providers.openai_chat import LOCAL_SERVERS, OpenAIChatProvider
from toolcall_lab.stream import (
    ArgumentsDelta,
    BlockFinished,
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCallStarted,
    replay,
)
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import codec


@pytest.fixture
def make_double(make_in_process_double):
    """This file's doubles never serve: the SDKs reach them in-process (`real_provider`, `double=`)."""
    return make_in_process_double


PROVIDERS = [*REAL_PROVIDERS, "scripted"]
QUESTION = "What's the weather in Paris and Tōkyō?"
#: Words and two parallel calls, then the answer: text, calls and (where the API reasons) reasoning.
SCRIPT: list[Any] = [["Checking both cities.", call("get_weather", city="Paris"),
                      call("get_weather", city="Tōkyō")], "18°C and sunny in Paris, mild in Tōkyō."]


def provider_for(name: str, make_double: Any, script: list[Any], **options: Any) -> Any:
    """`name`'s provider: a real one through a fresh double playing `script`, or the scripted one."""
    if name == "scripted":
        return ScriptedProvider(list(script))
    double = make_double(list(script))
    return real_provider(name, double, **options)


def said(transcript: Transcript) -> list[tuple[Any, ...]]:
    """A transcript's content: who said what (each message's own id and time left out)."""
    return [(m.role, m.blocks, m.synthetic) for m in transcript.messages]


def comparable(turn: Any) -> tuple[Any, ...]:
    """A turn without what differs between a streamed and an unstreamed call (the bodies, the time)."""
    return turn.message.blocks, turn.stop_reason, turn.usage, turn.model


def spy() -> tuple[Any, list[str]]:
    """A weather tool that writes down every city it was run for."""
    ran: list[str] = []

    @tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        ran.append(city)
        return "18°C, sunny"

    return get_weather, ran


# -- streamed == unstreamed ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", PROVIDERS)
def test_a_streamed_run_leaves_the_transcript_the_unstreamed_run_leaves(name, make_double):
    runs = [run_agent(provider_for(name, make_double, SCRIPT), QUESTION, tools=[get_weather], stream=streamed)
            for streamed in (False, True)]
    plain, streamed = runs
    assert said(streamed.transcript) == said(plain.transcript)
    assert [comparable(s.turn) for s in streamed.steps] == [comparable(s.turn) for s in plain.steps]
    assert streamed.answer == "18°C and sunny in Paris, mild in Tōkyō."
    assert [len(s.results) for s in streamed.steps] == [2, 0]


def test_anthropic_thinking_streams_and_its_signature_goes_back_unchanged(make_double):
    """The double checks the signature it signed on the second call: a streamed one must be whole."""
    options = dict(model="claude-haiku-4-5", thinking=1024, max_tokens=4096)
    runs = [run_agent(provider_for("anthropic", make_double, SCRIPT, **options), QUESTION,
                      tools=[get_weather], stream=streamed) for streamed in (False, True)]
    assert said(runs[1].transcript) == said(runs[0].transcript)
    thinking = runs[1].transcript[1].blocks[0]
    assert thinking.kind == "reasoning" and thinking.opaque["signature"]
    assert runs[1].stop_reason == "end_turn"


@pytest.mark.parametrize("name", PROVIDERS)
def test_the_final_turn_is_the_unstreamed_turn_with_the_request_sent_and_the_raw_events(name, make_double):
    asked = Message.user(QUESTION)
    transcript = Transcript(messages=[asked])
    plain = provider_for(name, make_double, SCRIPT).complete(transcript, tools=[get_weather])
    provider = provider_for(name, make_double, SCRIPT)
    events = list(provider.stream(transcript, tools=[get_weather]))
    assert isinstance(events[-1], StreamFinished) and comparable(events[-1].turn) == comparable(plain)
    assert transcript.messages == [asked]  # the provider never touches it
    assert len(provider.requests) == 1
    if name != "scripted":
        turn = events[-1].turn
        assert turn.request["stream"] is True and provider.requests[0].body is turn.request
        raw = turn.response["events"]
        decoded_again = list(codec(REAL_PROVIDERS[name]).decode_stream(raw))[-1].turn
        assert decoded_again.message.blocks == plain.message.blocks


def test_chat_asks_for_the_usage_a_stream_otherwise_leaves_out(make_double):
    provider = provider_for("openai-chat", make_double, ["Hi!"])
    turn = list(provider.stream(Transcript(messages=[Message.user("Hi")])))[-1].turn
    assert turn.request["stream_options"] == {"include_usage": True}
    assert turn.usage.input_tokens > 0 and turn.usage.output_tokens > 0


# -- the order of events -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", PROVIDERS)
def test_stream_events_reach_on_event_in_order_between_call_sent_and_reply_received(name, make_double):
    seen: list[Any] = []
    run = run_agent(provider_for(name, make_double, SCRIPT), QUESTION, tools=[get_weather], stream=True,
                    on_event=seen.append)
    kinds = [event.kind for event in seen]
    assert kinds.count("call_sent") == kinds.count("stream_finished") == kinds.count("reply_received") == 2
    for step, turn in enumerate(s.turn for s in run.steps):
        start = [i for i, e in enumerate(seen) if isinstance(e, CallSent)][step]
        end = next(i for i, e in enumerate(seen) if isinstance(e, ReplyReceived) and i > start)
        streamed = seen[start + 1:end]
        assert isinstance(streamed[-1], StreamFinished) and streamed[-1].turn == turn
        assert_in_order(streamed[:-1], turn)


def assert_in_order(events: list[Any], turn: Any) -> None:
    """Each block starts before its deltas, finishes after them, once; the pieces join to the block."""
    started: dict[int, str] = {}
    finished: dict[int, Any] = {}
    said: dict[int, str] = {}
    for event in events:
        assert event.index not in finished, f"{event} after block {event.index} finished"
        match event:
            case ToolCallStarted():
                assert event.index not in started
                started[event.index] = "call"
            case ArgumentsDelta():
                assert started.get(event.index) == "call", f"{event} before its ToolCallStarted"
                said[event.index] = said.get(event.index, "") + event.json
            case TextDelta() | ReasoningDelta():
                started.setdefault(event.index, event.kind)
                said[event.index] = said.get(event.index, "") + event.text
            case BlockFinished():
                finished[event.index] = event.block
    assert sorted(finished) == list(range(len(turn.message.blocks)))
    assert sorted(finished.values(), key=repr) == sorted(turn.message.blocks, key=repr)
    for index, block in finished.items():
        if isinstance(block, ToolCall):
            assert json.loads(said[index]) == dict(block.args)
        elif block.kind == "text":
            assert said[index] == block.text


# -- early ends ------------------------------------------------------------------------------------------
def decoded(api: str, raw: list[dict[str, Any]]) -> list[Any]:
    """The kit's events for `raw`, as far as they go."""
    events: list[Any] = []
    try:
        events.extend(codec(api).decode_stream(raw))
    except IncompleteStreamError:
        pass
    return events


def mid_arguments(api: str, raw: list[dict[str, Any]]) -> int:
    """How many of the stream's first events end inside a call's arguments (after a first piece
    of them, before the call finished; Ollama's calls come whole, so there: just after one)."""
    for count in range(1, len(raw)):
        events = decoded(api, raw[:count])
        if any(isinstance(e, ArgumentsDelta) and e.json for e in events) and not any(
                isinstance(e, BlockFinished) and isinstance(e.block, ToolCall) for e in events):
            return count
    raise AssertionError(f"no call's arguments in the {api} stream")


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_a_stream_cut_mid_arguments_leaves_the_transcript_as_it_was_and_runs_no_tool(name, make_double):
    api = REAL_PROVIDERS[name]
    probe = real_provider(name, make_double(list(SCRIPT)))
    raw = list(probe.stream(Transcript(messages=[Message.user(QUESTION)]), tools=[get_weather]))[-1].turn
    arrived = mid_arguments(api, raw.response["events"])
    after = arrived + PINGS[api]  # the wire's events: the anthropic SDK hands no ping over

    double = make_double(list(SCRIPT))
    provider = real_provider(name, double)
    double.fail_next("cut", after=after)
    weather, ran = spy()
    transcript = Transcript(system="Be brief.", messages=[Message.user("Hi"), Message.assistant("Hello!")])
    before = list(transcript.messages)
    seen: list[Any] = []
    with pytest.raises(IncompleteStreamError) as raised:
        run_agent(provider, QUESTION, tools=[weather], transcript=transcript, stream=True,
                  on_event=seen.append)
    assert transcript.messages == before and ran == [] and provider.requests == []
    assert not any(isinstance(e, StreamFinished | ReplyReceived) for e in seen)
    said = str(raised.value)
    assert said.startswith(f"the stream ended after {arrived} events, before {_end(api)}: "), said
    assert said.endswith("nothing was added to the transcript and no tool ran: call again.")
    assert ("a whole get_weather call had arrived" if api == "ollama"
            else "get_weather's arguments were cut at") in said
    assert isinstance(raised.value, TransientError) and raised.value.events == arrived
    assert type(raised.value.__cause__).__name__ in ("RemoteProtocolError", "APIConnectionError")


#: The pings the double sends before a call's arguments (Anthropic's one, after the first block
#: starts, as in every recording); the anthropic SDK skips them (`_streaming.py`, `event: ping`).
PINGS = {"anthropic": 1, "responses": 0, "chat": 0, "ollama": 0}


def _end(api: str) -> str:
    return {"anthropic": "message_stop", "responses": "response.completed", "chat": "a finish_reason",
            "ollama": 'a line with "done": true'}[api]


WORDS = {"anthropic": "overloaded_error: Overloaded",
         "responses": "server_is_overloaded: The engine is currently overloaded",
         "chat": "The engine is currently overloaded",
         "ollama": "an error was encountered while running the model"}


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_an_error_event_mid_stream_is_an_incomplete_stream_in_the_servers_words(name, make_double):
    """The anthropic, openai (Chat) and ollama SDKs raise on the error event; the kit hands the
    event back to its decoder, which says the server's words and what had arrived."""
    api = REAL_PROVIDERS[name]
    double = make_double(list(SCRIPT))
    provider = real_provider(name, double)
    double.fail_next("stream_error", after=3)
    weather, ran = spy()
    asked = Message.user(QUESTION)
    transcript = Transcript(messages=[asked])
    with pytest.raises(IncompleteStreamError) as raised:
        run_agent(provider, None, tools=[weather], transcript=transcript, stream=True)
    said = str(raised.value)
    # 3 events and the error (counted too); the anthropic SDK skipped the ping among the 3
    events = 4 - PINGS[api]
    assert said.startswith(f"{codec(api).PROVIDER_NAME} sent an error after {events} events ("), said
    assert WORDS[api] in said and "nothing was added to the transcript and no tool ran" in said
    assert transcript.messages == [asked] and ran == []


def test_a_cut_in_a_later_step_keeps_the_steps_before_it(make_double):
    double = make_double(list(SCRIPT))
    provider = real_provider("openai-chat", double)
    weather, ran = spy()
    seen: list[Any] = []

    def cut_the_second_reply(event: Any) -> None:
        seen.append(event)
        if isinstance(event, CallSent) and event.step == 2:
            double.fail_next("cut", after=2)

    with pytest.raises(IncompleteStreamError) as raised:
        run_agent(provider, QUESTION, tools=[weather], stream=True, on_event=cut_the_second_reply)
    assert ran == ["Paris", "Tōkyō"]
    assert "model call 2 failed; the transcript is as it was before this call" in " ".join(
        raised.value.__notes__)


@pytest.mark.parametrize("name", REAL_PROVIDERS)
@pytest.mark.parametrize(("fault", "error"), [("rate_limit", RateLimitError),
                                              ("not_found", ModelNotFoundError)])
def test_a_failure_before_the_stream_begins_is_the_error_complete_raises(name, fault, error, make_double):
    """The ollama client sends its request only when the first line is asked for: the same errors."""
    raised = []
    for streamed in (False, True):
        double = make_double(list(SCRIPT))
        provider = real_provider(name, double, max_retries=0)
        double.fail_next(fault)
        with pytest.raises(ProviderError) as failed:
            transcript = Transcript(messages=[Message.user(QUESTION)])
            list(provider.stream(transcript)) if streamed else provider.complete(transcript)
        raised.append(failed.value)
    assert type(raised[1]) is type(raised[0])
    assert re.sub(r":\d+", ":port", str(raised[1])) == re.sub(r":\d+", ":port", str(raised[0]))
    assert isinstance(raised[1], error)


@pytest.mark.parametrize("name", ["openai", "openai-chat", "scripted"])
def test_arguments_that_arrive_as_broken_json_become_the_usual_error_result(name, make_double):
    """Only Responses and Chat carry arguments as text; Anthropic and Ollama send an object."""
    script = [ToolCall("", "get_weather", raw_args='{"city": "Par'), "Sorry."]
    weather, ran = spy()
    runs = [run_agent(provider_for(name, make_double, script), QUESTION, tools=[weather], stream=streamed)
            for streamed in (False, True)]
    assert said(runs[1].transcript) == said(runs[0].transcript) and ran == []
    (result,) = runs[1].steps[0].results
    assert result.is_error and "were not a valid JSON object" in result.content


# -- the loop's own rules ---------------------------------------------------------------------------------
def test_stream_needs_a_provider_with_a_stream_method():
    class Plain:
        name, model = "plain", "m"

        def complete(self, transcript: Transcript, *, tools: Any = ()) -> Any:
            raise AssertionError("never called")

    with pytest.raises(UsageTypeError, match="has no stream method"):
        run_agent(Plain(), "Hi", stream=True)
    with pytest.raises(UsageTypeError, match="stream must be True or False"):
        run_agent(ScriptedProvider(["Hi"]), "Hi", stream="yes")  # type: ignore[arg-type]


def test_a_raising_on_event_mid_stream_is_its_own_error_and_the_transcript_is_restored(make_double):
    provider = real_provider("anthropic", make_double(list(SCRIPT)))
    transcript = Transcript()

    def stop_at_the_first_arguments(event: Any) -> None:
        if isinstance(event, ArgumentsDelta):
            raise KeyError("seen enough")

    with pytest.raises(KeyError) as raised:
        run_agent(provider, QUESTION, tools=[get_weather], transcript=transcript, stream=True,
                  on_event=stop_at_the_first_arguments)
    assert not any("model call 1 failed" in note for note in getattr(raised.value, "__notes__", []))
    assert transcript.messages == [] and provider.requests == []


def test_a_stream_that_ends_without_stream_finished_gives_no_turn():
    class Unfinished(ScriptedProvider):
        def stream(self, transcript: Transcript, **options: Any) -> Any:
            yield TextDelta(0, "Hi")

    transcript = Transcript()
    with pytest.raises(IncompleteStreamError, match="ended without StreamFinished"):
        run_agent(Unfinished(["Hi"]), "Hello", transcript=transcript, stream=True)
    assert transcript.messages == []


def test_replay_cuts_a_malformed_call_as_it_arrived():
    turn = ScriptedProvider([ToolCall("", "get_weather", raw_args='{"city": "Par')]).complete(Transcript())
    pieces = [e.json for e in replay(turn) if isinstance(e, ArgumentsDelta)]
    assert pieces == ['{"ci', 'ty":', ' "Pa', 'r'] and "".join(pieces) == turn.tool_calls[0].raw_args


def test_a_responses_stream_that_ends_failed_is_an_incomplete_stream(make_double):
    double = make_double(list(SCRIPT))
    provider = real_provider("openai", double)
    double.fail_next("stream_failed", after=3)
    asked = Message.user(QUESTION)
    transcript = Transcript(messages=[asked])
    failed = r"^openai sent an error after 4 events \(response\.failed"
    with pytest.raises(IncompleteStreamError, match=failed):
        run_agent(provider, None, tools=[get_weather], transcript=transcript, stream=True)
    assert transcript.messages == [asked] and provider.requests == []


# -- local servers ------------------------------------------------------------------------------------------
CHAT_SERVERS = list(LOCAL_SERVERS)  # the Chat provider's presets


@pytest.mark.parametrize("server", CHAT_SERVERS)
def test_each_local_chat_server_streams_the_run_it_answers_unstreamed(server, make_double):
    """Each server's own stream (Ollama /v1's whole calls, vLLM's name-only opening, ...;
    `wire.flavours`), read through the openai SDK: the same transcript as unstreamed."""
    runs = []
    for streamed in (False, True):
        double = make_double(list(SCRIPT), flavour=server)
        provider = OpenAIChatProvider(preset=server, double=double, parallel_tool_calls=True)
        runs.append(run_agent(provider, QUESTION, tools=[get_weather], stream=streamed))
    assert said(runs[1].transcript) == said(runs[0].transcript)
    assert [comparable(s.turn) for s in runs[1].steps] == [comparable(s.turn) for s in runs[0].steps]


@pytest.mark.parametrize("server", CHAT_SERVERS)
def test_an_error_mid_stream_on_a_local_server_is_an_incomplete_stream(server, make_double):
    double = make_double(list(SCRIPT), flavour=server)
    provider = OpenAIChatProvider(preset=server, double=double)
    double.fail_next("stream_error", after=3)
    transcript = Transcript()
    with pytest.raises(IncompleteStreamError, match="sent an error after") as raised:
        run_agent(provider, QUESTION, tools=[get_weather], transcript=transcript, stream=True)
    assert transcript.messages == [] and "no tool ran" in str(raised.value)


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_nothing_answering_is_the_unreachable_error_not_a_broken_stream(name):
    """The ollama client connects only when the first line is asked for: still "nothing answers"."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again when the block ends: nothing listens there
    if name == "ollama":
        pytest.importorskip("ollama")
    base = f"http://127.0.0.1:{port}" + ("" if name in ("ollama", "anthropic") else "/v1")
    provider = get_provider(name, base_url=base, max_retries=0)
    with pytest.raises(ProviderUnreachableError, match=f"nothing answers at {base}"):
        list(provider.stream(Transcript(messages=[Message.user("Hi")])))


@pytest.mark.parametrize("name", REAL_PROVIDERS)
def test_a_streamed_run_recorded_on_a_tape_replays_streamed_with_no_server(name, make_double):
    from toolcall_lab.tape import record, replay

    double = make_double(list(SCRIPT))
    provider = real_provider(name, double)
    recorded: list[Any] = []
    with record(provider) as recorder:
        first = run_agent(provider, QUESTION, tools=[get_weather], stream=True, on_event=recorded.append)
    double.stop()
    seen: list[Any] = []
    again = run_agent(replay(recorder.tape), QUESTION, tools=[get_weather], stream=True, on_event=seen.append)
    assert said(again.transcript) == said(first.transcript)
    # the same stream events again, piece by piece, not one reply cut up afresh
    assert [str(e) for e in seen if not isinstance(e, StreamFinished | ReplyReceived)] == [
        str(e) for e in recorded if not isinstance(e, StreamFinished | ReplyReceived)]
