"""Data lost or leaked in tapes (issue 29, section 5): each gets the right result or one clear error.

1. a secret the model repeats in a stream, cut across deltas, is redacted as the text assembles;
2. every well-known token shape is redacted wherever it sits in a body (after a line break too);
3. a stream framed with CR or CRLF keeps every event, and one that yields none says so;
4. concurrent calls through `recording()` keep every exchange on the tape.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SECRET
from test_stream_fixtures import anthropic_sdk
from toolcall_lab import Message, Transcript, call, get_provider, run_agent
from toolcall_lab._redact import TOKEN_SHAPES
from toolcall_lab.errors import MalformedResponseError, TapeError
from toolcall_lab.providers.anthropic import AnthropicProvider
from toolcall_lab.recorded import RECORDINGS
from toolcall_lab.tape import Tape, record
from toolcall_lab.wire._framing import events_of

SSE_RECORDINGS = sorted(name for name, recording in RECORDINGS.items() if recording.api != "ollama")

#: One made-up token of each well-known shape, (what comes before it, the token): built here, so
#: no token-shaped literal sits in the source.
SHAPED = {
    "OpenAI project key": ("", "sk-" + "proj-" + "A1b2C3d4_e5F6-g7H8" * 3),
    "OpenAI key, the old shape": ("", "sk-" + "T3BlbkFJ" + "a1B2c3D4e5F6" * 4),
    "Anthropic key": ("", "sk-" + "ant-api03-" + "Ab1_Cd2-Ef3gH4" * 6 + "-AA"),
    "AWS access key id": ("", "AK" + "IA" + "IOSFODNN7EXAMPLE"),
    "GitHub personal token": ("", "gh" + "p_" + "A1b2C3d4E5f6" * 3),
    "GitHub fine-grained token": ("", "github" + "_pat_" + "11ABCDEFG0" * 3 + "_" + "a1B2c3" * 9),
    "Hugging Face token": ("", "h" + "f_" + "aBcDeFgHiJ" * 3 + "kLmN"),
    "Google API key": ("", "AI" + "za" + "SyD-9tSrke72I6e0qOZVOtU5oBRBmBPUfhI"),
    "Slack bot token": ("", "xo" + "xb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    "Bearer token": ("Authorization: Bearer ", "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiI0MiJ9.c2lnbmVk-_x"),
}

# -- 2. every well-known token shape, wherever it sits in a body ------------------------------------
def test_every_token_shape_has_an_example_here():
    for shape in TOKEN_SHAPES:
        assert any(re.search(shape.pattern, lead + token) for lead, token in SHAPED.values()), shape.name


@pytest.mark.parametrize("shape", sorted(SHAPED))
def test_a_token_pasted_in_a_prompt_and_said_back_never_reaches_the_tape(shape, make_double, monkeypatch):
    """After a space, after a line break (written `\\n` in the JSON), in a call's arguments."""
    lead, token = SHAPED[shape]
    pasted = f"Keep these safe:\n{lead}{token}\tand {lead}{token}"
    double = make_double([[call("get_weather", city=f"Paris\n{lead}{token}")], f"I saw:\n{lead}{token}"])
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = get_provider("openai-chat", base_url=double.base_url("chat"))
    with record(provider) as recorder:
        from toolcall_lab.tools import get_weather

        run_agent(provider, pasted, tools=[get_weather])
    text = json.dumps(recorder.tape.to_dict(), ensure_ascii=False)
    assert token not in text
    assert recorder.tape.answer == f"I saw:\n{lead}[redacted]"
    assert f"Keep these safe:\\n{lead}[redacted]\\tand {lead}[redacted]" in text


# -- 3. a stream's framing: CR, CRLF and LF alike; never 0 events of a stream that had some -------
def _lines(body: bytes) -> list[bytes]:
    """The body's lines, with the blank line that ends its last event (the recordings drop it)."""
    return (body.rstrip(b"\n") + b"\n\n").split(b"\n")[:-1]


