"""The recorded streams the package ships (toolcall_lab.recorded), and the player that plays them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_display import theme_problems
from test_stream_fixtures import anthropic_events, chat_events, ollama_events, responses_events, terminated
from toolcall_lab import UsageError, wire
from toolcall_lab.checks import streaming_on_the_wire as key
from toolcall_lab.recorded import RECORDINGS, raw_events, timeline
from toolcall_lab.selfcheck import WrongAnswer, strict
from toolcall_lab.stream import StreamFinished
from toolcall_lab.views.widgets import stream_player

FIXTURES = Path(__file__).parent / "fixtures"
PACKAGED = Path(__file__).parents[1] / "src" / "toolcall_lab" / "data" / "streams"
SDK_EVENTS = {"anthropic": anthropic_events, "responses": responses_events, "chat": chat_events,
              "ollama": ollama_events}


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_each_packaged_stream_is_its_fixture_byte_for_byte(name):
    recording = RECORDINGS[name]
    assert recording.body == (FIXTURES / recording.file).read_bytes()
    assert recording.file in (PACKAGED / "SOURCES.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_the_kits_reader_gives_the_events_the_official_sdk_gives(name):
    # the SDK's own parser is the judge: the same events, field for field (the SDKs add
    # None for absent optional fields; compared through the kit's decoder, which reads both)
    recording = RECORDINGS[name]
    ours = list(wire.decode_stream(recording.events(), api=recording.api))
    body = recording.body if recording.api == "ollama" else terminated(recording.body)
    theirs = list(wire.decode_stream(SDK_EVENTS[recording.api](body), api=recording.api))
    assert [str(e) for e in ours] == [str(e) for e in theirs]
    assert isinstance(ours[-1], StreamFinished)


def test_raw_events_reads_an_unterminated_last_event():
    # the SDKs' SSE parsers drop it (an event is dispatched at a blank line); the recordings
    # copied from docs and SDK fixtures end without one, and the kit reads them whole
    body = RECORDINGS["anthropic_max_tokens"].body
    assert not body.endswith(b"\n\n") and raw_events(body, "anthropic")[-1] == {"type": "message_stop"}


def test_raw_events_reads_sse_and_ndjson_and_skips_done_and_comments():
    body = b': keep-alive\n\nevent: ping\ndata: {"type": "ping"}   \n\ndata: [DONE]\n\n'
    assert raw_events(body, "anthropic") == [{"type": "ping"}]
    assert raw_events(b'{"done": false}\n\n{"done": true}\n', "ollama") == [{"done": False}, {"done": True}]
    with pytest.raises(UsageError, match="unknown API"):
        raw_events(b"", "parts")


def test_timeline_puts_each_kit_event_beside_the_wire_event_it_came_from():
    steps = timeline(RECORDINGS["anthropic"].events(), "anthropic")
    kinds = [[e.kind for e in step.said] for step in steps]
    assert kinds[0] == [] and kinds[1] == ["tool_call_started"]
    assert kinds[-1] == ["stream_finished"] or "stream_finished" in kinds[-1]


def test_timeline_of_a_cut_stream_keeps_what_arrived_and_says_why_on_the_last_step():
    events = RECORDINGS["anthropic"].events()[:6]
    steps = timeline(events, "anthropic")
    assert len(steps) == 6 and "before message_stop" in steps[-1].problem
    assert not any(step.problem for step in steps[:-1])


def test_player_walks_each_wire_to_a_complete_reply():
    w = stream_player()
    for name in ("anthropic", "responses", "chat", "ollama"):
        w.wire.value = name
        assert w.slider.value == 1 and w.slider.max == len(RECORDINGS[name].events())
        assert "Not yet" in w.verdict.value
        w.slider.value = w.slider.max
        assert "Yes" in w.verdict.value and "parses as JSON" in w.arguments.value


def test_player_shows_partial_arguments_as_not_json_yet():
    w = stream_player(["chat"])
    w.slider.value = 5
    assert "not JSON yet" in w.arguments.value and "Run the tool now? Not yet" in w.verdict.value


def test_player_time_to_first_token_counts_events_at_its_pace():
    w = stream_player(["responses"], pace_ms=500)
    assert "event 3 of 14, 1.0 s at 500 ms an event" in w.first_token.value


def test_player_follows_the_theme_and_fits_its_repr():
    w = stream_player()
    for part in (w.raw, w.said, w.arguments, w.first_token, w.verdict):
        assert theme_problems(part.value) == []
    assert len(repr(w)) <= 110


def test_player_refuses_an_unknown_recording():
    with pytest.raises(UsageError, match="no recorded stream"):
        stream_player(["gemini"])


def test_the_key_refuses_the_kits_decoder_with_write_it_yourself():
    def borrowed(chunks):
        turn = list(wire.decode_stream(chunks, api="chat"))[-1].turn
        return [(c.id, c.name, json.dumps(dict(c.args))) for c in turn.tool_calls]

    with strict(), pytest.raises(WrongAnswer, match="write it yourself"):
        key.your_accumulator(borrowed)


def test_the_key_expects_what_the_official_sdk_accumulator_rebuilds():
    # the key's truth is the kit's decoder; here it is held to openai's own accumulator
    from openai.lib.streaming.chat import ChatCompletionStreamState

    for label, chunks in key.STREAMS:
        state = ChatCompletionStreamState()
        for chunk in chunks:
            state.handle_chunk(_chunk_model(chunk))
        message = state.current_completion_snapshot.choices[0].message
        sdk = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
        assert sdk == key._expected(chunks), label


def _chunk_model(chunk):
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    return construct_type(type_=ChatCompletionChunk, value=chunk)


def test_raw_events_reads_a_stream_as_the_apis_server_half_frames_it(monkeypatch):
    # issue 30: raw_events branched on the API's name ("ollama": NDJSON) and refused any other;
    # it asks the server half's stream headers, so a new API (here one served by Ollama's half) reads
    from toolcall_lab.wire import API_SPECS, ApiSpec

    monkeypatch.setitem(API_SPECS, "toy", ApiSpec("toy", "Toy", "/toy", "", "ollama", "toy-",
                                                  package="toolcall_lab.wire.ollama"))
    assert raw_events(b'{"done":false}\n{"done":true}\n', "toy") == [{"done": False}, {"done": True}]
    assert raw_events(RECORDINGS["ollama"].body, "toy") == RECORDINGS["ollama"].events()
    assert [r.name for r in RECORDINGS.values()] == list(RECORDINGS)  # each record carries its key