@settings(max_examples=60)
@given(name=st.sampled_from(SSE_RECORDINGS), data=st.data())
def test_an_sse_stream_reads_the_same_whatever_its_lines_end_with(name, data):
    """WHATWG's event stream grammar: `end-of-line = ( cr lf / cr / lf )`, mixed freely."""
    lines = _lines(RECORDINGS[name].body)
    ends = data.draw(st.lists(st.sampled_from([b"\n", b"\r\n", b"\r"]), min_size=len(lines),
                              max_size=len(lines)))
    for number in range(len(lines) - 1):
        # subtle: a CR, then a blank line ended by LF, is one CRLF: the grammar reads it so too
        if ends[number] == b"\r" and not lines[number + 1] and ends[number + 1].startswith(b"\n"):
            ends[number] = b"\r\n"
    framed = b"".join(line + end for line, end in zip(lines, ends, strict=True))
    assert events_of(framed) == RECORDINGS[name].events() != []


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_a_tape_keeps_every_event_of_a_stream_framed_with_cr_or_crlf(end):
    body = b"".join(line + end.encode() for line in _lines(RECORDINGS["anthropic"].body))
    provider = AnthropicProvider("claude-haiku-4-5", client=anthropic_sdk(body))
    with record(provider) as recorder:
        said = list(provider.stream(Transcript(messages=[Message.user("Weather in SF?")])))
    (exchange,) = recorder.tape.exchanges
    assert list(exchange.events) == RECORDINGS["anthropic"].events()
    assert Tape.from_dict(recorder.tape.to_dict()).exchanges[0].events == exchange.events
    assert said[-1].turn.message.tool_calls[0].name == "get_weather"


def test_an_ndjson_line_with_a_raw_line_separator_in_a_string_stays_one_event():
    body = '{"message": {"content": "a\u2028b\u0085c"}, "done": false}\n{"done": true}\n'.encode()
    assert events_of(body, lines=True) == [{"message": {"content": "a\u2028b\u0085c"}, "done": False},
                                           {"done": True}]


@pytest.mark.parametrize(("body", "lines"), [(b"data: not json\n\ndata: {oops\n\n", False),
                                             (b"<html>\n<body>busy</body>\n", True)])
def test_a_stream_whose_whole_events_all_read_as_nothing_is_one_clear_error(body, lines):
    with pytest.raises(MalformedResponseError, match=r"held no JSON object to read, so none could be kept; "
                                                     r"check that the server streams"):
        events_of(body, lines=lines)


@pytest.mark.parametrize("body", [b"", b": keep-alive\n\n", b"data: [DONE]\n\n", b'data: {"type": "mess'])
def test_a_stream_with_nothing_whole_to_read_is_no_events_and_no_error(body):
    """Comments, the end marker, and an event cut before its blank line carry nothing to keep."""
    assert events_of(body) == []


def test_a_recorded_stream_that_yields_no_event_is_a_tape_error_not_an_empty_exchange():
    provider = AnthropicProvider("claude-haiku-4-5", client=anthropic_sdk(b"data: {oops\n\n"))
    said = r"could not record the stream from /v1/messages: the stream's 1 whole event .* held no JSON object"
    with pytest.raises(TapeError, match=said), record(provider) as recorder:
        list(provider.stream(Transcript(messages=[Message.user("hi")])))
    assert recorder.tape.exchanges == ()


# -- 4. concurrent calls through recording(): every exchange on the tape ------------------------------
def test_concurrent_calls_through_recording_keep_every_exchange_on_the_tape(make_double, tmp_path,
                                                                           monkeypatch):
    """N calls at once through one recording provider: the saved tape holds all N. A disk that
    is slower for the earlier saves (the k-th of N waits (N - k) * 10 ms) makes sure of the
    race an unlocked save loses: a thread holding an older tape renames it over a newer one."""
    import threading
    import time

    from conftest import SECRET
    from toolcall_lab import get_provider
    from toolcall_lab.tape import recording

    calls = 8
    question = "Question {}: the weather in Paris?"
    save = Tape.save

    saves = iter(range(calls, 0, -1))  # subtle: next() of a range iterator is atomic in CPython

    def slow_save(self, path):
        time.sleep(next(saves, 0) * 0.01)  # s = (N - k) * 10 ms / 1000
        return save(self, path)

    monkeypatch.setattr(Tape, "save", slow_save)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    double = make_double()
    path = tmp_path / "class.tape.json"
    provider = recording(get_provider("openai-chat", base_url=double.base_url("chat")), path)
    start = threading.Barrier(calls, timeout=30)
    failed: list[BaseException] = []

    def ask(number: int) -> None:
        try:
            start.wait()
            provider.complete(Transcript(messages=[Message.user(question.format(number))]))
        except BaseException as exc:  # said by the assert below, in the test's own thread
            failed.append(exc)

    threads = [threading.Thread(target=ask, args=(number,), daemon=True) for number in range(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failed and not any(thread.is_alive() for thread in threads)
    asked = sorted(exchange.request["messages"][-1]["content"] for exchange in Tape.load(path).exchanges)
    assert asked == sorted(question.format(number) for number in range(calls))
